//! Holding seats, releasing them, and starting payment.

use crate::error::{HoldError, PaymentError, ReleaseError};
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
        if self.live_hold(hold_id, now_ms).is_some() {
            return Err(HoldError::HoldIdInUse);
        }
        for &unit in &units {
            self.clear_expired_holder(unit, now_ms);
        }
        let unavailable: Vec<UnitId> = units
            .iter()
            .copied()
            .filter(|unit| self.units[unit.index()] != UnitState::Available)
            .collect();
        if !unavailable.is_empty() {
            let seats = self.names_of(unavailable);
            return Err(HoldError::SeatsUnavailable { seats });
        }
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

    /// Holds these free units: the last step of every hold.
    fn grant(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        units: Vec<UnitId>,
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
        let expires_at_ms = now_ms + self.config.hold_ttl_ms;
        self.insert_hold(HoldRecord {
            id: hold_id.clone(),
            seats: units.clone(),
            started_at_ms: now_ms,
            expires_at_ms,
            paying: false,
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
