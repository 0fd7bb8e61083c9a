//! The checkout driver: one step of an order in flight at a time, the
//! outbox sent again after a restart, webhooks while a step is in flight,
//! and the alarm resuming what was left.

use crate::{check, check_itemized};

#[test]
fn a_checkout_authorizes_commits_writes_and_captures_one_step_at_a_time() {
    check(
        r"
        @0 hold ana h1 A1 A2                   => 201 held A1 A2 until 300000; push 1
        @10 checkout ana h1 cnon:ok            => o1 pending settling; square Post /v2/payments, push 2
        @11 checkout ana h1 cnon:ok            => o1 pending settling
        @20 perform o1 payment p1 APPROVED     => store order, push 3
        @30 perform o1 stored                  => square Post /v2/payments/p1/complete
        @40 perform o1 payment p1 COMPLETED    => store paid, push 4
        @50 perform o1 stored                  =>
        @70 status o1                          => o1 paid
        @70 get ana h1                         => committed A1 A2 o1
        @70 map                                => ssaaaaaa
        @70 next                               => None
        ",
    );
}

#[test]
fn a_card_pays_a_square_order_and_a_declined_ones_order_is_cancelled() {
    check_itemized(
        r"
        @0 hold ana h1 A1 A2                   => 201 held A1 A2 until 300000; push 1
        @10 checkout ana h1 cnon:ok            => o1 pending settling; square Post /v2/orders, push 2
        @20 perform o1 order sq1 2400          => square Post /v2/payments
        @30 perform o1 payment p1 APPROVED     => store order, push 3
        @40 perform o1 stored                  => square Post /v2/payments/p1/complete
        @50 perform o1 payment p1 COMPLETED    => store paid, push 4
        @60 perform o1 stored                  =>
        @70 status o1                          => o1 paid
        @80 hold bob h2 A3                     => 201 held A3 until 300080; push 5
        @90 checkout bob h2 cnon:bad           => o2 pending settling; square Post /v2/orders, push 6
        @100 perform o2 order sq2 1200         => square Post /v2/payments
        @110 perform o2 declined GENERIC_DECLINE => store final declined
        @120 perform o2 stored                 => square Put /v2/orders/sq2
        @120 status o2                         => o2 declined
        @130 perform o2 order-state sq2 2 CANCELED =>
        @140 next                              => Some(600080)
        ",
    );
}

#[test]
fn a_decline_keeps_the_hold_for_another_card() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:bad           => o1 pending settling; square Post /v2/payments, push 2
        @20 perform o1 declined GENERIC_DECLINE => store final declined
        @30 perform o1 stored                  =>
        @30 status o1                          => o1 declined
        @35 get ana h1                         => paying A1 left 599965
        @40 checkout ana h1 cnon:ok            => o2 pending settling; square Post /v2/payments
        @45 get ana h1                         => paying A1 left 599955 o2
        ",
    );
}

#[test]
fn an_outbox_step_lost_in_a_crash_is_sent_again_after_the_restart() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:ok            => o1 pending settling; square Post /v2/payments, push 2
        @20 restart                            => restarted
        @20 next                               => Some(0)
        @20 map                                => haaaaaaa; push 2
        @21 alarm                              => square Post /v2/payments
        @22 status o1                          => o1 pending settling
        @30 perform o1 payment p1 APPROVED     => store order, push 3
        ",
    );
}

#[test]
fn a_failed_webhook_waits_for_the_answer_in_flight_and_a_timeout_is_retried() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:ok            => o1 pending settling; square Post /v2/payments, push 2
        @15 webhook o1 p1 FAILED               => 204
        @20 perform o1 timeout                 =>
        @20 status o1                          => o1 pending
        @20 rows outbox                        => 0
        ",
    );
}

#[test]
fn an_approval_webhook_during_the_authorization_takes_the_seats_only_after_its_answer() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:ok            => o1 pending settling; square Post /v2/payments, push 2
        @20 webhook o1 p1 APPROVED             => 204
        @20 map                                => haaaaaaa
        @20 rows outbox                        => 1
        @30 restart                            => restarted
        @30 next                               => Some(0)
        @31 alarm                              => store order, push 3
        @31 map                                => saaaaaaa
        ",
    );
}

