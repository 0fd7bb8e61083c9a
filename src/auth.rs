//! Staff credentials. The admin token is the secret `ADMIN_TOKEN`; it is
//! compared in constant time so its bytes cannot be guessed from timing.

use subtle::ConstantTimeEq;
use worker::{Env, Request};

use crate::api_error::ApiError;

/// Succeeds when the request carries `Authorization: Bearer <ADMIN_TOKEN>`.
pub fn require_admin(req: &Request, env: &Env) -> Result<(), ApiError> {
    let expected = env
        .secret("ADMIN_TOKEN")
        .map(|s| s.to_string())
        .map_err(|_| ApiError::internal("ADMIN_TOKEN is not configured"))?;
    let given = bearer(req).unwrap_or_default();
    // An empty configured token would let an empty header in: refuse it.
    if expected.is_empty() || !bool::from(given.as_bytes().ct_eq(expected.as_bytes())) {
        return Err(ApiError::unauthorized());
    }
    Ok(())
}

/// The token of an `Authorization: Bearer …` header.
pub fn bearer(req: &Request) -> Option<String> {
    req.headers()
        .get("authorization")
        .ok()
        .flatten()
        .and_then(|h| h.strip_prefix("Bearer ").map(str::to_owned))
}
