//! The Web Payments SDK stand-in: `square.js` for the checkout page and the
//! tokenize call it makes back to this server from the page's origin.
//!
//! Card numbers reach `tokenize` and go no further: only brand, last four
//! and expiry are kept, and nothing here is logged.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Deserialize;
use serde_json::json;

use super::json;
use crate::app::App;
use crate::cards::TypedCard;
use crate::clock::now_ms;
use crate::lock::lock;

const SQUARE_JS: &str = include_str!("../../assets/square.js");

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/v1/square.js", get(script))
        .route("/_sdk/tokenize", post(tokenize).options(preflight))
        .route("/_sdk/verify", post(verify).options(preflight))
        .route("/_sdk/verify-buyer", post(verify_buyer).options(preflight))
}

/// The SDK stand-in, with the guessed status of a cancelled challenge.
async fn script(State(app): State<Arc<App>>) -> Response {
    let status = lock(&app.bank).guesses.challenge_cancel_status();
    let script = SQUARE_JS.replace(
        "failure('Cancel', 'VERIFICATION_CANCELED'",
        &format!("failure('{status}', 'VERIFICATION_CANCELED'"),
    );
    super::javascript(script)
}

/// The checkout page is served from the Worker's origin, not this one.
fn with_cors(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("POST, OPTIONS"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("content-type"),
    );
    headers.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    response
}

async fn preflight() -> Response {
    with_cors(StatusCode::NO_CONTENT.into_response())
}

#[derive(Deserialize)]
struct TokenizeRequest {
    #[serde(default)]
    application_id: String,
    #[serde(default)]
    location_id: String,
    /// What the page passed to `tokenize()` for buyer verification.
    #[serde(default)]
    verification_details: Option<serde_json::Value>,
    /// Tokenized by a wallet's sheet, not typed into the card form.
    #[serde(default)]
    wallet: bool,
    #[serde(flatten)]
    card: TypedCard,
}

#[derive(Deserialize)]
struct VerifyBuyerRequest {
    source_id: String,
    verification_details: serde_json::Value,
}

/// `payments.verifyBuyer(token, details)`.
async fn verify_buyer(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<VerifyBuyerRequest>(&body) else {
        let result = json!({ "status": "Error", "errors": [{ "type": "UNKNOWN", "message": "Malformed verifyBuyer request." }] });
        return with_cors(json(400, &result));
    };
    let result = lock(&app.bank).verify_buyer(&request.source_id, &request.verification_details);
    with_cors(json(200, &result))
}

#[derive(Deserialize)]
struct VerifyRequest {
    challenge_id: String,
    code: String,
}

/// The buyer's answer to the challenge the SDK stand-in showed.
async fn verify(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<VerifyRequest>(&body) else {
        let result = json!({ "status": "Error", "errors": [{ "type": "UNKNOWN", "message": "Malformed verify request." }] });
        return with_cors(json(400, &result));
    };
    let result = lock(&app.bank).verify(&request.challenge_id, &request.code);
    with_cors(json(200, &result))
}

async fn tokenize(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<TokenizeRequest>(&body) else {
        let result = json!({ "status": "Error", "errors": [{ "type": "UNKNOWN", "message": "Malformed tokenize request." }] });
        return with_cors(json(400, &result));
    };
    if request.application_id != app.config.application_id
        || request.location_id != app.config.location_id
    {
        let result = json!({
            "status": "Error",
            "errors": [{
                "type": "INVALID_APPLICATION_ID",
                "message": "Square.payments() was given an application id or location id this stand-in was not started with.",
            }],
        });
        return with_cors(json(200, &result));
    }
    let result = lock(&app.bank).tokenize(
        &request.card,
        request.verification_details.as_ref(),
        request.wallet,
        now_ms(),
    );
    with_cors(json(200, &result))
}
