//! Holding seats, reading a hold and releasing it, and replaying the first
//! answer to a repeated `Idempotency-Key`.
//!
//! A hold is named publicly by a secret token (128 random bits, drawn by
//! the Worker) that only the buyer who made it receives. The ledger and
//! storage know only the token's SHA-256, so stored data cannot be turned
//! back into tokens, and a lookup reveals nothing through timing.

use crate::owners::Owner;
use crate::replays::{Recorded, REPLAY_TTL_MS};

use ledger::{Best, HoldError, HoldId, HoldRecord, Rule};
use serde_json::Value;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::protocol::{HoldGranted, HoldRef, HoldView, NewHold, Reply, SeatPrice};
use crate::refusal::{Code, Refusal};
use crate::showing::{priced, Showing};
use crate::storage::{HoldEnd, Write};
use crate::{Decision, Desk};

/// Hold tokens are 32 hex characters.
pub const TOKEN_LEN: usize = 32;
/// How long an ended hold's owner is kept, so its buyer can still be told
/// how it ended.
pub const ENDED_HOLD_TTL_MS: u64 = 3600 * 1000;
/// Most seat names a refusal lists: enough to show a buyer, too few to
/// make a stored refusal a way to fill storage.
pub const MAX_NAMED_SEATS: usize = 20;
/// Most ended hold owners one alarm forgets: far more holds than can end
/// between two alarms of a busy showing.
const OWNER_PURGE_BATCH: usize = 2_000;

pub fn hold_id_of(token: &str) -> HoldId {
    let digest = hex::encode(Sha256::digest(token.as_bytes()));
    // 128 bits of the digest are as unguessable as the token itself.
    HoldId::new(&digest[..32]).expect("32 hex characters are a valid hold id")
}

fn same_buyer(a: &str, b: &str) -> bool {
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

pub fn hold_not_found() -> Refusal {
    Refusal::new(
        Code::HoldNotFound,
        "no hold with this id belongs to you for this showing",
    )
}

/// The hold's record while it is live at `now_ms`.
pub(crate) fn live<'a>(showing: &'a Showing, id: &HoldId, now_ms: u64) -> Option<&'a HoldRecord> {
    let now_ms = now_ms.max(showing.ledger.latest_now_ms());
    showing
        .ledger
        .hold_record(id)
        .filter(|record| record.expires_at_ms > now_ms)
}

/// The refusal naming the first [`MAX_NAMED_SEATS`] seats, each cut to
/// the longest a seat name can be, and how many there were in all when
/// that is more: a refusal is kept for replays, so what a caller sends
/// must not make it large.
fn with_seats(refusal: Refusal, mut seats: Vec<String>) -> Refusal {
    let count = seats.len();
    seats.truncate(MAX_NAMED_SEATS);
    for seat in &mut seats {
        if let Some((cut, _)) = seat.char_indices().nth(ledger::MAX_UNIT_NAME_BYTES) {
            seat.truncate(cut);
        }
    }
    let refusal = refusal.with("seats", seats);
    match count > MAX_NAMED_SEATS {
        true => refusal.with("seat_count", count),
        false => refusal,
    }
}

