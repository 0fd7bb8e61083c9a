//! One line per refusal, and the order in which refusals are checked.

use crate::{check, check_with};
use ledger::Config;

fn config(change: impl FnOnce(&mut Config)) -> Config {
    let mut config = Config::default();
    change(&mut config);
    config
}

#[test]
fn each_hold_refusal_has_its_own_name() {
    check(
        r"
        @0 hold h1                     => NoSeats
        @0 hold h1 A1 A2 A3 A4 A5      => TooManySeats { requested: 5, max: 4 }
        @0 hold h1 A1 A2 A1 A2         => DuplicateSeats { seats: [A1, A2] }
        @0 hold h1 Z9 A1 B2            => UnknownSeats { seats: [Z9, B2] }
        @0 hold h1 A1 A2               => held A1 A2 until 300000
        @0 hold h1 A3                  => HoldIdInUse
        @0 hold h2 A3 A2 A4 A1         => SeatsUnavailable { seats: [A2, A1] }
        @0 map                         => hhaaaaaa
        ",
    );
}

#[test]
fn hold_refusals_are_checked_in_the_documented_order() {
    check(
        r"
        @0 hold h1 A1 A1 Z9 A2 A3      => TooManySeats { requested: 5, max: 4 }
        @0 hold h1 Z9 A1 A1            => DuplicateSeats { seats: [A1] }
        @0 hold h1 A1                  => held A1 until 300000
        @0 hold h1 Z9                  => UnknownSeats { seats: [Z9] }
        @0 hold h1 A1                  => HoldIdInUse
        ",
    );
}

#[test]
fn blocked_seats_are_unavailable_and_the_live_hold_limit_comes_last() {
    let config = config(|c| c.max_live_holds = 1);
    check_with(
        config,
        &["A1", "A2", "A3"],
        &["A3"],
        r"
        @0 map                         => aas
        @0 hold h1 A3                  => SeatsUnavailable { seats: [A3] }
        @0 hold h1 A1                  => held A1 until 300000
        @0 hold h2 A1 A2               => SeatsUnavailable { seats: [A1] }
        @0 hold h2 A2                  => TooManyLiveHolds { max: 1 }
        @300000 hold h2 A2             => held A2 until 600000
        ",
    );
}

#[test]
fn release_and_payment_need_a_live_hold() {
    check(
        r"
        @0 release h1                  => HoldNotFound
        @0 pay h1                      => HoldNotFound
        @0 hold h1 A1                  => held A1 until 300000
        @300000 release h1             => HoldNotFound
        @300000 pay h1                 => HoldNotFound
        ",
    );
}

#[test]
fn each_commit_refusal_has_its_own_name_and_changes_nothing() {
    check(
        r"
        @0 hold h1 A1 A2               => held A1 A2 until 300000
        @0 commit h1 o1                => NoSeats
        @0 commit h1 o1 A1 A1          => DuplicateSeats { seats: [A1] }
        @0 commit h1 o1 A1 Z9          => UnknownSeats { seats: [Z9] }
        @0 commit h1 o1 A1 A2 A3 A4 A5 => TooManySeats { requested: 5, max: 4 }
        @0 commit h1 o1 A1             => SeatsDifferFromHold
        @0 commit h1 o1 A2 A1          => Committed { hold_had_lapsed: false }
        @0 commit h1 o1 A1 A2          => AlreadyCommitted
        @0 commit h2 o1 A1 A2          => OrderIdInUse
        @0 commit h1 o1 A1             => OrderIdInUse
        @0 hold h2 A3 A4               => held A3 A4 until 300000
        @300000 hold h3 A4             => held A4 until 600000
        @300000 commit h2 o2 A3 A4     => SeatsTaken { seats: [A4] }
        @300000 map                    => ssahaaaa
        @300000 abandon o1             => Abandoned
        @300000 commit h1 o1 A1 A2     => OrderAbandoned
        ",
    );
}

#[test]
fn confirm_and_abandon_refusals() {
    check(
        r"
        @0 confirm o1                  => OrderNotFound
        @0 abandon o1                  => OrderNotFound
        @0 hold h1 A1                  => held A1 until 300000
        @0 commit h1 o1 A1             => Committed { hold_had_lapsed: false }
        @0 confirm o1                  => Confirmed
        @0 abandon o1                  => OrderConfirmed
        @0 hold h2 A2                  => held A2 until 300000
        @0 commit h2 o2 A2             => Committed { hold_had_lapsed: false }
        @0 abandon o2                  => Abandoned
        @0 confirm o2                  => OrderAbandoned
        ",
    );
}

#[test]
fn each_void_refusal_has_its_own_name() {
    check(
        r"
        @0 void o1 A1                  => OrderNotFound
        @0 hold h1 A1 A2               => held A1 A2 until 300000
        @0 commit h1 o1 A1 A2          => Committed { hold_had_lapsed: false }
        @0 void o1 A1                  => OrderNotConfirmed
        @0 confirm o1                  => Confirmed
        @0 void o1                     => NoSeats
        @0 void o1 A1 A1               => DuplicateSeats { seats: [A1] }
        @0 void o1 Z9                  => UnknownSeats { seats: [Z9] }
        @0 void o1 A3 A1 A4            => SeatsNotInOrder { seats: [A3, A4] }
        @0 map                         => ssaaaaaa
        @0 hold h2 A3                  => held A3 until 300000
        @0 commit h2 o2 A3             => Committed { hold_had_lapsed: false }
        @0 abandon o2                  => Abandoned
        @0 void o2 A3                  => OrderAbandoned
        ",
    );
}
