//! What each call hands back: its answer, and the rows it changed.

use crate::ids::{HoldId, OrderId, UnitId};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The rows one call changed, so that the Durable Object persists only those.
///
/// For each listed unit, read [`crate::Ledger::unit_state`]; for each listed
/// hold or order, read [`crate::Ledger::hold_record`] or
/// [`crate::Ledger::order_record`]: `None` means the row is to be deleted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Changes {
    pub units: BTreeSet<UnitId>,
    pub holds: BTreeSet<HoldId>,
    pub orders: BTreeSet<OrderId>,
    /// The ledger's version after the call; it went up by one if anything
    /// above changed.
    pub version: u64,
    /// The latest instant the ledger has seen, after the call. Persist it with
    /// the version, so that a restart followed by a clock that went backwards
    /// cannot bring an expired hold back.
    pub latest_now_ms: u64,
}

impl Changes {
    /// True when the call changed no unit, hold or order.
    pub fn is_empty(&self) -> bool {
        self.units.is_empty() && self.holds.is_empty() && self.orders.is_empty()
    }
}

/// The answer to one call and the rows it changed. A refused call may still
/// have changed rows: every call first releases expired holds.
#[must_use = "the changes must be persisted"]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome<T, E> {
    pub result: Result<T, E>,
    pub changes: Changes,
}

/// A hold was granted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldGranted {
    /// The held units, in the order they were requested.
    pub units: Vec<UnitId>,
    /// The hold is gone from this instant unless payment starts first.
    pub expires_at_ms: u64,
}

/// A hold was released early; its seats are available again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Released {
    pub units: Vec<UnitId>,
}

/// The answer to `start_payment`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaymentWindow {
    /// The hold now lasts until `expires_at_ms`, its one extension.
    Started { expires_at_ms: u64 },
    /// Payment had already started; nothing changed.
    AlreadyPaying { expires_at_ms: u64 },
}

/// The answer to `commit`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Committed {
    /// The seats are now pending for the order. `hold_had_lapsed` says the
    /// hold was gone and the seats, still free, were taken again.
    Committed { hold_had_lapsed: bool },
    /// The order was already committed with these seats; nothing changed.
    AlreadyCommitted,
}

/// The answer to `confirm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Confirmed {
    /// The order's seats are sold.
    Confirmed,
    /// The order was already confirmed; nothing changed.
    AlreadyConfirmed,
}

/// The answer to `abandon`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Abandoned {
    /// The order's seats are available again.
    Abandoned,
    /// The order was already abandoned; nothing changed.
    AlreadyAbandoned,
}

/// The answer to `void`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Voided {
    /// These units, in request order, went from sold to available.
    Voided { units: Vec<UnitId> },
    /// Every named seat had been refunded before; nothing changed.
    AlreadyVoided,
}

/// The answer to `move_seat`: the order's seat `from` went back on sale and
/// `to` was sold to the order, in one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    pub from: UnitId,
    pub to: UnitId,
}
