//! Staff credentials. The admin token is the secret `ADMIN_TOKEN`; it is
//! compared in constant time so its bytes cannot be guessed from timing.
//! Scripts send it as a bearer token; the admin pages sign in with it once
//! and then carry a session cookie and a CSRF token (see
//! [`crate::admin_session`]).

use subtle::ConstantTimeEq;
use worker::{Env, Method, Request};

use crate::admin_session;
use crate::api_error::ApiError;
use desk::Code;

/// Succeeds when the request carries `Authorization: Bearer <ADMIN_TOKEN>`,
/// or a valid staff session cookie and, for anything but a read, that
/// session's CSRF token.
pub fn require_admin(req: &Request, env: &Env) -> Result<(), ApiError> {
    if let Some(given) = bearer(req) {
        return if is_admin_token(env, &given)? {
            Ok(())
        } else {
            Err(ApiError::unauthorized())
        };
    }
    let secret = session_secret(env)?;
    let cookies = header(req, "cookie").unwrap_or_default();
    let now = worker::Date::now().as_millis();
    let Some(session) = admin_session::from_cookies(&cookies)
        .filter(|value| admin_session::verify(&secret, value, now))
    else {
        return Err(ApiError::unauthorized());
    };
    if matches!(req.method(), Method::Get | Method::Head) {
        return Ok(());
    }
    let token = header(req, admin_session::CSRF_HEADER).unwrap_or_default();
    if !admin_session::csrf_matches(&secret, session, &token) {
        return Err(ApiError::new(
            Code::CsrfFailed,
            "this change needs the session's X-CSRF-Token header; reload the page and try again",
        ));
    }
    Ok(())
}

/// Whether `given` is the admin token.
pub fn is_admin_token(env: &Env, given: &str) -> Result<bool, ApiError> {
    let expected = env
        .secret("ADMIN_TOKEN")
        .map(|s| s.to_string())
        .map_err(|_| ApiError::internal("ADMIN_TOKEN is not configured"))?;
    // An empty configured token would let an empty one in: refuse it.
    Ok(!expected.is_empty() && bool::from(given.as_bytes().ct_eq(expected.as_bytes())))
}

pub fn session_secret(env: &Env) -> Result<Vec<u8>, ApiError> {
    env.secret("SESSION_SECRET")
        .map(|s| s.to_string().into_bytes())
        .map_err(|_| ApiError::internal("SESSION_SECRET is not configured"))
}

/// The token of an `Authorization: Bearer …` header.
pub fn bearer(req: &Request) -> Option<String> {
    header(req, "authorization").and_then(|h| h.strip_prefix("Bearer ").map(str::to_owned))
}

fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}
