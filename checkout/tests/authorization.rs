//! The authorization: CreatePayment's answers, retries, giving up, and
//! webhooks that arrive before the answer.

mod script;

use checkout::{Action, Answer, Config, PaymentStatus::*, Step};
use script::{approved, payment, Do::*, Script};

#[test]
fn a_paid_checkout_walks_every_step_once() {
    let done = Script::start("audit, CreatePayment").run(script::approved_to_paid());
    assert!(done.checkout.is_finished());
    assert_eq!(done.checkout.poll_timeout(), None);
    let create = &done.actions[1];
    let Action::CreatePayment {
        autocomplete,
        reference_id,
        idempotency_key,
        ..
    } = create
    else {
        panic!("CreatePayment first, got {create:?}");
    };
    assert!(
        !autocomplete,
        "authorize only; capture comes after the tickets"
    );
    assert_eq!(reference_id, "order-1");
    assert_eq!(
        *idempotency_key,
        checkout::authorization_key("hold-1", script::TOKEN)
    );
}

#[test]
fn a_declined_card_ends_the_order_and_leaves_the_seats_alone() {
    let declined = Answer::Declined {
        code: "GENERIC_DECLINE".to_owned(),
        payment_id: Some("pay-1".to_owned()),
    };
    let done = Script::start("audit, CreatePayment").run(vec![
        (
            Answer(declined),
            "audit, RecordFinal",
            "declined GENERIC_DECLINE",
        ),
        (Answer(Answer::Stored), "audit", "declined GENERIC_DECLINE"),
    ]);
    assert!(done.checkout.is_finished());
    let touched_seats = done.actions.iter().any(|a| {
        matches!(
            a,
            Action::CommitSeats { .. } | Action::AbandonSeats { .. } | Action::WriteOrder { .. }
        )
    });
    assert!(!touched_seats);
}

/// A refusal that is not a decline may still hide a payment (a key in use,
/// a request Square half did): it is voided by key before the order fails.
#[test]
fn a_refused_request_is_voided_by_key_then_fails_with_its_code() {
    let rejected = Answer::Rejected {
        code: "CARD_TOKEN_USED".to_owned(),
    };
    Script::start("audit, CreatePayment").run(vec![
        (Answer(rejected), "audit, CancelPaymentByKey", "pending"),
        (Answer(Answer::OutcomeUnknown), "audit", "pending"),
        (Wait(1_000), "audit, CancelPaymentByKey", "pending"),
        (
            Answer(Answer::CanceledByKey),
            "audit, RecordFinal",
            "failed CARD_TOKEN_USED",
        ),
        (
            Answer(Answer::StoreUnavailable),
            "audit",
            "failed CARD_TOKEN_USED",
        ),
        (Wait(1_000), "audit, RecordFinal", "failed CARD_TOKEN_USED"),
        (Answer(Answer::Stored), "audit", "failed CARD_TOKEN_USED"),
    ]);
}

#[test]
fn unknown_answers_retry_the_same_request_with_backoff_then_void_by_key() {
    let config = Config {
        max_authorization_attempts: 3,
        ..script::without_square_order()
    };
    let done =
        Script::start_with(script::new_checkout(), &config, "audit, CreatePayment").run(vec![
            (Answer(Answer::OutcomeUnknown), "audit", "pending"),
            (Wait(999), "", "pending"),
            (Wait(1), "audit, CreatePayment", "pending"),
            (Answer(Answer::OutcomeUnknown), "audit", "pending"),
            (Wait(1_999), "", "pending"),
            (Wait(1), "audit, CreatePayment", "pending"),
            (
                Answer(Answer::OutcomeUnknown),
                "audit, CancelPaymentByKey",
                "pending",
            ),
            // Unknown answers to the void are retried without limit.
            (Answer(Answer::OutcomeUnknown), "audit", "pending"),
            (Wait(1_000), "audit, CancelPaymentByKey", "pending"),
            (
                Answer(Answer::CanceledByKey),
                "audit, RecordFinal",
                "failed PAYMENT_UNCERTAIN",
            ),
            (Answer(Answer::Stored), "audit", "failed PAYMENT_UNCERTAIN"),
        ]);
    let creates: Vec<&Action> = done
        .actions
        .iter()
        .filter(|a| matches!(a, Action::CreatePayment { .. }))
        .collect();
    assert_eq!(creates.len(), 3);
    assert!(
        creates.iter().all(|a| *a == creates[0]),
        "same key, same body"
    );
    assert!(!done.checkout.holds_card_token());
}

