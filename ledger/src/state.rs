//! What the ledger records about each unit, hold and order.

use crate::ids::{HoldId, OrderId, UnitId};
use serde::{Deserialize, Serialize};

/// The one state a unit is in. Each unit is in exactly one of these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum UnitState {
    /// Free to be held.
    Available,
    /// Held for a buyer by this hold, until the hold expires or is released.
    Held(HoldId),
    /// Committed to this order, whose payment is being finalized. A pending
    /// order never expires by time: only `confirm` or `abandon` ends it,
    /// because the buyer's money may already be on its way.
    Pending(OrderId),
    /// Sold to this order. Reached only through `confirm`.
    Sold(OrderId),
    /// A house seat: never for sale.
    Blocked,
}

/// What the public seat map may show about a unit; it never reveals who.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PublicState {
    /// Free to be held.
    Available,
    /// Held by a buyer who has not paid yet; may come back within minutes.
    Held,
    /// Not for sale and not expected back: sold, pending (payment approved
    /// and being finalized, which almost always ends in a sale) or blocked.
    Sold,
}

impl PublicState {
    /// One letter per state (`a`, `h`, `s`), for a compact seat map.
    pub fn code(self) -> char {
        match self {
            PublicState::Available => 'a',
            PublicState::Held => 'h',
            PublicState::Sold => 's',
        }
    }
}

impl UnitState {
    /// How the unit appears on the public seat map.
    pub fn public(&self) -> PublicState {
        match self {
            UnitState::Available => PublicState::Available,
            UnitState::Held(_) => PublicState::Held,
            UnitState::Pending(_) | UnitState::Sold(_) | UnitState::Blocked => PublicState::Sold,
        }
    }
}

/// How many units are in each state; kept up to date on every change, so
/// reading it costs nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub available: u32,
    pub held: u32,
    pub pending: u32,
    pub sold: u32,
    pub blocked: u32,
}

impl Counts {
    pub(crate) fn of(states: &[UnitState]) -> Counts {
        let mut counts = Counts::default();
        for state in states {
            *counts.slot(state) += 1;
        }
        counts
    }

    pub(crate) fn slot(&mut self, state: &UnitState) -> &mut u32 {
        match state {
            UnitState::Available => &mut self.available,
            UnitState::Held(_) => &mut self.held,
            UnitState::Pending(_) => &mut self.pending,
            UnitState::Sold(_) => &mut self.sold,
            UnitState::Blocked => &mut self.blocked,
        }
    }
}

/// The public seat map: one state per unit, in unit order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Availability {
    /// Changes with every change to the ledger, so a cached map can be
    /// compared cheaply.
    pub version: u64,
    /// One entry per unit, in the showing's unit order.
    pub units: Vec<PublicState>,
}

impl Availability {
    /// The map as one letter per unit (see [`PublicState::code`]).
    pub fn codes(&self) -> String {
        self.units.iter().map(|s| s.code()).collect()
    }
}

/// A live hold: seats kept for one buyer until `expires_at_ms`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HoldRecord {
    pub id: HoldId,
    /// The held units, in the order they were requested.
    pub seats: Vec<UnitId>,
    pub started_at_ms: u64,
    /// The hold is gone from this instant on (`now_ms >= expires_at_ms`).
    pub expires_at_ms: u64,
    /// Payment has started, and the hold was extended to
    /// `started_at_ms + payment_cap_ms`; it is never extended again.
    pub paying: bool,
    /// Seats given to another channel (a partner, a school group) until
    /// `expires_at_ms`, which staff chose: no hold's TTL applies.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allocated: bool,
}

/// Where an order stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrderState {
    /// Its seats are pending while the payment is finalized.
    Pending,
    /// Paid: its seats are sold, apart from any refunded (voided) ones.
    Confirmed,
    /// Closed: the payment was proven void and the seats went back on sale.
    Abandoned,
    /// Closed: confirmed, then every seat was refunded.
    Refunded,
}

impl OrderState {
    /// Closed orders are only remembered, so that repeats stay harmless.
    pub fn is_closed(self) -> bool {
        matches!(self, OrderState::Abandoned | OrderState::Refunded)
    }
}

/// One order: the seats one payment buys.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRecord {
    pub id: OrderId,
    /// The hold the order was committed from.
    pub hold_id: HoldId,
    /// The order's units, in the order they were committed.
    pub seats: Vec<UnitId>,
    /// The refunded units, sorted by id; always a subset of `seats`.
    pub voided: Vec<UnitId>,
    pub state: OrderState,
    /// The ledger version at which the order closed; it sets which closed
    /// order is forgotten first. `None` while the order is open.
    pub closed_at_version: Option<u64>,
}
