//! Square's `/v2` endpoints: each parses, asks the bank, and hands the
//! events off before answering.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::middleware::from_fn_with_state;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

use super::gate::gate;
use super::{reply, square_error};
use crate::app::App;
use crate::clock::now_ms;
use crate::lock::lock;
use crate::square_error::SquareError;

pub fn routes(app: Arc<App>) -> Router<Arc<App>> {
    Router::new()
        .route("/v2/payments", post(create_payment).get(list_payments))
        .route("/v2/payments/cancel", post(cancel_by_key))
        .route("/v2/payments/{id}", get(get_payment))
        .route("/v2/payments/{id}/complete", post(complete_payment))
        .route("/v2/payments/{id}/cancel", post(cancel_payment))
        .route("/v2/refunds", post(refund_payment))
        .route("/v2/refunds/{id}", get(get_refund))
        .route("/v2/locations/{id}", get(get_location))
        .route("/v2/orders", post(create_order))
        .route("/v2/apple-pay/domains", post(register_domain))
        .route("/v2/orders/{id}", get(retrieve_order).put(update_order))
        .method_not_allowed_fallback(|| async { square_error(&SquareError::method_not_allowed()) })
        .layer(from_fn_with_state(app, gate))
}

/// The body as JSON; an empty body counts as `{}` where every field is
/// optional (complete, cancel). `None` when it is not JSON.
fn parse(body: &Bytes, empty_is_object: bool) -> Option<Value> {
    if body.is_empty() && empty_is_object {
        return Some(json!({}));
    }
    serde_json::from_slice(body).ok()
}

fn malformed() -> Response {
    square_error(&SquareError::malformed_json())
}

async fn create_payment(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Some(body) = parse(&body, false) else {
        return malformed();
    };
    let handled = lock(&app.bank).create_payment(&body, now_ms());
    reply(&app.finish(handled))
}

async fn list_payments(
    State(app): State<Arc<App>>,
    axum::extract::RawQuery(query): axum::extract::RawQuery,
) -> Response {
    let query: Vec<(String, String)> = form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let handled = lock(&app.bank).list_payments(&query, now_ms());
    reply(&app.finish(handled))
}

async fn complete_payment(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let Some(body) = parse(&body, true) else {
        return malformed();
    };
    let handled = lock(&app.bank).complete_payment(&id, &body, now_ms());
    reply(&app.finish(handled))
}

async fn cancel_payment(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let handled = lock(&app.bank).cancel_payment(&id, now_ms());
    reply(&app.finish(handled))
}

async fn cancel_by_key(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Some(body) = parse(&body, false) else {
        return malformed();
    };
    let handled = lock(&app.bank).cancel_by_key(&body, now_ms());
    reply(&app.finish(handled))
}

async fn get_payment(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let handled = lock(&app.bank).get_payment(&id);
    reply(&app.finish(handled))
}

async fn refund_payment(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Some(body) = parse(&body, false) else {
        return malformed();
    };
    let handled = lock(&app.bank).refund_payment(&body, now_ms());
    reply(&app.finish(handled))
}

async fn get_location(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let handled = lock(&app.bank).get_location(&id);
    reply(&app.finish(handled))
}

async fn get_refund(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let handled = lock(&app.bank).get_refund(&id);
    reply(&app.finish(handled))
}

async fn register_domain(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Some(body) = parse(&body, false) else {
        return malformed();
    };
    let handled = lock(&app.bank).register_domain(&body);
    reply(&app.finish(handled))
}

async fn create_order(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let Some(body) = parse(&body, false) else {
        return malformed();
    };
    let handled = lock(&app.bank).create_order(&body, now_ms());
    reply(&app.finish(handled))
}

async fn retrieve_order(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let handled = lock(&app.bank).retrieve_order(&id);
    reply(&app.finish(handled))
}

async fn update_order(
    State(app): State<Arc<App>>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let Some(body) = parse(&body, false) else {
        return malformed();
    };
    let handled = lock(&app.bank).update_order(&id, &body, now_ms());
    reply(&app.finish(handled))
}
