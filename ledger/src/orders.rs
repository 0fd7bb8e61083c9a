//! Orders: committing a hold's seats to a payment, then confirming,
//! abandoning, refunding or moving them. Every repeat of a call that succeeded is
//! harmless and says so, because payment callbacks repeat and arrive late.

use crate::error::{AbandonError, CommitError, ConfirmError, MoveError, VoidError};
use crate::ids::{HoldId, OrderId, UnitId};
use crate::ledger::{same_units, Ledger};
use crate::outcome::{Abandoned, Committed, Confirmed, Moved, Outcome, Voided};
use crate::state::{OrderRecord, OrderState, UnitState};

impl Ledger {
    /// Moves the hold's seats to `order_id`, pending while the payment is
    /// finalized; a pending order never expires by time. If the hold lapsed
    /// but every seat is still free, the seats are taken again for the order.
    /// See [`CommitError`] for the refusals.
    pub fn commit<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        order_id: &OrderId,
        seats: &[S],
    ) -> Outcome<Committed, CommitError> {
        let now_ms = self.begin(now_ms);
        let result = self.try_commit(now_ms, hold_id, order_id, seats);
        self.finish(result)
    }

    /// The payment succeeded: the order's pending seats are sold. This is the
    /// only way a seat becomes sold.
    pub fn confirm(&mut self, now_ms: u64, order_id: &OrderId) -> Outcome<Confirmed, ConfirmError> {
        self.begin(now_ms);
        let result = self.try_confirm(order_id);
        self.finish(result)
    }

    /// The payment is proven void: the order's pending seats go back on sale.
    pub fn abandon(&mut self, now_ms: u64, order_id: &OrderId) -> Outcome<Abandoned, AbandonError> {
        self.begin(now_ms);
        let result = self.try_abandon(order_id);
        self.finish(result)
    }

    /// A refund: these sold seats of the order go back on sale. Seats already
    /// refunded are skipped; once every seat is refunded the order closes.
    pub fn void<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        order_id: &OrderId,
        seats: &[S],
    ) -> Outcome<Voided, VoidError> {
        self.begin(now_ms);
        let result = self.try_void(order_id, seats);
        self.finish(result)
    }

    /// Moves one of the order's sold seats to an available one: `from` goes
    /// back on sale and `to` is sold to the order, in this one call, so the
    /// order never has both seats nor neither. The order keeps its size; a
    /// seat of its own it had refunded can be moved back to, and `from`
    /// then counts as the refunded one.
    pub fn move_seat(
        &mut self,
        now_ms: u64,
        order_id: &OrderId,
        from: &str,
        to: &str,
    ) -> Outcome<Moved, MoveError> {
        let now_ms = self.begin(now_ms);
        let result = self.try_move(now_ms, order_id, from, to);
        self.finish(result)
    }

    fn try_move(
        &mut self,
        now_ms: u64,
        order_id: &OrderId,
        from: &str,
        to: &str,
    ) -> Result<Moved, MoveError> {
        let unit = |name: &str| {
            self.index.get(name).ok_or_else(|| MoveError::UnknownSeat {
                seat: name.to_string(),
            })
        };
        let (from_unit, to_unit) = (unit(from)?, unit(to)?);
        let order = self.orders.get(order_id).ok_or(MoveError::OrderNotFound)?;
        let not_in_order = || MoveError::SeatNotInOrder {
            seat: from.to_string(),
        };
        match order.state {
            OrderState::Pending => return Err(MoveError::OrderNotConfirmed),
            OrderState::Abandoned | OrderState::Refunded => return Err(not_in_order()),
            OrderState::Confirmed => {}
        }
        let sold =
            order.seats.contains(&from_unit) && order.voided.binary_search(&from_unit).is_err();
        if !sold {
            return Err(not_in_order());
        }
        self.clear_expired_holder(to_unit, now_ms);
        if self.units[to_unit.index()] != UnitState::Available {
            return Err(MoveError::SeatUnavailable {
                seat: to.to_string(),
            });
        }
        let order = self
            .orders
            .get_mut(order_id)
            .expect("the order was found above");
        match order.voided.binary_search(&to_unit) {
            // A seat of the order's own that was refunded: it is sold again,
            // and the seat left is the refunded one now.
            Ok(at) => {
                order.voided.remove(at);
                let at = order
                    .voided
                    .binary_search(&from_unit)
                    .expect_err("a sold seat is not among the refunded");
                order.voided.insert(at, from_unit);
            }
            Err(_) => {
                let at = order
                    .seats
                    .iter()
                    .position(|&u| u == from_unit)
                    .expect("a sold seat is one of the order's");
                order.seats[at] = to_unit;
            }
        }
        self.touched.orders.insert(order_id.clone());
        self.set_unit(from_unit, UnitState::Available);
        self.set_unit(to_unit, UnitState::Sold(order_id.clone()));
        Ok(Moved {
            from: from_unit,
            to: to_unit,
        })
    }

    fn try_commit<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        order_id: &OrderId,
        seats: &[S],
    ) -> Result<Committed, CommitError> {
        let units = self.resolve_seats(seats)?;
        if let Some(order) = self.orders.get(order_id) {
            return match order.state {
                OrderState::Abandoned => Err(CommitError::OrderAbandoned),
                _ if order.hold_id == *hold_id && same_units(&order.seats, &units) => {
                    Ok(Committed::AlreadyCommitted)
                }
                _ => Err(CommitError::OrderIdInUse),
            };
        }
        let hold_had_lapsed = match self.live_hold(hold_id, now_ms) {
            Some(hold) if !same_units(&hold.seats, &units) => {
                return Err(CommitError::SeatsDifferFromHold)
            }
            Some(_) => {
                self.remove_hold(hold_id);
                false
            }
            None => {
                self.check_still_free(&units, now_ms)?;
                true
            }
        };
        for &unit in &units {
            self.set_unit(unit, UnitState::Pending(order_id.clone()));
        }
        self.touched.orders.insert(order_id.clone());
        let order = OrderRecord {
            id: order_id.clone(),
            hold_id: hold_id.clone(),
            seats: units,
            voided: Vec::new(),
            state: OrderState::Pending,
            closed_at_version: None,
        };
        self.orders.insert(order_id.clone(), order);
        Ok(Committed::Committed { hold_had_lapsed })
    }

    /// Refuses, naming them, if any of a lapsed hold's seats were taken since.
    fn check_still_free(&mut self, units: &[UnitId], now_ms: u64) -> Result<(), CommitError> {
        for &unit in units {
            self.clear_expired_holder(unit, now_ms);
        }
        let taken: Vec<UnitId> = units
            .iter()
            .copied()
            .filter(|unit| self.units[unit.index()] != UnitState::Available)
            .collect();
        if taken.is_empty() {
            return Ok(());
        }
        Err(CommitError::SeatsTaken {
            seats: self.names_of(taken),
        })
    }

    fn try_confirm(&mut self, order_id: &OrderId) -> Result<Confirmed, ConfirmError> {
        let order = self
            .orders
            .get(order_id)
            .ok_or(ConfirmError::OrderNotFound)?;
        match order.state {
            OrderState::Abandoned => return Err(ConfirmError::OrderAbandoned),
            OrderState::Confirmed | OrderState::Refunded => return Ok(Confirmed::AlreadyConfirmed),
            OrderState::Pending => {}
        }
        let seats = order.seats.clone();
        for unit in seats {
            debug_assert_eq!(
                self.units[unit.index()],
                UnitState::Pending(order_id.clone())
            );
            self.set_unit(unit, UnitState::Sold(order_id.clone()));
        }
        self.set_order_state(order_id, OrderState::Confirmed);
        Ok(Confirmed::Confirmed)
    }

    fn try_abandon(&mut self, order_id: &OrderId) -> Result<Abandoned, AbandonError> {
        let order = self
            .orders
            .get(order_id)
            .ok_or(AbandonError::OrderNotFound)?;
        match order.state {
            OrderState::Confirmed | OrderState::Refunded => {
                return Err(AbandonError::OrderConfirmed)
            }
            OrderState::Abandoned => return Ok(Abandoned::AlreadyAbandoned),
            OrderState::Pending => {}
        }
        let seats = order.seats.clone();
        for unit in seats {
            debug_assert_eq!(
                self.units[unit.index()],
                UnitState::Pending(order_id.clone())
            );
            self.set_unit(unit, UnitState::Available);
        }
        self.set_order_state(order_id, OrderState::Abandoned);
        Ok(Abandoned::Abandoned)
    }

    fn try_void<S: AsRef<str>>(
        &mut self,
        order_id: &OrderId,
        seats: &[S],
    ) -> Result<Voided, VoidError> {
        let units = self.resolve_seats(seats)?;
        let order = self.orders.get(order_id).ok_or(VoidError::OrderNotFound)?;
        match order.state {
            OrderState::Pending => return Err(VoidError::OrderNotConfirmed),
            OrderState::Abandoned => return Err(VoidError::OrderAbandoned),
            OrderState::Confirmed | OrderState::Refunded => {}
        }
        let foreign: Vec<UnitId> = units
            .iter()
            .copied()
            .filter(|unit| !order.seats.contains(unit))
            .collect();
        if !foreign.is_empty() {
            let seats = self.names_of(foreign);
            return Err(VoidError::SeatsNotInOrder { seats });
        }
        let fresh: Vec<UnitId> = units
            .into_iter()
            .filter(|unit| order.voided.binary_search(unit).is_err())
            .collect();
        if fresh.is_empty() {
            return Ok(Voided::AlreadyVoided);
        }
        for &unit in &fresh {
            debug_assert_eq!(self.units[unit.index()], UnitState::Sold(order_id.clone()));
            self.set_unit(unit, UnitState::Available);
        }
        self.record_voided(order_id, &fresh);
        Ok(Voided::Voided { units: fresh })
    }

    /// Adds refunded seats to the order, closing it once all are refunded.
    fn record_voided(&mut self, order_id: &OrderId, fresh: &[UnitId]) {
        let order = self
            .orders
            .get_mut(order_id)
            .expect("try_void found the order");
        order.voided.extend_from_slice(fresh);
        order.voided.sort_unstable();
        let all_refunded = order.voided.len() == order.seats.len();
        self.touched.orders.insert(order_id.clone());
        if all_refunded {
            self.set_order_state(order_id, OrderState::Refunded);
        }
    }

    /// Moves an order to a new state; a closed order joins the queue of
    /// remembered ones, and the oldest beyond `max_closed_orders` is forgotten.
    fn set_order_state(&mut self, order_id: &OrderId, state: OrderState) {
        // This call changes the order, so it ends one version later.
        let closing_version = self.version + 1;
        let order = self
            .orders
            .get_mut(order_id)
            .expect("callers found the order");
        order.state = state;
        self.touched.orders.insert(order_id.clone());
        if !state.is_closed() {
            return;
        }
        order.closed_at_version = Some(closing_version);
        self.closed.push_back(order_id.clone());
        while self.closed.len() > self.config.max_closed_orders as usize {
            let forgotten = self
                .closed
                .pop_front()
                .expect("the queue is longer than the limit");
            self.orders.remove(&forgotten);
            self.touched.orders.insert(forgotten);
        }
    }
}