pub(crate) fn hold_refusal(showing: &Showing, error: HoldError) -> Refusal {
    match error {
        HoldError::NoSeats => Refusal::new(Code::NoSeats, "choose at least one seat"),
        HoldError::TooManySeats { requested, max } => Refusal::new(
            Code::TooManySeats,
            format!("{requested} seats asked for; one hold may have at most {max}"),
        )
        .with("max_seats", max),
        HoldError::DuplicateSeats { seats } => with_seats(
            Refusal::new(Code::DuplicateSeats, "each seat may be named only once"),
            seats,
        ),
        HoldError::UnknownSeats { seats } => with_seats(
            Refusal::new(
                Code::UnknownSeats,
                "this showing has no seats with these names",
            ),
            seats,
        ),
        HoldError::SeatsUnavailable { seats } => with_seats(
            Refusal::new(
                Code::SeatsUnavailable,
                "some of these seats were just taken; nothing was held",
            ),
            seats,
        )
        .with(
            "availability",
            serde_json::to_value(showing.codes()).unwrap_or(Value::Null),
        ),
        HoldError::TooManyLiveHolds { max } => {
            let wait_ms = showing
                .ledger
                .next_expiry()
                .map(|t| t.saturating_sub(showing.ledger.latest_now_ms()))
                .unwrap_or(60_000);
            Refusal::new(
                Code::TooManyHolds,
                format!("{max} buyers are choosing seats right now; try again shortly"),
            )
            .retry_after(wait_ms.div_ceil(1000))
        }
        HoldError::HoldIdInUse => Refusal::internal("hold id collision; please try again"),
        HoldError::LeavesSingleSeat { seat } => Refusal::new(
            Code::LeavesSingleSeat,
            format!("these seats would leave {seat} on its own, where nobody can sit with anyone; choose seats that leave no single seat"),
        )
        .with("seat", seat)
        .with(
            "availability",
            serde_json::to_value(showing.codes()).unwrap_or(Value::Null),
        ),
        HoldError::NoAdjacentSeats { largest } => Refusal::new(
            Code::NoAdjacentSeats,
            format!("no block of that many seats together is left; the largest is {largest}"),
        )
        .with("largest_block", largest),
        HoldError::NotEnoughSeats { available } => Refusal::new(
            Code::NotEnoughSeats,
            format!("only {available} seats are left to choose from"),
        )
        .with("available", available),
        HoldError::UnknownZone => Refusal::new(Code::UnknownZone, "this showing has no such zone"),
        HoldError::BadReleaseTime => Refusal::new(
            Code::InvalidAllocation,
            "release_at: the time the seats return to sale, after now",
        ),
        HoldError::ZoneFull { available } => Refusal::new(
            Code::ZoneFull,
            format!("only {available} places are left in this zone; nothing was held"),
        )
        .with("available", available)
        .with(
            "availability",
            serde_json::to_value(showing.codes()).unwrap_or(Value::Null),
        ),
    }
}

impl Desk {
    pub(crate) fn hold(
        &mut self,
        now_ms: u64,
        new: NewHold,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        // Before the replay: a replay is a request like any other, so
        // retrying a key is no way around the rate.
        if let Err(wait_ms) = self.take_hold_token(&new.caller.client, now_ms, d) {
            return Err(Refusal::new(
                Code::RateLimited,
                "too many hold requests from this address; wait a moment and try again",
            )
            .retry_after(wait_ms.div_ceil(1000)));
        }
        // Bounded before anything is looked up or kept: a body out of
        // bounds is refused the same whenever it is sent, so its refusal
        // is not kept for a replay.
        match &new.best {
            None => crate::bounds::check_seat_request(&new.seats, &new.prices)?,
            Some(best) => crate::bounds::check_best_request(
                best.count,
                &best.categories,
                best.zone.as_deref(),
            )?,
        }
        if let Some(idem) = &new.idempotency {
            if let Some(replayed) = self.replay(now_ms, idem, &new.caller.buyer, d)? {
                return Ok(replayed);
            }
        }
        self.refuse_if_cancelled()?;
        self.refuse_unless_on_sale(now_ms)?;
        // Behind a waiting room, only buyers it admitted (the Worker
        // checked their admission token) hold seats.
        if self.showing.as_ref().is_some_and(|s| s.meta.waiting_room) && !new.admitted {
            return Err(Refusal::new(
                Code::NotAdmitted,
                "this showing has a waiting room: join the line, and choose seats once admitted",
            ));
        }
        let answer = self.decide_hold(now_ms, &new, d);
        if let Some(idem) = &new.idempotency {
            self.record_replay(now_ms, idem, &new.caller.buyer, &answer, d);
        }
        answer.map(Reply::Held)
    }

