//! The reference ledger: the rules written as plainly as possible. No name
//! index, no expiry index, no sweep limit, no counters: every expired hold
//! is dropped at the start of every call, and every lookup is a scan.

use ledger::{
    AbandonError, Abandoned, CommitError, Committed, Config, ConfirmError, Confirmed, HoldError,
    HoldGranted, HoldId, MoveError, Moved, OrderId, OrderState, PaymentError, PaymentWindow,
    ReleaseError, Released, UnitId, UnitState, VoidError, Voided, MAX_NOW_MS,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefHold {
    pub seats: Vec<usize>,
    pub started_at_ms: u64,
    pub expires_at_ms: u64,
    pub paying: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RefOrder {
    pub hold: HoldId,
    pub seats: Vec<usize>,
    pub voided: BTreeSet<usize>,
    pub state: OrderState,
}

pub struct Reference {
    pub config: Config,
    pub names: Vec<String>,
    pub units: Vec<UnitState>,
    pub holds: BTreeMap<HoldId, RefHold>,
    pub orders: BTreeMap<OrderId, RefOrder>,
    closed: VecDeque<OrderId>,
    pub latest_now_ms: u64,
}

fn ids(seats: &[usize]) -> Vec<UnitId> {
    seats.iter().map(|&s| UnitId(s as u32)).collect()
}

fn sorted(seats: &[usize]) -> Vec<usize> {
    let mut seats = seats.to_vec();
    seats.sort();
    seats
}

impl Reference {
    pub fn new(config: Config, names: Vec<String>, blocked: &[bool]) -> Reference {
        let units = blocked
            .iter()
            .map(|&b| {
                if b {
                    UnitState::Blocked
                } else {
                    UnitState::Available
                }
            })
            .collect();
        Reference {
            config,
            names,
            units,
            holds: BTreeMap::new(),
            orders: BTreeMap::new(),
            closed: VecDeque::new(),
            latest_now_ms: 0,
        }
    }

    pub fn begin(&mut self, now_ms: u64) -> u64 {
        let now = now_ms.min(MAX_NOW_MS).max(self.latest_now_ms);
        self.latest_now_ms = now;
        let expired: Vec<HoldId> = self
            .holds
            .iter()
            .filter(|(_, h)| h.expires_at_ms <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            let hold = self.holds.remove(&id).unwrap();
            self.set(&hold.seats, UnitState::Available);
        }
        now
    }

    fn set(&mut self, seats: &[usize], state: UnitState) {
        for &s in seats {
            self.units[s] = state.clone();
        }
    }

    /// The shape checks every seat list goes through, as hold refusals.
    fn shape(&self, names: &[String]) -> Result<Vec<usize>, HoldError> {
        if names.is_empty() {
            return Err(HoldError::NoSeats);
        }
        let max = self.config.max_seats_per_hold;
        if names.len() > max as usize {
            return Err(HoldError::TooManySeats {
                requested: names.len(),
                max,
            });
        }
        let mut duplicates: Vec<String> = Vec::new();
        for name in names {
            let count = names.iter().filter(|n| *n == name).count();
            if count > 1 && !duplicates.contains(name) {
                duplicates.push(name.clone());
            }
        }
        if !duplicates.is_empty() {
            return Err(HoldError::DuplicateSeats { seats: duplicates });
        }
        let find = |name: &String| self.names.iter().position(|n| n == name);
        let unknown: Vec<String> = names
            .iter()
            .filter(|n| find(n).is_none())
            .cloned()
            .collect();
        if !unknown.is_empty() {
            return Err(HoldError::UnknownSeats { seats: unknown });
        }
        Ok(names.iter().map(|n| find(n).unwrap()).collect())
    }

    fn not_available(&self, seats: &[usize]) -> Vec<String> {
        seats
            .iter()
            .filter(|&&s| self.units[s] != UnitState::Available)
            .map(|&s| self.names[s].clone())
            .collect()
    }

    pub fn hold(
        &mut self,
        now: u64,
        id: &HoldId,
        names: &[String],
    ) -> Result<HoldGranted, HoldError> {
        let now = self.begin(now);
        let seats = self.shape(names)?;
        if self.holds.contains_key(id) {
            return Err(HoldError::HoldIdInUse);
        }
        let taken = self.not_available(&seats);
        if !taken.is_empty() {
            return Err(HoldError::SeatsUnavailable { seats: taken });
        }
        if self.holds.len() >= self.config.max_live_holds as usize {
            return Err(HoldError::TooManyLiveHolds {
                max: self.config.max_live_holds,
            });
        }
        self.set(&seats, UnitState::Held(id.clone()));
        let expires_at_ms = now + self.config.hold_ttl_ms;
        let hold = RefHold {
            seats: seats.clone(),
            started_at_ms: now,
            expires_at_ms,
            paying: false,
        };
        self.holds.insert(id.clone(), hold);
        Ok(HoldGranted {
            units: ids(&seats),
            expires_at_ms,
        })
    }

    pub fn release(&mut self, now: u64, id: &HoldId) -> Result<Released, ReleaseError> {
        self.begin(now);
        let hold = self.holds.remove(id).ok_or(ReleaseError::HoldNotFound)?;
        self.set(&hold.seats, UnitState::Available);
        Ok(Released {
            units: ids(&hold.seats),
        })
    }

    pub fn start_payment(&mut self, now: u64, id: &HoldId) -> Result<PaymentWindow, PaymentError> {
        self.begin(now);
        let cap = self.config.payment_cap_ms;
        let hold = self.holds.get_mut(id).ok_or(PaymentError::HoldNotFound)?;
        if hold.paying {
            return Ok(PaymentWindow::AlreadyPaying {
                expires_at_ms: hold.expires_at_ms,
            });
        }
        hold.paying = true;
        hold.expires_at_ms = hold.started_at_ms + cap;
        Ok(PaymentWindow::Started {
            expires_at_ms: hold.expires_at_ms,
        })
    }

    pub fn commit(
        &mut self,
        now: u64,
        hold_id: &HoldId,
        order_id: &OrderId,
        names: &[String],
    ) -> Result<Committed, CommitError> {
        self.begin(now);
        let seats = self.shape(names).map_err(commit_error)?;
        if let Some(order) = self.orders.get(order_id) {
            if order.state == OrderState::Abandoned {
                return Err(CommitError::OrderAbandoned);
            }
            if order.hold == *hold_id && sorted(&order.seats) == sorted(&seats) {
                return Ok(Committed::AlreadyCommitted);
            }
            return Err(CommitError::OrderIdInUse);
        }
        let lapsed = match self.holds.get(hold_id) {
            Some(hold) if sorted(&hold.seats) != sorted(&seats) => {
                return Err(CommitError::SeatsDifferFromHold)
            }
            Some(_) => {
                self.holds.remove(hold_id);
                false
            }
            None => {
                let taken = self.not_available(&seats);
                if !taken.is_empty() {
                    return Err(CommitError::SeatsTaken { seats: taken });
                }
                true
            }
        };
        self.set(&seats, UnitState::Pending(order_id.clone()));
        let order = RefOrder {
            hold: hold_id.clone(),
            seats,
            voided: BTreeSet::new(),
            state: OrderState::Pending,
        };
        self.orders.insert(order_id.clone(), order);
        Ok(Committed::Committed {
            hold_had_lapsed: lapsed,
        })
    }

    pub fn confirm(&mut self, now: u64, id: &OrderId) -> Result<Confirmed, ConfirmError> {
        self.begin(now);
        let order = self.orders.get_mut(id).ok_or(ConfirmError::OrderNotFound)?;
        match order.state {
            OrderState::Abandoned => Err(ConfirmError::OrderAbandoned),
            OrderState::Confirmed | OrderState::Refunded => Ok(Confirmed::AlreadyConfirmed),
            OrderState::Pending => {
                order.state = OrderState::Confirmed;
                let seats = order.seats.clone();
                self.set(&seats, UnitState::Sold(id.clone()));
                Ok(Confirmed::Confirmed)
            }
        }
    }

    pub fn abandon(&mut self, now: u64, id: &OrderId) -> Result<Abandoned, AbandonError> {
        self.begin(now);
        let order = self.orders.get_mut(id).ok_or(AbandonError::OrderNotFound)?;
        match order.state {
            OrderState::Confirmed | OrderState::Refunded => Err(AbandonError::OrderConfirmed),
            OrderState::Abandoned => Ok(Abandoned::AlreadyAbandoned),
            OrderState::Pending => {
                order.state = OrderState::Abandoned;
                let seats = order.seats.clone();
                self.set(&seats, UnitState::Available);
                self.close(id);
                Ok(Abandoned::Abandoned)
            }
        }
    }

    pub fn void(&mut self, now: u64, id: &OrderId, names: &[String]) -> Result<Voided, VoidError> {
        self.begin(now);
        let seats = self.shape(names).map_err(void_error)?;
        let order = self.orders.get_mut(id).ok_or(VoidError::OrderNotFound)?;
        match order.state {
            OrderState::Pending => return Err(VoidError::OrderNotConfirmed),
            OrderState::Abandoned => return Err(VoidError::OrderAbandoned),
            OrderState::Confirmed | OrderState::Refunded => {}
        }
        let foreign: Vec<usize> = seats
            .iter()
            .copied()
            .filter(|s| !order.seats.contains(s))
            .collect();
        if !foreign.is_empty() {
            let seats = foreign.iter().map(|&s| self.names[s].clone()).collect();
            return Err(VoidError::SeatsNotInOrder { seats });
        }
        let fresh: Vec<usize> = seats
            .iter()
            .copied()
            .filter(|s| !order.voided.contains(s))
            .collect();
        if fresh.is_empty() {
            return Ok(Voided::AlreadyVoided);
        }
        order.voided.extend(fresh.iter().copied());
        let all = order.voided.len() == order.seats.len();
        if all {
            order.state = OrderState::Refunded;
        }
        self.set(&fresh, UnitState::Available);
        if all {
            self.close(id);
        }
        Ok(Voided::Voided { units: ids(&fresh) })
    }

    pub fn move_seat(
        &mut self,
        now: u64,
        id: &OrderId,
        from: &str,
        to: &str,
    ) -> Result<Moved, MoveError> {
        self.begin(now);
        let find = |name: &str| {
            self.names
                .iter()
                .position(|n| n == name)
                .ok_or(MoveError::UnknownSeat {
                    seat: name.to_string(),
                })
        };
        let (f, t) = (find(from)?, find(to)?);
        let order = self.orders.get_mut(id).ok_or(MoveError::OrderNotFound)?;
        let not_in_order = MoveError::SeatNotInOrder {
            seat: from.to_string(),
        };
        match order.state {
            OrderState::Pending => return Err(MoveError::OrderNotConfirmed),
            OrderState::Abandoned | OrderState::Refunded => return Err(not_in_order),
            OrderState::Confirmed => {}
        }
        if !order.seats.contains(&f) || order.voided.contains(&f) {
            return Err(not_in_order);
        }
        if self.units[t] != UnitState::Available {
            return Err(MoveError::SeatUnavailable {
                seat: to.to_string(),
            });
        }
        if order.voided.remove(&t) {
            order.voided.insert(f);
        } else {
            let at = order.seats.iter().position(|&s| s == f).unwrap();
            order.seats[at] = t;
        }
        self.units[f] = UnitState::Available;
        self.units[t] = UnitState::Sold(id.clone());
        Ok(Moved {
            from: UnitId(f as u32),
            to: UnitId(t as u32),
        })
    }

    fn close(&mut self, id: &OrderId) {
        self.closed.push_back(id.clone());
        while self.closed.len() > self.config.max_closed_orders as usize {
            let forgotten = self.closed.pop_front().unwrap();
            self.orders.remove(&forgotten);
        }
    }
}

fn commit_error(error: HoldError) -> CommitError {
    match error {
        HoldError::NoSeats => CommitError::NoSeats,
        HoldError::TooManySeats { requested, max } => CommitError::TooManySeats { requested, max },
        HoldError::DuplicateSeats { seats } => CommitError::DuplicateSeats { seats },
        HoldError::UnknownSeats { seats } => CommitError::UnknownSeats { seats },
        other => unreachable!("shape checks give only shape errors, not {other:?}"),
    }
}

fn void_error(error: HoldError) -> VoidError {
    match error {
        HoldError::NoSeats => VoidError::NoSeats,
        HoldError::TooManySeats { requested, max } => VoidError::TooManySeats { requested, max },
        HoldError::DuplicateSeats { seats } => VoidError::DuplicateSeats { seats },
        HoldError::UnknownSeats { seats } => VoidError::UnknownSeats { seats },
        other => unreachable!("shape checks give only shape errors, not {other:?}"),
    }
}
