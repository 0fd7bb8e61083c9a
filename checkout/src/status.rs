//! How a checkout ends, for staff ([`Outcome`]) and for the buyer
//! ([`PublicStatus`]).

use serde::{Deserialize, Serialize};

/// `Failed` code: CreatePayment never gave a definite answer, and whatever
/// the key made was voided. Nothing was charged.
pub const PAYMENT_UNCERTAIN: &str = "PAYMENT_UNCERTAIN";
/// `Failed` code: the authorization was voided or lapsed before capture,
/// by someone other than this checkout. Nothing was charged.
pub const AUTHORIZATION_VOIDED: &str = "AUTHORIZATION_VOIDED";
/// `Declined` code: the payment came back FAILED without an error code.
pub const PAYMENT_FAILED: &str = "PAYMENT_FAILED";
/// `Failed` code: Square worked out another total for the order's line
/// items than the seats' prices add up to (its rules and ours parted);
/// nothing was charged and the Square order was cancelled.
pub const ORDER_TOTAL_MISMATCH: &str = "ORDER_TOTAL_MISMATCH";
/// `Failed` code: Square kept the payment PENDING past the order's
/// `pay_by_ms`. Nothing was captured; if Square approves it later, the
/// checkout cancels it by its id.
pub const PAYMENT_STILL_PENDING: &str = "PAYMENT_STILL_PENDING";
/// `Failed` code: CreateOrder never gave a definite answer; no payment
/// was asked for.
pub const ORDER_UNANSWERED: &str = "ORDER_UNANSWERED";

/// How a checkout ended. Once set it never changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Captured, seats sold, tickets valid.
    Paid,
    /// The card was declined; the hold stays, so the buyer may try another
    /// card (a new order with a new key). Nothing was charged.
    Declined { code: String },
    /// The hold lapsed and these seats were taken before the payment could
    /// claim them; the authorization was voided. Nothing was charged.
    SeatLost { seats: Vec<String> },
    /// Nothing was charged and no seats were taken; `code` says why.
    Failed { code: String },
    /// Staff must look; the buyer keeps no seats, and was either never
    /// charged or refunded (see the reason).
    NeedsAttention { reason: AttentionReason },
}

/// Why a checkout needs staff.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AttentionReason {
    /// D1 already had live tickets for these seats although the ledger gave
    /// them to this order. The authorization was voided, the seats released.
    OrderConflict { seats: Vec<String> },
    /// The ledger refused the commit for a reason other than taken seats.
    /// The authorization was voided.
    CommitRefused { reason: String },
    /// The payment was captured (by someone else) but the order had no seats
    /// to give; it was refunded in full.
    RefundedWithoutSeats { refund_id: String },
    /// A refund was due and Square refused it: money may be kept.
    RefundRejected { code: String },
    /// CancelPaymentByKey was refused; an authorization may remain until it
    /// lapses.
    UncertainPaymentNotVoided { code: String },
}

/// What the buyer's order page shows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum PublicStatus {
    /// Still working: payment, seats or tickets not settled yet.
    Pending,
    Paid,
    Declined {
        code: String,
    },
    SeatLost {
        seats: Vec<String>,
    },
    NeedsAttention,
    Failed {
        code: String,
    },
}

impl PublicStatus {
    /// True for every status but `Pending`; a final status never changes.
    pub fn is_final(&self) -> bool {
        !matches!(self, PublicStatus::Pending)
    }

    /// The status's name, as D1 and the API spell it (its `status` tag).
    pub fn name(&self) -> &'static str {
        match self {
            PublicStatus::Pending => "pending",
            PublicStatus::Paid => "paid",
            PublicStatus::Declined { .. } => "declined",
            PublicStatus::SeatLost { .. } => "seat_lost",
            PublicStatus::NeedsAttention => "needs_attention",
            PublicStatus::Failed { .. } => "failed",
        }
    }
}

impl Outcome {
    pub fn public(&self) -> PublicStatus {
        match self {
            Outcome::Paid => PublicStatus::Paid,
            Outcome::Declined { code } => PublicStatus::Declined { code: code.clone() },
            Outcome::SeatLost { seats } => PublicStatus::SeatLost {
                seats: seats.clone(),
            },
            Outcome::Failed { code } => PublicStatus::Failed { code: code.clone() },
            Outcome::NeedsAttention { .. } => PublicStatus::NeedsAttention,
        }
    }
}
