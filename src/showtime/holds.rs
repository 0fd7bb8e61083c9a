//! Holding seats, reading a hold and releasing it: synchronous decisions
//! made inside [`super::Showtime::decide`].
//!
//! A hold is named publicly by a secret token (128 random bits) that only
//! the buyer who made it receives. The ledger and storage know only the
//! token's SHA-256, so looking a hold up reveals nothing through timing
//! about the token, and stored data cannot be turned back into tokens.

use ledger::{HoldError, HoldId, HoldRecord};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use worker::Response;

use super::protocol::{HoldRef, NewHold, BUYER_HEADER};
use super::store::{self, HoldEnd};
use super::{Handled, Scope};
use crate::api_error::ApiError;

/// Hold tokens are 32 hex characters.
pub const TOKEN_LEN: usize = 32;

fn hold_id_of(token: &str) -> HoldId {
    let digest = hex::encode(Sha256::digest(token.as_bytes()));
    // 128 bits of the digest are as unguessable as the token itself.
    HoldId::new(&digest[..32]).expect("32 hex characters are a valid hold id")
}

fn same_buyer(a: &str, b: &str) -> bool {
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

fn hold_not_found() -> ApiError {
    ApiError::new(
        404,
        "hold_not_found",
        "no hold with this id belongs to you for this showing",
    )
}

pub fn create(scope: &mut Scope, new: &NewHold, now_ms: u64) -> Handled {
    if let Some(idem) = &new.idempotency {
        if let Some(recorded) = store::recorded_answer(&scope.sql, &idem.key, now_ms)? {
            if recorded.fingerprint != idem.fingerprint {
                return Err(ApiError::new(
                    422,
                    "idempotency_key_reused",
                    "this Idempotency-Key was used with a different request body",
                ));
            }
            let resp =
                Response::from_bytes(recorded.body.into_bytes())?.with_status(recorded.status);
            resp.headers().set("content-type", "application/json")?;
            resp.headers().set(BUYER_HEADER, &recorded.buyer)?;
            return Ok(resp);
        }
    }
    if let Err(wait_ms) = scope
        .rate
        .take(scope.hold_limit, &new.caller.client, now_ms)
    {
        return Err(ApiError::new(
            429,
            "rate_limited",
            "too many hold requests from this address; wait a moment and try again",
        )
        .retry_after(wait_ms.div_ceil(1000)));
    }
    let answer = decide_hold(scope, new, now_ms);
    if let Some(idem) = &new.idempotency {
        record(
            scope,
            &idem.key,
            &idem.fingerprint,
            &new.caller.buyer,
            &answer,
            now_ms,
        )?;
    }
    let (status, body) = answer?;
    Ok(Response::from_json(&body)?.with_status(status))
}

/// Keeps the answer for replays of the same `Idempotency-Key`. Refusals
/// that depend on the moment (rate limits, a busy showing) are not kept, so
/// a retry of those is decided afresh.
fn record(
    scope: &Scope,
    key: &str,
    fingerprint: &str,
    buyer: &str,
    answer: &Result<(u16, Value), ApiError>,
    now_ms: u64,
) -> Result<(), ApiError> {
    let (status, body) = match answer {
        Ok((status, body)) => (*status, body.clone()),
        Err(e) if matches!(e.status, 400 | 409) => {
            let mut body = (*e.extra).clone();
            body.insert("error".into(), json!(e.code));
            body.insert("detail".into(), json!(e.detail));
            (e.status, Value::Object(body))
        }
        Err(_) => return Ok(()),
    };
    store::record_answer(
        &scope.sql,
        key,
        fingerprint,
        status,
        &body.to_string(),
        buyer,
        now_ms,
    )
}

fn decide_hold(scope: &mut Scope, new: &NewHold, now_ms: u64) -> Result<(u16, Value), ApiError> {
    if let Some(seats) = live_hold_of(scope, &new.caller.buyer, now_ms)? {
        return Err(ApiError::new(
            409,
            "already_holding",
            "you already hold seats for this showing: pay for them or release them first",
        )
        .with("held_seats", seats));
    }
    let token = crate::ids::random_hex(TOKEN_LEN / 2)
        .map_err(|e| ApiError::internal(format!("random source: {e}")))?;
    let hold_id = hold_id_of(&token);
    let outcome = scope.ledger.hold(now_ms, &hold_id, &new.seats);
    scope.persist(&outcome.changes, None, now_ms)?;
    let granted = outcome.result.map_err(|e| hold_refusal(scope, e))?;
    let seats: Vec<String> = new.seats.clone();
    store::record_owner(&scope.sql, &hold_id, &new.caller.buyer, &seats)?;
    let price = &scope.meta.price;
    Ok((
        201,
        json!({
            "hold_id": token,
            "seats": seats,
            "expires_at_ms": granted.expires_at_ms,
            "amount": {"amount": price.amount * seats.len() as u64, "currency": price.currency},
        }),
    ))
}

/// The seats of the buyer's live hold, if they have one.
fn live_hold_of(scope: &Scope, buyer: &str, now_ms: u64) -> Result<Option<Value>, ApiError> {
    for id in store::open_holds_of(&scope.sql, buyer)? {
        let Ok(id) = HoldId::new(id) else { continue };
        if let Some(record) = live(scope, &id, now_ms) {
            return Ok(Some(seat_names(scope, record)));
        }
    }
    Ok(None)
}

fn live<'a>(scope: &'a Scope, id: &HoldId, now_ms: u64) -> Option<&'a HoldRecord> {
    let now_ms = now_ms.max(scope.ledger.latest_now_ms());
    scope
        .ledger
        .hold_record(id)
        .filter(|record| record.expires_at_ms > now_ms)
}