#[test]
fn a_finished_checkout_is_forgotten_a_week_after_its_last_event() {
    check(
        r"
        @0 hold ana h1 A1                       => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:bad1           => o1 pending settling; square Post /v2/payments, push 2
        @11 perform o1 declined GENERIC_DECLINE => store final declined
        @12 perform o1 stored                   =>
        @300001 alarm                           =>
        @300002 rows checkouts                  => 1
        @604800011 alarm                        => push 3
        @604800012 rows checkouts               => 1
        @604800013 alarm                        =>
        @604800014 rows checkouts               => 0
        @604800015 restart                      => restarted
        @604800016 rows checkouts               => 0
        ",
    );
}

#[test]
fn an_exchange_whose_credit_covers_the_seats_takes_no_card_and_settles_once_paid() {
    check(
        r"
        @0 hold ana h1 A1 A2                       => 201 held A1 A2 until 300000; push 1
        @10 checkout ana h1 - exchange=old1:3000   => o1 pending credit 2400 of 2400 settling; store order, push 3
        @11 charged o1                             => nothing in flight
        @20 perform o1 stored                      => store paid, push 4
        @30 perform o1 stored                      => exchange from old1 settled
        @40 status o1                              => o1 paid credit 2400 of 2400
        @50 restart                                => restarted
        @51 alarm                                  => push 4
        @52 status o1                              => o1 paid credit 2400 of 2400
        ",
    );
}

#[test]
fn an_exchange_worth_less_than_the_seats_charges_the_card_the_rest() {
    check(
        r"
        @0 hold ana h1 A1 A2                       => 201 held A1 A2 until 300000; push 1
        @10 checkout ana h1 - exchange=old1:1000   => 400 invalid_checkout
        @11 checkout ana h1 cnon:ok exchange=old1:1000 => o1 pending credit 1000 of 2400 settling; square Post /v2/payments, push 2
        @12 charged o1                             => 1400
        @20 perform o1 payment p1 APPROVED         => store order, push 3
        @30 perform o1 stored                      => square Post /v2/payments/p1/complete
        @40 perform o1 payment p1 COMPLETED        => store paid, push 4
        @50 perform o1 stored                      => exchange from old1 settled
        @60 status o1                              => o1 paid credit 1000 of 2400
        ",
    );
}

#[test]
fn an_exchange_that_ends_without_tickets_is_settled_once_its_outcome_is_stored() {
    check(
        r"
        @0 hold ana h1 A1                          => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:bad exchange=old1:500 => o1 pending credit 500 of 1200 settling; square Post /v2/payments, push 2
        @20 perform o1 declined GENERIC_DECLINE    => store final declined
        @30 perform o1 down                        =>
        @1030 alarm                                => store final declined
        @1031 perform o1 stored                    => exchange from old1 settled
        @1032 status o1                            => o1 declined credit 500 of 1200
        ",
    );
}

#[test]
fn an_exchange_from_no_valid_order_is_refused_and_leaves_the_hold_held() {
    check(
        r"
        @0 hold ana h1 A1                          => 201 held A1 until 300000; push 1
        @10 checkout ana h1 - exchange=ooooooooooooooooooooooooooooooooooooooooo:1200 => 400 invalid_checkout
        @20 get ana h1                             => held A1 left 299980
        ",
    );
}

/// A payment still PENDING when the paying hold runs out: the order fails
/// with `PAYMENT_STILL_PENDING`, and the watch of the payment that follows
/// keeps no buyer's request waiting.
#[test]
fn a_payment_pending_past_the_paying_hold_fails_and_is_watched_without_a_buyer_waiting() {
    check(
        r"
        @0 hold ana h1 A1                      => 201 held A1 until 300000; push 1
        @10 checkout ana h1 cnon:ok            => o1 pending settling; square Post /v2/payments, push 2
        @20 perform o1 payment p1 PENDING      =>
        @30 status o1                          => o1 pending
        @600000 alarm                          => square Get /v2/payments/p1, push 3
        @600010 perform o1 payment p1 PENDING  => store final failed
        @600020 perform o1 stored              => square Get /v2/payments/p1
        @600030 status o1                      => o1 failed
        ",
    );
}
