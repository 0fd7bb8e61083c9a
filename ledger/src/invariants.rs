//! The rules the ledger's state obeys, checked as a whole: after every step
//! in the tests, and on every restore, so that state read back from storage
//! is trusted only once it is proven whole.

use crate::config::MAX_NOW_MS;
use crate::ids::{HoldId, OrderId, UnitId};
use crate::ledger::Ledger;
use crate::state::{Counts, HoldRecord, OrderRecord, OrderState, UnitState};
use std::fmt;

/// A broken rule, found by [`Ledger::check_invariants`] or on restore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InvariantError {
    /// The name index does not match the unit list.
    IndexMismatch,
    /// The per-state counts do not match the units.
    CountsMismatch,
    ClockOutOfRange {
        latest_now_ms: u64,
    },
    TooManyHolds {
        count: usize,
        max: u32,
    },
    /// The expiry index does not list exactly the holds.
    ExpiryIndexMismatch,
    DuplicateHold {
        hold: HoldId,
    },
    HoldKeyMismatch {
        hold: HoldId,
    },
    /// A hold with no seats, or more than `max_seats_per_hold` (an
    /// allocation: than the showing has).
    HoldSizeOutOfRange {
        hold: HoldId,
    },
    /// A record names a unit the showing does not have.
    UnknownUnit {
        unit: UnitId,
    },
    /// A record names the same unit twice.
    DuplicateUnitInRecord {
        unit: UnitId,
    },
    /// A hold lists a unit that is not held by it.
    UnitNotHeldByItsHold {
        unit: UnitId,
        hold: HoldId,
    },
    HoldStartsInFuture {
        hold: HoldId,
    },
    /// `expires_at_ms` is not `started_at_ms` plus the TTL (or the payment cap
    /// once paying).
    HoldExpiryInconsistent {
        hold: HoldId,
    },
    /// A held unit whose hold does not exist or does not list it.
    HeldUnitWithoutHold {
        unit: UnitId,
    },
    DuplicateOrder {
        order: OrderId,
    },
    OrderKeyMismatch {
        order: OrderId,
    },
    /// An order with no seats, or more than `max_seats_per_hold`.
    OrderSizeOutOfRange {
        order: OrderId,
    },
    /// Refunded seats that are unsorted, repeated, or not the order's.
    VoidedSeatsInvalid {
        order: OrderId,
    },
    /// An order's unit is not in the state the order's state demands.
    UnitNotInOrderState {
        unit: UnitId,
        order: OrderId,
    },
    /// The order's refunds or closing version contradict its state.
    OrderStateInconsistent {
        order: OrderId,
    },
    /// A pending unit whose order is not pending or does not list it.
    PendingUnitWithoutOrder {
        unit: UnitId,
    },
    /// A sold unit whose order is not confirmed or does not list it unrefunded.
    SoldUnitWithoutOrder {
        unit: UnitId,
    },
    TooManyClosedOrders {
        count: usize,
        max: u32,
    },
    /// The queue of closed orders does not list exactly the closed orders,
    /// oldest first.
    ClosedQueueMismatch,
}

impl fmt::Display for InvariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for InvariantError {}

impl Ledger {
    /// Checks every rule of the ledger's state. Costs O(units + holds +
    /// orders): for tests and restore, not for every request.
    pub fn check_invariants(&self) -> Result<(), InvariantError> {
        self.check_indexes()?;
        for (key, hold) in &self.holds {
            if *key != hold.id {
                return Err(InvariantError::HoldKeyMismatch { hold: key.clone() });
            }
            self.check_hold(hold)?;
        }
        for (key, order) in &self.orders {
            if *key != order.id {
                return Err(InvariantError::OrderKeyMismatch { order: key.clone() });
            }
            self.check_order(order)?;
        }
        self.check_units()?;
        self.check_closed_queue()
    }

    fn check_indexes(&self) -> Result<(), InvariantError> {
        let index_matches = self.names.len() == self.units.len()
            && self.index.len() == self.names.len()
            && self.names.iter().enumerate().all(|(position, name)| {
                self.index.get(name).map(|id| id.index()) == Some(position)
            });
        if !index_matches {
            return Err(InvariantError::IndexMismatch);
        }
        if self.counts != Counts::of(&self.units) {
            return Err(InvariantError::CountsMismatch);
        }
        if self.latest_now_ms > MAX_NOW_MS {
            return Err(InvariantError::ClockOutOfRange {
                latest_now_ms: self.latest_now_ms,
            });
        }
        let max = self.config.max_live_holds;
        if self.holds.len() > max as usize {
            let count = self.holds.len();
            return Err(InvariantError::TooManyHolds { count, max });
        }
        let expiries_match = self.expiries.len() == self.holds.len()
            && self.holds.values().all(|hold| {
                self.expiries
                    .contains(&(hold.expires_at_ms, hold.id.clone()))
            });
        if !expiries_match {
            return Err(InvariantError::ExpiryIndexMismatch);
        }
        Ok(())
    }

