//! What every `/v2` call passes through, in order: body size limit, bearer
//! token, injected faults, the call log.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;

use super::square_error;
use crate::app::App;
use crate::clock::{now_ms, rfc3339};
use crate::faults::{Endpoint, Fault};
use crate::lock::lock;
use crate::request_log::ApiCall;
use crate::square_error::SquareError;

/// Marks a response whose connection must be closed without sending it:
/// the work is done, the answer is lost.
#[derive(Debug, Clone, Copy)]
pub struct DropAnswer;

pub async fn gate(State(app): State<Arc<App>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let mut call = ApiCall {
        at: rfc3339(now_ms()),
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        idempotency_key: None,
        body: None,
        status: 0,
        fault: None,
    };
    let limit = app.config.limits.body_bytes;
    let Ok(bytes) = to_bytes(body, limit).await else {
        return logged(
            &app,
            call,
            square_error(&SquareError::body_too_large(limit)),
        );
    };
    call.body = serde_json::from_slice::<Value>(&bytes).ok();
    call.idempotency_key = call
        .body
        .as_ref()
        .and_then(|body| body.get("idempotency_key"))
        .and_then(Value::as_str)
        .map(str::to_owned);
    if !authorized(&parts.headers, &app.config.access_token) {
        return logged(&app, call, square_error(&SquareError::unauthorized()));
    }
    let fault = Endpoint::of(&parts.method, &call.path)
        .and_then(|endpoint| lock(&app.faults).take(endpoint));
    if let Some(Fault::Status(status)) = fault {
        call.fault = Some("status");
        return logged(&app, call, square_error(&fault_error(status)));
    }
    let mut response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    match fault {
        Some(Fault::Delay { delay_ms }) => {
            call.fault = Some("delay");
            tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        }
        Some(Fault::Drop) => {
            call.fault = Some("drop");
            response.extensions_mut().insert(DropAnswer);
        }
        Some(Fault::Status(_)) | None => {}
    }
    logged(&app, call, response)
}

fn authorized(headers: &axum::http::HeaderMap, access_token: &str) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .is_some_and(|token| token == access_token)
}

/// Square's answer for each status a fault can inject.
fn fault_error(status: u16) -> SquareError {
    match status {
        429 => SquareError::rate_limited(),
        503 => SquareError::unavailable(),
        504 => SquareError::gateway_timeout(),
        _ => SquareError::internal(),
    }
}

fn logged(app: &App, mut call: ApiCall, response: Response) -> Response {
    call.status = response.status().as_u16();
    lock(&app.calls).push(call);
    response
}
