//! An order paid in part or in full by credit from an exchanged order:
//! Square is asked only for the rest, and a credit that pays for it all
//! takes the free path, with no card and no Square call.

mod script;

use checkout::{Action, Answer, Checkout, Config, Credit, NewCheckout, StartError, TextProblem};
use script::Do::{Answer as Reply, Observe, Reload};
use script::{approved, new_checkout, Script, START_MS};

/// The default order (2 400) with `amount_minor` of it credited.
fn credited(amount_minor: u64) -> NewCheckout {
    NewCheckout {
        credit: Some(Credit {
            from_order: "order-0".to_owned(),
            amount_minor,
        }),
        ..new_checkout()
    }
}

fn refused(new: NewCheckout) -> StartError {
    Checkout::start(new, START_MS, &Config::default()).expect_err("must be refused")
}

#[test]
fn square_is_asked_for_the_amount_less_the_credit() {
    let script = Script::start_with(credited(1_000), &Config::default(), "audit, CreatePayment");
    let Some(Action::CreatePayment { amount_minor, .. }) = script.actions.get(1) else {
        panic!("CreatePayment first: {:?}", script.actions);
    };
    assert_eq!(*amount_minor, 1_400);
    assert_eq!(
        script.checkout.order().amount_minor,
        2_400,
        "the full price"
    );
    assert_eq!(script.checkout.order().charge_minor(), 1_400);

    // The order is written at its full price, with its credit.
    let script = script.run(vec![
        (Reply(approved()), "audit, CommitSeats", "pending"),
        (
            Reply(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
    ]);
    let Some(Action::WriteOrder {
        amount_minor,
        credit,
        ..
    }) = script.actions.last()
    else {
        panic!("WriteOrder last: {:?}", script.actions);
    };
    assert_eq!(*amount_minor, 2_400);
    assert_eq!(credit.as_ref().map(|c| c.amount_minor), Some(1_000));
}

#[test]
fn a_payment_captured_for_no_seats_is_refunded_what_it_took_not_the_credit() {
    let script = Script::start_with(credited(1_000), &Config::default(), "audit, CreatePayment")
        .run(vec![
            (Reply(approved()), "audit, CommitSeats", "pending"),
            (
                Reply(Answer::SeatsTaken {
                    seats: vec!["A2".to_owned()],
                }),
                "audit, CancelPayment pay-1",
                "pending",
            ),
            (
                Reply(script::payment("pay-1", checkout::PaymentStatus::Completed)),
                "audit, RefundPayment pay-1",
                "pending",
            ),
        ]);
    let Some(Action::RefundPayment { amount_minor, .. }) = script.actions.last() else {
        panic!("RefundPayment last: {:?}", script.actions);
    };
    assert_eq!(*amount_minor, 1_400);
}

#[test]
fn a_credit_that_pays_for_everything_takes_the_free_path_without_square() {
    let new = NewCheckout {
        source_id: String::new(),
        ..credited(2_400)
    };
    assert!(new.charged_elsewhere());
    let script = Script::start_with(new, &Config::default(), "audit, CommitSeats").run(vec![
        (
            Reply(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
        // A webhook naming a payment changes nothing: there is none.
        (
            Observe("pay-1", checkout::PaymentStatus::Completed),
            "",
            "pending",
        ),
        (Reload, "", "pending"),
        (
            Reply(Answer::OrderWritten),
            "audit, ConfirmSeats",
            "pending",
        ),
        (Reply(Answer::SeatsConfirmed), "audit, MarkPaid", "pending"),
        (Reply(Answer::Stored), "audit", "paid"),
    ]);
    assert!(!script
        .actions
        .iter()
        .any(|a| matches!(a, Action::CreatePayment { .. } | Action::GetPayment { .. })));
    assert!(script.checkout.is_finished());
}

#[test]
fn a_credit_of_nothing_or_above_the_amount_or_from_no_order_is_refused_at_start() {
    assert_eq!(
        refused(credited(2_401)),
        StartError::CreditOutOfRange {
            credit_minor: 2_401,
            amount_minor: 2_400
        }
    );
    assert_eq!(
        refused(credited(0)),
        StartError::CreditOutOfRange {
            credit_minor: 0,
            amount_minor: 2_400
        }
    );
    let mut from_nowhere = credited(1_000);
    if let Some(credit) = &mut from_nowhere.credit {
        credit.from_order = "an order".to_owned();
    }
    assert_eq!(
        refused(from_nowhere),
        StartError::InvalidCreditOrder(TextProblem::BadCharacter)
    );
}

#[test]
fn an_order_stored_before_exchanges_reads_back_without_credit() {
    let (machine, _) = Checkout::start(credited(1_000), START_MS, &Config::default()).unwrap();
    let mut stored = serde_json::to_value(machine.order()).unwrap();
    stored.as_object_mut().unwrap().remove("credit");
    let old: checkout::Order = serde_json::from_value(stored).unwrap();
    assert_eq!(old.credit, None);
    assert_eq!(old.charge_minor(), old.amount_minor);
}
