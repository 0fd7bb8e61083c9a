//! What a checkout knows: the order, and one fact per system it deals with
//! (Square's payment, the ledger's seats, D1's tickets), plus the one step
//! in flight. Facts only move forward; `decide.rs` reads them to choose the
//! next step, `machine.rs` changes them as answers arrive.

use crate::actions::{Stage, Step, StepTag};
use crate::config::Config;
use crate::events::PaymentStatus;
use crate::order::Order;
use crate::status::Outcome;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Everything a checkout persists. Wrapped by [`crate::Checkout`], which
/// checks the invariants whenever it is read back.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct State {
    pub config: Config,
    pub order: Order,
    /// Kept only while CreatePayment may still be sent (authorization
    /// `Awaiting`), so that stored state holds card data no longer than needed.
    pub source_id: Option<CardToken>,
    /// The buyer verification token that goes with the card token (a
    /// wallet's, from the SDK's `verifyBuyer()`), kept and dropped with it.
    #[serde(default)]
    pub verification_token: Option<CardToken>,
    /// Derived from the hold id and the card token at start; kept because
    /// the token is dropped but CancelPaymentByKey still needs the key.
    pub authorization_key: String,
    pub payment: PaymentFacts,
    pub authorization: Authorization,
    pub seats: Seats,
    pub tickets: Tickets,
    pub refund: Refund,
    /// The Square order the payment pays for (`NotUsed` for a checkout
    /// stored before there were).
    #[serde(default)]
    pub square_order: SquareOrder,
    /// Set once, when the outcome is known; never changed after.
    pub outcome: Option<Outcome>,
    /// D1 holds the outcome (MarkPaid or RecordFinal was stored).
    pub final_recorded: bool,
    /// The one step whose request is out or due again; `None` once finished.
    pub in_flight: Option<InFlight>,
    /// Steps started so far: the next step's tag.
    pub steps_started: u32,
    /// The latest `now_ms` seen: an earlier one is read as this, so a clock
    /// that goes backwards cannot make a deadline come twice.
    pub latest_now_ms: u64,
}

/// The card token, printed as `<redacted>` so that no log line shows it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct CardToken(pub String);

impl fmt::Debug for CardToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// What Square told us about the order's payment.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct PaymentFacts {
    /// Square's payment id, once an answer or a webhook named it.
    pub id: Option<String>,
    /// The furthest status seen. CANCELED is also set, without a report,
    /// once CancelPaymentByKey succeeded.
    pub status: Option<PaymentStatus>,
}

impl State {
    /// The authorization is settled: no card data is kept past it.
    pub(crate) fn drop_card(&mut self) {
        self.source_id = None;
        self.verification_token = None;
    }
}

impl PaymentFacts {
    /// Takes a report into account; true if it told something new. A report
    /// behind what is known is stale; one final status contradicting another
    /// cannot happen at Square and is ignored, keeping the first.
    pub fn merge(&mut self, payment_id: &str, status: PaymentStatus) -> bool {
        let mut learned = false;
        if self.id.is_none() {
            self.id = Some(payment_id.to_owned());
            learned = true;
        }
        let known_rank = self.status.map_or(0, PaymentStatus::rank);
        if status.rank() > known_rank {
            self.status = Some(status);
            learned = true;
        }
        learned
    }

    pub fn is(&self, status: PaymentStatus) -> bool {
        self.status == Some(status)
    }
}

/// Where the CreatePayment request stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Authorization {
    /// Nothing is charged through Square: the order is free, its credit
    /// pays for all of it, or it was paid at the box office. No payment is asked for; the seats and tickets
    /// are taken as for a captured one.
    NotCharged,
    /// No definite answer yet; after `max_authorization_attempts` unknown
    /// ones the checkout gives up and voids by key.
    Awaiting {
        unknown_answers: u32,
    },
    /// Square made a payment and it got past FAILED; its status is in
    /// [`PaymentFacts`].
    Approved,
    Declined {
        code: String,
    },
    /// CreatePayment was refused, not as a decline (a malformed request,
    /// a wrong environment, a key in use): being voided by key before the
    /// order fails, in case the refusal hid a payment.
    Refused {
        code: String,
    },
    /// Refused as a whole, and voided by key; nothing was made.
    Rejected {
        code: String,
    },
    /// Too many unknown answers: voiding whatever the key made.
    GivenUp,
    /// The payment stayed PENDING past `pay_by_ms`. The buyer is told
    /// nothing was charged; the payment is then watched (GetPayment, and
    /// its webhooks) and cancelled by its id if Square approves it, since
    /// a PENDING payment cannot be cancelled, by key or by id.
    StoppedWaiting,
    /// CancelPaymentByKey succeeded.
    VoidedByKey,
    /// CancelPaymentByKey was refused.
    VoidByKeyRejected {
        code: String,
    },
}

