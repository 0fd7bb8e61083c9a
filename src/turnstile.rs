//! Cloudflare Turnstile in front of holds and order lookups, on when both
//! `TURNSTILE_SITE_KEY` and `TURNSTILE_SECRET_KEY` are set. The page sends
//! the widget's token in `X-Turnstile-Token`; the Worker asks Turnstile's
//! siteverify whether it is good before anything else is decided. Without
//! a token the answer is `403 turnstile_required`, with a bad one `403
//! turnstile_failed`; if siteverify cannot be asked, `503
//! turnstile_unavailable` (closed, never open: an outage is no pass).
//!
//! A token says where it was solved: siteverify answers the `hostname`
//! whose page showed the widget and the `action` the page rendered it
//! with, and Cloudflare asks that both be checked
//! (developers.cloudflare.com/turnstile/get-started/server-side-validation/,
//! and .../additional-configuration/hostname-management/any-hostname/:
//! "Always validate the hostname field in Siteverify responses"). A token
//! passes only when solved on this site's own host, for the action the
//! request is: one solved on another site that shares the widget, or on
//! the order-lookup page, does not buy seats.

use futures_util::future::{select, Either};
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use worker::{AbortController, Delay, Env, Fetch, Headers, Method, Request, RequestInit};

use crate::api_error::ApiError;
use desk::Code;

pub const TOKEN_HEADER: &str = "x-turnstile-token";
/// Turnstile's own limit on a token's length.
const MAX_TOKEN_CHARS: usize = 2048;
const SITEVERIFY: &str = "https://challenges.cloudflare.com/turnstile/v0/siteverify";
const SCRIPT: &str = "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit";

/// The widget's script the pages load (`TURNSTILE_SCRIPT_URL` only for
/// tests, which serve a stand-in).
pub fn script_url(env: &Env) -> String {
    env.var("TURNSTILE_SCRIPT_URL")
        .map(|v| v.to_string())
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| SCRIPT.to_string())
}
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// The site key the pages render the widget with, when Turnstile is on.
pub fn site_key(env: &Env) -> Option<String> {
    let site = env.var("TURNSTILE_SITE_KEY").ok()?.to_string();
    let on = !site.is_empty() && secret(env).is_some();
    on.then_some(site)
}

fn secret(env: &Env) -> Option<String> {
    env.secret("TURNSTILE_SECRET_KEY")
        .map(|s| s.to_string())
        .ok()
        .filter(|s| !s.is_empty())
}

/// A UUID for siteverify's `idempotency_key`, the same for every retry of
/// one idempotent request, so a retried hold is not refused for reusing
/// its token.
pub fn idempotency_uuid(scope: &str, key: &str) -> String {
    let mut bytes: [u8; 16] = Sha256::digest(format!("{scope}\0{key}").as_bytes())[..16]
        .try_into()
        .expect("16 bytes");
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex = hex::encode(bytes);
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// What a page's widget guards, rendered as its `action` (`public/app.js`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The seat map page: holds, and checkouts of free seats.
    Buy,
    /// The order-lookup page.
    Lookup,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Buy => "buy",
            Action::Lookup => "lookup",
        }
    }
}

/// Cloudflare's documented test secrets: they answer for no real widget
/// (their hostname is always `example.com`), and accept any token from the
/// test sitekeys, so only `success` means anything with them.
const TEST_SECRETS: [&str; 3] = [
    "1x0000000000000000000000000000000AA",
    "2x0000000000000000000000000000000AA",
    "3x0000000000000000000000000000000AA",
];

#[derive(Deserialize)]
struct Verdict {
    success: bool,
    #[serde(rename = "error-codes", default)]
    error_codes: Vec<String>,
    #[serde(default)]
    hostname: String,
    #[serde(default)]
    action: String,
}

impl Verdict {
    /// Why a successful verdict is still refused: solved elsewhere, or for
    /// another action.
    fn mismatch(&self, secret: &str, host: &str, action: Action) -> Option<&'static str> {
        if TEST_SECRETS.contains(&secret) {
            return None;
        }
        if !self.hostname.eq_ignore_ascii_case(host) {
            return Some("hostname-mismatch");
        }
        (self.action != action.as_str()).then_some("action-mismatch")
    }
}

