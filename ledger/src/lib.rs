//! The seat ledger of one showing: which seats are available, held, pending,
//! sold or blocked, decided so that no seat is ever sold twice.
//!
//! The crate is a pure state machine. It does no I/O, reads no clock and
//! draws no random numbers: every call takes `now_ms`, answers at once, and
//! returns the rows it changed. The Durable Object around it loads a
//! [`Ledger`] once, calls one method per request, persists the [`Changes`],
//! and sets its alarm to [`Ledger::next_expiry`].
//!
//! A seat's life: `Available` → `Held` (a buyer's hold, 5 minutes by
//! default) → `Pending` (committed to an order while payment is finalized;
//! never expires by time) → `Sold` (only by `confirm`). A hold that runs out
//! or is released, an abandoned order and a refund each send seats back to
//! `Available`; so does moving a sold seat, in the same call that sells
//! the seat it moves to. Starting payment extends a hold once, to 10 minutes from its
//! start by default.
//!
//! # Code map
//! - `config`: [`Config`], its limits and [`ConfigError`].
//! - `ids`: [`UnitId`], [`HoldId`], [`OrderId`] and their checks.
//! - `layout`: the showing's list of units and [`SetupError`].
//! - `state`: unit states, hold and order records, the public seat map.
//! - `ledger`: the [`Ledger`] itself, its read accessors, and the steps all
//!   calls share: reading the clock, sweeping expired holds, recording changes.
//! - `holds`: `hold` (staff's, exempt from the single-seat rule),
//!   `hold_under` (a buyer's, keeping it), `hold_best`, `best_seats`,
//!   `release`, `start_payment`.
//! - `seating`: [`Seating`], a room of rows: the single-seat rule and best
//!   available's pick, with their scoring rule; tested against brute force.
//! - `orders`: `commit`, `confirm`, `abandon`, `void`, `move_seat`.
//! - `outcome`: what calls return: answers and [`Changes`].
//! - `error`: one refusal enum per call.
//! - `snapshot`: [`Snapshot`] and restore.
//! - `invariants`: [`Ledger::check_invariants`].
//!
//! Architecture invariant: nothing here knows about Cloudflare, storage,
//! time sources or randomness.

mod config;
mod error;
mod holds;
mod ids;
mod invariants;
mod layout;
mod ledger;
mod orders;
mod outcome;
mod seating;
mod snapshot;
mod state;

pub use config::{
    Config, ConfigError, MAX_CLOSED_ORDERS_LIMIT, MAX_NOW_MS, MAX_SEATS_PER_HOLD_LIMIT, MAX_UNITS,
    MAX_WINDOW_MS,
};
pub use error::{
    AbandonError, CommitError, ConfirmError, HoldError, MoveError, PaymentError, ReleaseError,
    TakeError, VoidError,
};
pub use holds::Rule;
pub use ids::{
    is_valid_unit_name, HoldId, IdError, OrderId, UnitId, MAX_ID_BYTES, MAX_UNIT_NAME_BYTES,
};
pub use invariants::InvariantError;
pub use layout::{LayoutError, SetupError};
pub use ledger::Ledger;
pub use outcome::{
    Abandoned, Changes, Committed, Confirmed, HoldGranted, Moved, Outcome, PaymentWindow, Released,
    Voided,
};
pub use seating::{
    place_name, zone_of_place, Best, SeatRow, SeatZone, Seating, SeatingError, MAX_PICK,
    MAX_ZONE_NAME_BYTES, PLACE_MARK,
};
pub use snapshot::{RestoreError, Snapshot, UnitRow};
pub use state::{
    Availability, Counts, HoldRecord, OrderRecord, OrderState, PublicState, UnitState,
};
