//! What a decision hands its shell: the reply to give, the rows to write
//! before giving it, and the effects to perform afterwards, with the
//! answers of effects fed back through [`crate::Desk::handle_answer`].

use checkout::StepTag;

use crate::protocol::Reply;
use crate::refusal::Refusal;
use crate::square::SquareCall;
use crate::storage::Write;

/// One decision's output, in the order the shell must act on it: write
/// every row (they commit together, before anything else is seen), set the
/// alarm to [`crate::Desk::poll_timeout`], then perform the effects in order.
#[derive(Debug, Default)]
pub struct Decision {
    /// `None` for decisions nobody waits on (an alarm, an effect's answer).
    pub reply: Option<Result<Reply, Refusal>>,
    pub writes: Vec<Write>,
    pub effects: Vec<Effect>,
}

/// Something the shell does outside the object's storage.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Call Square and feed the reply back as [`Answer::Square`] for this
    /// order and step.
    Square {
        order_id: String,
        step: StepTag,
        call: SquareCall,
    },
    /// Refund a checkout's payment: the shell records the refund with the
    /// order's others (so its webhook is known), then sends
    /// [`crate::square::refund_call`] and feeds the reply back as
    /// [`Answer::Square`] for this order and step.
    Refund {
        order_id: String,
        step: StepTag,
        request: refunds::RefundRequest,
    },
    /// Write to D1 and feed the outcome back as [`Answer::Store`].
    Store {
        order_id: String,
        step: StepTag,
        write: OrderWrite,
    },
    /// Write to D1 with nobody waiting on the outcome: a failure is logged
    /// and changes nothing (audit rows, the early pending-order row).
    Record(Record),
    /// Send every watching browser `message`, the map at `version` (the
    /// changes since the last push, or the whole map).
    Push { version: u64, message: String },
    /// Test-only crash injection: the shell makes sure the writes before
    /// this are on disk, then dies as a crash would.
    Crash { reason: String },
    /// An order paid with credit from `from_order` has its outcome in D1
    /// (paid, or ended without tickets): the shell finishes the exchange
    /// of the old order's tickets. Emitted once, in the decision that
    /// saves the finished checkout; if it is lost, the Worker's sweep
    /// finishes the exchange.
    ExchangeSettled {
        order_id: String,
        from_order: String,
    },
    /// Tell a limited discount code's object `request` about the use of
    /// hold `hold_id`, and feed its answer back through
    /// [`crate::Desk::handle_code_answer`]. Kept until answered, and sent
    /// again by the alarm while unanswered.
    CodeUse(CodeSent),
    /// Seats are held for a person on the waiting list: the shell queues
    /// the mail with the offer's signed link (once per entry: its row is
    /// named by the entry). Lost, the offer lapses unclaimed at `until_ms`
    /// and goes to the next person.
    OfferMail {
        showing_id: String,
        entry_id: String,
        email: String,
        seats: Vec<String>,
        until_ms: u64,
    },
}

/// A message for a limited code's object about one hold's use: the shell
/// sends `request` to the object of `code` and hands this back with the
/// answer.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeSent {
    pub code: String,
    pub hold_id: String,
    pub request: uses::Request,
}

/// A D1 write whose outcome the checkout needs.
#[derive(Debug, Clone, PartialEq)]
pub enum OrderWrite {
    /// The order as paid-for and one live ticket per seat.
    Order {
        /// The showing the tickets are for: carried here, never filled in
        /// by the shell from what it has in memory.
        showing_id: String,
        seats: Vec<String>,
        payment_id: String,
        /// Each seat's category and price (empty for an older order).
        prices: Vec<checkout::SeatPrice>,
        /// What an exchanged order's payment pays of it (0 for none), and
        /// that order: written here too, in case the pending row's record
        /// was lost.
        credit: u64,
        exchanged_from: Option<String>,
        /// What the receipt calls the tax, and whether the prices include
        /// it; each seat's rate and tax are in `prices`.
        tax_name: String,
        tax_inclusive: bool,
    },
    MarkPaid {
        payment_id: String,
    },
    VoidTickets,
    /// The order's final status, with the outcome as JSON for staff.
    Final {
        status: &'static str,
        detail: Option<String>,
        payment_id: Option<String>,
    },
}

/// A D1 row written for the record.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    /// The order row, pending, written when a checkout starts, so staff see
    /// a checkout whose payment outcome is unknown.
    PendingOrder {
        order_id: String,
        showing_id: String,
        email: String,
        name: String,
        amount: u64,
        currency: String,
        /// `online`, or how a box-office sale was paid: `cash`,
        /// `card_at_desk`, `comp`.
        channel: String,
        /// Why a comp was given.
        comp_reason: Option<String>,
        /// What an exchanged order's payment pays of `amount` (0 for
        /// none), and that order.
        credit: u64,
        exchanged_from: Option<String>,
        /// The discount code the hold had, if any.
        discount_code: Option<String>,
    },
    /// One step of an order's history.
    Audit {
        order_id: String,
        at_ms: u64,
        from: String,
        to: String,
        detail: String,
    },
}

/// An effect's answer, fed back to the desk.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Square(crate::square::SquareReply),
    Store(StoreOutcome),
}

/// How a D1 write went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreOutcome {
    Stored,
    /// Some seats already have another live ticket (the unique index).
    Conflict {
        seats: Vec<String>,
    },
    Unavailable,
}
