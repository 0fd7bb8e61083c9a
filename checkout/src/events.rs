//! What the Durable Object feeds a checkout: the answer to an action it
//! performed, or a payment status Square reported by webhook.

use crate::actions::StepTag;
use serde::{Deserialize, Serialize};

/// A Square payment's `status`. Square moves a payment forward only:
/// PENDING, then APPROVED, then one of COMPLETED, CANCELED or FAILED, each
/// final. So any report of a status, however old, is a lower bound on the
/// truth, which is what makes stale and reordered reports harmless.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PaymentStatus {
    Pending,
    Approved,
    Completed,
    Canceled,
    Failed,
}

impl PaymentStatus {
    /// Square's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentStatus::Pending => "PENDING",
            PaymentStatus::Approved => "APPROVED",
            PaymentStatus::Completed => "COMPLETED",
            PaymentStatus::Canceled => "CANCELED",
            PaymentStatus::Failed => "FAILED",
        }
    }

    /// Reads Square's spelling; `None` for a status this machine does not know.
    pub fn from_square(text: &str) -> Option<PaymentStatus> {
        match text {
            "PENDING" => Some(PaymentStatus::Pending),
            "APPROVED" => Some(PaymentStatus::Approved),
            "COMPLETED" => Some(PaymentStatus::Completed),
            "CANCELED" => Some(PaymentStatus::Canceled),
            "FAILED" => Some(PaymentStatus::Failed),
            _ => None,
        }
    }

    /// How far along Square's one-way path the status is.
    pub(crate) fn rank(self) -> u8 {
        match self {
            PaymentStatus::Pending => 1,
            PaymentStatus::Approved => 2,
            PaymentStatus::Completed | PaymentStatus::Canceled | PaymentStatus::Failed => 3,
        }
    }

    /// COMPLETED, CANCELED or FAILED: nothing moves it any more.
    pub fn is_final(self) -> bool {
        self.rank() == 3
    }
}

/// One input to [`crate::Checkout::handle_event`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// The answer to an action, with the action's `step` echoed back. An
    /// answer for a step the checkout has left changes nothing.
    Answer { step: StepTag, answer: Answer },
    /// A `payment.created` or `payment.updated` webhook for this order (the
    /// Durable Object routes it by `reference_id`, the order id, after
    /// checking its signature). Repeats and stale reports change nothing.
    PaymentObserved {
        payment_id: String,
        status: PaymentStatus,
    },
}

/// One line item of a Square order as Square worked it out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderLine {
    pub uid: String,
    /// What the line comes to, with any added tax.
    pub total_minor: u64,
    /// The tax in or on it.
    pub tax_minor: u64,
}

/// What performing an action produced, as the Durable Object reads it.
///
/// Square calls (CreatePayment, GetPayment, CompletePayment, CancelPayment,
/// CancelPaymentByKey, RefundPayment) answer with the first group; ledger
/// calls with the second; D1 writes with the third.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// A 2xx answer carrying `{"payment": …}` (or an error answer that
    /// carried a payment, other than a decline).
    Payment {
        payment_id: String,
        status: PaymentStatus,
    },
    /// CreatePayment refused the card (a PAYMENT_METHOD_ERROR such as
    /// GENERIC_DECLINE, CVV_FAILURE, INSUFFICIENT_FUNDS), with the id of the
    /// FAILED payment when the answer carried one.
    Declined {
        code: String,
        payment_id: Option<String>,
    },
    /// Any other 4xx but 404 and 429: the request was refused as a whole
    /// (IDEMPOTENCY_KEY_REUSED, CARD_TOKEN_USED, INVALID_REQUEST_ERROR codes,
    /// or a move the payment's status forbids, such as completing a
    /// CANCELED payment).
    Rejected { code: String },
    /// 404 NOT_FOUND for a payment id.
    PaymentNotFound,
    /// Timeout, 5xx, 429 or a dropped connection: the request may or may not
    /// have been carried out.
    OutcomeUnknown,
    /// CancelPaymentByKey succeeded: whatever the key made is void, or it
    /// made nothing.
    CanceledByKey,
    /// RefundPayment was accepted (the refund is PENDING or COMPLETED).
    RefundAccepted { refund_id: String },
    /// CreateOrder made the order (or had, for the same key): its id,
    /// version, total, and each line item as Square worked it out.
    OrderCreated {
        order_id: String,
        version: u64,
        total_minor: u64,
        lines: Vec<OrderLine>,
    },
    /// RetrieveOrder or UpdateOrder answered the order: its `state`
    /// (OPEN, COMPLETED, CANCELED, DRAFT) and version.
    OrderSeen {
        order_id: String,
        version: u64,
        state: String,
    },

    /// `ledger.commit` succeeded (or had already).
    SeatsCommitted,
    /// `ledger.commit` refused: the hold lapsed and these seats were taken.
    SeatsTaken { seats: Vec<String> },
    /// `ledger.commit` refused for another reason (a bug: the order id in
    /// use, seats that differ from the hold's); the reason is for staff.
    CommitRefused { reason: String },
    /// `ledger.confirm` succeeded (or had already).
    SeatsConfirmed,
    /// `ledger.abandon` succeeded, had already, or found no such order.
    SeatsAbandoned,

    /// WriteOrder stored the order and its tickets, or found them stored.
    OrderWritten,
    /// WriteOrder was refused by the unique index on live tickets: these
    /// seats already have a live ticket. Nothing was written.
    OrderConflict { seats: Vec<String> },
    /// MarkPaid, VoidTickets or RecordFinal was stored.
    Stored,
    /// A D1 write failed or timed out; it may or may not have been stored.
    StoreUnavailable,
}
