//! Cloudflare Turnstile's siteverify, for the keys Cloudflare documents for
//! testing (developers.cloudflare.com/turnstile/troubleshooting/testing/):
//! `1x0000000000000000000000000000000AA` always passes,
//! `2x0000000000000000000000000000000AA` always fails, and
//! `3x0000000000000000000000000000000AA` answers that the token was
//! already spent. Like the real service
//! (developers.cloudflare.com/turnstile/get-started/server-side-validation/),
//! it takes a form or JSON body with `secret`, `response`, `remoteip` and
//! `idempotency_key`, and always answers JSON. It is at least as strict:
//! any other secret is invalid, the test secrets accept only the dummy
//! token the test sitekeys produce (`XXXX.DUMMY.TOKEN.XXXX`), a token over
//! 2048 characters is invalid, and an idempotency key must be a UUID.
//! It also serves a stand-in of the widget's `api.js`, so the pages can be
//! tested with Turnstile on.
//!
//! Beside the test keys it stands in for one real widget (`STANDIN_SECRET`),
//! whose tokens say where they were solved, as real ones do: a test asks
//! `POST /turnstile/v0/_standin/token {"hostname", "action"}` for the token
//! a page on that host would get from a widget rendered with that action,
//! and siteverify answers that `hostname` and `action` for it (the fields
//! Cloudflare asks servers to check:
//! developers.cloudflare.com/turnstile/get-started/server-side-validation/).
//! Like a real token it is good for 300 seconds and verified once: again
//! only with the idempotency key it was first verified with.

use axum::body::Bytes;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::json;
use crate::app::App;

pub const ALWAYS_PASSES: &str = "1x0000000000000000000000000000000AA";
pub const ALWAYS_FAILS: &str = "2x0000000000000000000000000000000AA";
pub const ALREADY_SPENT: &str = "3x0000000000000000000000000000000AA";
/// The token the test sitekeys give the page.
pub const DUMMY_TOKEN: &str = "XXXX.DUMMY.TOKEN.XXXX";
const MAX_TOKEN_CHARS: usize = 2048;
/// The stand-in widget's secret, shaped like a real one.
pub const STANDIN_SECRET: &str = "0x4AAAAAAAStandinSecretKeyForTests00";
/// How long a real token may be verified after it was made.
const TOKEN_LIFETIME_MS: u64 = 300_000;

/// A token the stand-in widget gave a page.
struct Issued {
    hostname: String,
    action: String,
    issued_ms: u64,
    /// Set once verified: the idempotency key it was verified with, if any.
    verified_with: Option<Option<String>>,
}

fn issued() -> &'static Mutex<HashMap<String, Issued>> {
    static ISSUED: OnceLock<Mutex<HashMap<String, Issued>>> = OnceLock::new();
    ISSUED.get_or_init(Mutex::default)
}

/// The widget script's stand-in, for the pages' own tests.
const API_JS: &str = include_str!("../../assets/turnstile.js");

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/turnstile/v0/siteverify", post(siteverify))
        .route("/turnstile/v0/api.js", get(script))
        .route("/turnstile/v0/_standin/token", post(issue))
}

/// The token a page on `hostname` gets from the stand-in widget rendered
/// with `action`.
async fn issue(body: Bytes) -> Response {
    let asked: Value = serde_json::from_slice(&body).unwrap_or_default();
    let field = |name: &str| asked[name].as_str().unwrap_or_default().to_string();
    let token = format!("standin.{}", uuid::Uuid::new_v4().simple());
    let entry = Issued {
        hostname: field("hostname"),
        action: field("action"),
        issued_ms: crate::clock::now_ms(),
        verified_with: None,
    };
    issued()
        .lock()
        .expect("the token table")
        .insert(token.clone(), entry);
    json(200, &json!({ "token": token }))
}

/// Siteverify for the stand-in widget's own tokens.
fn verify_issued(token: &str, idempotency_key: Option<&str>) -> Response {
    let mut tokens = issued().lock().expect("the token table");
    let Some(entry) = tokens.get_mut(token) else {
        return failed(&["invalid-input-response"]);
    };
    let key = idempotency_key.map(str::to_string);
    let expired = crate::clock::now_ms().saturating_sub(entry.issued_ms) > TOKEN_LIFETIME_MS;
    let spent = entry
        .verified_with
        .as_ref()
        .is_some_and(|first| first.is_none() || *first != key);
    if expired || spent {
        return failed(&["timeout-or-duplicate"]);
    }
    entry.verified_with = Some(key);
    json(
        200,
        &json!({
            "success": true,
            "error-codes": [],
            "challenge_ts": crate::clock::rfc3339(entry.issued_ms),
            "hostname": entry.hostname,
            "action": entry.action,
            "cdata": "",
            "metadata": { "interactive": false },
            "messages": [],
        }),
    )
}

async fn script() -> Response {
    super::javascript(API_JS)
}

fn fields(headers: &HeaderMap, body: &[u8]) -> Option<Vec<(String, String)>> {
    let kind = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if kind.starts_with("application/json") {
        let value: Value = serde_json::from_slice(body).ok()?;
        let object = value.as_object()?;
        return Some(
            object
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect(),
        );
    }
    if kind.starts_with("application/x-www-form-urlencoded") || kind.starts_with("multipart/") {
        return Some(
            form_urlencoded::parse(body)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        );
    }
    None
}

fn failed(codes: &[&str]) -> Response {
    json(
        200,
        &json!({ "success": false, "error-codes": codes, "messages": [] }),
    )
}

async fn siteverify(headers: HeaderMap, body: Bytes) -> Response {
    let Some(fields) = fields(&headers, &body) else {
        return failed(&["bad-request"]);
    };
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    };
    let Some(secret) = get("secret") else {
        return failed(&["missing-input-secret"]);
    };
    if ![ALWAYS_PASSES, ALWAYS_FAILS, ALREADY_SPENT, STANDIN_SECRET].contains(&secret) {
        return failed(&["invalid-input-secret"]);
    }
    let Some(token) = get("response") else {
        return failed(&["missing-input-response"]);
    };
    if get("idempotency_key").is_some_and(|k| uuid::Uuid::parse_str(k).is_err()) {
        return failed(&["bad-request"]);
    }
    if secret == STANDIN_SECRET && token.chars().count() <= MAX_TOKEN_CHARS {
        return verify_issued(token, get("idempotency_key"));
    }
    if token.chars().count() > MAX_TOKEN_CHARS || token != DUMMY_TOKEN {
        return failed(&["invalid-input-response"]);
    }
    match secret {
        ALWAYS_PASSES => json(
            200,
            &json!({
                "success": true,
                "error-codes": [],
                "challenge_ts": crate::clock::rfc3339(crate::clock::now_ms()),
                "hostname": "example.com",
                "action": "",
                "cdata": "",
                "metadata": { "interactive": false },
                "messages": [],
            }),
        ),
        ALWAYS_FAILS => failed(&["invalid-input-response"]),
        _ => failed(&["timeout-or-duplicate"]),
    }
}