/// The order's seats in the ledger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Seats {
    /// Held by the hold (or lapsed); not the order's.
    Held,
    /// CommitSeats was sent and not answered: the seats may be pending for
    /// the order, so undoing the checkout must abandon them.
    MaybeCommitted,
    /// Pending for the order: nobody else can take them.
    Committed,
    /// The commit was refused: these seats belong to someone else.
    Taken { seats: Vec<String> },
    /// The commit was refused for another reason.
    Refused { reason: String },
    /// Sold to the order.
    Sold,
    /// Abandoned: back on sale.
    Released,
}

/// The order and its tickets in D1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Tickets {
    NotWritten,
    /// WriteOrder was sent and not definitely answered: the tickets may be
    /// live, so undoing the checkout must void them.
    MaybeWritten,
    /// Stored, 'pending'.
    Written,
    /// Refused by the unique index: these seats have live tickets already.
    Conflict {
        seats: Vec<String>,
    },
    /// Marked paid, tickets 'valid'.
    Paid,
    Voided,
}

/// The refund of a captured payment the order cannot keep.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Refund {
    NotStarted,
    Accepted { refund_id: String },
    Rejected { code: String },
}

/// The Square order that itemises the sale: a line item per seat, the
/// tax worked out by Square.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum SquareOrder {
    /// The payment pays for no Square order: nothing is charged through
    /// Square, an exchange's credit pays part of it, the configuration
    /// says so, or CreateOrder never answered and the checkout gave up.
    #[default]
    NotUsed,
    /// CreateOrder is to be sent, or was and is not answered yet.
    Creating,
    /// Square made it, OPEN at `version` as last seen.
    Open { id: String, version: u64 },
    /// CANCELED by this checkout, or COMPLETED by its capture: nothing
    /// more to do with it.
    Closed { id: String, state: String },
    /// Could not be cancelled in `MAX_ORDER_CANCEL_SENDS` requests; it
    /// stays OPEN with no payment, which costs nothing but a line in the
    /// Dashboard's open orders.
    LeftOpen { id: String },
}

impl SquareOrder {
    pub fn id(&self) -> Option<&str> {
        match self {
            SquareOrder::Open { id, .. }
            | SquareOrder::Closed { id, .. }
            | SquareOrder::LeftOpen { id } => Some(id),
            SquareOrder::NotUsed | SquareOrder::Creating => None,
        }
    }
}

/// The step whose request is out, or due to be sent again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct InFlight {
    pub tag: StepTag,
    pub step: Step,
    /// Requests sent for this step (saturating). It sets the backoff, and
    /// for capture and void picks the request: even counts send the action,
    /// odd ones GetPayment.
    pub sent: u32,
    pub waiting: Waiting,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Waiting {
    /// A request is out. With no answer by `due_at_ms` it counts as
    /// unanswered: the object may have died mid-call.
    Answer { due_at_ms: u64 },
    /// The last request was answered without settling the step; the next
    /// one is sent at `next_attempt_at_ms`.
    Retry { next_attempt_at_ms: u64 },
}

impl Waiting {
    pub fn due_at_ms(self) -> u64 {
        match self {
            Waiting::Answer { due_at_ms } => due_at_ms,
            Waiting::Retry { next_attempt_at_ms } => next_attempt_at_ms,
        }
    }
}

impl State {
    pub fn stage(&self) -> Stage {
        match &self.in_flight {
            Some(in_flight) => in_flight.step.stage(),
            None if self.outcome.is_some() => Stage::Finished,
            None => Stage::New,
        }
    }
}
