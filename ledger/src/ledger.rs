//! The ledger of one showing: its state, how it is built and read, and the
//! steps every call shares (reading the clock, sweeping, recording changes).
//!
//! The calls that change it live in `holds.rs` and `orders.rs`.

use crate::config::{Config, MAX_NOW_MS};
use crate::error::SeatListError;
use crate::ids::{HoldId, OrderId, UnitId};
use crate::layout::{index_units, LayoutError, SetupError, UnitIndex};
use crate::outcome::{Changes, Outcome};
use crate::seating::{Room, Seating, SeatingError};
use crate::state::{Availability, Counts, HoldRecord, OrderRecord, UnitState};
use std::collections::{BTreeSet, HashMap, VecDeque};

/// Every seat of one showing, and who holds or owns it.
///
/// Each call takes the current time as `now_ms`, first releases expired holds
/// (at most `max_released_per_sweep` of them), decides, and returns an
/// [`Outcome`]: the answer and the [`Changes`] to persist. Decisions treat a
/// hold as gone from its `expires_at_ms` on, even when the sweep limit left
/// it in place; a hold a decision runs into is released on the spot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ledger {
    pub(crate) config: Config,
    /// Unit names in showing order; a unit's position is its `UnitId`.
    pub(crate) names: Vec<String>,
    /// Name to id, so a request costs O(seats requested), not O(venue size).
    pub(crate) index: UnitIndex,
    /// The state of each unit, by `UnitId`.
    pub(crate) units: Vec<UnitState>,
    /// Units per state, kept in step with `units` by `set_unit`.
    pub(crate) counts: Counts,
    /// Holds not yet released, including expired ones the sweep limit left.
    pub(crate) holds: HashMap<HoldId, HoldRecord>,
    /// `(expires_at_ms, id)` of every hold in `holds`: the earliest expiry is
    /// the first entry, so sweeping and `next_expiry` never scan.
    pub(crate) expiries: BTreeSet<(u64, HoldId)>,
    /// Open orders, and closed ones while they are remembered.
    pub(crate) orders: HashMap<OrderId, OrderRecord>,
    /// Closed orders, oldest first: the next one to be forgotten.
    pub(crate) closed: VecDeque<OrderId>,
    pub(crate) version: u64,
    /// The latest `now_ms` seen: a clock that goes backwards is read as this,
    /// so it can never extend or revive a hold.
    pub(crate) latest_now_ms: u64,
    /// Rows changed by the call in progress; empty between calls.
    pub(crate) touched: Changes,
    /// Where the units are, for a room of rows: set by
    /// [`Ledger::set_seating`], not part of the snapshot.
    pub(crate) room: Option<Room>,
}

impl Ledger {
    /// A ledger for a showing with these units, in this order, all available
    /// but the `blocked` ones (house seats).
    pub fn new<U: AsRef<str>, B: AsRef<str>>(
        config: Config,
        units: &[U],
        blocked: &[B],
    ) -> Result<Ledger, SetupError> {
        config.validate()?;
        let names: Vec<String> = units.iter().map(|u| u.as_ref().to_owned()).collect();
        let index = index_units(&names)?;
        let mut states = vec![UnitState::Available; names.len()];
        for name in blocked {
            let name = name.as_ref();
            let Some(id) = index.get(name) else {
                return Err(LayoutError::UnknownBlockedUnit {
                    name: name.to_owned(),
                }
                .into());
            };
            states[id.index()] = UnitState::Blocked;
        }
        Ok(Ledger {
            config,
            names,
            index,
            counts: Counts::of(&states),
            units: states,
            holds: HashMap::new(),
            expiries: BTreeSet::new(),
            orders: HashMap::new(),
            closed: VecDeque::new(),
            version: 0,
            latest_now_ms: 0,
            touched: Changes::default(),
            room: None,
        })
    }

    /// Says where the units are, for best available and the single-seat
    /// rule; `None` for units in no rows (named slots). The layout is
    /// the showing's, not its state, so it is set after every `new` and
    /// `restore` rather than kept in the snapshot.
    pub fn set_seating(&mut self, seating: Option<&Seating>) -> Result<(), SeatingError> {
        self.room = match seating {
            Some(seating) => Some(Room::new(
                seating,
                |name| self.index.get(name),
                self.names.len(),
            )?),
            None => None,
        };
        Ok(())
    }

    /// The index of the general admission zone of this name, for
    /// [`Best::zone`].
    pub fn zone(&self, name: &str) -> Option<u32> {
        self.room.as_ref()?.zone(name)
    }

    /// Releases expired holds, up to `max_released_per_sweep`, earliest first.
    /// The Durable Object's alarm calls this; if [`Ledger::next_expiry`] is
    /// still at or before `now_ms` afterwards, a backlog remains.
    pub fn sweep(&mut self, now_ms: u64) -> Changes {
        self.begin(now_ms);
        self.take_changes()
    }

