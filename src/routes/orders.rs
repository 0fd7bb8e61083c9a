//! Paying for a hold, reading an order, and Square's webhooks.

use serde::Deserialize;
use serde_json::{json, Value};
use worker::{Env, Method, Request, Response, RouteContext};

use super::showings::hold_ref;
use super::{param, parse_json, read_body, showing_id, Handled};
use crate::api_error::ApiError;
use crate::db::orders as d1;
use crate::showtime::client;
use crate::showtime::protocol::{CheckoutRequest, PaymentObserved};
use crate::{db, session, webhook};

const MAX_EMAIL_BYTES: usize = checkout::MAX_BUYER_EMAIL_BYTES;
const MAX_NAME_BYTES: usize = checkout::MAX_BUYER_NAME_BYTES;
const MAX_SOURCE_ID_BYTES: usize = checkout::MAX_SOURCE_ID_BYTES;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckoutBody {
    source_id: String,
    email: String,
    name: String,
}

fn invalid(field: &str, detail: &str) -> ApiError {
    ApiError::new(400, "invalid_buyer", format!("{field}: {detail}")).with("field", field)
}

impl CheckoutBody {
    fn check(self) -> Result<CheckoutBody, ApiError> {
        let email = self.email.trim().to_string();
        let name = self.name.trim().to_string();
        let email_ok = email.len() <= MAX_EMAIL_BYTES
            && email
                .split_once('@')
                .is_some_and(|(a, b)| !a.is_empty() && b.contains('.'))
            && !email.chars().any(|c| c.is_whitespace() || c.is_control());
        if !email_ok {
            return Err(invalid(
                "email",
                "give an e-mail address like name@example.com",
            ));
        }
        if name.is_empty() || name.len() > MAX_NAME_BYTES || name.chars().any(char::is_control) {
            return Err(invalid(
                "name",
                &format!("give a name of 1 to {MAX_NAME_BYTES} bytes"),
            ));
        }
        let source_ok = !self.source_id.is_empty()
            && self.source_id.len() <= MAX_SOURCE_ID_BYTES
            && self.source_id.bytes().all(|b| b.is_ascii_graphic());
        if !source_ok {
            return Err(invalid(
                "source_id",
                "the card token from the payment form is missing or malformed",
            ));
        }
        Ok(CheckoutBody {
            source_id: self.source_id,
            email,
            name,
        })
    }
}

fn secret(env: &Env) -> Result<Vec<u8>, ApiError> {
    crate::auth::session_secret(env)
}

pub async fn checkout(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?;
    let hold = hold_ref(&req, &ctx)?;
    let body: CheckoutBody = parse_json(&read_body(&mut req).await?)?;
    let body = body.check()?;
    let request = CheckoutRequest {
        hold,
        source_id: body.source_id,
        email: body.email,
        name: body.name,
    };
    let mut answer = client::call(&ctx.env, sid, Method::Post, "/checkout", Some(&request)).await?;
    let status = answer.status_code();
    let mut body: Value = answer.json().await?;
    // Every answer that names an order carries its link, so the buyer can
    // always come back to it.
    if body.get("tickets").is_some() {
        super::door::add_codes(&ctx.env, sid, &mut body["tickets"])?;
    }
    if let Some(order_id) = body["order_id"].as_str().map(str::to_string) {
        let key = session::order_access_key(&secret(&ctx.env)?, &order_id);
        body["order_url"] = json!(format!("/api/orders/{order_id}?key={key}"));
        body["access_key"] = json!(key);
    }
    Ok(Response::from_json(&body)?.with_status(status))
}

#[derive(Deserialize)]
struct KeyQuery {
    key: Option<String>,
}

/// `GET /api/orders/{oid}?key=…`: the order as D1 records it, and its tickets.
pub async fn get(req: Request, ctx: RouteContext<()>) -> Handled {
    let order_id = param(&ctx, "oid");
    let key = req
        .query::<KeyQuery>()
        .ok()
        .and_then(|q| q.key)
        .unwrap_or_default();
    if !session::order_key_matches(&secret(&ctx.env)?, order_id, &key) {
        return Err(ApiError::not_found("order"));
    }
    let db = db::database(&ctx.env)?;
    let order = d1::get_order(&db, order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let mut tickets = serde_json::to_value(d1::tickets_of(&db, order_id).await?)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    super::door::add_codes(&ctx.env, &order.showing_id, &mut tickets)?;
    for ticket in tickets.as_array_mut().into_iter().flatten() {
        let page = format!(
            "/tickets/{}?key={key}",
            ticket["id"].as_str().unwrap_or_default()
        );
        ticket["page_url"] = json!(page);
    }
    let showing = db::get_showing(&db, &order.showing_id).await?;
    Ok(Response::from_json(&json!({
        "order": {
            "id": order.id,
            "status": order.status,
            "email": order.email,
            "name": order.name,
            "amount": {"amount": order.amount as u64, "currency": order.currency},
            "created_at_ms": order.created_at_ms as u64,
            "updated_at_ms": order.updated_at_ms as u64,
        },
        "showing": showing,
        "tickets": tickets,
    }))?)
}

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
            401,
            "bad_signature",
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
    if d1::webhook_seen(&db, event_id).await? {
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
            let answer =
                client::call(&ctx.env, &sid, Method::Post, "/payment", Some(&seen)).await?;
            if answer.status_code() >= 500 {
                // Not recorded: Square retries, and the retry is handled.
                return Err(ApiError::internal(
                    "the order could not take this event yet",
                ));
            }
        }
    }
    let now_ms = worker::Date::now().as_millis();
    d1::webhook_handled(&db, event_id, kind, now_ms).await?;
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

/// The cron sweep: every showing with an order pending for over a minute
/// is told to resume its due checkouts (its own alarm normally does).
/// How long an order or refund must have waited before the sweep steps in
/// (`SWEEP_MIN_AGE_MS`, a minute unless set): younger ones are still in
/// their own object's or webhook's hands.
pub fn sweep_min_age_ms(env: &Env) -> u64 {
    env.var("SWEEP_MIN_AGE_MS")
        .ok()
        .and_then(|v| v.to_string().parse().ok())
        .unwrap_or(60_000)
}

pub async fn recovery_sweep(env: &Env, now_ms: u64) -> worker::Result<usize> {
    if let Err(e) = super::refunds::refund_sweep(env, now_ms).await {
        worker::console_error!("recovery sweep: refunds: {}", e.detail);
    }
    let db = db::database(env)?;
    let showings =
        d1::showings_with_stale_orders(&db, now_ms.saturating_sub(sweep_min_age_ms(env))).await?;
    for sid in &showings {
        if let Err(e) = client::call::<()>(env, sid, Method::Post, "/recover", None).await {
            worker::console_error!("recovery sweep: showing {sid}: {e}");
        }
    }
    Ok(showings.len())
}
