//! Paying through a Square order: CreateOrder before the authorization,
//! the payment naming the order, and the order cancelled when nothing
//! will pay it.

mod script;

use checkout::{Action, Answer, Config, OrderLine};
use script::{approved, Do::*, Script};

fn line(uid: &str, total_minor: u64, tax_minor: u64) -> OrderLine {
    OrderLine {
        uid: uid.to_owned(),
        total_minor,
        tax_minor,
    }
}

/// Square's answer for the default order (two seats at 1 200, 200 tax in
/// each), as Square worked it out.
fn created(total_minor: u64) -> Answer {
    Answer::OrderCreated {
        order_id: "sq-order-1".to_owned(),
        version: 1,
        total_minor,
        lines: vec![line("A1", 1_200, 200), line("A2", 1_200, 200)],
    }
}

fn seen(version: u64, state: &str) -> Answer {
    Answer::OrderSeen {
        order_id: "sq-order-1".to_owned(),
        version,
        state: state.to_owned(),
    }
}

const DECLINED: &str = "declined GENERIC_DECLINE";

/// An itemized checkout whose card was declined: its outcome stored, and
/// the cancel of its Square order sent, the buyer answered before it.
fn declined_and_cancelling() -> Script {
    let declined = Answer::Declined {
        code: "GENERIC_DECLINE".to_owned(),
        payment_id: Some("pay-1".to_owned()),
    };
    Script::itemized("audit, CreateOrder").run(vec![
        (Answer(created(2_400)), "audit, CreatePayment", "pending"),
        (Answer(declined), "audit, RecordFinal", DECLINED),
        (
            Answer(Answer::Stored),
            "audit, CancelOrder sq-order-1 v1",
            DECLINED,
        ),
    ])
}

#[test]
fn the_order_is_made_first_and_the_payment_pays_it() {
    // A captured payment completes its order: nothing is cancelled after.
    let done = Script::itemized("audit, CreateOrder")
        .run(vec![(
            Answer(created(2_400)),
            "audit, CreatePayment",
            "pending",
        )])
        .run(script::approved_to_paid());
    assert!(done.checkout.is_finished());
    let Some(Action::CreateOrder {
        idempotency_key,
        reference_id,
        item_name,
        prices,
        ..
    }) = done.actions.get(1)
    else {
        panic!("CreateOrder first: {:?}", done.actions);
    };
    assert_eq!(*idempotency_key, checkout::order_key("order-1"));
    assert_eq!(reference_id, "order-1");
    assert_eq!(item_name, "Vertigo, Fri 26 Mar 19:30");
    assert_eq!(prices.len(), 2);
    let paying = script::picked(&done, |a| match a {
        Action::CreatePayment {
            square_order_id,
            amount_minor,
            ..
        } => Some((square_order_id.clone(), *amount_minor)),
        _ => None,
    });
    assert_eq!(paying, [(Some("sq-order-1".to_owned()), 2_400)]);
}

#[test]
fn a_declined_card_leaves_an_order_nobody_pays_and_it_is_cancelled() {
    let done =
        declined_and_cancelling().run(vec![(Answer(seen(2, "CANCELED")), "audit", DECLINED)]);
    assert!(done.checkout.is_finished());
}

#[test]
fn a_stale_version_is_looked_up_and_the_cancel_sent_at_the_current_one() {
    let mismatch = Answer::Rejected {
        code: "VERSION_MISMATCH".to_owned(),
    };
    let done = declined_and_cancelling().run(vec![
        (Answer(mismatch), "audit", DECLINED),
        (Wait(1_000), "audit, GetOrder sq-order-1", DECLINED),
        (Answer(seen(3, "OPEN")), "audit", DECLINED),
        (Wait(2_000), "audit, CancelOrder sq-order-1 v3", DECLINED),
        (Answer(seen(4, "CANCELED")), "audit", DECLINED),
    ]);
    assert!(done.checkout.is_finished());
    let keys = script::picked(&done, |a| match a {
        Action::CancelOrder {
            idempotency_key, ..
        } => Some(idempotency_key.clone()),
        _ => None,
    });
    assert_eq!(keys.len(), 2);
    assert_ne!(keys[0], keys[1], "a new version is a new update");
}

