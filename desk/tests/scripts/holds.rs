//! Holds: one live hold a buyer, replays of an idempotent hold, and every
//! hold, owner and replay surviving a restart.

use crate::{check, check_with};
use desk::{RateLimit, Settings};

#[test]
fn a_buyer_holds_reads_and_releases_and_nobody_else_can() {
    check(
        r"
        @0 hold ana h1 A1 A2          => 201 held A1 A2 until 300000; push 1
        @0 map                        => hhaaaaaa
        @10 get ana h1                => held A1 A2 left 299990
        @10 get bob h1                => 404 hold_not_found
        @10 release bob h1            => 404 hold_not_found
        @20 hold ana h2 A3            => 409 already_holding
        @30 release ana h1            => 204; push 2
        @30 get ana h1                => released A1 A2
        @40 hold bob h3 A2 A3         => 201 held A2 A3 until 300040; push 3
        @50 hold ana h4 A3 A4         => 409 seats_unavailable
        ",
    );
}

#[test]
fn a_hold_expires_on_the_alarm_and_its_buyer_is_told() {
    check(
        r"
        @0 hold ana h1 A1             => 201 held A1 until 300000; push 1
        @0 next                       => Some(300000)
        @300000 alarm                 => push 2
        @300000 next                  => None
        @300001 get ana h1            => expired A1
        @300001 map                   => aaaaaaaa
        @300002 hold ana h2 A1        => 201 held A1 until 600002; push 3
        ",
    );
}

#[test]
fn an_idempotent_hold_is_answered_once_even_across_a_restart() {
    check(
        r"
        @0 hold ana h1 key=k1 A1 A2   => 201 held A1 A2 until 300000; push 1
        @5 hold ana h2 key=k1 A1 A2   => replayed 201
        @6 restart                    => restarted
        @7 hold ana h3 key=k1 A1 A2   => replayed 201; push 1
        @8 hold ana h4 key=k1 A3      => 422 idempotency_key_reused
        @9 hold bob h5 key=k2 A1      => 409 seats_unavailable
        @10 hold bob h6 key=k2 A1     => replayed 409
        @11 get ana h1                => held A1 A2 left 299989
        ",
    );
}

#[test]
fn a_refusal_that_depends_on_the_body_alone_is_not_kept_for_its_key() {
    check(
        r"
        @0 hold ana h1 key=k1 A1 A1   => 400 duplicate_seats
        @1 hold ana h2 key=k1 A1      => 201 held A1 until 300001; push 1
        @2 hold bob h3 key=k2 A2:vip  => 400 unknown_price
        @3 hold bob h4 key=k2 A2      => 201 held A2 until 300003; push 2
        @4 hold cai h5 key=k3 A1      => 409 seats_unavailable
        @5 rows idempotency           => 3
        @6 hold cai h6 key=k3 A1      => replayed 409
        ",
    );
}

#[test]
fn a_key_is_replayed_only_to_its_buyer_and_never_past_the_rate() {
    check_with(
        Settings {
            hold_rate: RateLimit {
                burst: 3,
                per_minute: 1,
                seats_held: 20,
            },
            ..Settings::default()
        },
        r"
        @0 hold ana h1 key=k1 A1 A2   => 201 held A1 A2 until 300000; push 1
        @1 hold bob h2 key=k1 A1 A2   => 409 idempotency_key_in_use
        @2 hold bob h3 key=k1 A9      => 409 idempotency_key_in_use
        @3 hold ana h4 key=k1 A1 A2   => 429 rate_limited retry 60
        @4 get bob h1                 => 404 hold_not_found
        ",
    );
}

#[test]
fn holds_owners_and_ended_holds_survive_a_restart() {
    check(
        r"
        @0 hold ana h1 A1             => 201 held A1 until 300000; push 1
        @0 hold bob h2 A2             => 201 held A2 until 300000; push 2
        @10 release bob h2            => 204; push 3
        @20 restart                   => restarted
        @20 map                       => haaaaaaa; push 3
        @30 get ana h1                => held A1 left 299970
        @30 get bob h2                => released A2
        @40 hold ana h3 A3            => 409 already_holding
        @3600011 alarm                => push 4
        @3600012 get bob h2           => 404 hold_not_found
        @3600012 rows hold_owners     => 1
        ",
    );
}