    /// The earliest `expires_at_ms` among holds not yet released: when the
    /// Durable Object should set its alarm. A value at or before the latest
    /// `now_ms` means expired holds are waiting to be swept.
    pub fn next_expiry(&self) -> Option<u64> {
        self.expiries
            .first()
            .map(|(expires_at_ms, _)| *expires_at_ms)
    }

    /// The public seat map. A hold that expired but was not yet swept still
    /// shows as held until the next call or alarm releases it.
    pub fn availability(&self) -> Availability {
        Availability {
            version: self.version,
            units: self.units.iter().map(UnitState::public).collect(),
        }
    }

    /// Units per state, without a scan.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// Changes with every call that changes a unit, hold or order.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The latest `now_ms` the ledger has seen (clamped to [`MAX_NOW_MS`]).
    pub fn latest_now_ms(&self) -> u64 {
        self.latest_now_ms
    }

    /// The settings this ledger was built or restored with.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// How many units the showing has; ids run from 0 to this, exclusive.
    pub fn unit_count(&self) -> usize {
        self.units.len()
    }

    /// The id of the unit with this name.
    pub fn unit_id(&self, name: &str) -> Option<UnitId> {
        self.index.get(name)
    }

    /// The name of the unit with this id.
    pub fn unit_name(&self, unit: UnitId) -> Option<&str> {
        self.names.get(unit.index()).map(String::as_str)
    }

    /// The unit's row: its state as stored. A hold that expired but was not
    /// yet swept still shows here; persist exactly this.
    pub fn unit_state(&self, unit: UnitId) -> Option<&UnitState> {
        self.units.get(unit.index())
    }

    /// [`Ledger::unit_state`] by unit name.
    pub fn unit_state_by_name(&self, name: &str) -> Option<&UnitState> {
        self.unit_state(self.unit_id(name)?)
    }

    /// The hold's row; `None` once it is released, expired and swept, or committed.
    pub fn hold_record(&self, hold_id: &HoldId) -> Option<&HoldRecord> {
        self.holds.get(hold_id)
    }

    /// The order's row; `None` if it never existed or was forgotten.
    pub fn order_record(&self, order_id: &OrderId) -> Option<&OrderRecord> {
        self.orders.get(order_id)
    }

    /// Holds not yet released, including expired ones still waiting for a sweep.
    pub fn hold_count(&self) -> usize {
        self.holds.len()
    }

    /// Starts a call: reads the clock and sweeps. Returns the instant to decide at.
    pub(crate) fn begin(&mut self, now_ms: u64) -> u64 {
        debug_assert!(self.touched.is_empty(), "a previous call did not finish");
        let now_ms = now_ms.min(MAX_NOW_MS).max(self.latest_now_ms);
        self.latest_now_ms = now_ms;
        for _ in 0..self.config.max_released_per_sweep {
            if !self.release_earliest_if_expired(now_ms) {
                break;
            }
        }
        now_ms
    }

    /// Ends a call with its answer.
    pub(crate) fn finish<T, E>(&mut self, result: Result<T, E>) -> Outcome<T, E> {
        let changes = self.take_changes();
        Outcome { result, changes }
    }

    /// Ends a call: one version step if anything changed, and the changes out.
    fn take_changes(&mut self) -> Changes {
        let mut changes = std::mem::take(&mut self.touched);
        if !changes.is_empty() {
            self.version += 1;
        }
        changes.version = self.version;
        changes.latest_now_ms = self.latest_now_ms;
        debug_assert_eq!(self.holds.len(), self.expiries.len());
        debug_assert!(self.holds.len() <= self.config.max_live_holds as usize);
        changes
    }

    /// Releases the hold that expires first, if it has expired.
    fn release_earliest_if_expired(&mut self, now_ms: u64) -> bool {
        match self.expiries.first() {
            Some((expires_at_ms, hold_id)) if *expires_at_ms <= now_ms => {
                let hold_id = hold_id.clone();
                self.release_hold(&hold_id);
                true
            }
            _ => false,
        }
    }

    /// The hold if it is live at `now_ms`. An expired hold is released here,
    /// so that no decision can see it.
    pub(crate) fn live_hold(&mut self, hold_id: &HoldId, now_ms: u64) -> Option<&HoldRecord> {
        let expires_at_ms = self.holds.get(hold_id)?.expires_at_ms;
        if expires_at_ms <= now_ms {
            self.release_hold(hold_id);
            return None;
        }
        self.holds.get(hold_id)
    }

    /// Whether a decision at `now_ms` may take this unit: available, or
    /// held by a hold that has run out but was not yet swept.
    pub(crate) fn free_at(&self, unit: usize, now_ms: u64) -> bool {
        match &self.units[unit] {
            UnitState::Available => true,
            UnitState::Held(holder) => self
                .holds
                .get(holder)
                .is_some_and(|record| record.expires_at_ms <= now_ms),
            _ => false,
        }
    }