#[test]
fn a_request_nobody_answers_counts_as_unknown_after_the_answer_timeout() {
    Script::start("audit, CreatePayment").run(vec![
        (Wait(29_999), "", "pending"),
        (Wait(1), "audit", "pending"),
        (Wait(1_000), "audit, CreatePayment", "pending"),
        (Answer(approved()), "audit, CommitSeats", "pending"),
    ]);
}

#[test]
fn an_approved_webhook_while_the_answer_is_unknown_counts_as_the_answer() {
    Script::start("audit, CreatePayment").run(vec![
        (Answer(Answer::OutcomeUnknown), "audit", "pending"),
        (Observe("pay-1", Approved), "audit, CommitSeats", "pending"),
        // The retried CreatePayment's answer comes late: that step is over.
        (AnswerStale(Step::Authorize, approved()), "", "pending"),
        (Observe("pay-1", Approved), "", "pending"),
        (
            Answer(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
    ]);
}

/// A PENDING payment is looked up until it settles, never made again.
#[test]
fn a_pending_payment_is_looked_up_not_made_again() {
    Script::start("audit, CreatePayment").run(vec![
        (Answer(payment("pay-1", Pending)), "audit", "pending"),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        (Answer(payment("pay-1", Pending)), "audit", "pending"),
        (Wait(2_000), "audit, GetPayment pay-1", "pending"),
        (
            Answer(payment("pay-1", Approved)),
            "audit, CommitSeats",
            "pending",
        ),
    ]);
}

#[test]
fn a_void_by_key_that_is_refused_needs_staff_and_a_later_capture_is_refunded() {
    let config = Config {
        max_authorization_attempts: 1,
        ..script::without_square_order()
    };
    let refused = Answer::Rejected {
        code: "UNAUTHORIZED".to_owned(),
    };
    let accepted = Answer::RefundAccepted {
        refund_id: "pay-9_r1".to_owned(),
    };
    Script::start_with(script::new_checkout(), &config, "audit, CreatePayment").run(vec![
        (
            Answer(Answer::OutcomeUnknown),
            "audit, CancelPaymentByKey",
            "pending",
        ),
        (Answer(refused), "audit, RecordFinal", "needs_attention"),
        (Answer(Answer::Stored), "audit", "needs_attention"),
        // Someone captured the authorization by hand: it is refunded.
        (
            Observe("pay-9", Completed),
            "audit, RefundPayment pay-9",
            "needs_attention",
        ),
        (Answer(accepted), "audit", "needs_attention"),
        (Observe("pay-9", Completed), "", "needs_attention"),
    ]);
}

#[test]
fn a_failed_webhook_before_the_answer_is_a_decline() {
    Script::start("audit, CreatePayment").run(vec![
        (
            Observe("pay-1", Failed),
            "audit, RecordFinal",
            "declined PAYMENT_FAILED",
        ),
        (
            AnswerStale(Step::Authorize, approved()),
            "",
            "declined PAYMENT_FAILED",
        ),
    ]);
}

#[test]
fn answers_that_do_not_fit_the_step_change_nothing() {
    Script::start("audit, CreatePayment").run(vec![
        (Answer(Answer::SeatsCommitted), "", "pending"),
        (Answer(Answer::Stored), "", "pending"),
        (
            Answer(payment("bad id with spaces", Approved)),
            "",
            "pending",
        ),
        (Observe("", Approved), "", "pending"),
        (Answer(approved()), "audit, CommitSeats", "pending"),
        (Observe("pay-2", Completed), "", "pending"),
    ]);
}

/// A wallet's buyer verification token goes with CreatePayment and, like
/// the card token, is kept no longer than the authorization.
#[test]
fn a_verification_token_is_sent_with_create_payment_and_dropped_with_the_card() {
    let new = checkout::NewCheckout {
        verification_token: "verf:wallet-1".to_owned(),
        ..script::new_checkout()
    };
    let config = script::without_square_order();
    let done = Script::start_with(new, &config, "audit, CreatePayment").run(vec![(
        Answer(approved()),
        "audit, CommitSeats",
        "pending",
    )]);
    let Some(Action::CreatePayment {
        verification_token, ..
    }) = done.actions.get(1)
    else {
        panic!("CreatePayment first: {:?}", done.actions);
    };
    assert_eq!(verification_token.as_deref(), Some("verf:wallet-1"));
    let stored = serde_json::to_string(&done.checkout).unwrap();
    assert!(!stored.contains("verf:wallet-1"), "{stored}");
}
