//! The waiting list of a sold-out showing: buyers join it, open the offer
//! they were mailed, and staff see it. The showing's object decides
//! everything (`desk::waitlist`); this is the HTTP around it.

use serde::Deserialize;
use serde_json::json;
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::buyer::{email_ok, Session, HOLD_TOKEN_LEN};
use crate::network::client_address;
use crate::request::{parse_json, read_body, showing_id};
use crate::showtime::client::ShowtimeClient;
use crate::{auth, ids};
use desk::protocol::{Caller, ClaimOffer, JoinWaitlist};
use desk::Code;

/// Entry ids: 16 random hex characters.
const ENTRY_ID_LEN: usize = 16;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    email: String,
    seats: u32,
}

/// `POST /api/showings/{id}/waitlist` `{"email", "seats"}`: puts the buyer
/// on the list while fewer seats than they want can be bought online.
/// Answers `{"id", "position", "seats", "new", "offered"}`; `409
/// seats_available` with `available` when they can buy now.
pub async fn join(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?.to_string();
    let body: JoinBody = parse_json(&read_body(&mut req).await?)?;
    let email = body.email.trim().to_string();
    if !email_ok(&email) {
        return Err(ApiError::new(
            Code::InvalidWaitlist,
            "email: an address we can write to",
        ));
    }
    let session = Session::of(&req, &ctx.env)?;
    crate::turnstile::require(&req, &ctx.env, None, crate::turnstile::Action::Buy).await?;
    let id = ids::random_hex(ENTRY_ID_LEN / 2).map_err(|e| ApiError::internal(e.to_string()))?;
    let join = JoinWaitlist {
        token: auth::offer_token(&ctx.env, &sid, &id)?,
        id,
        email,
        seats: body.seats,
        client: client_address(&req),
    };
    let place = ShowtimeClient::new(&ctx.env, &sid)?
        .join_waitlist(join)
        .await?;
    let status = if place.new { 201 } else { 200 };
    session.hand_cookie(Response::from_json(&place)?.with_status(status))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimBody {
    key: String,
}

/// `POST /api/showings/{id}/offers/{entry}/claim` `{"key"}` (the key from
/// the offer's link): the offer's seats become the buyer's hold, of the
/// usual length, answered as a new hold is (`201`, its `hold_id` to pay
/// with). `404 not_found` for a wrong key, `409 offer_ended` with `state`
/// (`ended`, `claimed`, `bought`) once it cannot be claimed.
pub async fn claim(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?.to_string();
    let entry = ctx.param("entry").cloned().unwrap_or_default();
    let body: ClaimBody = parse_json(&read_body(&mut req).await?)?;
    let well_formed =
        |text: &str, len: usize| text.len() == len && text.bytes().all(|b| b.is_ascii_hexdigit());
    if !well_formed(&entry, ENTRY_ID_LEN) || !well_formed(&body.key, HOLD_TOKEN_LEN) {
        return Err(ApiError::not_found("offer"));
    }
    let session = Session::of(&req, &ctx.env)?;
    let claim = ClaimOffer {
        entry,
        token: body.key.to_ascii_lowercase(),
        buyer: Caller {
            buyer: session.buyer.clone(),
            client: client_address(&req),
        },
        hold_token: ids::random_hex(HOLD_TOKEN_LEN / 2)
            .map_err(|e| ApiError::internal(e.to_string()))?,
    };
    let answer = ShowtimeClient::new(&ctx.env, &sid)?
        .claim_offer(claim)
        .await;
    session.relay(answer)
}

/// `GET /api/admin/showings/{id}/waitlist`: everyone on the list, in the
/// order they joined, with their offers.
pub async fn list(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let entries = ShowtimeClient::new(&ctx.env, &sid)?.waitlist().await?;
    Ok(Response::from_json(&json!({ "entries": entries }))?)
}
