//! Seats in a room of rows: best available picks in one decision, a
//! buyer's hold may not leave one seat alone, and staff are exempt.
//! The showing's eight seats are one row; A8 is sold at the box office.

use crate::check;

#[test]
fn best_available_holds_the_best_block_and_says_why_when_there_is_none() {
    check(
        r"
        @0 room 4                     => Configured { relayout: false }
        @0 best ana h1 2              => 201 held A3 A4 until 300000; push 1
        @1 priced ana h1              => A3 adult 1200, A4 adult 1200 = 2400
        @2 best bob h2 4              => 409 no_adjacent_seats largest_block=3
        @4 best bob h2 4 split child=2 => 201 held A2 A5 A6 A7 until 300004; push 2
        @5 priced bob h2              => A2 child 800, A5 child 800, A6 adult 1200, A7 adult 1200 = 4000
        @6 best cat h3 1              => 201 held A1 until 300006; push 3
        @7 best dan h4 1              => 409 not_enough_seats available=0
        @8 suggest 1                  => best A8
        @9 suggest 2                  => 409 not_enough_seats available=1
        ",
    );
}

#[test]
fn a_buyer_may_not_strand_a_seat_unless_the_row_leaves_no_other_way() {
    check(
        r"
        @0 room 4                     => Configured { relayout: false }
        @1 hold ana h1 A2             => 409 leaves_single_seat seat=A1
        @2 hold ana h1 A1 A3          => 409 leaves_single_seat seat=A2
        @3 hold ana h1 A1 A2          => 201 held A1 A2 until 300003; push 1
        @4 hold bob h2 A3             => 409 leaves_single_seat seat=A4
        @5 hold bob h2 A3 A4          => 201 held A3 A4 until 300005; push 2
        @6 hold cat h3 A6             => 409 leaves_single_seat seat=A5
        @7 hold cat h3 A5 A6          => 201 held A5 A6 until 300007; push 3
        @8 hold dan h4 A7             => 201 held A7 until 300008; push 4
        ",
    );
}

#[test]
fn a_release_may_leave_a_seat_alone_and_staff_are_exempt() {
    check(
        r"
        @0 room 4                     => Configured { relayout: false }
        @1 hold ana h1 A1             => 201 held A1 until 300001; push 1
        @2 hold bob h2 A2             => 201 held A2 until 300002; push 2
        @3 hold cat h3 A3 A4          => 201 held A3 A4 until 300003; push 3
        @4 release bob h2             => 204; push 4
        @5 map                        => hahhaaaa
        @6 desk d1 cash A6            => o1 pending settling; store order, push 7
        @7 map                        => hahhasaa
        ",
    );
}

#[test]
fn the_rule_is_off_where_staff_say_so_and_the_best_spot_can_move() {
    check(
        r"
        @0 room 4 singles best=A7     => Configured { relayout: false }
        @1 hold ana h1 A2             => 201 held A2 until 300001; push 1
        @2 best bob h2 2              => 201 held A6 A7 until 300002; push 2
        ",
    );
}

#[test]
fn staff_may_move_a_ticket_where_it_leaves_a_seat_alone() {
    // A1 sold at the box office, then moved to A2: A1 is left alone, as a
    // buyer could not leave it, and the move goes through; a buyer after
    // it still keeps the rule.
    check(
        r"
        @0 room 4                     => Configured { relayout: false }
        @1 desk d1 cash A1            => o1 pending settling; store order, push 3
        @2 perform o1 stored          => store paid, push 4
        @3 perform o1 stored          =>
        @4 move o1 t1 A1 A2           => moved t1 A1 to A2 as ticket 2 at 4; push 5
        @5 map                        => asaaaaaa
        @6 hold ana h1 A3             => 409 leaves_single_seat seat=A4
        ",
    );
}
