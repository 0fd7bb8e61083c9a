//! What a checkout asks the Durable Object to do, and the steps those
//! requests belong to.

use crate::status::Outcome;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Names one step of one checkout. Every request action carries the tag of
/// the step it belongs to; the Durable Object echoes it back with the answer
/// ([`crate::Event::Answer`]), and an answer whose tag is not the step in
/// flight is a late duplicate and changes nothing. A step keeps its tag
/// across retries, so the answer to any attempt of it is accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StepTag(pub u32);

/// The kinds of step, each one request to one system (Square, the ledger or
/// D1) that is retried until it is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// CreateOrder: the Square order the payment will pay, one line item
    /// per seat, same key and body each time.
    CreateOrder,
    /// UpdateOrder to CANCELED, alternating with RetrieveOrder, for the
    /// Square order of a payment that will never be taken.
    CancelOrder,
    /// CreatePayment with `autocomplete: false`, same key and body each time.
    Authorize,
    /// CancelPaymentByKey: the authorization's outcome stayed unknown.
    VoidUncertainPayment,
    /// `ledger.commit`: the hold's seats become pending for the order.
    CommitSeats,
    /// D1: the order and one pending ticket per seat, in one batch.
    WriteOrder,
    /// CompletePayment, alternating with GetPayment while answers fail.
    Capture,
    /// CancelPayment, alternating with GetPayment while answers fail.
    VoidAuthorization,
    /// RefundPayment of the whole amount, with the order's refund key.
    Refund,
    /// `ledger.confirm`: pending seats become sold.
    ConfirmSeats,
    /// D1: the order is paid and its tickets valid.
    MarkPaid,
    /// D1: the order's tickets are void.
    VoidTickets,
    /// `ledger.abandon`: pending seats go back on sale.
    AbandonSeats,
    /// D1: the order's final outcome.
    RecordFinal,
}

impl Step {
    /// Steps the Durable Object performs against its own ledger or D1. Their
    /// answers are awaited before the checkout moves on, so that a write
    /// still on its way can never land after a later step that undoes it.
    pub fn is_local(self) -> bool {
        !matches!(
            self,
            Step::Authorize
                | Step::CreateOrder
                | Step::CancelOrder
                | Step::VoidUncertainPayment
                | Step::Capture
                | Step::VoidAuthorization
                | Step::Refund
        )
    }

    pub fn stage(self) -> Stage {
        match self {
            Step::CreateOrder => Stage::CreatingOrder,
            Step::CancelOrder => Stage::CancellingOrder,
            Step::Authorize => Stage::Authorizing,
            Step::VoidUncertainPayment => Stage::VoidingUncertainPayment,
            Step::CommitSeats => Stage::CommittingSeats,
            Step::WriteOrder => Stage::WritingOrder,
            Step::Capture => Stage::Capturing,
            Step::VoidAuthorization => Stage::VoidingAuthorization,
            Step::Refund => Stage::Refunding,
            Step::ConfirmSeats => Stage::ConfirmingSeats,
            Step::MarkPaid => Stage::MarkingPaid,
            Step::VoidTickets => Stage::VoidingTickets,
            Step::AbandonSeats => Stage::AbandoningSeats,
            Step::RecordFinal => Stage::RecordingFinal,
        }
    }
}

/// Where a checkout is, for audit rows and dashboards: the step in flight,
/// `New` before the first, `Finished` when nothing is left to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    New,
    CreatingOrder,
    CancellingOrder,
    Authorizing,
    VoidingUncertainPayment,
    CommittingSeats,
    WritingOrder,
    Capturing,
    VoidingAuthorization,
    Refunding,
    ConfirmingSeats,
    MarkingPaid,
    VoidingTickets,
    AbandoningSeats,
    RecordingFinal,
    Finished,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// One thing for the Durable Object to do. Persist the checkout first, then