#[test]
fn a_cancel_square_keeps_refusing_is_left_after_six_requests() {
    let refused = || Answer::Rejected {
        code: "BAD_REQUEST".to_owned(),
    };
    let mut lines = Vec::new();
    for (wait, next) in [
        (1_000, "audit, GetOrder sq-order-1"),
        (2_000, "audit, CancelOrder sq-order-1 v1"),
        (4_000, "audit, GetOrder sq-order-1"),
        (8_000, "audit, CancelOrder sq-order-1 v1"),
        (16_000, "audit, GetOrder sq-order-1"),
    ] {
        lines.push((Answer(refused()), "audit", DECLINED));
        lines.push((Wait(wait), next, DECLINED));
    }
    lines.push((Answer(refused()), "audit", DECLINED));
    let done = declined_and_cancelling().run(lines);
    assert!(done.checkout.is_finished(), "left OPEN, nothing more to do");
}

#[test]
fn a_total_square_works_out_otherwise_is_never_charged() {
    let done = Script::itemized("audit, CreateOrder").run(vec![
        (
            Answer(created(2_880)),
            "audit, RecordFinal",
            "failed ORDER_TOTAL_MISMATCH",
        ),
        (
            Answer(Answer::Stored),
            "audit, CancelOrder sq-order-1 v1",
            "failed ORDER_TOTAL_MISMATCH",
        ),
        (
            Answer(seen(2, "CANCELED")),
            "audit",
            "failed ORDER_TOTAL_MISMATCH",
        ),
    ]);
    assert!(done.checkout.is_finished());
    assert!(!done
        .actions
        .iter()
        .any(|a| matches!(a, Action::CreatePayment { .. })));
    assert!(!done.checkout.holds_card_token());
}

#[test]
fn a_refused_order_asks_nothing_of_the_card() {
    let refused = Answer::Rejected {
        code: "INVALID_VALUE".to_owned(),
    };
    let done = Script::itemized("audit, CreateOrder").run(vec![
        (
            Answer(refused),
            "audit, RecordFinal",
            "failed INVALID_VALUE",
        ),
        (Answer(Answer::Stored), "audit", "failed INVALID_VALUE"),
    ]);
    assert!(done.checkout.is_finished());
    assert!(!done.checkout.holds_card_token());
}

#[test]
fn an_order_square_never_answers_for_gives_up_without_a_payment() {
    let config = Config {
        max_authorization_attempts: 2,
        ..Config::default()
    };
    let done = Script::start_with(script::new_checkout(), &config, "audit, CreateOrder").run(vec![
        (Answer(Answer::OutcomeUnknown), "audit", "pending"),
        (Wait(1_000), "audit, CreateOrder", "pending"),
        (Reload, "", "pending"),
        (
            Answer(Answer::OutcomeUnknown),
            "audit, RecordFinal",
            "failed ORDER_UNANSWERED",
        ),
        (Answer(Answer::Stored), "audit", "failed ORDER_UNANSWERED"),
    ]);
    assert!(done.checkout.is_finished());
    let sent = script::picked(&done, |a| match a {
        Action::CreateOrder {
            idempotency_key, ..
        } => Some(idempotency_key.clone()),
        _ => None,
    });
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0], sent[1], "a retry is the same order");
}

/// What WriteOrder records of each seat (price, tax) once Square made the
/// order with these lines, for 2 400 in all.
fn written_after(lines: Vec<OrderLine>) -> Vec<(u64, u64)> {
    let made = Answer::OrderCreated {
        order_id: "sq-order-1".to_owned(),
        version: 1,
        total_minor: 2_400,
        lines,
    };
    let done = Script::itemized("audit, CreateOrder").run(vec![
        (Answer(made), "audit, CreatePayment", "pending"),
        (Answer(approved()), "audit, CommitSeats", "pending"),
        (
            Answer(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
    ]);
    let Some(Action::WriteOrder { prices, .. }) = done.actions.last() else {
        panic!("WriteOrder last: {:?}", done.actions);
    };
    prices
        .iter()
        .map(|p| (p.amount_minor, p.tax_minor))
        .collect()
}

#[test]
fn squares_shares_of_the_tax_are_what_the_tickets_record() {
    // Square shared the order's 400 of tax as 201 and 199: the total is the
    // same, and a refund of A1 alone must return its line item's 1 201.
    let shared = vec![line("A1", 1_201, 201), line("A2", 1_199, 199)];
    assert_eq!(written_after(shared), [(1_201, 201), (1_199, 199)]);
    // Lines that do not add up to the order are not taken.
    let odd = vec![line("A1", 1_300, 201), line("A2", 1_199, 199)];
    assert_eq!(written_after(odd), [(1_200, 200), (1_200, 200)]);
}
