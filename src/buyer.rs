//! The buyer a request comes from, and what they give: their session (a
//! signed cookie, or a new one handed with the answer), the hold their
//! request names, and their e-mail address and name, checked before either
//! reaches the object, D1 or a message.

use desk::protocol::HoldRef;
use desk::Code;
use worker::{Env, Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::keys::Purpose;
use crate::request::param;
use crate::showtime::client::HoldAnswer;
use crate::{auth, ids, session};

/// Hold tokens are 32 hex characters.
pub const HOLD_TOKEN_LEN: usize = 32;
const MAX_EMAIL_BYTES: usize = checkout::MAX_BUYER_EMAIL_BYTES;
pub const MAX_NAME_BYTES: usize = checkout::MAX_BUYER_NAME_BYTES;

/// The buyer's session: from a valid cookie, or a new one.
pub struct Session {
    secret: [u8; 32],
    /// The buyer's id, signed into their cookie.
    pub buyer: String,
    is_new: bool,
    secure: bool,
}

impl Session {
    pub fn of(req: &Request, env: &Env) -> Result<Session, ApiError> {
        let secret = auth::key(env, Purpose::BuyerSession)?;
        let secure = auth::is_https(req);
        let cookies = req.headers().get("cookie")?.unwrap_or_default();
        if let Some(buyer) = session::buyer_from_cookies(&secret, &cookies, secure) {
            return Ok(Session {
                secret,
                buyer,
                is_new: false,
                secure,
            });
        }
        let buyer = ids::random_hex(16).map_err(|e| ApiError::internal(e.to_string()))?;
        Ok(Session {
            secret,
            buyer,
            is_new: true,
            secure,
        })
    }

    /// The hold's answer, handing the buyer their session cookie with a
    /// new hold if they had none. A replay is only ever of this buyer's
    /// own request (the object refuses anyone else), and a refusal holds
    /// nothing, so neither needs a cookie.
    pub fn relay(&self, answer: Result<HoldAnswer, ApiError>) -> Handled {
        match answer {
            Ok(HoldAnswer::Granted(granted)) => {
                self.hand_cookie(Response::from_json(&granted)?.with_status(201))
            }
            Ok(HoldAnswer::Replayed { status, body }) => {
                let resp = Response::from_bytes(body.into_bytes())?.with_status(status);
                resp.headers().set("content-type", "application/json")?;
                Ok(resp)
            }
            Err(refusal) => Ok(refusal.into_response()?),
        }
    }

    /// The answer, with the buyer's new session cookie if they had none.
    pub fn hand_cookie(&self, resp: Response) -> Handled {
        if self.is_new {
            resp.headers().append(
                "set-cookie",
                &session::set_cookie(&self.secret, &self.buyer, self.secure),
            )?;
        }
        Ok(resp)
    }
}

/// The hold named in the path, if the caller could own it. A malformed
/// token or a caller without a session gets the same 404 as a foreign hold.
pub fn hold_ref(req: &Request, ctx: &RouteContext<()>) -> Result<HoldRef, ApiError> {
    hold_named(req, &ctx.env, param(ctx, "hold"))
}

/// The hold with this token, if the caller could own it.
pub fn hold_named(req: &Request, env: &Env, token: &str) -> Result<HoldRef, ApiError> {
    let not_found = || {
        ApiError::new(
            Code::HoldNotFound,
            "no hold with this id belongs to you for this showing",
        )
    };
    if token.len() != HOLD_TOKEN_LEN || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(not_found());
    }
    let session = Session::of(req, env)?;
    if session.is_new {
        return Err(not_found());
    }
    Ok(HoldRef {
        buyer: session.buyer,
        token: token.to_string(),
    })
}

/// A card token as the payment form sends it: printable ASCII, not too
/// long (empty for an order charged nothing).
pub fn card_token_ok(source_id: &str) -> bool {
    source_id.len() <= checkout::MAX_SOURCE_ID_BYTES
        && source_id.bytes().all(|b| b.is_ascii_graphic())
}

/// What is wrong with a card token and its buyer verification token, as
/// the payment form gives them (the field and why): each bounded and
/// printable, and no verification without a card.
pub fn card_problem(
    source_id: &str,
    verification_token: &str,
) -> Option<(&'static str, &'static str)> {
    if !card_token_ok(source_id) {
        return Some((
            "source_id",
            "the card token from the payment form is malformed",
        ));
    }
    if !card_token_ok(verification_token)
        || (source_id.is_empty() && !verification_token.is_empty())
    {
        return Some((
            "verification_token",
            "give the buyer verification token of this payment's card token, or none",
        ));
    }
    None
}

/// One plain mailbox (`mail::address`): no display name, list, quotes or
/// literal, so the address names exactly one recipient.
pub fn email_ok(email: &str) -> bool {
    email.len() <= MAX_EMAIL_BYTES && mail::address::is_addr_spec(email)
}

/// A name that draws as itself: no control or Unicode format character
/// (a bidi override could turn a receipt's or a staff list's text around).
pub fn name_ok(name: &str) -> bool {
    name.len() <= MAX_NAME_BYTES && mail::address::is_plain_name(name)
}
