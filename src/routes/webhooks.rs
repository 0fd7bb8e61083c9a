//! Square's webhooks, through an inbox: a delivery is verified, stored and
//! answered at once, then handled after the answer (payments passed to
//! their order's object, refunds applied), so no webhook waits on Square,
//! the object or the mail; the cron sweep handles whatever did not finish.

use desk::protocol::PaymentObserved;
use desk::Code;
use serde_json::{json, Value};
use worker::{Context, Env, Request, Response};

use super::{parse_json, read_body};
use crate::api_error::ApiError;
use crate::db::orders as order_rows;
use crate::showtime::client::ShowtimeClient;
use crate::{db, webhook};

/// Most inbox events one sweep handles.
const SWEEP_BATCH: u32 = 50;

/// `POST /webhooks/square`. The signature is checked against the configured
/// notification URL and the raw bytes; anything unsigned changes nothing.
/// An event is stored (once), answered `200`, and handled after the answer.
pub async fn square_webhook(mut req: Request, env: Env, ctx: &Context) -> worker::Result<Response> {
    match receive(&mut req, &env).await {
        Ok((event_id, new)) => {
            // A repeat of an event whose handling failed is a cue to try
            // again; one already handled costs a read.
            ctx.wait_until(async move { handle_logged(&env, &event_id).await });
            Response::from_json(&json!({ "ok": true, "duplicate": !new }))
        }
        Err(e) => e.into_response(),
    }
}

/// Verifies and stores a delivery: its event id, and whether it is new.
async fn receive(req: &mut Request, env: &Env) -> Result<(String, bool), ApiError> {
    let setting = |name: &str| {
        env.secret(name)
            .map(|v| v.to_string())
            .or_else(|_| env.var(name).map(|v| v.to_string()))
            .map_err(|_| ApiError::internal(format!("{name} is not configured")))
    };
    let key = setting("SQUARE_WEBHOOK_SIGNATURE_KEY")?;
    let url = setting("SQUARE_WEBHOOK_URL")?;
    let body = read_body(req).await?;
    let signature = req
        .headers()
        .get("x-square-hmacsha256-signature")?
        .unwrap_or_default();
    if !webhook::signature_is_valid(&key, &url, &body, &signature) {
        return Err(ApiError::new(
            Code::BadSignature,
            "the webhook signature does not match",
        ));
    }
    let event: Value = parse_json(&body)?;
    let kind = event["type"].as_str().unwrap_or_default();
    let event_id = event["event_id"].as_str().unwrap_or_default();
    if event_id.is_empty() || event_id.len() > 100 || kind.len() > 100 {
        return Err(ApiError::bad_json("the event has no event_id"));
    }
    let db = db::database(env)?;
    let text = String::from_utf8_lossy(&body);
    let now_ms = worker::Date::now().as_millis();
    let new = order_rows::webhook_received(&db, event_id, kind, &text, now_ms).await?;
    Ok((event_id.to_string(), new))
}

async fn handle_logged(env: &Env, event_id: &str) {
    if let Err(e) = handle(env, event_id).await {
        worker::console_error!("webhook {event_id}: not handled yet: {}", e.detail);
        if let Ok(db) = db::database(env) {
            let _ = order_rows::webhook_failed(&db, event_id, &e.detail).await;
        }
    }
}

/// Handles a stored event once: its refund applied, or its payment passed
/// to the order's object; then it leaves the inbox. A failure leaves it
/// there for the sweep.
async fn handle(env: &Env, event_id: &str) -> Result<(), ApiError> {
    let db = db::database(env)?;
    let Some(body) = order_rows::webhook_unhandled_body(&db, event_id).await? else {
        return Ok(()); // Handled already.
    };
    let event: Value = parse_json(body.as_bytes())?;
    let kind = event["type"].as_str().unwrap_or_default();
    if kind.starts_with("refund.") {
        super::refunds::on_refund_event(env, &event["data"]["object"]["refund"]).await?;
    }
    if kind.starts_with("payment.") {
        let payment = &event["data"]["object"]["payment"];
        if let Some(seen) = payment_seen(payment) {
            // The card, for the buyer's receipt: display only, so it is
            // written before the object hears of the payment, and again
            // with each event of it.
            if let Some(card) = crate::webhook::card_of(payment) {
                order_rows::note_card(&db, &seen.order_id, &seen.payment_id, &card).await?;
            }
            let sid = seen.order_id[..16].to_string();
            ShowtimeClient::new(env, &sid)?
                .payment_observed(seen)
                .await?;
        }
    }
    order_rows::webhook_handled(&db, event_id, worker::Date::now().as_millis()).await?;
    Ok(())
}

/// The sweep's share: events whose handling did not finish, handled again.
pub async fn webhook_sweep(env: &Env, before_ms: u64) -> Result<usize, ApiError> {
    let db = db::database(env)?;
    let events = order_rows::webhooks_unhandled(&db, before_ms, SWEEP_BATCH).await?;
    for event_id in &events {
        handle_logged(env, event_id).await;
    }
    Ok(events.len())
}

/// The order a payment belongs to (its `reference_id`, which starts with
/// the showing id), if it is one of ours.
fn payment_seen(payment: &Value) -> Option<PaymentObserved> {
    let order_id = payment["reference_id"].as_str()?;
    let ours = order_id.len() == 40 && order_id.bytes().all(|b| b.is_ascii_hexdigit());
    if !ours {
        return None;
    }
    Some(PaymentObserved {
        order_id: order_id.to_string(),
        payment_id: payment["id"].as_str()?.to_string(),
        status: payment["status"].as_str()?.to_string(),
    })
}
