//! Square's webhooks: the signature checked, each event handled once,
//! payments passed to their order's object and refunds applied.

use desk::protocol::PaymentObserved;
use desk::Code;
use serde_json::{json, Value};
use worker::{Request, Response, RouteContext};

use super::{parse_json, read_body, Handled};
use crate::api_error::ApiError;
use crate::db::orders as order_rows;
use crate::showtime::client::ShowtimeClient;
use crate::{db, webhook};

/// `POST /webhooks/square`. The signature is checked against the configured
/// notification URL and the raw bytes; anything unsigned changes nothing.
pub async fn square_webhook(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let setting = |name: &str| {
        ctx.env
            .secret(name)
            .map(|v| v.to_string())
            .or_else(|_| ctx.env.var(name).map(|v| v.to_string()))
            .map_err(|_| ApiError::internal(format!("{name} is not configured")))
    };
    let key = setting("SQUARE_WEBHOOK_SIGNATURE_KEY")?;
    let url = setting("SQUARE_WEBHOOK_URL")?;
    let body = read_body(&mut req).await?;
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
    if event_id.is_empty() || event_id.len() > 100 {
        return Err(ApiError::bad_json("the event has no event_id"));
    }
    let db = db::database(&ctx.env)?;
    if order_rows::webhook_seen(&db, event_id).await? {
        return Ok(Response::from_json(
            &json!({ "ok": true, "duplicate": true }),
        )?);
    }
    if kind.starts_with("refund.") {
        super::refunds::on_refund_event(&ctx.env, &event["data"]["object"]["refund"]).await?;
    }
    if kind.starts_with("payment.") {
        let payment = &event["data"]["object"]["payment"];
        if let Some(seen) = payment_seen(payment) {
            let sid = seen.order_id[..16].to_string();
            // Not recorded if the object fails: Square retries, and the
            // retry is handled.
            ShowtimeClient::new(&ctx.env, &sid)?
                .payment_observed(seen)
                .await?;
        }
    }
    let now_ms = worker::Date::now().as_millis();
    order_rows::webhook_handled(&db, event_id, kind, now_ms).await?;
    Ok(Response::from_json(&json!({ "ok": true }))?)
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
