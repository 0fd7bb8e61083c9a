//! Discount codes on holds: the discount off the seats, and every use of
//! a limited code followed to its end in the code's own uses (a real
//! `uses::Uses`, as its object decides them), across restarts and an
//! unreachable object.

use crate::check;

#[test]
fn a_code_takes_its_discount_off_the_seats_it_applies_to() {
    check(
        r"
        @0 hold ana h1 A1 A2:child             => 201 held A1 A2 until 300000; push 1
        @10 code ana h1 HALF 50% cat=child     => held A1 A2 left 299990 HALF -400 = 1600
        @20 priced ana h1                      => A1 adult 1200, A2 child 400 = 1600
        @30 code ana h1 TWO 200                => held A1 A2 left 299970 TWO -400 = 1600
        @40 code ana h1 BIG 5000/order         => held A1 A2 left 299960 BIG -2000 = 0
        @50 code ana h1 KIDS 10% cat=student   => 409 code_not_valid_here
        @60 code bob h1 HALF 50%               => 404 hold_not_found
        ",
    );
}

#[test]
fn a_limited_use_is_held_then_committed_when_its_order_is_paid() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @5 reserve FIFTY h1 1                  => Ok(Done { left: Some(0) })
        @10 code ana h1 FIFTY 10% limited      => held A1 left 299990 FIFTY -120 = 1080; code FIFTY hold
        @11 deliver                            => FIFTY hold ok
        @12 uses FIFTY                         => reserved 0 held 1 committed 0
        @13 rows code_messages                 => 0
        @20 checkout ana h1 cnon:ok            => o1 pending settling; square Post /v2/payments, push 2
        @30 perform o1 payment p1 APPROVED     => store order, push 3
        @40 perform o1 stored                  => square Post /v2/payments/p1/complete
        @50 perform o1 payment p1 COMPLETED    => store paid, push 4
        @60 perform o1 stored                  => code FIFTY commit
        @61 restart                            => restarted
        @62 next                               => Some(0)
        @70 alarm                              => code FIFTY commit, push 4
        @71 deliver                            => FIFTY commit ok
        @72 uses FIFTY                         => reserved 0 held 0 committed 1
        @80 alarm                              =>
        ",
    );
}

#[test]
fn a_use_goes_back_when_its_hold_lapses_or_is_released_and_never_once_paid() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @1 hold bob h2 A2                      => 201 held A2 until 300001; push 2
        @5 reserve FEW h1 2                    => Ok(Done { left: Some(1) })
        @6 reserve FEW h2 2 bob                => Ok(Done { left: Some(0) })
        @10 code ana h1 FEW 200 limited        => held A1 left 299990 FEW -200 = 1000; code FEW hold
        @11 code bob h2 FEW 200 limited        => held A2 left 299990 FEW -200 = 1000; code FEW hold
        @12 deliver down                       => FEW hold unreachable, FEW hold unreachable
        @20 release bob h2                     => 204; code FEW release, push 3
        @21 deliver                            => FEW release ok
        @22 uses FEW                           => reserved 1 held 0 committed 0
        @30040 alarm                           => code FEW hold
        @30041 deliver                         => FEW hold ok
        @300000 alarm                          => code FEW release, push 4
        @300001 deliver                        => FEW release ok
        @300002 uses FEW                       => reserved 0 held 0 committed 0
        ",
    );
}

#[test]
fn a_refused_code_gives_back_the_use_reserved_for_it() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @5 reserve KIDS h1 5                   => Ok(Done { left: Some(4) })
        @10 code ana h1 KIDS 10% limited cat=child => 409 code_not_valid_here; code KIDS release
        @11 deliver                            => KIDS release ok
        @12 uses KIDS                          => reserved 0 held 0 committed 0
        ",
    );
}

#[test]
fn the_box_office_takes_a_code_off_its_sale_and_its_use_is_committed_when_paid() {
    check(
        r"
        @0 reserve DESK d1 1                   => Ok(Done { left: Some(0) })
        @1 desk d1 cash code=DESK:200:limited A1 A2 => o1 pending settling; code DESK hold, store order, push 3
        @2 priced box-office d1                => A1 adult 1000, A2 adult 1000 = 2000
        @3 perform o1 stored                   => store paid, push 4
        @4 perform o1 stored                   => code DESK commit
        @5 deliver                             => DESK hold ok, DESK commit ok
        @6 uses DESK                           => reserved 0 held 0 committed 1
        @7 reserve DESK d2 1                   => Err(UsedUp)
        @8 reserve COMP d2 5                   => Ok(Done { left: Some(4) })
        @9 desk d2 comp reason=friend code=COMP:10%:limited A3 => 400 invalid_sale; code COMP release
        @10 deliver                            => COMP release ok
        ",
    );
}