fn seat_names(scope: &Scope, record: &HoldRecord) -> Value {
    record
        .seats
        .iter()
        .map(|&unit| json!(scope.ledger.unit_name(unit).unwrap_or_default()))
        .collect()
}

fn hold_refusal(scope: &Scope, error: HoldError) -> ApiError {
    match error {
        HoldError::NoSeats => ApiError::new(400, "no_seats", "choose at least one seat"),
        HoldError::TooManySeats { requested, max } => ApiError::new(
            400,
            "too_many_seats",
            format!("{requested} seats asked for; one hold may have at most {max}"),
        )
        .with("max_seats", max),
        HoldError::DuplicateSeats { seats } => {
            ApiError::new(400, "duplicate_seats", "each seat may be named only once")
                .with("seats", seats)
        }
        HoldError::UnknownSeats { seats } => ApiError::new(
            400,
            "unknown_seats",
            "this showing has no seats with these names",
        )
        .with("seats", seats),
        HoldError::SeatsUnavailable { seats } => ApiError::new(
            409,
            "seats_unavailable",
            "some of these seats were just taken; nothing was held",
        )
        .with("seats", seats)
        .with("availability", scope.compact()),
        HoldError::TooManyLiveHolds { max } => {
            let wait_ms = scope
                .ledger
                .next_expiry()
                .map(|t| t.saturating_sub(scope.ledger.latest_now_ms()))
                .unwrap_or(60_000);
            ApiError::new(
                429,
                "too_many_holds",
                format!("{max} buyers are choosing seats right now; try again shortly"),
            )
            .retry_after(wait_ms.div_ceil(1000))
        }
        HoldError::HoldIdInUse => ApiError::internal("hold id collision; please try again"),
    }
}

/// The caller's hold, after checking that the caller made it.
pub(super) fn owned_hold(
    scope: &Scope,
    hold: &HoldRef,
) -> Result<(HoldId, store::Owner), ApiError> {
    let id = hold_id_of(&hold.token);
    match store::owner(&scope.sql, &id)? {
        Some(owner) if same_buyer(&owner.buyer, &hold.buyer) => Ok((id, owner)),
        _ => Err(hold_not_found()),
    }
}

pub fn get(scope: &mut Scope, hold: &HoldRef, now_ms: u64) -> Handled {
    scope.sweep(now_ms)?;
    let (id, owner) = owned_hold(scope, hold)?;
    let price = &scope.meta.price;
    let seats: Vec<String> = serde_json::from_str(&owner.seats).unwrap_or_default();
    let amount = json!({"amount": price.amount * seats.len() as u64, "currency": price.currency});
    let body = match live(scope, &id, now_ms) {
        Some(record) => json!({
            "hold_id": hold.token,
            "seats": seats,
            "state": if record.paying { "paying" } else { "held" },
            "expires_at_ms": record.expires_at_ms,
            "amount": amount,
        }),
        None => json!({
            "hold_id": hold.token,
            "seats": seats,
            "state": owner.ended.as_deref().unwrap_or("expired"),
            "expires_at_ms": Value::Null,
            "amount": amount,
        }),
    };
    Ok(Response::from_json(&body)?)
}

pub fn release(scope: &mut Scope, hold: &HoldRef, now_ms: u64) -> Handled {
    let (id, _) = owned_hold(scope, hold)?;
    let outcome = scope.ledger.release(now_ms, &id);
    scope.persist(&outcome.changes, Some((&id, HoldEnd::Released)), now_ms)?;
    outcome.result.map_err(|_| hold_not_found())?;
    Ok(Response::empty()?.with_status(204))
}
