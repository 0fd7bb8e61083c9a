//! A payment Square answers PENDING: an answer, waited for with a capped
//! backoff until the order's `pay_by_ms`, then given up on and watched,
//! and cancelled by its id if Square approves it after all.

mod script;

use checkout::{Answer, Config, NewCheckout, OrderLine, PaymentStatus::*};
use script::{approved, payment, Do::*, Script, START_MS};

const STILL_PENDING: &str = "failed PAYMENT_STILL_PENDING";

fn pending() -> Answer {
    payment("pay-1", Pending)
}

/// The default order, waited for five seconds.
fn short_wait() -> NewCheckout {
    NewCheckout {
        pay_by_ms: Some(START_MS + 5_000),
        ..script::new_checkout()
    }
}

/// PENDING, then three lookups still PENDING until the deadline at five
/// seconds: the last lookup is at the deadline, not a backoff past it.
fn pending_until_the_deadline(script: Script) -> Script {
    script.run(vec![
        (Answer(pending()), "audit", "pending"),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        (Answer(pending()), "audit", "pending"),
        (Wait(2_000), "audit, GetPayment pay-1", "pending"),
        (Answer(pending()), "audit", "pending"),
        // The backoff would wait 4 s; the deadline comes after 2.
        (Wait(1_999), "", "pending"),
        (Wait(1), "audit, GetPayment pay-1", "pending"),
    ])
}

#[test]
fn a_pending_payment_is_not_an_unknown_answer_and_is_waited_for_until_approved() {
    // Two unknown answers would give up on a payment Square did not name.
    let config = Config {
        max_authorization_attempts: 2,
        ..script::without_square_order()
    };
    Script::start_with(script::new_checkout(), &config, "audit, CreatePayment").run(vec![
        (Answer(pending()), "audit", "pending"),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        // A lookup nobody answers, and one answered with a shrug, are
        // not counted either: the payment exists and is not made again.
        (Wait(30_000), "audit", "pending"),
        (Wait(2_000), "audit, GetPayment pay-1", "pending"),
        (Answer(Answer::OutcomeUnknown), "audit", "pending"),
        (Wait(4_000), "audit, GetPayment pay-1", "pending"),
        (Reload, "", "pending"),
        (Answer(pending()), "audit", "pending"),
        (Wait(7_999), "", "pending"),
        (Wait(1), "audit, GetPayment pay-1", "pending"),
        (Answer(approved()), "audit, CommitSeats", "pending"),
    ]);
}

#[test]
fn the_lookups_back_off_up_to_the_cap_while_the_hold_lasts() {
    let config = Config {
        retry_max_ms: 5_000,
        ..script::without_square_order()
    };
    let mut lines = vec![(Answer(pending()), "audit", "pending")];
    for wait in [1_000, 2_000, 4_000, 5_000, 5_000, 5_000] {
        lines.push((Wait(wait - 1), "", "pending"));
        lines.push((Wait(1), "audit, GetPayment pay-1", "pending"));
        lines.push((Answer(pending()), "audit", "pending"));
    }
    lines.push((Observe("pay-1", Approved), "audit, CommitSeats", "pending"));
    Script::start_with(script::new_checkout(), &config, "audit, CreatePayment").run(lines);
}

#[test]
fn pending_then_failed_is_a_decline() {
    let config = script::without_square_order();
    Script::start_with(script::new_checkout(), &config, "audit, CreatePayment").run(vec![
        (Answer(pending()), "audit", "pending"),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        (
            Answer(payment("pay-1", Failed)),
            "audit, RecordFinal",
            "declined PAYMENT_FAILED",
        ),
        (Answer(Answer::Stored), "audit", "declined PAYMENT_FAILED"),
    ]);
}

#[test]
fn past_the_deadline_the_buyer_is_told_and_an_approval_after_is_cancelled_by_id() {
    let config = script::without_square_order();
    let script = Script::start_with(short_wait(), &config, "audit, CreatePayment");
    let done = pending_until_the_deadline(script).run(vec![
        (Answer(pending()), "audit, RecordFinal", STILL_PENDING),
        // Told first; then the payment is watched, never cancelled while
        // Square would refuse it.
        (
            Answer(Answer::Stored),
            "audit, GetPayment pay-1",
            STILL_PENDING,
        ),
        (Answer(pending()), "audit", STILL_PENDING),
        (Wait(1_000), "audit, GetPayment pay-1", STILL_PENDING),
        (Reload, "", STILL_PENDING),
        (Observe("pay-1", Approved), "audit", STILL_PENDING),
        (Answer(approved()), "audit", STILL_PENDING),
        (Wait(2_000), "audit, CancelPayment pay-1", STILL_PENDING),
        (Answer(payment("pay-1", Canceled)), "audit", STILL_PENDING),
    ]);
    assert!(done.checkout.is_finished());
    assert_eq!(done.checkout.poll_timeout(), None);
}

#[test]
fn a_capture_by_hand_after_giving_up_is_refunded() {
    let config = script::without_square_order();
    let script = Script::start_with(short_wait(), &config, "audit, CreatePayment");
    pending_until_the_deadline(script).run(vec![
        (Answer(pending()), "audit, RecordFinal", STILL_PENDING),
        (
            Answer(Answer::Stored),
            "audit, GetPayment pay-1",
            STILL_PENDING,
        ),
        (
            Observe("pay-1", Completed),
            "audit, RefundPayment pay-1",
            STILL_PENDING,
        ),
    ]);
}

#[test]
fn the_square_order_is_cancelled_only_once_the_given_up_payment_failed() {
    let created = Answer::OrderCreated {
        order_id: "sq-order-1".to_owned(),
        version: 1,
        total_minor: 2_400,
        lines: ["A1", "A2"]
            .map(|uid| OrderLine {
                uid: uid.to_owned(),
                total_minor: 1_200,
                tax_minor: 200,
            })
            .to_vec(),
    };
    let script = Script::start_with(short_wait(), &Config::default(), "audit, CreateOrder")
        .run(vec![(Answer(created), "audit, CreatePayment", "pending")]);
    pending_until_the_deadline(script).run(vec![
        (Answer(pending()), "audit, RecordFinal", STILL_PENDING),
        (
            Answer(Answer::Stored),
            "audit, GetPayment pay-1",
            STILL_PENDING,
        ),
        (
            Answer(payment("pay-1", Failed)),
            "audit, CancelOrder sq-order-1 v1",
            STILL_PENDING,
        ),
    ]);
}

#[test]
fn a_checkout_stored_without_a_deadline_counts_pending_as_unknown() {
    let config = Config {
        max_authorization_attempts: 2,
        ..script::without_square_order()
    };
    let new = NewCheckout {
        pay_by_ms: None,
        ..script::new_checkout()
    };
    Script::start_with(new, &config, "audit, CreatePayment").run(vec![
        (Answer(pending()), "audit", "pending"),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        (Answer(pending()), "audit, CancelPaymentByKey", "pending"),
    ]);
}
