//! A discount code taken with a sale, as the buyer's hold and the box
//! office share it: found by its text, checked against the showing, its
//! film and the day, and for a limited code, one use reserved in the
//! code's own object before the showing's object is asked (which then
//! says how that use ends: `desk/src/codes.rs`).

use sha2::{Digest, Sha256};
use worker::Env;

use crate::api_error::ApiError;
use crate::db::codes as rows;
use crate::discount_code::{normalized, DiscountCode};
use crate::showtime::client::code_uses;
use desk::Code;

/// How long a use reserved for a hold stands before it lapses on its own,
/// should the showing's object never have said it has the code on the
/// hold (the Worker stopped between the two calls): past the longest a
/// hold can live, its payment cap at most, with a margin.
const RESERVATION_MS: u64 = crate::showing::MAX_PAYMENT_CAP_MS + 10 * 60 * 1000;

/// Where the code is taken: online, or at the box office (where a
/// `box_office_only` code is open).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Online,
    BoxOffice,
}

/// The code of this text, open for `showing` now, or why not: `404
/// unknown_code` (`None` from here: the caller counts the guess), `409
/// code_not_valid_here` with `why`.
pub async fn open_code(
    db: &worker::D1Database,
    text: &str,
    showing: &crate::db::Showing,
    channel: Channel,
    now_ms: u64,
) -> Result<Option<DiscountCode>, ApiError> {
    let stored = match normalized(text) {
        Some(code) => rows::get(db, &code).await?,
        None => None,
    };
    let Some(stored) = stored else {
        return Ok(None);
    };
    let film = showing.film_id.as_deref();
    let mut code = stored.code;
    if channel == Channel::BoxOffice {
        // At the desk a code for the desk only is as open as any other.
        code.box_office_only = false;
    }
    match code.refused_here(stored.paused, now_ms, &showing.id, film) {
        Some(no) => Err(ApiError::new(Code::CodeNotValidHere, no.detail).with("why", no.why)),
        None => Ok(Some(code)),
    }
}

/// The code as the showing's object takes it.
pub fn terms(code: &DiscountCode) -> desk::protocol::CodeTerms {
    desk::protocol::CodeTerms {
        code: code.code.clone(),
        off: code.off,
        categories: code.categories.clone(),
        limited: code.limited(),
    }
}

/// Reserves one of a limited code's uses for the hold of `token`, counted
/// for `buyer` (an address, or any text that is no one else's), in the
/// code's object; nothing for a code without limits.
pub async fn reserve(
    env: &Env,
    code: &DiscountCode,
    showing_id: &str,
    token: &str,
    buyer: &str,
    now_ms: u64,
) -> Result<(), ApiError> {
    if !code.limited() {
        return Ok(());
    }
    let request = uses::Request::Reserve {
        key: desk::use_key(showing_id, desk::hold_id_of(token).as_str()),
        buyer: hex::encode(&Sha256::digest(buyer.as_bytes())[..16]),
        until_ms: now_ms + RESERVATION_MS,
        limits: uses::Limits {
            max_uses: code.max_uses,
            max_uses_per_buyer: code.max_uses_per_buyer,
        },
    };
    let refused = |code: Code, detail: String| ApiError::new(code, detail);
    match code_uses(env, &code.code, &request).await? {
        Ok(_) => Ok(()),
        Err(uses::Refused::UsedUp) => Err(refused(
            Code::CodeUsedUp,
            format!("{} has been used as often as it may be", code.code),
        )),
        Err(uses::Refused::LimitPerBuyer { limit }) => Err(refused(
            Code::CodeLimitPerBuyer,
            format!(
                "{} may be used {limit} times by one buyer, and this address has",
                code.code
            ),
        )
        .with("limit", limit)),
        Err(uses::Refused::Spent) => Err(refused(
            Code::CodeNotValidHere,
            "these seats are paid for already".into(),
        )
        .with("why", "paid")),
        Err(other) => Err(ApiError::internal(format!(
            "the code's object refused: {other:?}"
        ))),
    }
}