    /// The answer kept for this `Idempotency-Key`, if one is: only to the
    /// buyer who sent it first, and only for the same body. A kept
    /// `seats_unavailable` gets the seat map as it is now.
    fn replay(
        &mut self,
        now_ms: u64,
        idem: &crate::protocol::Idempotency,
        buyer: &str,
        d: &mut Decision,
    ) -> Result<Option<Reply>, Refusal> {
        let Some(recorded) = self.replays.get(&idem.key) else {
            return Ok(None);
        };
        if recorded.created_at_ms.saturating_add(REPLAY_TTL_MS) <= now_ms {
            return Ok(None);
        }
        // Only to the buyer who made it: the answer names a hold, which
        // is as good as the hold itself.
        if !same_buyer(&recorded.buyer, buyer) {
            return Err(Refusal::new(
                Code::IdempotencyKeyInUse,
                "this Idempotency-Key belongs to another request; send a new key",
            ));
        }
        if recorded.fingerprint != idem.fingerprint {
            return Err(Refusal::new(
                Code::IdempotencyKeyReused,
                "this Idempotency-Key was used with a different request body",
            ));
        }
        let (status, mut body) = (recorded.status, recorded.body.clone());
        if status == Code::SeatsUnavailable.status() {
            // Holds that ended are let go first, as for any seat map.
            self.sweep(now_ms, d);
            if let (Ok(mut value), Some(showing)) =
                (serde_json::from_str::<Value>(&body), self.showing.as_ref())
            {
                if value["error"] == Code::SeatsUnavailable.as_str() {
                    value["availability"] =
                        serde_json::to_value(showing.codes()).unwrap_or(Value::Null);
                    body = value.to_string();
                }
            }
        }
        self.replays.touch(&idem.key, now_ms, d);
        Ok(Some(Reply::Replayed { status, body }))
    }

    /// Keeps the answer for replays of the same `Idempotency-Key`: a
    /// granted hold or a 409, which depend on the seats at that moment.
    /// A 400 depends on the body alone and a 429 or 503 on the moment, so
    /// a retry of those is decided afresh. The seat map a
    /// `seats_unavailable` carries is not kept: a replay gets today's.
    fn record_replay(
        &mut self,
        now_ms: u64,
        idem: &crate::protocol::Idempotency,
        buyer: &str,
        answer: &Result<HoldGranted, Refusal>,
        d: &mut Decision,
    ) {
        let (status, body) = match answer {
            Ok(granted) => (201, serde_json::to_value(granted).unwrap_or(Value::Null)),
            Err(e) if e.status() == 409 => {
                let mut body = e.body();
                if let Some(fields) = body.as_object_mut() {
                    fields.remove("availability");
                }
                (409, body)
            }
            Err(_) => return,
        };
        self.replays.forget_stale_on_hold(now_ms, d);
        let recorded = Recorded {
            fingerprint: idem.fingerprint.clone(),
            status,
            body: body.to_string(),
            buyer: buyer.to_string(),
            created_at_ms: now_ms,
            used_at_ms: now_ms,
        };
        self.replays.record(idem.key.clone(), recorded, d);
    }

