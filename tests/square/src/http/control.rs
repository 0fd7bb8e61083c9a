//! The control API under `/_control`: what tests and demos use to steer the
//! stand-in and look inside it. Loopback only, so no auth.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{json, reply};
use crate::app::App;
use crate::bank::SettleError;
use crate::clock::now_ms;
use crate::config::MAX_REFUND_SETTLE_MS;
use crate::delivery::{ReleaseOrder, WebhookSwitches};
use crate::faults::{Endpoint, Fault, FaultRejected};
use crate::lock::lock;
use crate::refunds::RefundStatus;

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/_control/dashboard/refund", post(dashboard_refund))
        .route("/_control/faults", post(arm_fault).delete(clear_faults))
        .route("/_control/webhooks", get(webhooks).post(switch_webhooks))
        .route("/_control/webhooks/release", post(release_webhooks))
        .route("/_control/refunds", get(refunds).post(refund_policy))
        .route("/_control/refunds/{id}/complete", post(complete_refund))
        .route("/_control/refunds/{id}/reject", post(reject_refund))
        .route("/_control/refunds/{id}/fail", post(fail_refund))
        .route("/_control/requests", get(requests))
        .route("/_control/payments", get(payments))
        .route("/_control/payments/{id}/lapse", post(lapse_payment))
        .route("/_control/payments/pending", post(plan_pending))
        .route("/_control/apple-pay/domains", get(apple_pay_domains))
        .route("/_control/guesses", post(set_guesses).get(guesses))
        .route("/_control/payments/{id}/capture", post(capture_by_hand))
        .route("/_control/reset", post(reset))
}

fn refused(status: u16, message: impl Into<String>) -> Response {
    json(status, &json!({ "error": message.into() }))
}

fn ok() -> Response {
    json(200, &json!({ "ok": true }))
}

