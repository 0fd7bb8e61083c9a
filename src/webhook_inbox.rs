//! Square's webhooks once stored (`routes/webhooks.rs` verifies, stores
//! and answers each): a refund event applied, a payment passed to its
//! order's object, then the event leaves the inbox. The webhook's request
//! handles its event after the answer; the cron sweep handles again
//! whatever did not finish. Handling is safe to repeat.

use desk::protocol::PaymentObserved;
use serde_json::Value;
use worker::Env;

use crate::api_error::ApiError;
use crate::db;
use crate::db::orders as order_rows;
use crate::request::parse_json;
use crate::showtime::client::ShowtimeClient;

/// Most inbox events one sweep handles.
const SWEEP_BATCH: u32 = 50;

/// Handles a stored event, and notes why when it could not be: the sweep
/// tries again.
pub async fn handle_logged(env: &Env, event_id: &str) {
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
        crate::refunding::on_refund_event(env, &event["data"]["object"]["refund"]).await?;
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
            let order_id = seen.order_id.clone();
            ShowtimeClient::new(env, &sid)?
                .payment_observed(seen)
                .await?;
            // The object has recorded whatever the payment settled; a
            // message that queued (an outcome without tickets, for a buyer
            // told to wait) goes now rather than at the next sweep.
            crate::mail::send_now(env, &order_id).await;
        }
    }
    order_rows::webhook_handled(&db, event_id, worker::Date::now().as_millis()).await?;
    Ok(())
}

/// The sweep's share: events whose handling did not finish, handled again.
pub async fn sweep(env: &Env, before_ms: u64) -> Result<usize, ApiError> {
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
