//! The HTTP face: Square's `/v2` API behind the gate, the SDK stand-in, and
//! the control API for tests.

mod api;
mod control;
mod gate;
mod sdk;
mod turnstile;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use serde_json::Value;

use crate::app::App;
use crate::bank::Reply;
use crate::square_error::SquareError;

pub use gate::DropAnswer;

pub fn router(app: Arc<App>) -> Router {
    let body_limit = app.config.limits.body_bytes;
    Router::new()
        .merge(api::routes(Arc::clone(&app)))
        .merge(control::routes())
        .merge(sdk::routes())
        .merge(turnstile::routes())
        .fallback(|| async { square_error(&SquareError::not_found("No such endpoint.")) })
        // The gate enforces the limit with a Square-shaped answer for /v2;
        // this catches the rest.
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(app)
}

pub fn json(status: u16, body: &Value) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// A script of this stand-in's, never cached.
pub fn javascript(source: impl Into<String>) -> Response {
    (
        [
            (
                header::CONTENT_TYPE,
                "application/javascript; charset=utf-8",
            ),
            (header::CACHE_CONTROL, "no-store"),
        ],
        source.into(),
    )
        .into_response()
}

pub fn reply(reply: &Reply) -> Response {
    json(reply.status, &reply.body)
}

pub fn square_error(error: &SquareError) -> Response {
    json(error.status, &error.body())
}