/// Passes when Turnstile is off, or the request's token is good.
pub async fn require(
    req: &Request,
    env: &Env,
    idempotency: Option<String>,
    action: Action,
) -> Result<(), ApiError> {
    let Some(secret) = site_key(env).and(secret(env)) else {
        return Ok(());
    };
    let token = req.headers().get(TOKEN_HEADER)?.unwrap_or_default();
    if token.is_empty() {
        return Err(ApiError::new(
            Code::TurnstileRequired,
            "this needs the page's check that you are not a robot; reload the page and try again",
        ));
    }
    let failed = || {
        ApiError::new(
            Code::TurnstileFailed,
            "the check that you are not a robot did not pass; try it again",
        )
    };
    if token.chars().count() > MAX_TOKEN_CHARS {
        return Err(failed());
    }
    let mut body = json!({ "secret": secret, "response": token });
    if let Some(ip) = req.headers().get("cf-connecting-ip")? {
        body["remoteip"] = json!(ip);
    }
    if let Some(key) = idempotency {
        body["idempotency_key"] = json!(key);
    }
    let url = env
        .var("TURNSTILE_VERIFY_URL")
        .map(|v| v.to_string())
        .unwrap_or_else(|_| SITEVERIFY.to_string());
    let verdict = ask(&url, &body.to_string()).await.map_err(|e| {
        worker::console_error!("turnstile siteverify: {e}");
        let mut error = ApiError::new(
            Code::TurnstileUnavailable,
            "the check that you are not a robot could not be made just now; try again in a moment",
        );
        error.retry_after_s = Some(5);
        error
    })?;
    // The page's own host, as the browser asked for it.
    let host = req.url()?.host_str().unwrap_or_default().to_string();
    let codes = match verdict.mismatch(&secret, &host, action) {
        _ if !verdict.success => verdict.error_codes,
        Some(mismatch) => vec![mismatch.to_string()],
        None => return Ok(()),
    };
    worker::console_log!("{}", json!({ "event": "turnstile_failed", "codes": codes }));
    Err(failed())
}

async fn ask(url: &str, body: &str) -> Result<Verdict, String> {
    let headers = Headers::new();
    headers
        .set("content-type", "application/json")
        .map_err(|e| e.to_string())?;
    let mut init = RequestInit::new();
    init.with_method(Method::Post)
        .with_headers(headers)
        .with_body(Some(body.into()));
    let request = Request::new_with_init(url, &init).map_err(|e| e.to_string())?;
    let controller = AbortController::default();
    let signal = controller.signal();
    let fetch = Fetch::Request(request);
    let sent = Box::pin(fetch.send_with_signal(&signal));
    let mut resp = match select(sent, Box::pin(Delay::from(TIMEOUT))).await {
        Either::Left((Ok(resp), _)) => resp,
        Either::Left((Err(e), _)) => return Err(e.to_string()),
        Either::Right(_) => {
            controller.abort();
            return Err(format!("no answer within {TIMEOUT:?}"));
        }
    };
    if resp.status_code() != 200 {
        return Err(format!("status {}", resp.status_code()));
    }
    resp.json().await.map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(hostname: &str, action: &str) -> Verdict {
        Verdict {
            success: true,
            error_codes: Vec::new(),
            hostname: hostname.to_string(),
            action: action.to_string(),
        }
    }

    #[test]
    fn a_token_passes_only_for_this_host_and_action_but_with_a_test_secret() {
        let secret = "0x4AAAAAAA-a-real-secret";
        let host = "tickets.cinema.example";
        assert_eq!(
            verdict(host, "buy").mismatch(secret, host, Action::Buy),
            None
        );
        assert_eq!(
            verdict("TICKETS.cinema.example", "lookup").mismatch(secret, host, Action::Lookup),
            None
        );
        assert_eq!(
            verdict("evil.example", "buy").mismatch(secret, host, Action::Buy),
            Some("hostname-mismatch")
        );
        assert_eq!(
            verdict(host, "lookup").mismatch(secret, host, Action::Buy),
            Some("action-mismatch")
        );
        assert_eq!(
            verdict(host, "").mismatch(secret, host, Action::Buy),
            Some("action-mismatch")
        );
        let test_secret = TEST_SECRETS[0];
        assert_eq!(
            verdict("example.com", "").mismatch(test_secret, host, Action::Buy),
            None
        );
    }

    #[test]
    fn an_idempotency_uuid_is_a_version_4_uuid_stable_per_request() {
        let a = idempotency_uuid("buyer-1", "key-1");
        assert_eq!(a, idempotency_uuid("buyer-1", "key-1"));
        assert_ne!(a, idempotency_uuid("buyer-2", "key-1"));
        let parts: Vec<&str> = a.split('-').collect();
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [8, 4, 4, 4, 12]
        );
        assert!(parts[2].starts_with('4'));
        assert!(matches!(parts[3].as_bytes()[0], b'8' | b'9' | b'a' | b'b'));
    }
}