    fn decide_hold(
        &mut self,
        now_ms: u64,
        new: &NewHold,
        d: &mut Decision,
    ) -> Result<HoldGranted, Refusal> {
        self.refuse_second_hold(&new.caller.buyer, now_ms)?;
        if new.token.len() != TOKEN_LEN || !new.token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Refusal::internal("the hold token is not 32 hex characters"));
        }
        let asked = new
            .best
            .as_ref()
            .map_or(new.seats.len(), |b| b.count as usize);
        self.refuse_past_client_cap(now_ms, &new.caller.client, asked)?;
        let hold_id = hold_id_of(&new.token);
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        // Checked and priced before anything is held, so a refusal holds
        // nothing. A buyer keeps the single-seat rule; best available
        // never picks a seat the box office alone sells.
        let (outcome, categories) = match &new.best {
            None => {
                showing.refuse_desk_only(&new.seats)?;
                let categories = showing.seat_categories(&new.seats, &new.prices)?;
                let outcome = showing
                    .ledger
                    .hold_under(now_ms, &hold_id, &new.seats, Rule::Keep);
                (outcome, categories)
            }
            Some(best) => {
                let categories = showing.best_categories(best.count, &best.categories)?;
                let zone = best
                    .zone
                    .as_deref()
                    .map(|name| showing.zone(name))
                    .transpose()?;
                let online = Best {
                    count: best.count,
                    together: best.together,
                    accessible: best.accessible,
                    counter: false,
                    zone,
                };
                (
                    showing.ledger.hold_best(now_ms, &hold_id, &online),
                    categories,
                )
            }
        };
        showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
        let granted = outcome.result.map_err(|e| hold_refusal(showing, e))?;
        // In the order asked for, or best available's.
        let seats = showing.names_of(&granted.units);
        let prices = priced(&seats, &categories, &self.settings.tax);
        let amount = showing.total(&prices);
        let caller = &new.caller;
        self.record_owner(
            &hold_id,
            (&caller.buyer, &caller.client),
            &seats,
            &prices,
            d,
        );
        Ok(HoldGranted {
            hold_id: new.token.clone(),
            tax: self.tax_line(&prices),
            amount,
            prices,
            seats,
            expires_at_ms: granted.expires_at_ms,
            expires_in_ms: granted.expires_at_ms.saturating_sub(now_ms),
        })
    }

    /// Refuses a hold that would take the seats held at once from one
    /// network past its cap: dropping the cookie makes a new buyer, but
    /// not a new network. A first hold is bounded by the seats a hold may
    /// have instead.
    fn refuse_past_client_cap(
        &self,
        now_ms: u64,
        client: &str,
        asked: usize,
    ) -> Result<(), Refusal> {
        let Some(showing) = self.showing.as_ref() else {
            return Ok(());
        };
        let cap = self.settings.hold_rate.seats_held as usize;
        let (mut held, mut first_end) = (0, u64::MAX);
        for id in self.owners.open_of_client(client) {
            let Ok(id) = HoldId::new(id.as_str()) else {
                continue;
            };
            if let Some(record) = live(showing, &id, now_ms) {
                held += record.seats.len();
                first_end = first_end.min(record.expires_at_ms);
            }
        }
        if held == 0 || held + asked <= cap {
            return Ok(());
        }
        Err(Refusal::new(
            Code::TooManySeatsHeld,
            format!(
                "{held} seats of this showing are already held from your network, \
                 and at most {cap} may be at once; try again when a hold ends"
            ),
        )
        .with("max_seats_held", cap)
        .retry_after(first_end.saturating_sub(now_ms).div_ceil(1000)))
    }

    /// Who made a new hold, and each seat's price, kept for the hold's life.
    pub(crate) fn record_owner(
        &mut self,
        hold_id: &HoldId,
        (buyer, client): (&str, &str),
        seats: &[String],
        prices: &[SeatPrice],
        d: &mut Decision,
    ) {
        // The new hold's record, which the ledger call wrote a moment ago,
        // goes on this same row: one statement a hold, not two.
        let at = d.writes.iter().position(
            |w| matches!(w, Write::Hold { id, record: Some(_) } if id == hold_id.as_str()),
        );
        let record = match at.map(|at| d.writes.remove(at)) {
            Some(Write::Hold { record, .. }) => record,
            _ => None,
        };
        d.writes.push(Write::Owner {
            hold_id: hold_id.as_str().to_string(),
            buyer: buyer.to_string(),
            client: client.to_string(),
            seats: seats.to_vec(),
            prices: prices.to_vec(),
            record,
        });
        // Past the cap, a new hold makes room by forgetting the holds that
        // ended first, so the table stays bounded between alarms too.
        for old in self.owners.to_forget(0, 2) {
            self.owners.remove(&old);
            d.writes.push(Write::ForgetOwner { hold_id: old });
        }
        self.owners.insert(
            hold_id.as_str().to_string(),
            Owner {
                buyer: buyer.to_string(),
                client: client.to_string(),
                seats: seats.to_vec(),
                prices: prices.to_vec(),
                ended: None,
                code: None,
            },
        );
    }

    /// The order paying for a hold, a paid one first. A declined card leaves
    /// the hold to be paid with another, so declined orders are not named.
    fn order_of_hold(&self, hold_id: &str) -> Option<String> {
        self.checkouts
            .machines
            .iter()
            .filter(|(_, m)| m.order().hold_id == hold_id)
            .filter(|(_, m)| !matches!(m.status(), checkout::PublicStatus::Declined { .. }))
            .max_by_key(|(_, m)| matches!(m.status(), checkout::PublicStatus::Paid))
            .map(|(order_id, _)| order_id.clone())
    }

    /// One live hold a buyer: a second is refused, naming the first. The
    /// hold's token is not kept here, so the page that made it (which
    /// remembers it) is where it can be paid or released; the buyer is
    /// told when it ends otherwise.
    pub(crate) fn refuse_second_hold(&self, buyer: &str, now_ms: u64) -> Result<(), Refusal> {
        match self.live_hold_of(buyer, now_ms) {
            None => Ok(()),
            Some((seats, expires_at_ms)) => Err(Refusal::new(
                Code::AlreadyHolding,
                "you already hold seats for this showing: pay for them or release them first",
            )
            .with("held_seats", seats)
            .with("expires_in_ms", expires_at_ms.saturating_sub(now_ms))),
        }
    }

    /// The seats of the buyer's live hold and when it ends, if they have one.
    fn live_hold_of(&self, buyer: &str, now_ms: u64) -> Option<(Vec<String>, u64)> {
        let showing = self.showing.as_ref()?;
        self.owners.open_of_buyer(buyer).find_map(|id| {
            let id = HoldId::new(id.as_str()).ok()?;
            let record = live(showing, &id, now_ms)?;
            let seats = record
                .seats
                .iter()
                .map(|&u| showing.ledger.unit_name(u).unwrap_or_default().to_string())
                .collect();
            Some((seats, record.expires_at_ms))
        })
    }

    /// The caller's hold, after checking that the caller made it.
    pub(crate) fn owned_hold(&self, hold: &HoldRef) -> Result<(HoldId, &Owner), Refusal> {
        let id = hold_id_of(&hold.token);
        match self.owners.get(id.as_str()) {
            Some(owner) if same_buyer(&owner.buyer, &hold.buyer) => Ok((id, owner)),
            _ => Err(hold_not_found()),
        }
    }

    pub(crate) fn get_hold(
        &mut self,
        now_ms: u64,
        hold: &HoldRef,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        self.sweep(now_ms, d);
        let showing = self.showing()?;
        let (id, owner) = self.owned_hold(hold)?;
        let prices = showing.prices_of(owner);
        let amount = showing.total(&prices);
        let (state, expires_at_ms) = match live(showing, &id, now_ms) {
            Some(record) => (
                if record.paying { "paying" } else { "held" },
                Some(record.expires_at_ms),
            ),
            None => (owner.ended.map_or("expired", |(how, _)| how.as_str()), None),
        };
        Ok(Reply::Hold(HoldView {
            hold_id: hold.token.clone(),
            seats: owner.seats.clone(),
            state: state.to_string(),
            expires_at_ms,
            expires_in_ms: expires_at_ms.map(|at| at.saturating_sub(now_ms)),
            amount,
            tax: self.tax_line(&prices),
            prices,
            order_id: self.order_of_hold(id.as_str()),
            discount: owner.code.as_ref().map(|c| crate::protocol::DiscountView {
                code: c.code.clone(),
                amount: c.amount,
            }),
        }))
    }

    pub(crate) fn release(
        &mut self,
        now_ms: u64,
        hold: &HoldRef,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        let (id, _) = self.owned_hold(hold)?;
        self.end_hold(now_ms, &id, d)
            .map_err(|_| hold_not_found())?;
        Ok(Reply::Done)
    }

    /// Lets the live hold `id` go now (a buyer's, or an allocation), its
    /// owner row saying it was released.
    pub(crate) fn end_hold(
        &mut self,
        now_ms: u64,
        id: &ledger::HoldId,
        d: &mut Decision,
    ) -> Result<(), Refusal> {
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        let outcome = showing.ledger.release(now_ms, id);
        showing.persist(
            &outcome.changes,
            Some((id, HoldEnd::Released)),
            now_ms,
            &mut self.owners,
            d,
        );
        outcome
            .result
            .map(|_| ())
            .map_err(|_| Refusal::not_found("hold"))
    }

    /// Forgets owners of holds that ended over an hour ago, or the oldest
    /// ended past [`crate::owners::MAX_ENDED_OWNERS`], a batch at a time.
    /// Run by the alarm and the cron sweep rather than by every hold.
    pub(crate) fn forget_ended_owners(&mut self, now_ms: u64, d: &mut Decision) {
        let cutoff = now_ms.saturating_sub(ENDED_HOLD_TTL_MS);
        for hold_id in self.owners.to_forget(cutoff, OWNER_PURGE_BATCH) {
            self.owners.remove(&hold_id);
            d.writes.push(Write::ForgetOwner { hold_id });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_at_most_twenty_short_seat_names() {
        let seats: Vec<String> = (0..500)
            .map(|n| format!("{n}{}", "é".repeat(4_000)))
            .collect();
        let body = with_seats(Refusal::new(Code::UnknownSeats, "unknown"), seats).body();
        let named = body["seats"].as_array().unwrap();
        assert_eq!(named.len(), MAX_NAMED_SEATS);
        assert!(named
            .iter()
            .all(|s| s.as_str().unwrap().chars().count() <= ledger::MAX_UNIT_NAME_BYTES));
        assert_eq!(body["seat_count"], 500);
        assert!(body.to_string().len() < 2_000, "{}", body.to_string().len());
    }
}
