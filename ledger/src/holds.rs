//! Holding seats, releasing them, and starting payment.

use crate::error::{HoldError, PaymentError, ReleaseError};
use crate::ids::{HoldId, UnitId};
use crate::ledger::Ledger;
use crate::outcome::{HoldGranted, Outcome, PaymentWindow, Released};
use crate::state::{HoldRecord, UnitState};

impl Ledger {
    /// Holds all of `seats` for `hold_id` until `now_ms + hold_ttl_ms`, or
    /// none of them. See [`HoldError`] for the refusals and their order.
    pub fn hold<S: AsRef<str>>(
        &mut self,
        now_ms: u64,
        hold_id: &HoldId,
        seats: &[S],
    ) -> Outcome<HoldGranted, HoldError> {
        let now_ms = self.begin(now_ms);
        let result = self.try_hold(now_ms, hold_id, seats);
        self.finish(result)
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
