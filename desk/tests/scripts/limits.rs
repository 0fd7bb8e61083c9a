//! The per-address hold rate, kept as rows so an object evicted between
//! tries forgets nothing.

use crate::{check, check_with};
use desk::{RateLimit, Settings};

#[test]
fn an_address_gets_a_burst_of_holds_then_one_a_rate_even_across_a_restart() {
    let settings = Settings {
        hold_rate: RateLimit {
            burst: 2,
            per_minute: 6,
            seats_held: 20,
        },
        ..Settings::default()
    };
    check_with(
        settings,
        r"
        @0 hold ana h1 from=9.9.9.9 A1    => 201 held A1 until 300000; push 1
        @1 release ana h1                 => 204; push 2
        @2 restart                        => restarted
        @3 hold ana h2 from=9.9.9.9 A1    => 201 held A1 until 300003; push 3
        @4 release ana h2                 => 204; push 4
        @5 hold ana h3 from=9.9.9.9 A1    => 429 rate_limited retry 10
        @6 hold bob h4 from=8.8.8.8 A1    => 201 held A1 until 300006; push 5
        @10000 hold ana h5 from=9.9.9.9 A2 => 201 held A2 until 310000; push 6
        ",
    );
}

#[test]
fn a_hold_bucket_is_stored_from_half_its_burst_so_a_restart_forgives_at_most_that() {
    let settings = Settings {
        hold_rate: RateLimit {
            burst: 4,
            per_minute: 6,
            seats_held: 20,
        },
        ..Settings::default()
    };
    // Stored from the second hold on: the restart forgives nothing.
    check_with(
        settings.clone(),
        r"
        @0 hold ana h1 from=9.9.9.9 A1    => 201 held A1 until 300000; push 1
        @0 rows rate_buckets              => 0
        @1 hold bob h2 from=9.9.9.9 A2    => 201 held A2 until 300001; push 2
        @1 rows rate_buckets              => 1
        @2 restart                        => restarted
        @3 hold cy  h3 from=9.9.9.9 A3    => 201 held A3 until 300003; push 3
        @4 hold dee h4 from=9.9.9.9 A4    => 201 held A4 until 300004; push 4
        @5 hold eve h5 from=9.9.9.9 A5    => 429 rate_limited retry 10
        ",
    );
    // A restart before then forgives the one hold that was not stored.
    check_with(
        settings,
        r"
        @0 hold ana h1 from=9.9.9.9 A1    => 201 held A1 until 300000; push 1
        @1 restart                        => restarted
        @2 hold bob h2 from=9.9.9.9 A2    => 201 held A2 until 300002; push 2
        @3 hold cy  h3 from=9.9.9.9 A3    => 201 held A3 until 300003; push 3
        @4 hold dee h4 from=9.9.9.9 A4    => 201 held A4 until 300004; push 4
        @5 hold eve h5 from=9.9.9.9 A5    => 201 held A5 until 300005; push 5
        @6 hold fay h6 from=9.9.9.9 A6    => 429 rate_limited retry 10
        ",
    );
}

#[test]
fn three_cards_a_hold_then_the_buyer_waits_for_the_hold_to_end() {
    check(
        r"
        @0 hold ana h1 A1                       => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:bad1           => o1 pending settling; square Post /v2/payments, push 2
        @11 perform o1 declined GENERIC_DECLINE => store final declined
        @12 perform o1 stored                   =>
        @20 checkout ana h1 cnon:bad2           => o2 pending settling; square Post /v2/payments
        @21 perform o2 declined CVV_FAILURE     => store final declined
        @22 perform o2 stored                   =>
        @30 checkout ana h1 cnon:bad3           => o3 pending settling; square Post /v2/payments
        @31 perform o3 declined GENERIC_DECLINE => store final declined
        @32 perform o3 stored                   =>
        @40 checkout ana h1 cnon:ok             => 429 too_many_attempts retry 600
        @41 checkout ana h1 cnon:bad3           => o3 declined
        ",
    );
}

#[test]
fn an_address_and_a_buyer_get_a_budget_of_cards_an_hour() {
    let settings = Settings {
        card_limit: desk::CardLimit {
            burst: 2,
            per_hour: 1,
        },
        ..Settings::default()
    };
    check_with(
        settings,
        r"
        @0 hold ana h1 A1                       => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:bad1           => o1 pending settling; square Post /v2/payments, push 2
        @11 perform o1 declined GENERIC_DECLINE => store final declined
        @12 perform o1 stored                   =>
        @20 checkout ana h1 cnon:bad2           => o2 pending settling; square Post /v2/payments
        @21 perform o2 declined GENERIC_DECLINE => store final declined
        @22 perform o2 stored                   =>
        @30 checkout ana h1 cnon:ok             => 429 too_many_attempts retry 3600
        @30 rows rate_buckets                   => 2
        ",
    );
}

#[test]
fn one_network_holds_at_most_its_cap_of_seats_whatever_its_buyers_even_across_a_restart() {
    let settings = Settings {
        hold_rate: RateLimit {
            seats_held: 3,
            ..RateLimit::default()
        },
        ..Settings::default()
    };
    check_with(
        settings,
        r"
        @0 hold ana h1 from=2001:db8::/64 A1 A2  => 201 held A1 A2 until 300000; push 1
        @1 hold bob h2 from=2001:db8::/64 A3 A4  => 429 too_many_seats_held retry 300
        @2 hold bob h3 from=2001:db8::/64 A3     => 201 held A3 until 300002; push 2
        @3 restart                               => restarted
        @4 hold cy h4 from=2001:db8::/64 A4      => 429 too_many_seats_held retry 300; push 2
        @5 hold cy h5 from=2001:db9::/64 A4 A5   => 201 held A4 A5 until 300005; push 3
        @6 release ana h1                        => 204; push 4
        @7 hold dan h6 from=2001:db8::/64 A1 A2  => 201 held A1 A2 until 300007; push 5
        ",
    );
}