/// Cancelling releases the holds not yet paying; a checkout already paying
/// gets no seats: its authorization is voided and the order goes to staff.
#[test]
fn a_cancelled_showing_sells_nothing_more_and_stays_cancelled() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @0 hold bob h2 A2                      => 201 held A2 until 300000; push 2
        @5 checkout bob h2 cnon:ok             => o1 pending settling; square Post /v2/payments, push 3
        @10 cancel                             => cancelled now at 10; push 4
        @11 cancel                             => cancelled at 10
        @12 get ana h1                         => released A1
        @12 map                                => ahaaaaaa
        @13 hold cy h3 A3                      => 409 showing_cancelled
        @14 checkout ana h1 cnon:ok            => 409 showing_cancelled
        @15 checkout bob h2 cnon:ok            => o1 pending settling
        @20 perform o1 payment p1 APPROVED     => square Post /v2/payments/p1/cancel
        @21 perform o1 payment p1 CANCELED     => store final needs_attention
        @22 status o1                          => o1 needs_attention settling
        @22 map                                => ahaaaaaa
        @30 restart                            => restarted
        @31 cancel                             => cancelled at 10; push 4
        @32 hold cy h4 A4                      => 409 showing_cancelled
        ",
    );
}

#[test]
fn holds_are_made_only_while_sales_are_open_and_a_hold_made_in_time_is_paid_after() {
    check(
        r"
        @0 window 100 1000            => Configured { relayout: false }
        @99 hold ana h1 A1            => 409 sales_not_open
        @99 map                       => aaaaaaaa
        @100 hold ana h1 A1           => 201 held A1 until 300100; push 1
        @1000 hold bob h2 A2          => 409 sales_closed
        @1000 map                     => haaaaaaa
        @1001 checkout ana h1 cnon:ok => o1 pending settling; square Post /v2/payments, push 2
        ",
    );
}

#[test]
fn each_seat_is_priced_by_its_category_when_held_and_keeps_that_price() {
    check(
        r"
        @0 hold ana h1 A1 A2:child     => 201 held A1 A2 until 300000; push 1
        @1 priced ana h1               => A1 adult 1200, A2 child 800 = 2000
        @2 hold bob h2 A3:senior       => 400 unknown_price
        @2 hold bob h2 A3 A4:child A5:adult => 201 held A3 A4 A5 until 300002; push 2
        @3 map                         => hhhhhaaa
        @4 prices adult=1500 child=900 => Configured { relayout: false }
        @5 priced ana h1               => A1 adult 1200, A2 child 800 = 2000
        @6 restart                     => restarted
        @7 priced bob h2               => A3 adult 1200, A4 child 800, A5 adult 1200 = 3200
        @8 checkout ana h1 cnon:ok     => o1 pending settling; square Post /v2/payments, push 3
        @8 charged o1                  => 2000
        @9 release bob h2              => 204; push 4
        @10 hold cy h3 A6 A7:child     => 201 held A6 A7 until 300010; push 5
        @11 priced cy h3               => A6 adult 1500, A7 child 900 = 2400
        ",
    );
}

#[test]
fn a_wheelchair_space_sold_at_the_box_office_is_refused_online_and_sold_at_the_desk() {
    check(
        r"
        @0 hold ana h1 A7 A8            => 409 box_office_only
        @0 map                          => aaaaaaaa
        @1 desk d1 comp A8              => 400 invalid_sale
        @1 desk d1 cash reason=why A8   => 400 invalid_sale
        @2 desk d1 cash A7 A8           => o1 pending settling; store order, push 3
        @3 hold bob h2 A7               => 409 seats_unavailable
        ",
    );
}
