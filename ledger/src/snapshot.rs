//! The whole ledger as plain data, and the way back.
//!
//! A [`Snapshot`] is laid out like the Durable Object's storage: one row per
//! unit in unit order, one per hold, one per order, and a few scalars. So it
//! can be saved whole, or assembled from rows that were saved one by one
//! from [`crate::Changes`]. Either way, [`Ledger::restore`] checks every
//! invariant before it trusts the data.

use crate::config::{Config, ConfigError};
use crate::ids::{HoldId, OrderId};
use crate::invariants::InvariantError;
use crate::layout::{index_units, LayoutError};
use crate::ledger::Ledger;
use crate::outcome::Changes;
use crate::state::{Counts, HoldRecord, OrderRecord, UnitState};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::fmt;

/// Every fact the ledger keeps, as rows.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    pub config: Config,
    pub version: u64,
    pub latest_now_ms: u64,
    /// One row per unit, in the showing's unit order: a unit's position is its id.
    pub units: Vec<UnitRow>,
    /// Holds not yet released; [`Ledger::snapshot`] sorts them by id, and
    /// restore takes them in any order.
    pub holds: Vec<HoldRecord>,
    /// Open and remembered closed orders; sorted by id as for holds.
    pub orders: Vec<OrderRecord>,
}

/// One unit's row.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitRow {
    pub name: String,
    pub state: UnitState,
}

/// Why stored state could not become a ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RestoreError {
    /// The bytes are not a snapshot (serde's message).
    Decode(String),
    Config(ConfigError),
    Layout(LayoutError),
    Invariant(InvariantError),
}

impl fmt::Display for RestoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RestoreError::Decode(message) => write!(f, "not a snapshot: {message}"),
            RestoreError::Config(error) => write!(f, "configuration: {error}"),
            RestoreError::Layout(error) => write!(f, "units: {error}"),
            RestoreError::Invariant(error) => write!(f, "broken invariant: {error}"),
        }
    }
}

impl std::error::Error for RestoreError {}

impl From<InvariantError> for RestoreError {
    fn from(error: InvariantError) -> Self {
        RestoreError::Invariant(error)
    }
}

impl Ledger {
    /// The whole state as rows, holds and orders sorted by id so that equal
    /// ledgers give equal snapshots.
    pub fn snapshot(&self) -> Snapshot {
        let units = self
            .names
            .iter()
            .zip(&self.units)
            .map(|(name, state)| UnitRow {
                name: name.clone(),
                state: state.clone(),
            })
            .collect();
        let mut holds: Vec<HoldRecord> = self.holds.values().cloned().collect();
        holds.sort_by(|a, b| a.id.cmp(&b.id));
        let mut orders: Vec<OrderRecord> = self.orders.values().cloned().collect();
        orders.sort_by(|a, b| a.id.cmp(&b.id));
        Snapshot {
            config: self.config.clone(),
            version: self.version,
            latest_now_ms: self.latest_now_ms,
            units,
            holds,
            orders,
        }
    }

    /// The snapshot as JSON bytes.
    pub fn snapshot_to_bytes(&self) -> Vec<u8> {
        // Every map key in a snapshot is a string, the one case where
        // serde_json's encoding can fail.
        serde_json::to_vec(&self.snapshot()).expect("a snapshot always encodes")
    }

    /// Rebuilds a ledger from stored rows, refusing any state that breaks an
    /// invariant (a unit in two holds, a hold naming an unknown unit, a held
    /// unit without a hold, more holds than allowed, ...).
    pub fn restore(snapshot: Snapshot) -> Result<Ledger, RestoreError> {
        snapshot.config.validate().map_err(RestoreError::Config)?;
        let (names, units): (Vec<String>, Vec<UnitState>) = snapshot
            .units
            .into_iter()
            .map(|row| (row.name, row.state))
            .unzip();
        let index = index_units(&names).map_err(RestoreError::Layout)?;
        let holds = keyed(
            snapshot.holds,
            |h| &h.id,
            |hold| InvariantError::DuplicateHold { hold },
        )?;
        let orders = keyed(
            snapshot.orders,
            |o| &o.id,
            |order| InvariantError::DuplicateOrder { order },
        )?;
        let expiries: BTreeSet<(u64, HoldId)> = holds
            .values()
            .map(|hold| (hold.expires_at_ms, hold.id.clone()))
            .collect();
        let ledger = Ledger {
            config: snapshot.config,
            names,
            index,
            counts: Counts::of(&units),
            units,
            holds,
            expiries,
            closed: closed_queue(&orders),
            orders,
            version: snapshot.version,
            latest_now_ms: snapshot.latest_now_ms,
            touched: Changes::default(),
            room: None,
        };
        ledger.check_invariants()?;
        Ok(ledger)
    }

    /// Decodes JSON bytes (as written by [`Ledger::snapshot_to_bytes`]) and restores.
    pub fn restore_from_bytes(bytes: &[u8]) -> Result<Ledger, RestoreError> {
        let snapshot: Snapshot =
            serde_json::from_slice(bytes).map_err(|e| RestoreError::Decode(e.to_string()))?;
        Ledger::restore(snapshot)
    }
}

/// Records by id, refusing an id that appears twice.
fn keyed<K, R>(
    records: Vec<R>,
    key: impl Fn(&R) -> &K,
    duplicate: impl Fn(K) -> InvariantError,
) -> Result<HashMap<K, R>, InvariantError>
where
    K: Clone + Eq + std::hash::Hash,
{
    let mut map = HashMap::with_capacity(records.len());
    for record in records {
        let id = key(&record).clone();
        if map.insert(id.clone(), record).is_some() {
            return Err(duplicate(id));
        }
    }
    Ok(map)
}

/// The closed orders, oldest first, as the ledger queued them: each closed
/// in its own call, so closing versions order them.
fn closed_queue(orders: &HashMap<OrderId, OrderRecord>) -> VecDeque<OrderId> {
    let mut closed: Vec<(u64, OrderId)> = orders
        .values()
        .filter_map(|o| Some((o.closed_at_version?, o.id.clone())))
        .collect();
    closed.sort();
    closed.into_iter().map(|(_, id)| id).collect()
}