/// perform the actions in order; feed each request's answer back as
/// [`crate::Event::Answer`] with its `step`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// `POST /v2/orders`: one line item per seat at its price, the tax as
    /// Square works it out. The shell adds the location, the tax's name and
    /// whether it is inclusive, all fixed until a deploy, so a retry sends
    /// the same body under the same key.
    CreateOrder {
        step: StepTag,
        idempotency_key: String,
        /// The checkout's order id: Square's `reference_id`.
        reference_id: String,
        item_name: String,
        currency: String,
        prices: Vec<crate::order::SeatPrice>,
        /// What each line's discount is called (the code), if any.
        discount_code: Option<String>,
    },
    /// `GET /v2/orders/{order_id}`.
    GetOrder { step: StepTag, order_id: String },
    /// `PUT /v2/orders/{order_id}` with `state: CANCELED` at `version`; the
    /// key names the version, so a retry of the same update is one update.
    CancelOrder {
        step: StepTag,
        order_id: String,
        version: u64,
        idempotency_key: String,
    },
    /// `POST /v2/payments`. `autocomplete` is always false: authorize now,
    /// capture only once the seats and tickets are ours.
    CreatePayment {
        step: StepTag,
        idempotency_key: String,
        source_id: String,
        /// The order's price less its credit ([`crate::Order::charge_minor`]).
        amount_minor: u64,
        currency: String,
        reference_id: String,
        buyer_email: String,
        autocomplete: bool,
        /// The Square order it pays, whose total is `amount_minor`.
        #[serde(default)]
        square_order_id: Option<String>,
        /// The buyer verification token for `source_id` (a wallet's).
        #[serde(default)]
        verification_token: Option<String>,
    },
    /// `GET /v2/payments/{payment_id}`.
    GetPayment { step: StepTag, payment_id: String },
    /// `POST /v2/payments/{payment_id}/complete`. Completing a COMPLETED
    /// payment answers it unchanged, so a retry is safe without a key.
    CompletePayment { step: StepTag, payment_id: String },
    /// `POST /v2/payments/{payment_id}/cancel`: void the authorization.
    CancelPayment { step: StepTag, payment_id: String },
    /// `POST /v2/payments/cancel`: void whatever CreatePayment with this key
    /// made; succeeds when it made nothing.
    CancelPaymentByKey {
        step: StepTag,
        idempotency_key: String,
    },
    /// `POST /v2/refunds` for the whole amount the payment took (the
    /// order's price less its credit).
    RefundPayment {
        step: StepTag,
        payment_id: String,
        idempotency_key: String,
        amount_minor: u64,
        currency: String,
    },
    /// `ledger.commit(now, hold_id, order_id, seats)`. Answer
    /// `SeatsCommitted` for `Committed` and `AlreadyCommitted`, `SeatsTaken`
    /// for `CommitError::SeatsTaken`, `CommitRefused` for the rest.
    CommitSeats {
        step: StepTag,
        hold_id: String,
        order_id: String,
        seats: Vec<String>,
    },
    /// `ledger.confirm(now, order_id)`: answer `SeatsConfirmed`.
    ConfirmSeats { step: StepTag, order_id: String },
    /// `ledger.abandon(now, order_id)`: answer `SeatsAbandoned`, also for
    /// `AbandonError::OrderNotFound` (a commit that never happened).
    AbandonSeats { step: StepTag, order_id: String },
    /// D1, one batch: the order row and one 'pending' ticket per seat.
    /// Must be idempotent (an order already stored answers `OrderWritten`)
    /// and must not bring back an order that VoidTickets voided.
    WriteOrder {
        step: StepTag,
        order_id: String,
        hold_id: String,
        seats: Vec<String>,
        amount_minor: u64,
        currency: String,
        buyer_email: String,
        buyer_name: String,
        payment_id: String,
        /// Each seat's price (empty for an order made before there were).
        prices: Vec<crate::order::SeatPrice>,
        /// What an exchanged order's payment pays of `amount_minor`
        /// (`None` in an action stored before exchanges).
        #[serde(default)]
        credit: Option<crate::order::Credit>,
    },
    /// D1: the order is paid, its tickets 'valid'.
    MarkPaid {
        step: StepTag,
        order_id: String,
        payment_id: String,
    },
    /// D1: every ticket of the order 'void' (none may exist), and the order
    /// marked so that a late WriteOrder cannot write them again.
    VoidTickets { step: StepTag, order_id: String },
    /// D1: the order's final outcome (for staff and the order page).
    RecordFinal {
        step: StepTag,
        order_id: String,
        outcome: Outcome,
        payment_id: Option<String>,
    },
    /// An audit row for D1: one per change of the checkout's state, with
    /// Square's ids and statuses. Never holds card data. Needs no answer.
    Audit {
        at_ms: u64,
        order_id: String,
        from: Stage,
        to: Stage,
        detail: String,
    },
}

impl Action {
    /// The step a request belongs to; `None` for an audit row.
    pub fn step(&self) -> Option<StepTag> {
        match self {
            Action::CreatePayment { step, .. }
            | Action::CreateOrder { step, .. }
            | Action::GetOrder { step, .. }
            | Action::CancelOrder { step, .. }
            | Action::GetPayment { step, .. }
            | Action::CompletePayment { step, .. }
            | Action::CancelPayment { step, .. }
            | Action::CancelPaymentByKey { step, .. }
            | Action::RefundPayment { step, .. }
            | Action::CommitSeats { step, .. }
            | Action::ConfirmSeats { step, .. }
            | Action::AbandonSeats { step, .. }
            | Action::WriteOrder { step, .. }
            | Action::MarkPaid { step, .. }
            | Action::VoidTickets { step, .. }
            | Action::RecordFinal { step, .. } => Some(*step),
            Action::Audit { .. } => None,
        }
    }
}
