//! The waiting list of a sold-out showing: seats that come back are held
//! for the first person they fit, in the same decision, and mailed as an
//! offer; an offer unclaimed or unpaid lapses to the next person. The
//! showing's eight seats are one row; A8 is sold at the box office only,
//! so seven are for sale online.

use crate::check;

#[test]
fn returned_seats_go_to_the_first_they_fit_and_a_lapsed_offer_to_the_next() {
    check(
        r"
        @0 hold ana h1 from=1.0.0.1 A1 A2 A3 A4 => 201 held A1 A2 A3 A4 until 300000; push 1
        @1 waitlist w0 cat@example.com 2        => 409 seats_available available=2
        @2 hold bob h2 from=1.0.0.2 A5 A6 A7    => 201 held A5 A6 A7 until 300002; push 2
        @3 waitlist w1 cat@example.com 4        => w1 1 for 4
        @4 waitlist w2 dan@example.com 2        => w2 2 for 2
        @5 waitlist w3 Cat@Example.com 1        => w1 1 for 4 again
        @6 waitlist w3 eve@example.com 1        => w3 3 for 1
        @7 release bob h2                       => 204; offer A5 A6 to w2, offer A7 to w3, push 5
        @8 map                                  => hhhhhhha
        @9 waiting                              => w1 waiting, w2 offered A5 A6 until 1800007, w3 offered A7 until 1800007
        @10 claim w2 dan key=w3                 => 404 not_found
        @11 claim w2 dan                        => 201 held A5 A6 until 300011; push 6
        @12 claim w2 dan                        => 409 offer_ended state=claimed
        @13 waiting                             => w1 waiting, w2 offered A5 A6 until 300011 claimed, w3 offered A7 until 1800007
        @300000 alarm                           => offer A1 A2 A3 A4 to w1, push 8
        @1800007 alarm                          => push 9
        @1800008 waiting                        => w1 offered A1 A2 A3 A4 until 2100000, w2 lapsed A5 A6, w3 lapsed A7
        @1800009 claim w3 eve                   => 409 offer_ended state=ended
        @1800010 map                            => hhhhaaaa
        ",
    );
}

#[test]
fn an_offer_claimed_and_paid_is_bought_and_survives_a_restart_on_the_way() {
    check(
        r"
        @0 hold ana h1 from=1.0.0.1 A1 A2 A3 A4 => 201 held A1 A2 A3 A4 until 300000; push 1
        @1 hold bob h2 from=1.0.0.2 A5 A6 A7    => 201 held A5 A6 A7 until 300001; push 2
        @2 waitlist w1 cat@example.com 2        => w1 1 for 2
        @3 release ana h1                       => 204; offer A1 A2 to w1, push 4
        @4 hold dan h3 from=1.0.0.3 A3          => 201 held A3 until 300004; push 5
        @5 claim w1 dan                         => 409 already_holding
        @6 claim w1 cat                         => 201 held A1 A2 until 300006; push 6
        @7 restart                              => restarted
        @8 waiting                              => w1 offered A1 A2 until 300006 claimed; push 6
        @10 checkout cat w1cat cnon:ok          => o1 pending settling; square Post /v2/payments, push 7
        @20 perform o1 payment p1 APPROVED      => store order, push 8
        @30 perform o1 stored                   => square Post /v2/payments/p1/complete
        @40 perform o1 payment p1 COMPLETED     => store paid, push 9
        @50 perform o1 stored                   =>
        @60 waiting                             => w1 bought A1 A2
        @61 map                                 => sshahhha
        ",
    );
}

#[test]
fn one_network_waits_four_times_at_most_and_no_offer_is_made_once_sales_close() {
    check(
        r"
        @0 hold ana h1 from=1.0.0.1 A1 A2 A3 A4     => 201 held A1 A2 A3 A4 until 300000; push 1
        @1 hold bob h2 from=1.0.0.2 A5 A6 A7        => 201 held A5 A6 A7 until 300001; push 2
        @2 waitlist w1 a@example.com 1 from=9.9.9.9 => w1 1 for 1
        @3 waitlist w2 b@example.com 1 from=9.9.9.9 => w2 2 for 1
        @4 waitlist w3 c@example.com 1 from=9.9.9.9 => w3 3 for 1
        @5 waitlist w4 d@example.com 1 from=9.9.9.9 => w4 4 for 1
        @6 waitlist w5 e@example.com 1 from=9.9.9.9 => 429 rate_limited
        @7 waitlist w5 e@example.com 0              => 400 invalid_waitlist
        @8 waitlist w5 e@example.com 5              => 400 invalid_waitlist
        @9 waitlist w5 nobody 1                     => 400 invalid_waitlist
        @10 window 0 100                            => Configured { relayout: false }
        @200 release bob h2                         => 204; push 3
        @201 waiting                                => w1 waiting, w2 waiting, w3 waiting, w4 waiting
        ",
    );
}
