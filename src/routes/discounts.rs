//! A buyer applies a discount code to their hold.

use serde::Deserialize;
use sha2::{Digest, Sha256};
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::buyer::{email_ok, hold_ref};
use crate::clock::now_ms;
use crate::db::codes as rows;
use crate::discount_code::normalized;
use crate::request::{parse_json, read_body, showing_id};
use crate::showtime::client::{code_uses, ShowtimeClient};
use crate::{auth, db};
use desk::Code;

/// How long a use reserved for a hold stands before it lapses on its own,
/// should the showing's object never have said it has the code on the
/// hold (the Worker stopped between the two calls): past the longest a
/// hold can live, its payment cap at most, with a margin.
const RESERVATION_MS: u64 = crate::showing::MAX_PAYMENT_CAP_MS + 10 * 60 * 1000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApplyBody {
    code: String,
    /// The buyer's address: a code's uses per buyer are counted by it.
    email: String,
}

fn refused(code: Code, detail: impl Into<String>) -> ApiError {
    ApiError::new(code, detail)
}

/// `POST /api/showings/{id}/holds/{hold}/code` `{"code", "email"}`:
/// answers the hold with the discount and its new total; `404
/// unknown_code` (each counts against the network's guesses), `409
/// code_not_valid_here` with `why`, `409 code_used_up`, `409
/// code_limit_per_buyer`.
pub async fn apply(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?.to_string();
    let hold = hold_ref(&req, &ctx)?;
    let body: ApplyBody = parse_json(&read_body(&mut req).await?)?;
    let email = body.email.trim().to_lowercase();
    if !email_ok(&email) {
        return Err(
            refused(Code::InvalidBuyer, "email: the address the tickets go to")
                .with("field", "email"),
        );
    }
    let guess = auth::Guess::of_codes(&req, &ctx.env).await?;
    let db = db::database(&ctx.env)?;
    let stored = match normalized(&body.code) {
        Some(code) => rows::get(&db, &code).await?,
        None => None,
    };
    let Some(stored) = stored else {
        guess.wrong().await?;
        return Err(refused(Code::UnknownCode, "there is no such discount code"));
    };
    let showing = db::get_showing(&db, &sid)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    let now = now_ms() as u64;
    let code = stored.code;
    if let Some(no) = code.refused_here(stored.paused, now, &sid, showing.film_id.as_deref()) {
        return Err(refused(Code::CodeNotValidHere, no.detail).with("why", no.why));
    }
    if code.limited() {
        reserve(&ctx.env, &code, &sid, &hold.token, &email, now).await?;
    }
    let apply = desk::protocol::ApplyCode {
        hold,
        code: code.code.clone(),
        off: code.off,
        categories: code.categories.clone(),
        email,
        limited: code.limited(),
    };
    let view = ShowtimeClient::new(&ctx.env, &sid)?
        .apply_code(apply)
        .await?;
    Ok(Response::from_json(&view)?)
}

/// Reserves one of a limited code's uses for the hold, in the code's
/// object; the showing's object then says how it ends.
async fn reserve(
    env: &worker::Env,
    code: &crate::discount_code::DiscountCode,
    showing_id: &str,
    token: &str,
    email: &str,
    now_ms: u64,
) -> Result<(), ApiError> {
    let request = uses::Request::Reserve {
        key: desk::use_key(showing_id, desk::hold_id_of(token).as_str()),
        buyer: hex::encode(&Sha256::digest(email.as_bytes())[..16]),
        until_ms: now_ms + RESERVATION_MS,
        limits: uses::Limits {
            max_uses: code.max_uses,
            max_uses_per_buyer: code.max_uses_per_buyer,
        },
    };
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
            "these seats are paid for already",
        )
        .with("why", "paid")),
        Err(other) => Err(ApiError::internal(format!(
            "the code's object refused: {other:?}"
        ))),
    }
}
