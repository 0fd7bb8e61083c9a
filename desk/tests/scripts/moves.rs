//! Staff moving a sold ticket to another seat: one decision that reopens
//! the old seat and sells the new one, kept by ticket so that the same
//! ticket asked again (a lost answer, a failed D1 write) is answered with
//! the same move, before and after a restart.

use crate::check;

#[test]
fn a_ticket_moves_in_one_decision_and_the_same_ticket_gets_the_same_move_after_a_restart() {
    // The map changes once a move (one push), not twice; asked again, even
    // for another seat, the ticket's move is answered as it was made and
    // nothing changes (the restarted desk pushes its whole map once to the
    // watcher it kept, as after any restart). A moved ticket's replacement
    // (`o1-3`) moves like any ticket, and takes the order's next number.
    check(
        r"
        @0 desk d1 cash A1 A2                => o1 pending settling; store order, push 3
        @1 perform o1 stored                 => store paid, push 4
        @2 perform o1 stored                 =>
        @3 map                               => ssaaaaaa
        @10 move o1 t1 A1 A5                 => moved t1 A1 to A5 as ticket 3 at 10; push 5
        @11 map                              => asaasaaa
        @12 move o1 t1 A1 A5                 => moved t1 A1 to A5 as ticket 3 at 10
        @13 move o1 t1 A1 A6                 => moved t1 A1 to A5 as ticket 3 at 10
        @14 restart                          => restarted
        @15 move o1 t1 A1 A5                 => moved t1 A1 to A5 as ticket 3 at 10; push 5
        @16 map                              => asaasaaa
        @17 move o1 t2 A2 A1                 => moved t2 A2 to A1 as ticket 4 at 17; push 6
        @18 move o1 o1-3 A5 A2               => moved o1-3 A5 to A2 as ticket 5 at 18; push 7
        @19 map                              => ssaaaaaa
        @20 rows moves                       => 3
        ",
    );
}

#[test]
fn a_seat_taken_meanwhile_or_not_for_sale_is_refused_and_changes_nothing() {
    check(
        r"
        @0 desk d1 cash A1                   => o1 pending settling; store order, push 3
        @1 perform o1 stored                 => store paid, push 4
        @2 perform o1 stored                 =>
        @3 hold bob h1 A2                    => 201 held A2 until 300003; push 5
        @4 move o1 t1 A1 A2                  => 409 seat_unavailable
        @5 move o1 t1 A1 A1                  => 409 seat_unavailable
        @6 move o1 t1 A1 Z9                  => 409 seat_unavailable
        @7 map                               => shaaaaaa
        @8 rows moves                        => 0
        @300003 move o1 t1 A1 A2             => moved t1 A1 to A2 as ticket 2 at 300003; push 6
        @300004 map                          => asaaaaaa
        ",
    );
}

#[test]
fn a_ticket_of_an_order_still_paying_or_of_a_cancelled_showing_does_not_move() {
    check(
        r"
        @0 desk d1 cash A1                   => o1 pending settling; store order, push 3
        @1 move o1 t1 A1 A3                  => 409 order_not_paid
        @2 perform o1 stored                 => store paid, push 4
        @3 perform o1 stored                 =>
        @4 move o1 t1 A1 A3                  => moved t1 A1 to A3 as ticket 2 at 4; push 5
        @5 cancel                            => cancelled now at 5
        @6 move o1 o1-2 A3 A4                => 409 showing_cancelled
        @7 move o1 t1 A1 A3                  => moved t1 A1 to A3 as ticket 2 at 4
        ",
    );
}

#[test]
fn a_refund_of_a_ticket_moved_meanwhile_reopens_the_seat_it_moved_to() {
    // The refund was decided for the ticket on A1 while staff moved it to
    // A3: applied after the move, it reopens A3, where the ticket went and
    // no new ticket stands; A2, never moved, is the order's still.
    check(
        r"
        @0 desk d1 cash A1 A2                => o1 pending settling; store order, push 3
        @1 perform o1 stored                 => store paid, push 4
        @2 perform o1 stored                 =>
        @3 move o1 t1 A1 A3                  => moved t1 A1 to A3 as ticket 3 at 3; push 5
        @4 map                               => assaaaaa
        @5 void o1 A1                        => 204; push 6
        @6 map                               => asaaaaaa
        @7 void o1 A1                        => 204
        @8 map                               => asaaaaaa
        ",
    );
}
