//! Square's webhooks, through an inbox: a delivery is verified, stored and
//! answered at once, then handled after the answer (payments passed to
//! their order's object, refunds applied), so no webhook waits on Square,
//! the object or the mail; the cron sweep handles whatever did not finish.

use desk::Code;
use serde_json::{json, Value};
use worker::{Context, Env, Request, Response};

use crate::api_error::ApiError;
use crate::db::orders as order_rows;
use crate::request::{parse_json, read_body};
use crate::webhook_inbox::handle_logged;
use crate::{db, webhook};

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
