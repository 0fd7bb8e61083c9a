//! Holding seats, releasing them, and starting payment.

use crate::config::MAX_NOW_MS;
use crate::error::{HoldError, PaymentError, ReleaseError, TakeError};
use crate::ids::{HoldId, UnitId};
use crate::ledger::Ledger;
use crate::outcome::{HoldGranted, Outcome, PaymentWindow, Released};
use crate::seating::{first_free, Best};
use crate::state::{HoldRecord, UnitState};

/// Whether a hold of named seats keeps the single-seat rule: a buyer's
/// does; staff, at the counter or moving seats, are trusted to know why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    Keep,
    Exempt,
}

impl Ledger {
    /// Holds all of `seats` for `hold_id` until `now_ms + hold_ttl_ms`, or
    /// none of them, exempt from the single-seat rule. See [`HoldError`]
    /// for the refusals and their order.
    pub fn hold<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        seats: &[S],
    ) -> Outcome<HoldGranted, HoldError> {
        self.hold_under(now_ms, hold_id, seats, Rule::Exempt)
    }

    /// [`Ledger::hold`], keeping the single-seat rule if `rule` says so and
    /// the room has it.
    pub fn hold_under<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        seats: &[S],
        rule: Rule,
    ) -> Outcome<HoldGranted, HoldError> {
        let now_ms = self.begin(now_ms);
        let result = self.try_hold(now_ms, hold_id, seats, rule);
        self.finish(result)
    }

    /// Holds the best free seats by the room's rule (see `seating`): for
    /// named slots, the first free ones. Refused as [`Ledger::hold`] is,
    /// and `NotEnoughSeats` or `NoAdjacentSeats` where no seats fit.
    pub fn hold_best(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        best: &Best,
    ) -> Outcome<HoldGranted, HoldError> {
        let now_ms = self.begin(now_ms);
        let result = self.try_hold_best(now_ms, hold_id, best);
        self.finish(result)
    }

    /// The seats best available would hold now, holding nothing: what the
    /// box office offers staff to adjust before they sell.
    pub fn best_seats(&self, now_ms: u64, best: &Best) -> Result<Vec<UnitId>, HoldError> {
        let now_ms = now_ms.max(self.latest_now_ms);
        self.pick_best(now_ms, best)
    }

    /// Gives `seats` to another channel until `until_ms`: an allocation,
    /// held like a hold (online buyers cannot take them) but of any size
    /// up to the whole room, exempt from the single-seat rule, and let go
    /// by the sweep at `until_ms`, which may be days away.
    pub fn allocate<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        seats: &[S],
        until_ms: u64,
    ) -> Outcome<HoldGranted, HoldError> {
        let now_ms = self.begin(now_ms);
        let result = self.try_allocate(now_ms, hold_id, seats, until_ms);
        self.finish(result)
    }

    /// Moves `seats` of the live hold `from`, all or none, into a new hold
    /// `to` of the usual length: an allocation's seats sold to its channel
    /// pass from the allocation to the sale's hold with no instant between
    /// in which anyone else could take them. A hold left with no seats
    /// ends.
    pub fn split_hold<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        from: &HoldId,
        to: &HoldId,
        seats: &[S],
    ) -> Outcome<HoldGranted, TakeError> {
        let now_ms = self.begin(now_ms);
        let result = self.try_split(now_ms, from, to, seats);
        self.finish(result)
    }

    fn try_allocate<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        seats: &[S],
        until_ms: u64,
    ) -> Result<HoldGranted, HoldError> {
        let units = self.resolve_seats_within(seats, self.names.len() as u32)?;
        if until_ms <= now_ms || until_ms > MAX_NOW_MS {
            return Err(HoldError::BadReleaseTime);
        }
        self.claimable(now_ms, hold_id, &units)?;
        self.grant_until(now_ms, hold_id, units, Some(until_ms))
    }

    fn try_split<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        from: &HoldId,
        to: &HoldId,
        seats: &[S],
    ) -> Result<HoldGranted, TakeError> {
        let units = self
            .resolve_seats(seats)
            .map_err(|e| TakeError::Seats(HoldError::from(e)))?;
        let Some(held) = self.live_hold(from, now_ms).map(|r| r.seats.clone()) else {
            return Err(TakeError::HoldNotFound);
        };
        let missing: Vec<UnitId> = units
            .iter()
            .copied()
            .filter(|unit| !held.contains(unit))
            .collect();
        if !missing.is_empty() {
            let seats = self.names_of(missing);
            return Err(TakeError::NotInHold { seats });
        }
        if self.live_hold(to, now_ms).is_some() {
            return Err(TakeError::Seats(HoldError::HoldIdInUse));
        }
        // The new hold needs a place among the live ones unless the old
        // one gives its own up.
        let emptied = held.iter().all(|unit| units.contains(unit));
        if !emptied && self.holds.len() >= self.config.max_live_holds as usize {
            let max = self.config.max_live_holds;
            return Err(TakeError::Seats(HoldError::TooManyLiveHolds { max }));
        }
        let mut record = self
            .remove_hold(from)
            .expect("live_hold just found the record");
        record.seats.retain(|unit| !units.contains(unit));
        if !emptied {
            self.insert_hold(record);
        }
        for &unit in &units {
            self.set_unit(unit, UnitState::Available);
        }
        self.grant(now_ms, to, units).map_err(TakeError::Seats)
    }

    /// Releases a live hold early; only its id can do so.
    pub fn release(&mut self, now_ms: u64, hold_id: &HoldId) -> Outcome<Released, ReleaseError> {
        let now_ms = self.begin(now_ms);
        let result = if self.live_hold(hold_id, now_ms).is_some() {
            let record = self.release_hold(hold_id);
            let record = record.expect("live_hold just found the record");
            Ok(Released {
                units: record.seats,
            })
        } else {
            Err(ReleaseError::HoldNotFound)
        };
        self.finish(result)
    }

    /// Payment is starting: extends the hold, once, to `started_at_ms +
    /// payment_cap_ms`. Calling again changes nothing and says so.
    pub fn start_payment(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
    ) -> Outcome<PaymentWindow, PaymentError> {
        let now_ms = self.begin(now_ms);
        let result = self.try_start_payment(now_ms, hold_id);
        self.finish(result)
    }

    fn try_hold<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        seats: &[S],
        rule: Rule,
    ) -> Result<HoldGranted, HoldError> {
        let units = self.resolve_seats(seats)?;
        self.claimable(now_ms, hold_id, &units)?;
        if let (Some(room), Rule::Keep) = (&self.room, rule) {
            let taken: Vec<usize> = units.iter().map(|u| u.index()).collect();
            if let Err(alone) = room.check(|u| self.free_at(u, now_ms), &taken) {
                let seat = self.names[alone].clone();
                return Err(HoldError::LeavesSingleSeat { seat });
            }
        }
        self.grant(now_ms, hold_id, units)
    }

    fn try_hold_best(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        best: &Best,
    ) -> Result<HoldGranted, HoldError> {
        let max = self.config.max_seats_per_hold;
        match best.count {
            0 => return Err(HoldError::NoSeats),
            n if n > max => {
                return Err(HoldError::TooManySeats {
                    requested: n as usize,
                    max,
                })
            }
            _ => {}
        }
        if self.live_hold(hold_id, now_ms).is_some() {
            return Err(HoldError::HoldIdInUse);
        }
        let units = self.pick_best(now_ms, best)?;
        for &unit in &units {
            self.clear_expired_holder(unit, now_ms);
        }
        self.grant(now_ms, hold_id, units)
    }

    /// Best available's choice at `now_ms`, ascending.
    fn pick_best(&self, now_ms: u64, best: &Best) -> Result<Vec<UnitId>, HoldError> {
        let count = (best.count as usize).min(crate::seating::MAX_PICK);
        let available = self.free_units_at(now_ms);
        if let Some(zone) = best.zone {
            let Some(room) = self.room.as_ref().filter(|r| r.has_zone(zone)) else {
                return Err(HoldError::UnknownZone);
            };
            let free = room.free(available, Some(best));
            let picked = first_free(&free, count).map_err(|n| HoldError::ZoneFull {
                available: n as u32,
            })?;
            return Ok(picked.into_iter().map(|u| UnitId(u as u32)).collect());
        }
        let free = match &self.room {
            Some(room) => room.free(available, Some(best)),
            None => crate::seating::Free {
                eligible: available.clone(),
                free: available,
            },
        };
        let eligible = free.eligible.iter().filter(|&&e| e).count();
        if eligible < count {
            return Err(HoldError::NotEnoughSeats {
                available: eligible as u32,
            });
        }
        let picked = match &self.room {
            Some(room) => room
                .pick(free, best)
                .map_err(|largest| HoldError::NoAdjacentSeats {
                    largest: largest as u32,
                })?,
            None => first_free(&free, count).map_err(|n| HoldError::NotEnoughSeats {
                available: n as u32,
            })?,
        };
        Ok(picked.into_iter().map(|u| UnitId(u as u32)).collect())
    }

    /// Whether a new hold `hold_id` may take `units`: the id is free, and
    /// each unit is free once holds that ran out let go of it.
    fn claimable(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        units: &[UnitId],
    ) -> Result<(), HoldError> {
        if self.live_hold(hold_id, now_ms).is_some() {
            return Err(HoldError::HoldIdInUse);
        }
        for &unit in units {
            self.clear_expired_holder(unit, now_ms);
        }
        let unavailable: Vec<UnitId> = units
            .iter()
            .copied()
            .filter(|unit| self.units[unit.index()] != UnitState::Available)
            .collect();
        match unavailable.is_empty() {
            true => Ok(()),
            false => Err(HoldError::SeatsUnavailable {
                seats: self.names_of(unavailable),
            }),
        }
    }

    /// Holds these free units: the last step of every hold.
    fn grant(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        units: Vec<UnitId>,
    ) -> Result<HoldGranted, HoldError> {
        self.grant_until(now_ms, hold_id, units, None)
    }

    /// [`Ledger::grant`], for an allocation until `until_ms` when given.
    fn grant_until(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        units: Vec<UnitId>,
        until_ms: Option<u64>,
    ) -> Result<HoldGranted, HoldError> {
        let max = self.config.max_live_holds;
        // Expired holds never count here: the call began with a sweep of at
        // least one hold, so holds can be at the limit only if none had expired.
        if self.holds.len() >= max as usize {
            debug_assert!(self.next_expiry().is_some_and(|e| e > now_ms));
            return Err(HoldError::TooManyLiveHolds { max });
        }
        for &unit in &units {
            self.set_unit(unit, UnitState::Held(hold_id.clone()));
        }
        let expires_at_ms = until_ms.unwrap_or(now_ms + self.config.hold_ttl_ms);
        self.insert_hold(HoldRecord {
            id: hold_id.clone(),
            seats: units.clone(),
            started_at_ms: now_ms,
            expires_at_ms,
            paying: false,
            allocated: until_ms.is_some(),
        });
        Ok(HoldGranted {
            units,
            expires_at_ms,
        })
    }

    fn try_start_payment(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
    ) -> Result<PaymentWindow, PaymentError> {
        let record = self
            .live_hold(hold_id, now_ms)
            .filter(|r| !r.allocated)
            .ok_or(PaymentError::HoldNotFound)?;
        if record.paying {
            return Ok(PaymentWindow::AlreadyPaying {
                expires_at_ms: record.expires_at_ms,
            });
        }
        // Removed and inserted again so the expiry index follows the new time.
        let mut record = self
            .remove_hold(hold_id)
            .expect("live_hold just found the record");
        record.paying = true;
        // The cap is at least the TTL, so the extension never shortens a hold.
        record.expires_at_ms = record.started_at_ms + self.config.payment_cap_ms;
        let expires_at_ms = record.expires_at_ms;
        self.insert_hold(record);
        Ok(PaymentWindow::Started { expires_at_ms })
    }
}
