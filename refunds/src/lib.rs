//! Every refund of a paid order, decided in memory with time passed in:
//! staff refunds, buyers' cancellations and exchanges (within their
//! showing's [`Policy`]), refunds started in the Square Dashboard, and the
//! refund the showing's object sends when a paid order lost its seats.
//!
//! The crate is a state machine in the sans-IO style, like `checkout`: it
//! does no I/O, reads no clock and never names the platform. The Worker
//! loads an order's [`Book`] (its payment, tickets and refunds), feeds an
//! [`Event`], and performs the [`Action`]s that come out in order, feeding
//! Square's answers back ([`run`] is that loop, over the shell's [`Io`]).
//!
//! Rules it keeps, each checked after every step by the simulation in
//! `tests/simulation`:
//! - at most one refund of a payment may be pending at Square, whichever
//!   order asked: a refund asked while another may be waits
//!   ([`Status::Waiting`]);
//! - never more refunded than captured, an exchanged order never more of
//!   its old order's payment than its [`Credit`], and no ticket refunded
//!   twice;
//! - an exchange voids its tickets only once the order it bought is paid,
//!   and lets go of them if that order ends without tickets;
//! - a ticket is void before its seat is offered again;
//! - after a refund FAILED, no other refund of that payment is asked of
//!   Square (Square allows none), and staff are told;
//! - one order's error never stops the sweep for the others.
//!
//! # Code map
//! - `status`: [`Status`], one typed state, and the stored words.
//! - `book`: [`Book`], one order as refunds see it.
//! - `request`: the one `RefundPayment` body, keys, [`MAX_ATTEMPTS`].
//! - `machine`: [`decide`], [`Event`], [`Answer`], [`Action`], [`Refusal`].
//! - `policy`: what buyers may change themselves ([`Policy`], [`Fee`]).
//! - `run`: [`run`] and [`sweep`], the shell's loop over [`Io`].

mod book;
mod machine;
mod policy;
mod request;
mod run;
mod status;

pub use book::{
    Book, Credit, Elsewhere, Order, OrderStatus, Refund, Source, Ticket, MAX_REFUNDS, MAX_TICKETS,
};
pub use machine::{
    checkout_refund, decide, Action, Answer, Bought, Decision, Event, News, Refusal, Reply,
    ALREADY_PENDING, EXCHANGE_ABANDONED_MS, MAX_FAILURE_BYTES,
};
pub use policy::{
    CancelRule, Closed, ExchangeRule, Fee, Policy, PolicyProblem, MAX_CUTOFF_MINUTES, MAX_FIXED_FEE,
};
pub use request::{refund_key, RefundRequest, MAX_ATTEMPTS, MAX_KEY_CHARS, REFUND_REASON};
pub use run::{run, sweep, Io, Ran, RunError, Swept, MAX_ACTIONS_PER_RUN};
pub use status::Status;
