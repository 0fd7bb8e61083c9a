//! What a buyer (or staff at the box office) is told of an order: the
//! checkout's answer with its HTTP status, the order's link, and the signed
//! code of each paid ticket.

use checkout::PublicStatus;
use desk::protocol::OrderAnswer;
use desk::Code;
use serde_json::{json, Value};
use worker::Env;

use crate::api_error::ApiError;
use crate::db::orders as order_rows;
use crate::{auth, ticket_code};

/// The checkout's answer to its buyer: its HTTP status and body.
pub fn order_body(order: &OrderAnswer) -> (u16, Value) {
    let tickets: Vec<Value> = order
        .seats
        .iter()
        .enumerate()
        .map(|(i, seat)| {
            let price = order.prices.iter().find(|p| &p.seat == seat);
            json!({
                "id": order_rows::ticket_id(&order.order_id, i), "seat": seat,
                "price_name": price.map(|p| p.name.clone()),
                "price_amount": price.map(|p| p.amount_minor),
                "net": price.map(|p| p.net_minor()),
                "tax": price.map(|p| p.tax_minor),
                "tax_rate_bps": price.map(|p| p.tax_rate_bps),
            })
        })
        .collect();
    let mut body = json!({
        "order_id": order.order_id,
        "status": order.status.name(),
        "seats": order.seats,
        "amount": order.amount,
        "tax": order.tax,
    });
    let (status, extra) = match &order.status {
        PublicStatus::Paid => (201, json!({ "tickets": tickets })),
        PublicStatus::Pending => (
            202,
            json!({"detail": "your payment is being confirmed; this page will show the outcome"}),
        ),
        PublicStatus::Declined { code } => (
            402,
            json!({
                "error": Code::CardDeclined.as_str(), "code": code,
                "detail": "the card was declined and nothing was charged; your seats are still held, so you can try another card",
            }),
        ),
        PublicStatus::SeatLost { seats } => (
            409,
            json!({
                "error": Code::SeatLost.as_str(), "seats_lost": seats,
                "detail": "your hold ran out and another buyer took these seats; the payment was cancelled and nothing was charged",
            }),
        ),
        PublicStatus::Failed { code } => (
            402,
            json!({
                "error": Code::PaymentFailed.as_str(), "code": code,
                "detail": "the payment could not be made and nothing was charged",
            }),
        ),
        PublicStatus::NeedsAttention => (
            409,
            json!({
                "error": Code::OrderNotCompleted.as_str(),
                "detail": "we could not issue tickets for this order; nothing was charged, and the cinema's staff have been alerted",
            }),
        ),
    };
    if let (Some(body), Value::Object(extra)) = (body.as_object_mut(), extra) {
        body.extend(extra);
    }
    (status, body)
}

/// Adds a ticket's price less its tax (`net`), where it has a price.
pub fn add_net(ticket: &mut Value) {
    if let Some(amount) = ticket["price_amount"].as_u64() {
        let tax = ticket["tax"].as_u64().unwrap_or(0);
        ticket["net"] = json!(amount.saturating_sub(tax));
    }
}

/// Adds the order's API address and access key to an answer for its buyer.
pub fn add_order_link(env: &Env, order_id: &str, body: &mut Value) -> Result<(), ApiError> {
    let key = auth::order_key(env, order_id)?;
    body["order_url"] = json!(format!("/api/orders/{order_id}?key={key}"));
    body["access_key"] = json!(key);
    Ok(())
}

/// The code of each ticket in `tickets` (objects with `id` and `seat`),
/// added as `code`.
pub fn add_codes(env: &Env, showing_id: &str, tickets: &mut Value) -> Result<(), ApiError> {
    let keys = auth::signing_keys(env)?;
    for ticket in tickets.as_array_mut().into_iter().flatten() {
        // Only a paid ticket has a code: one whose payment is still being
        // confirmed might never be paid, and an offline door admits a
        // signed code it has no list entry for.
        if ticket["status"].as_str().is_some_and(|s| s != "valid") {
            continue;
        }
        let reference = ticket_code::TicketRef {
            showing_id: showing_id.to_string(),
            ticket_id: ticket["id"].as_str().unwrap_or_default().to_string(),
            seat: ticket["seat"].as_str().unwrap_or_default().to_string(),
        };
        ticket["code"] = json!(ticket_code::sign(&keys, &reference));
    }
    Ok(())
}

/// The buyer is about to be told to wait for their order: from now on an
/// outcome without tickets is mailed to them (they may have left), and one
/// recorded meanwhile is queued and sent now. A failure is logged; the
/// buyer still gets their answer, and the order page shows the outcome.
pub async fn note_answered_pending(env: &Env, order_id: &str) {
    let noted = match crate::db::database(env) {
        Ok(db) => {
            order_rows::answered_pending(&db, order_id, worker::Date::now().as_millis()).await
        }
        Err(e) => Err(e),
    };
    match noted {
        Ok(true) => crate::mail::send_now(env, order_id).await,
        Ok(false) => {}
        Err(e) => worker::console_error!("order {order_id}: answered pending not noted: {e}"),
    }
}
