//! Whole journeys through the ledger: buying, paying slowly, lapsing,
//! refunding, and the clock misbehaving.

use crate::{check, check_with};
use ledger::Config;

#[test]
fn a_purchase_from_hold_to_sale() {
    check(
        r"
        @0 hold h1 A1 A2               => held A1 A2 until 300000
        @0 next                        => Some(300000)
        @0 map                         => hhaaaaaa
        @1000 pay h1                   => Started { expires_at_ms: 600000 }
        @2000 pay h1                   => AlreadyPaying { expires_at_ms: 600000 }
        @0 next                        => Some(600000)
        @400000 commit h1 o1 A1 A2     => Committed { hold_had_lapsed: false }
        @400000 next                   => None
        @400000 state A1               => Some(Pending(OrderId(o1)))
        @400000 map                    => ssaaaaaa
        @900000 confirm o1             => Confirmed
        @900001 confirm o1             => AlreadyConfirmed
        @900002 commit h1 o1 A1 A2     => AlreadyCommitted
        @900002 state A2               => Some(Sold(OrderId(o1)))
        ",
    );
}

#[test]
fn a_pending_order_never_expires_and_abandon_returns_its_seats() {
    check(
        r"
        @0 hold h1 A1                  => held A1 until 300000
        @0 commit h1 o1 A1             => Committed { hold_had_lapsed: false }
        @99000000 sweep                => swept []
        @99000000 state A1             => Some(Pending(OrderId(o1)))
        @99000000 abandon o1           => Abandoned
        @99000001 abandon o1           => AlreadyAbandoned
        @99000001 map                  => aaaaaaaa
        ",
    );
}

#[test]
fn a_lapsed_hold_commits_if_its_seats_are_still_free() {
    check(
        r"
        @0 hold h1 A1 A2               => held A1 A2 until 300000
        @0 hold h2 A3                  => held A3 until 300000
        @300000 commit h1 o1 A1 A2     => Committed { hold_had_lapsed: true }
        @300000 commit h2 o2 A3        => Committed { hold_had_lapsed: true }
        @300000 map                    => sssaaaaa
        ",
    );
}

#[test]
fn payment_extends_a_hold_only_once_and_only_from_its_start() {
    check(
        r"
        @0 hold h1 A1                  => held A1 until 300000
        @299999 pay h1                 => Started { expires_at_ms: 600000 }
        @599999 state A1               => Some(Held(HoldId(h1)))
        @600000 pay h1                 => HoldNotFound
        @600000 map                    => aaaaaaaa
        ",
    );
}

#[test]
fn a_clock_that_goes_backwards_never_revives_a_hold() {
    check(
        r"
        @1000 hold h1 A1               => held A1 until 301000
        @301000 hold h2 A2             => held A2 until 601000
        @5000 pay h1                   => HoldNotFound
        @5000 hold h3 A3               => held A3 until 601000
        @5000 hold h4 A1               => held A1 until 601000
        ",
    );
}

#[test]
fn refunds_are_per_seat_and_repeats_are_harmless() {
    check(
        r"
        @0 hold h1 A1 A2 A3            => held A1 A2 A3 until 300000
        @0 commit h1 o1 A1 A2 A3       => Committed { hold_had_lapsed: false }
        @0 confirm o1                  => Confirmed
        @0 void o1 A2                  => voided A2
        @0 void o1 A2                  => AlreadyVoided
        @0 hold h2 A2                  => held A2 until 300000
        @0 void o1 A2 A3               => voided A3
        @0 map                         => shaaaaaa
        @0 void o1 A1 A2 A3            => voided A1
        @0 void o1 A1                  => AlreadyVoided
        @0 confirm o1                  => AlreadyConfirmed
        @0 abandon o1                  => OrderConfirmed
        ",
    );
}

#[test]
fn closed_orders_are_remembered_up_to_the_limit() {
    let config = Config {
        max_closed_orders: 1,
        ..Config::default()
    };
    check_with(
        config,
        &["A1", "A2"],
        &[],
        r"
        @0 hold h1 A1                  => held A1 until 300000
        @0 commit h1 o1 A1             => Committed { hold_had_lapsed: false }
        @0 abandon o1                  => Abandoned
        @0 abandon o1                  => AlreadyAbandoned
        @0 hold h2 A2                  => held A2 until 300000
        @0 commit h2 o2 A2             => Committed { hold_had_lapsed: false }
        @0 abandon o2                  => Abandoned
        @0 abandon o1                  => OrderNotFound
        @0 abandon o2                  => AlreadyAbandoned
        ",
    );
}

#[test]
fn the_sweep_limit_never_lets_an_expired_hold_decide() {
    let config = Config {
        max_released_per_sweep: 1,
        max_live_holds: 3,
        ..Config::default()
    };
    check_with(
        config,
        &["A1", "A2", "A3", "A4"],
        &[],
        r"
        @0 hold h1 A1                  => held A1 until 300000
        @0 hold h2 A2                  => held A2 until 300000
        @0 hold h3 A3                  => held A3 until 300000
        @0 hold h4 A4                  => TooManyLiveHolds { max: 3 }
        @300000 state A2               => Some(Held(HoldId(h2)))
        @300000 hold h2 A2             => held A2 until 600000
        @300000 map                    => ahha
        @300000 next                   => Some(300000)
        @300000 hold h4 A4             => held A4 until 600000
        @300000 sweep                  => swept []
        @300000 map                    => ahah
        ",
    );
}

#[test]
fn a_sold_seat_moves_to_a_free_one_in_one_call() {
    check(
        r"
        @0 hold h1 A1 A2               => held A1 A2 until 300000
        @0 commit h1 o1 A1 A2          => Committed { hold_had_lapsed: false }
        @0 move o1 A1 A5               => OrderNotConfirmed
        @0 confirm o1                  => Confirmed
        @10 hold h2 A6                 => held A6 until 300010
        @20 move o1 A1 A6              => SeatUnavailable { seat: A6 }
        @20 move o1 A1 A2              => SeatUnavailable { seat: A2 }
        @20 move o1 A1 Z9              => UnknownSeat { seat: Z9 }
        @20 move o1 A3 A5              => SeatNotInOrder { seat: A3 }
        @20 move o2 A1 A5              => OrderNotFound
        @20 map                        => ssaaahaa
        @30 move o1 A1 A5              => moved A1 to A5
        @30 map                        => asaashaa
        @30 state A5                   => Some(Sold(OrderId(o1)))
        @40 move o1 A1 A7              => SeatNotInOrder { seat: A1 }
        @300010 move o1 A5 A6          => moved A5 to A6
        @300010 map                    => asaaasaa
        @300020 void o1 A2 A6          => voided A2 A6
        @300020 map                    => aaaaaaaa
        @300020 move o1 A6 A1          => SeatNotInOrder { seat: A6 }
        ",
    );
}

#[test]
fn a_seat_moves_back_onto_one_its_order_had_refunded() {
    check(
        r"
        @0 hold h1 A1 A2               => held A1 A2 until 300000
        @0 commit h1 o1 A1 A2          => Committed { hold_had_lapsed: false }
        @0 confirm o1                  => Confirmed
        @10 void o1 A2                 => voided A2
        @20 move o1 A1 A2              => moved A1 to A2
        @20 map                        => asaaaaaa
        @30 void o1 A1                 => AlreadyVoided
        @30 void o1 A2                 => voided A2
        @30 map                        => aaaaaaaa
        @30 confirm o1                 => AlreadyConfirmed
        ",
    );
}
