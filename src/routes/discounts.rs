//! A buyer applies a discount code to their hold.

use serde::Deserialize;
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::buyer::{email_ok, hold_ref};
use crate::clock::now_ms;
use crate::request::{parse_json, read_body, showing_id};
use crate::sale_code::{open_code, reserve, terms, Channel};
use crate::showtime::client::ShowtimeClient;
use crate::{auth, db};
use desk::Code;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ApplyBody {
    code: String,
    /// The buyer's address: a code's uses per buyer are counted by it.
    email: String,
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
            ApiError::new(Code::InvalidBuyer, "email: the address the tickets go to")
                .with("field", "email"),
        );
    }
    let guess = auth::Guess::of_codes(&req, &ctx.env).await?;
    let db = db::database(&ctx.env)?;
    let showing = db::get_showing(&db, &sid)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    let now = now_ms() as u64;
    let Some(code) = open_code(&db, &body.code, &showing, Channel::Online, now).await? else {
        guess.wrong().await?;
        return Err(ApiError::new(
            Code::UnknownCode,
            "there is no such discount code",
        ));
    };
    reserve(&ctx.env, &code, &sid, &hold.token, &email, now).await?;
    let apply = desk::protocol::ApplyCode {
        hold,
        terms: terms(&code),
        email,
    };
    let view = ShowtimeClient::new(&ctx.env, &sid)?
        .apply_code(apply)
        .await?;
    Ok(Response::from_json(&view)?)
}