/// Reads a control body; an empty one is `{}`. The error is the message
/// for a 400.
fn parse<T: DeserializeOwned>(body: &Bytes) -> Result<T, String> {
    let body: &[u8] = if body.is_empty() { b"{}" } else { body };
    serde_json::from_slice(body).map_err(|error| format!("bad control request: {error}"))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DashboardRefund {
    payment_id: String,
    /// Minor units; the whole remaining amount when absent.
    amount: Option<i64>,
    reason: Option<String>,
}

async fn dashboard_refund(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let request: DashboardRefund = match parse(&body) {
        Ok(request) => request,
        Err(message) => return refused(400, message),
    };
    let handled = lock(&app.bank).dashboard_refund(
        &request.payment_id,
        request.amount,
        request.reason,
        now_ms(),
    );
    reply(&app.finish(handled))
}

/// `"drop"`, `{"delay_ms": n}` or `{"status": 500}`.
#[derive(Deserialize)]
#[serde(untagged)]
enum FaultSpec {
    Named(NamedFault),
    Delay { delay_ms: u64 },
    Status { status: u16 },
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum NamedFault {
    Drop,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ArmFault {
    endpoint: Endpoint,
    fault: FaultSpec,
    times: Option<u32>,
}

async fn arm_fault(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let request: ArmFault = match parse(&body) {
        Ok(request) => request,
        Err(message) => return refused(400, message),
    };
    let fault = match request.fault {
        FaultSpec::Named(NamedFault::Drop) => Fault::Drop,
        FaultSpec::Delay { delay_ms } => Fault::Delay { delay_ms },
        FaultSpec::Status { status } => Fault::Status(status),
    };
    match lock(&app.faults).arm(request.endpoint, fault, request.times.unwrap_or(1)) {
        Ok(()) => ok(),
        Err(FaultRejected::DelayTooLong) => refused(400, "delay_ms is at most 60000"),
        Err(FaultRejected::UnsupportedStatus(status)) => refused(
            400,
            format!("status {status} is not one of 429, 500, 503, 504"),
        ),
        Err(FaultRejected::TooManyTimes) => refused(400, "times is at most 1000"),
    }
}

async fn clear_faults(State(app): State<Arc<App>>) -> Response {
    lock(&app.faults).clear();
    ok()
}

async fn webhooks(State(app): State<Arc<App>>) -> Response {
    json(200, &app.webhooks.report())
}

async fn switch_webhooks(State(app): State<Arc<App>>, body: Bytes) -> Response {
    match parse::<WebhookSwitches>(&body) {
        Ok(switches) => {
            app.webhooks.switch(switches);
            ok()
        }
        Err(message) => refused(400, message),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Release {
    #[serde(default)]
    order: ReleaseOrder,
    seed: Option<u64>,
}

async fn release_webhooks(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let request: Release = match parse(&body) {
        Ok(request) => request,
        Err(message) => return refused(400, message),
    };
    let seed = request.seed.unwrap_or_else(rand::random);
    let released = app.webhooks.release(request.order, seed, &app.epoch());
    json(200, &json!({ "released": released, "seed": seed }))
}

async fn refunds(State(app): State<Arc<App>>) -> Response {
    let mut body = lock(&app.bank).refunds_json();
    body["auto_complete_ms"] = json!(*lock(&app.refund_settle_after_ms));
    json(200, &body)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefundPolicy {
    /// Absent or null holds refunds PENDING until completed or rejected here.
    auto_complete_ms: Option<u64>,
}

async fn refund_policy(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let request: RefundPolicy = match parse(&body) {
        Ok(request) => request,
        Err(message) => return refused(400, message),
    };
    if request
        .auto_complete_ms
        .is_some_and(|ms| ms > MAX_REFUND_SETTLE_MS)
    {
        return refused(
            400,
            format!("auto_complete_ms is at most {MAX_REFUND_SETTLE_MS}"),
        );
    }
    *lock(&app.refund_settle_after_ms) = request.auto_complete_ms;
    ok()
}

async fn complete_refund(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    settle(&app, &id, RefundStatus::Completed)
}

async fn reject_refund(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    settle(&app, &id, RefundStatus::Rejected)
}

async fn fail_refund(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    settle(&app, &id, RefundStatus::Failed)
}

fn settle(app: &App, id: &str, outcome: RefundStatus) -> Response {
    let settled = lock(&app.bank).settle_refund(id, outcome, now_ms());
    match settled {
        Ok((body, events)) => {
            app.publish(events);
            json(200, &body)
        }
        Err(SettleError::UnknownRefund) => refused(404, format!("no refund {id}")),
        Err(SettleError::NotPending(status)) => {
            refused(409, format!("refund {id} is already {}", status.as_str()))
        }
    }
}

async fn requests(State(app): State<Arc<App>>) -> Response {
    let calls = lock(&app.calls);
    let listed: Vec<Value> = calls.items().map(|call| json!(call)).collect();
    json(
        200,
        &json!({ "requests": listed, "forgotten": calls.forgotten() }),
    )
}

/// Switches the guesses: every one the body names; the others take the
/// stand-in's default reading.
async fn set_guesses(State(app): State<Arc<App>>, body: Bytes) -> Response {
    match parse::<crate::guesses::Guesses>(&body) {
        Ok(guesses) if matches!(guesses.decline_status, 400 | 402) => {
            lock(&app.bank).guesses = guesses;
            json(200, &serde_json::json!(guesses))
        }
        Ok(_) => refused(400, "decline_status is 400 or 402"),
        Err(message) => refused(400, message),
    }
}

async fn guesses(State(app): State<Arc<App>>) -> Response {
    json(200, &serde_json::json!(lock(&app.bank).guesses))
}

async fn apple_pay_domains(State(app): State<Arc<App>>) -> Response {
    json(200, &lock(&app.bank).apple_pay_domains())
}

async fn payments(State(app): State<Arc<App>>) -> Response {
    json(200, &lock(&app.bank).payments_json())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PendingRequest {
    times: u32,
    settle_after_ms: u64,
    /// "APPROVED" (as made, the default) or "FAILED".
    #[serde(default)]
    then: Option<String>,
}

/// The next `times` payments read PENDING for `settle_after_ms` (at most a
/// minute), then settle as made or FAILED.
async fn plan_pending(State(app): State<Arc<App>>, body: Bytes) -> Response {
    let plan = match parse::<PendingRequest>(&body) {
        Ok(plan) if plan.settle_after_ms <= 60_000 && plan.times <= 1_000 => plan,
        Ok(_) => return refused(400, "settle_after_ms at most 60000, times at most 1000"),
        Err(message) => return refused(400, message),
    };
    let then_decline = match plan.then.as_deref() {
        None | Some("APPROVED") => None,
        Some("FAILED") => Some(crate::cards::Decline::Generic),
        Some(_) => return refused(400, "then is APPROVED or FAILED"),
    };
    lock(&app.bank).plan_pending(crate::bank::PendingPlan {
        times: plan.times,
        settle_after_ms: plan.settle_after_ms,
        then_decline,
    });
    ok()
}

/// The seller captures an authorization in the Square Dashboard, as the
/// Dashboard lets them: the same move as CompletePayment, without a key.
async fn capture_by_hand(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let handled = lock(&app.bank).complete_payment(&id, &json!({}), now_ms());
    reply(&app.finish(handled))
}

async fn lapse_payment(State(app): State<Arc<App>>, Path(id): Path<String>) -> Response {
    let handled = lock(&app.bank).lapse_now(&id, now_ms());
    reply(&app.finish(handled))
}

async fn reset(State(app): State<Arc<App>>) -> Response {
    app.reset();
    ok()
}