    fn check_hold(&self, hold: &HoldRecord) -> Result<(), InvariantError> {
        // An allocation may take the whole room; a hold what a hold may.
        let max = match hold.allocated {
            true => self.names.len(),
            false => self.config.max_seats_per_hold as usize,
        };
        let size_ok = !hold.seats.is_empty() && hold.seats.len() <= max;
        if !size_ok {
            return Err(InvariantError::HoldSizeOutOfRange {
                hold: hold.id.clone(),
            });
        }
        self.check_unit_list(&hold.seats)?;
        for &unit in &hold.seats {
            if self.units[unit.index()] != UnitState::Held(hold.id.clone()) {
                let hold = hold.id.clone();
                return Err(InvariantError::UnitNotHeldByItsHold { unit, hold });
            }
        }
        if hold.started_at_ms > self.latest_now_ms {
            return Err(InvariantError::HoldStartsInFuture {
                hold: hold.id.clone(),
            });
        }
        let window_ms = if hold.paying {
            self.config.payment_cap_ms
        } else {
            self.config.hold_ttl_ms
        };
        let consistent = match hold.allocated {
            // Staff chose when an allocation ends: after it began, unpaid.
            true => hold.expires_at_ms > hold.started_at_ms && !hold.paying,
            false => hold.started_at_ms.checked_add(window_ms) == Some(hold.expires_at_ms),
        };
        if !consistent {
            return Err(InvariantError::HoldExpiryInconsistent {
                hold: hold.id.clone(),
            });
        }
        Ok(())
    }

    fn check_order(&self, order: &OrderRecord) -> Result<(), InvariantError> {
        let id = &order.id;
        let size_ok =
            !order.seats.is_empty() && order.seats.len() <= self.config.max_seats_per_hold as usize;
        if !size_ok {
            return Err(InvariantError::OrderSizeOutOfRange { order: id.clone() });
        }
        self.check_unit_list(&order.seats)?;
        let voided_ok = order.voided.windows(2).all(|pair| pair[0] < pair[1])
            && order.voided.iter().all(|unit| order.seats.contains(unit));
        if !voided_ok {
            return Err(InvariantError::VoidedSeatsInvalid { order: id.clone() });
        }
        let (refunds_ok, closed) = match order.state {
            OrderState::Pending => (order.voided.is_empty(), false),
            OrderState::Confirmed => (order.voided.len() < order.seats.len(), false),
            OrderState::Abandoned => (order.voided.is_empty(), true),
            OrderState::Refunded => (order.voided.len() == order.seats.len(), true),
        };
        let closing_ok = match order.closed_at_version {
            None => !closed,
            Some(version) => closed && version <= self.version,
        };
        if !refunds_ok || !closing_ok {
            return Err(InvariantError::OrderStateInconsistent { order: id.clone() });
        }
        for &unit in &order.seats {
            let refunded = order.voided.binary_search(&unit).is_ok();
            if !self.unit_agrees_with_order(unit, order, refunded) {
                let order = id.clone();
                return Err(InvariantError::UnitNotInOrderState { unit, order });
            }
        }
        Ok(())
    }

    /// Whether a unit's state is the one its order's state demands.
    fn unit_agrees_with_order(&self, unit: UnitId, order: &OrderRecord, refunded: bool) -> bool {
        let state = &self.units[unit.index()];
        let names_order = matches!(state,
            UnitState::Pending(o) | UnitState::Sold(o) if *o == order.id);
        match order.state {
            OrderState::Pending => *state == UnitState::Pending(order.id.clone()),
            OrderState::Confirmed if !refunded => *state == UnitState::Sold(order.id.clone()),
            _ => !names_order,
        }
    }

    /// Every unit in range, none twice.
    fn check_unit_list(&self, units: &[UnitId]) -> Result<(), InvariantError> {
        for (i, &unit) in units.iter().enumerate() {
            if unit.index() >= self.units.len() {
                return Err(InvariantError::UnknownUnit { unit });
            }
            if units[..i].contains(&unit) {
                return Err(InvariantError::DuplicateUnitInRecord { unit });
            }
        }
        Ok(())
    }

    /// Every held, pending or sold unit is listed by the record it names.
    fn check_units(&self) -> Result<(), InvariantError> {
        for (position, state) in self.units.iter().enumerate() {
            let unit = UnitId(position as u32);
            match state {
                UnitState::Held(hold) => {
                    let listed = self
                        .holds
                        .get(hold)
                        .is_some_and(|h| h.seats.contains(&unit));
                    if !listed {
                        return Err(InvariantError::HeldUnitWithoutHold { unit });
                    }
                }
                UnitState::Pending(order) => {
                    let listed = self
                        .orders
                        .get(order)
                        .is_some_and(|o| o.state == OrderState::Pending && o.seats.contains(&unit));
                    if !listed {
                        return Err(InvariantError::PendingUnitWithoutOrder { unit });
                    }
                }
                UnitState::Sold(order) => {
                    let listed = self.orders.get(order).is_some_and(|o| {
                        o.state == OrderState::Confirmed
                            && o.seats.contains(&unit)
                            && o.voided.binary_search(&unit).is_err()
                    });
                    if !listed {
                        return Err(InvariantError::SoldUnitWithoutOrder { unit });
                    }
                }
                UnitState::Available | UnitState::Blocked => {}
            }
        }
        Ok(())
    }

    fn check_closed_queue(&self) -> Result<(), InvariantError> {
        let max = self.config.max_closed_orders;
        if self.closed.len() > max as usize {
            let count = self.closed.len();
            return Err(InvariantError::TooManyClosedOrders { count, max });
        }
        let closed_orders = self.orders.values().filter(|o| o.state.is_closed()).count();
        let versions: Option<Vec<(u64, &OrderId)>> = self
            .closed
            .iter()
            .map(|id| Some((self.orders.get(id)?.closed_at_version?, id)))
            .collect();
        let in_order = versions.is_some_and(|v| v.windows(2).all(|pair| pair[0] < pair[1]));
        if !in_order || closed_orders != self.closed.len() {
            return Err(InvariantError::ClosedQueueMismatch);
        }
        Ok(())
    }
}