    /// [`Ledger::free_at`] for every unit, in one pass and no lookup a
    /// held seat: the holds that ran out are the first in `expiries`.
    pub(crate) fn free_units_at(&self, now_ms: u64) -> Vec<bool> {
        let mut free: Vec<bool> = self
            .units
            .iter()
            .map(|state| *state == UnitState::Available)
            .collect();
        for (_, hold) in self.expiries.iter().take_while(|(at, _)| *at <= now_ms) {
            for unit in self.holds.get(hold).map_or(&[][..], |r| &r.seats[..]) {
                free[unit.index()] = true;
            }
        }
        free
    }

    /// Releases the expired hold, if any, that has this unit.
    pub(crate) fn clear_expired_holder(&mut self, unit: UnitId, now_ms: u64) {
        if let UnitState::Held(holder) = &self.units[unit.index()] {
            let holder = holder.clone();
            self.live_hold(&holder, now_ms);
        }
    }

    /// Removes a hold and makes its seats available.
    pub(crate) fn release_hold(&mut self, hold_id: &HoldId) -> Option<HoldRecord> {
        let record = self.remove_hold(hold_id)?;
        for &unit in &record.seats {
            debug_assert_eq!(self.units[unit.index()], UnitState::Held(hold_id.clone()));
            self.set_unit(unit, UnitState::Available);
        }
        Some(record)
    }

    /// Removes a hold's record, leaving its seats for the caller to move.
    pub(crate) fn remove_hold(&mut self, hold_id: &HoldId) -> Option<HoldRecord> {
        let record = self.holds.remove(hold_id)?;
        let indexed = self
            .expiries
            .remove(&(record.expires_at_ms, hold_id.clone()));
        debug_assert!(indexed, "every hold is in the expiry index");
        self.touched.holds.insert(hold_id.clone());
        Some(record)
    }

    /// Adds a hold's record; its seats must already be held by it.
    pub(crate) fn insert_hold(&mut self, record: HoldRecord) {
        self.expiries
            .insert((record.expires_at_ms, record.id.clone()));
        self.touched.holds.insert(record.id.clone());
        let previous = self.holds.insert(record.id.clone(), record);
        debug_assert!(previous.is_none(), "hold ids are checked before insert");
    }

    /// The one place a unit changes state, so the counts and the change
    /// list can never miss a change.
    pub(crate) fn set_unit(&mut self, unit: UnitId, state: UnitState) {
        let slot = &mut self.units[unit.index()];
        *self.counts.slot(slot) -= 1;
        *self.counts.slot(&state) += 1;
        *slot = state;
        self.touched.units.insert(unit);
    }

    /// Checks a seat list's shape and resolves the names, without touching state.
    pub(crate) fn resolve_seats<S: AsRef<str>>(
        &self,
        seats: &[S],
    ) -> Result<Vec<UnitId>, SeatListError> {
        self.resolve_seats_within(seats, self.config.max_seats_per_hold)
    }

    /// [`Ledger::resolve_seats`] for a list of up to `max` seats.
    pub(crate) fn resolve_seats_within<S: AsRef<str>>(
        &self,
        seats: &[S],
        max: u32,
    ) -> Result<Vec<UnitId>, SeatListError> {
        if seats.is_empty() {
            return Err(SeatListError::NoSeats);
        }
        if seats.len() > max as usize {
            return Err(SeatListError::TooManySeats {
                requested: seats.len(),
                max,
            });
        }
        let names: Vec<&str> = seats.iter().map(AsRef::as_ref).collect();
        let duplicates = duplicate_names(&names);
        if !duplicates.is_empty() {
            return Err(SeatListError::DuplicateSeats { seats: duplicates });
        }
        let found: Vec<Option<UnitId>> = names.iter().map(|name| self.index.get(name)).collect();
        let unknown: Vec<String> = names
            .iter()
            .zip(&found)
            .filter(|(_, id)| id.is_none())
            .map(|(name, _)| name.to_string())
            .collect();
        if !unknown.is_empty() {
            return Err(SeatListError::UnknownSeats { seats: unknown });
        }
        Ok(found.into_iter().flatten().collect())
    }

    /// Names of the units, in the given order.
    pub(crate) fn names_of(&self, units: impl IntoIterator<Item = UnitId>) -> Vec<String> {
        units
            .into_iter()
            .map(|unit| self.names[unit.index()].clone())
            .collect()
    }
}

/// Each name that appears more than once, listed once, in order of first
/// appearance. Quadratic, which is cheapest for the at most 10 seats allowed.
fn duplicate_names(names: &[&str]) -> Vec<String> {
    let mut duplicates: Vec<String> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let repeated = names[i + 1..].contains(name);
        if repeated && !duplicates.iter().any(|d| d == name) {
            duplicates.push(name.to_string());
        }
    }
    duplicates
}

/// Whether two unit lists hold the same units, in any order.
pub(crate) fn same_units(a: &[UnitId], b: &[UnitId]) -> bool {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_unstable();
    b.sort_unstable();
    a == b
}
