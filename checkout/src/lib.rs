//! The checkout of one order: authorize the card, take the held seats,
//! write the order and its tickets, capture, and undo cleanly when any of it
//! fails, so that a buyer who paid always ends with tickets or their money
//! back and a seat is never sold twice.
//!
//! The crate is a pure state machine in the sans-IO style: it does no I/O,
//! reads no clock, draws no random numbers and never awaits. The `Showtime`
//! Durable Object feeds it events with the time (`handle_event`,
//! `handle_timeout`), persists it, then performs the [`Action`]s it returns
//! against Square, the ledger and D1, echoing each action's [`StepTag`] with
//! the answer. Exactly one step is in flight at a time; `poll_timeout` says
//! when it is due again.
//!
//! # Code map
//! - `checkout`: [`Checkout`], the public type, and its read accessors.
//! - `order`: [`NewCheckout`], [`Order`], an exchange's [`Credit`], their
//!   limits and [`StartError`].
//! - `config`: [`Config`] (retries and timeouts) and [`ConfigError`].
//! - `events`: [`Event`] and [`Answer`] (what comes in), [`PaymentStatus`].
//! - `actions`: [`Action`] (what goes out), [`Step`], [`StepTag`], [`Stage`].
//! - `status`: [`Outcome`] for staff, [`PublicStatus`] for the buyer.
//! - `state`: the facts a checkout keeps; they only move forward.
//! - `decide`: the next step, read from the facts alone.
//! - `machine`: the handlers: check an event belongs, record it, advance.
//! - `answers`: what each answer means for the step it answers.
//! - `requests`: the request each step sends; bounds on incoming text.
//! - `keys`: idempotency keys derived with SHA-256.
//! - `invariants`: [`Checkout::check_invariants`], run on every read-back.
//!
//! Architecture invariant: nothing here knows about Cloudflare, HTTP,
//! storage, clocks or randomness, and no card token reaches an audit row or
//! outlives the authorization in stored state.

mod actions;
mod answers;
mod checkout;
mod config;
mod decide;
pub mod discount;
mod events;
mod invariants;
mod keys;
mod machine;
mod order;
mod requests;
mod state;
mod status;
mod tax;

pub use actions::{Action, Stage, Step, StepTag};
pub use checkout::Checkout;
pub use config::{Config, ConfigError, MAX_AUTHORIZATION_ATTEMPTS_LIMIT, MAX_WAIT_MS};
pub use events::{Answer, Event, OrderLine, PaymentStatus};
pub use invariants::InvariantError;
pub use keys::{authorization_key, order_key, refund_key, MAX_IDEMPOTENCY_KEY_CHARS};
pub use machine::MAX_AUDIT_DETAIL_BYTES;
pub use order::{
    line_uid, Credit, NewCheckout, Order, SeatPrice, StartError, TextProblem, MAX_AMOUNT_MINOR,
    MAX_BUYER_EMAIL_BYTES, MAX_BUYER_NAME_BYTES, MAX_CATEGORY_ID_BYTES, MAX_CATEGORY_NAME_BYTES,
    MAX_HOLD_ID_BYTES, MAX_ITEM_NAME_BYTES, MAX_ORDER_ID_BYTES, MAX_SEATS_PER_ORDER,
    MAX_SEAT_NAME_BYTES, MAX_SOURCE_ID_BYTES,
};
pub use requests::{cut_text, MAX_CODE_BYTES, MAX_REASON_BYTES, MAX_SQUARE_ID_BYTES};
pub use status::{
    AttentionReason, Outcome, PublicStatus, AUTHORIZATION_VOIDED, ORDER_TOTAL_MISMATCH,
    ORDER_UNANSWERED, PAYMENT_FAILED, PAYMENT_STILL_PENDING, PAYMENT_UNCERTAIN,
};
pub use tax::{round_half_even, Tax, TaxLine, TaxProblem, MAX_TAX_RATE_BPS};
