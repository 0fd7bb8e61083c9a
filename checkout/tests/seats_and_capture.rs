//! After the authorization: taking the seats, writing the order, capturing,
//! and undoing each of them when the next one fails.

mod script;

use checkout::{Answer, PaymentStatus::*, Step};
use script::{approved, payment, Do::*, Script};

fn authorized() -> Script {
    Script::start("audit, CreatePayment").run(vec![(
        Answer(approved()),
        "audit, CommitSeats",
        "pending",
    )])
}

fn capturing() -> Script {
    authorized().run(vec![
        (
            Answer(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
        (
            Answer(Answer::OrderWritten),
            "audit, CompletePayment pay-1",
            "pending",
        ),
    ])
}

fn seats_taken() -> Answer {
    Answer::SeatsTaken {
        seats: vec!["A2".to_owned()],
    }
}

fn rejected(code: &str) -> Answer {
    Answer::Rejected {
        code: code.to_owned(),
    }
}

#[test]
fn taken_seats_void_the_authorization_and_the_seat_is_lost() {
    authorized().run(vec![
        (
            Answer(seats_taken()),
            "audit, CancelPayment pay-1",
            "pending",
        ),
        (Answer(Answer::OutcomeUnknown), "audit", "pending"),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        (Answer(approved()), "audit", "pending"),
        (Wait(2_000), "audit, CancelPayment pay-1", "pending"),
        (
            Answer(payment("pay-1", Canceled)),
            "audit, RecordFinal",
            "seat_lost A2",
        ),
        (Answer(Answer::Stored), "audit", "seat_lost A2"),
    ]);
}

#[test]
fn a_conflict_in_the_tickets_voids_then_releases_the_seats() {
    let conflict = Answer::OrderConflict {
        seats: vec!["A1".to_owned(), "Z9".to_owned()],
    };
    authorized().run(vec![
        (
            Answer(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
        (Answer(conflict), "audit, CancelPayment pay-1", "pending"),
        (
            Answer(payment("pay-1", Canceled)),
            "audit, AbandonSeats",
            "pending",
        ),
        (
            Answer(Answer::SeatsAbandoned),
            "audit, RecordFinal",
            "needs_attention",
        ),
        (Answer(Answer::Stored), "audit", "needs_attention"),
    ]);
}

#[test]
fn an_unknown_capture_alternates_with_asking_and_never_gives_up() {
    let mut script = capturing();
    let mut lines = Vec::new();
    let mut wait = 1_000;
    for round in 0..12 {
        let request = if round % 2 == 0 {
            "audit, GetPayment pay-1"
        } else {
            "audit, CompletePayment pay-1"
        };
        lines.push((Answer(Answer::OutcomeUnknown), "audit", "pending"));
        lines.push((Wait(wait), request, "pending"));
        wait = (wait * 2).min(60_000);
    }
    script = script.run(lines);
    script.run(vec![
        (
            Answer(payment("pay-1", Completed)),
            "audit, ConfirmSeats",
            "pending",
        ),
        (Answer(Answer::SeatsConfirmed), "audit, MarkPaid", "pending"),
        (Answer(Answer::StoreUnavailable), "audit", "pending"),
        (Wait(1_000), "audit, MarkPaid", "pending"),
        (Answer(Answer::Stored), "audit", "paid"),
    ]);
}

#[test]
fn a_completed_webhook_while_capturing_counts_as_the_capture() {
    capturing().run(vec![
        (
            Observe("pay-1", Completed),
            "audit, ConfirmSeats",
            "pending",
        ),
        // The capture's own answer arrives after the step moved on.
        (
            AnswerStale(Step::Capture, payment("pay-1", Completed)),
            "",
            "pending",
        ),
        (Observe("pay-1", Approved), "", "pending"),
        (Answer(Answer::SeatsConfirmed), "audit, MarkPaid", "pending"),
        (Answer(Answer::Stored), "audit", "paid"),
        (Observe("pay-1", Completed), "", "paid"),
    ]);
}

#[test]
fn a_capture_refused_because_the_authorization_lapsed_undoes_tickets_then_seats() {
    capturing().run(vec![
        (
            Answer(rejected("DELAYED_TRANSACTION_CANCELED")),
            "audit",
            "pending",
        ),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        (
            Answer(payment("pay-1", Canceled)),
            "audit, VoidTickets",
            "pending",
        ),
        (Answer(Answer::StoreUnavailable), "audit", "pending"),
        (Wait(1_000), "audit, VoidTickets", "pending"),
        (Answer(Answer::Stored), "audit, AbandonSeats", "pending"),
        (
            Answer(Answer::SeatsAbandoned),
            "audit, RecordFinal",
            "failed AUTHORIZATION_VOIDED",
        ),
        (
            Answer(Answer::Stored),
            "audit",
            "failed AUTHORIZATION_VOIDED",
        ),
    ]);
}

#[test]
fn a_void_refused_because_of_a_capture_refunds_when_the_seats_are_gone() {
    let accepted = Answer::RefundAccepted {
        refund_id: "pay-1_r1".to_owned(),
    };
    authorized().run(vec![
        (
            Answer(seats_taken()),
            "audit, CancelPayment pay-1",
            "pending",
        ),
        (
            Answer(rejected("DELAYED_TRANSACTION_CAPTURED")),
            "audit",
            "pending",
        ),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        (
            Answer(payment("pay-1", Completed)),
            "audit, RefundPayment pay-1",
            "pending",
        ),
        (Answer(Answer::OutcomeUnknown), "audit", "pending"),
        (Wait(1_000), "audit, RefundPayment pay-1", "pending"),
        (Answer(accepted), "audit, RecordFinal", "needs_attention"),
        (Answer(Answer::Stored), "audit", "needs_attention"),
    ]);
}

#[test]
fn a_capture_found_while_voiding_a_conflict_refunds_then_releases() {
    let conflict = Answer::OrderConflict {
        seats: vec!["A1".to_owned()],
    };
    let accepted = Answer::RefundAccepted {
        refund_id: "pay-1_r1".to_owned(),
    };
    authorized().run(vec![
        (
            Answer(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
        (Answer(conflict), "audit, CancelPayment pay-1", "pending"),
        (
            Observe("pay-1", Completed),
            "audit, RefundPayment pay-1",
            "pending",
        ),
        (Answer(accepted), "audit, AbandonSeats", "pending"),
        (
            Answer(Answer::SeatsAbandoned),
            "audit, RecordFinal",
            "needs_attention",
        ),
    ]);
}

#[test]
fn a_capture_found_while_voiding_goes_to_the_paid_path_if_the_seats_are_ours() {
    // Only a capture by hand can do this: the seats are committed, the
    // tickets written, and the checkout was about to capture anyway.
    capturing().run(vec![
        (Answer(rejected("VERSION_MISMATCH")), "audit", "pending"),
        (
            Observe("pay-1", Completed),
            "audit, ConfirmSeats",
            "pending",
        ),
        (Answer(Answer::SeatsConfirmed), "audit, MarkPaid", "pending"),
        (Answer(Answer::Stored), "audit", "paid"),
    ]);
}

#[test]
fn a_webhook_during_a_store_write_waits_for_the_write_to_answer() {
    authorized().run(vec![
        (
            Answer(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
        // The authorization lapsed while D1 is writing: undo only once the
        // write has answered, so it cannot land after the void.
        (Observe("pay-1", Canceled), "audit", "pending"),
        (
            Answer(Answer::OrderWritten),
            "audit, VoidTickets",
            "pending",
        ),
        (Answer(Answer::Stored), "audit, AbandonSeats", "pending"),
        (
            Answer(Answer::SeatsAbandoned),
            "audit, RecordFinal",
            "failed AUTHORIZATION_VOIDED",
        ),
    ]);
}

#[test]
fn an_unanswered_write_is_voided_in_case_it_landed() {
    authorized().run(vec![
        (
            Answer(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
        (Answer(Answer::StoreUnavailable), "audit", "pending"),
        (Observe("pay-1", Canceled), "audit, VoidTickets", "pending"),
        (Answer(Answer::Stored), "audit, AbandonSeats", "pending"),
    ]);
}

#[test]
fn an_unanswered_commit_is_abandoned_in_case_it_happened() {
    authorized().run(vec![
        (Reload, "", "pending"),
        (Observe("pay-1", Canceled), "audit", "pending"),
        (Wait(30_000), "audit, AbandonSeats", "pending"),
        (
            Answer(Answer::SeatsAbandoned),
            "audit, RecordFinal",
            "failed AUTHORIZATION_VOIDED",
        ),
    ]);
}

#[test]
fn late_duplicates_of_every_kind_change_nothing() {
    capturing().run(vec![
        (
            AnswerStale(Step::WriteOrder, Answer::OrderWritten),
            "",
            "pending",
        ),
        (
            AnswerStale(Step::WriteOrder, Answer::StoreUnavailable),
            "",
            "pending",
        ),
        (
            AnswerStale(Step::CommitSeats, Answer::SeatsCommitted),
            "",
            "pending",
        ),
        (AnswerStale(Step::CommitSeats, seats_taken()), "", "pending"),
        (
            AnswerStale(Step::Authorize, rejected("CARD_TOKEN_USED")),
            "",
            "pending",
        ),
        (Observe("pay-1", Approved), "", "pending"),
        (Observe("pay-other", Canceled), "", "pending"),
        (
            Answer(payment("pay-1", Completed)),
            "audit, ConfirmSeats",
            "pending",
        ),
        (
            AnswerStale(Step::Capture, payment("pay-1", Completed)),
            "",
            "pending",
        ),
        (
            AnswerStale(Step::Capture, Answer::OutcomeUnknown),
            "",
            "pending",
        ),
        (Observe("pay-1", Canceled), "", "pending"),
    ]);
}

#[test]
fn a_reload_at_any_line_resumes_with_the_same_request() {
    capturing().run(vec![
        (Reload, "", "pending"),
        (Wait(30_000), "audit", "pending"),
        (Reload, "", "pending"),
        (Wait(1_000), "audit, GetPayment pay-1", "pending"),
        (Reload, "", "pending"),
        (
            Answer(payment("pay-1", Completed)),
            "audit, ConfirmSeats",
            "pending",
        ),
    ]);
}

#[test]
fn a_late_stored_for_one_write_does_not_answer_another() {
    // VoidTickets, RecordFinal and MarkPaid all answer `Stored`: only the
    // step tag tells them apart.
    capturing().run(vec![
        (
            Answer(payment("pay-1", Canceled)),
            "audit, VoidTickets",
            "pending",
        ),
        (Wait(30_000), "audit", "pending"),
        (Wait(1_000), "audit, VoidTickets", "pending"),
        (Answer(Answer::Stored), "audit, AbandonSeats", "pending"),
        (
            Answer(Answer::SeatsAbandoned),
            "audit, RecordFinal",
            "failed AUTHORIZATION_VOIDED",
        ),
        (
            AnswerStale(Step::VoidTickets, Answer::Stored),
            "",
            "failed AUTHORIZATION_VOIDED",
        ),
        (
            Answer(Answer::Stored),
            "audit",
            "failed AUTHORIZATION_VOIDED",
        ),
    ]);
}

/// A free order (every seat at a free price), with no card token: no
/// payment is asked for; the seats and tickets are taken as for a
/// captured payment, a webhook naming a payment changes nothing, and a
/// reload keeps it all.
fn free_checkout() -> checkout::NewCheckout {
    let mut new = script::new_checkout();
    new.amount_minor = 0;
    new.source_id = String::new();
    for price in &mut new.prices {
        price.amount_minor = 0;
        price.tax_minor = 0;
    }
    new
}

#[test]
fn a_free_order_takes_its_seats_and_tickets_without_square() {
    takes_seats_and_tickets_without_square(
        free_checkout(),
        vec![
            (Observe("pay-1", Completed), "", "pending"),
            (Reload, "", "pending"),
        ],
    );
}

#[test]
fn a_free_order_whose_seats_were_taken_ends_seat_lost_with_nothing_to_refund() {
    Script::start_with(
        free_checkout(),
        &checkout::Config::default(),
        "audit, CommitSeats",
    )
    .run(vec![
        (Answer(seats_taken()), "audit, RecordFinal", "seat_lost A2"),
        (Answer(Answer::Stored), "audit", "seat_lost A2"),
    ]);
}

#[test]
fn an_order_paid_at_the_box_office_asks_square_for_nothing() {
    let mut at_desk = script::new_checkout();
    at_desk.paid_at_desk = true;
    at_desk.source_id = String::new();
    takes_seats_and_tickets_without_square(at_desk, vec![]);
}

/// An order charged elsewhere (free, or at the box office) commits, writes,
/// confirms and marks paid with no Square step; `between` runs after the
/// seats are committed.
fn takes_seats_and_tickets_without_square(
    new: checkout::NewCheckout,
    between: Vec<(script::Do, &str, &str)>,
) {
    let mut lines = vec![(
        Answer(Answer::SeatsCommitted),
        "audit, WriteOrder",
        "pending",
    )];
    lines.extend(between);
    lines.extend([
        (
            Answer(Answer::OrderWritten),
            "audit, ConfirmSeats",
            "pending",
        ),
        (Answer(Answer::SeatsConfirmed), "audit, MarkPaid", "pending"),
        (Answer(Answer::Stored), "audit", "paid"),
    ]);
    Script::start_with(new, &checkout::Config::default(), "audit, CommitSeats").run(lines);
}
