//! A showing's reconciliation, as the cron runs it 2 h 15 min before the
//! showing and staff run it on demand: read the object's seats, D1's live
//! tickets and orders, and Square's payments (ListPayments over the
//! showing's sales, then GetPayment for any order's payment the list did
//! not show), let `desk::reconcile` compare them, carry out the repairs it
//! proves, keep every finding, and tell staff at once of what is left.

use desk::reconcile::{self, Finding, Fix, Payment, Sides};
use serde_json::{json, Value};
use worker::Env;

use crate::api_error::ApiError;
use crate::db;
use crate::db::reconcile as rows;
use crate::showtime::client::ShowtimeClient;
use crate::square::{Reply, Square};

/// How long before a showing the cron reconciles it.
pub const BEFORE_START_MS: u64 = (2 * 60 + 15) * 60 * 1000;
/// Showings one cron run reconciles; the rest wait for the next run.
const PER_SWEEP: u32 = 5;
/// Pages of ListPayments one reconciliation reads (100 payments each).
const MAX_PAGES: usize = 50;
/// Payments looked up one by one when the list did not show them.
const MAX_LOOKUPS: usize = 50;

/// The cron's part: every showing within 2 h 15 min of its start that it
/// has not reconciled yet.
pub async fn sweep(env: &Env, now_ms: u64) -> Result<usize, ApiError> {
    let db = db::database(env)?;
    let due = rows::due(&db, now_ms, now_ms + BEFORE_START_MS, PER_SWEEP).await?;
    for showing_id in &due {
        if let Err(e) = run(env, showing_id, "cron", now_ms).await {
            worker::console_error!("reconciliation of {showing_id}: {}", e.detail);
        }
    }
    Ok(due.len())
}

/// Reconciles one showing; answers what it found and what it repaired.
pub async fn run(
    env: &Env,
    showing_id: &str,
    trigger: &str,
    now_ms: u64,
) -> Result<Value, ApiError> {
    let db = db::database(env)?;
    let showing = db::get_showing(&db, showing_id)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    let seats = ShowtimeClient::new(env, showing_id)?.sales().await?;
    let tickets = rows::live_tickets(&db, showing_id).await?;
    let orders = rows::orders(&db, showing_id).await?;
    let square = Square::from_env(env).map_err(ApiError::internal)?;
    let location = location_id(env)?;
    let begin = rfc3339(showing.created_at_ms.max(0) as u64);
    let mut payments = listed(&square, &location, &begin, &rfc3339(now_ms)).await?;
    let missing: Vec<&str> = orders
        .iter()
        .filter_map(|o| o.payment_id.as_deref())
        .filter(|id| !id.is_empty() && !payments.iter().any(|p| p.id == *id))
        .take(MAX_LOOKUPS)
        .collect();
    for id in missing {
        match square.get_payment(id).await {
            Reply::Ok(body) => payments.extend(payment_of(&body["payment"])),
            // Square has no such payment: a difference to report.
            Reply::Refused { .. } => {}
            // No answer is no fact: rather no run than a false alarm.
            Reply::Unknown(why) => {
                return Err(ApiError::new(
                    desk::Code::SquareUnavailable,
                    format!(
                        "Square did not answer for payment {id} ({why}); try again in a moment"
                    ),
                ))
            }
        }
    }
    let sides = Sides {
        showing_id,
        seats: &seats,
        tickets: &tickets,
        orders: &orders,
        payments: &payments,
    };
    let found = reconcile::reconcile(&sides);
    let mut kept = Vec::with_capacity(found.len());
    for finding in found {
        let (fixed_at, error) = match &finding.fix {
            Some(fix) => match repair(env, &square, showing_id, fix, now_ms).await {
                Ok(()) => (Some(now_ms), None),
                Err(e) => (None, Some(e)),
            },
            None => (None, None),
        };
        kept.push((finding, fixed_at, error));
    }
    let run_id = crate::ids::order_nonce().map_err(|e| ApiError::internal(e.to_string()))?;
    rows::record(&db, &run_id, showing_id, trigger, &kept, now_ms).await?;
    let open = kept.iter().filter(|(_, fixed, _)| fixed.is_none()).count();
    for (finding, fixed, error) in &kept {
        let what = match (fixed, error) {
            (Some(_), _) => "repaired".to_string(),
            (None, Some(e)) => format!("repair failed: {e}"),
            (None, None) => "for staff".to_string(),
        };
        worker::console_log!(
            "{{\"event\":\"reconciliation\",\"showing\":\"{showing_id}\",\"kind\":\"{}\",\"subject\":{:?},\"outcome\":{what:?}}}",
            finding.kind.as_str(),
            finding.subject
        );
    }
    if open > 0 {
        if let Err(e) = crate::mail::queue_reconciliation(env, showing_id, &run_id, now_ms).await {
            worker::console_error!("reconciliation of {showing_id}: staff not told: {e}");
        }
    }
    Ok(json!({
        "showing_id": showing_id,
        "at_ms": now_ms,
        "findings": kept.iter().map(|(f, fixed, error)| answer(f, *fixed, error)).collect::<Vec<_>>(),
    }))
}

fn answer(finding: &Finding, fixed_at: Option<u64>, error: &Option<String>) -> Value {
    json!({
        "kind": finding.kind.as_str(),
        "subject": finding.subject,
        "order_id": finding.order_id,
        "payment_id": finding.payment_id,
        "object": finding.object,
        "d1": finding.d1,
        "square": finding.square,
        "fix": finding.fix,
        "fixed_at_ms": fixed_at,
        "fix_error": error,
    })
}

async fn repair(
    env: &Env,
    square: &Square,
    showing_id: &str,
    fix: &Fix,
    now_ms: u64,
) -> Result<(), String> {
    match fix {
        Fix::RestoreTicket {
            order_id,
            seat,
            place,
            price,
            amount,
        } => {
            let db = db::database(env).map_err(|e| e.to_string())?;
            let ticket = rows::Restored {
                ticket_id: &db::orders::ticket_id(order_id, *place),
                order_id,
                showing_id,
                seat,
                price: price.as_ref(),
                amount: *amount,
            };
            match rows::restore_ticket(&db, &ticket, now_ms).await {
                Ok(true) => Ok(()),
                Ok(false) => Err(format!("ticket {} exists already", ticket.ticket_id)),
                Err(e) => Err(e.to_string()),
            }
        }
        Fix::CancelPayment { payment_id } => match square.cancel_payment(payment_id).await {
            Reply::Ok(_) => Ok(()),
            Reply::Refused { code, detail, .. } => Err(format!("{code}: {detail}")),
            Reply::Unknown(why) => Err(why),
        },
    }
}

/// What Square lists for the orders the sales report counts as captured
/// in `[from_ms, to_ms)`: the total of their COMPLETED payments, how many
/// there were, and the orders with none or with another amount.
pub async fn square_captured(
    env: &Env,
    orders: &[crate::sales::Captured],
    from_ms: i64,
    to_ms: i64,
) -> Result<Value, ApiError> {
    let square = Square::from_env(env).map_err(ApiError::internal)?;
    let location = location_id(env)?;
    let (begin, end) = (rfc3339(from_ms.max(0) as u64), rfc3339(to_ms.max(0) as u64));
    let listed = listed(&square, &location, &begin, &end).await?;
    let mut captured = 0u64;
    let mut payments = 0u64;
    let mut differ = Vec::new();
    for order in orders {
        let paid = listed.iter().find(|p| {
            p.status == "COMPLETED" && p.reference_id.as_deref() == Some(order.order_id.as_str())
        });
        match paid {
            Some(p) => {
                captured += p.amount;
                payments += 1;
                if p.amount != order.amount {
                    differ.push(
                        json!({"order_id": order.order_id, "square": p.amount, "d1": order.amount}),
                    );
                }
            }
            None => {
                differ.push(json!({"order_id": order.order_id, "square": null, "d1": order.amount}))
            }
        }
    }
    Ok(json!({ "captured": captured, "payments": payments, "differences": differ }))
}

fn location_id(env: &Env) -> Result<String, ApiError> {
    env.var("SQUARE_LOCATION_ID")
        .map(|v| v.to_string())
        .map_err(|_| ApiError::internal("SQUARE_LOCATION_ID is not configured"))
}

/// Every page of ListPayments over the range, up to [`MAX_PAGES`].
async fn listed(
    square: &Square,
    location: &str,
    begin: &str,
    end: &str,
) -> Result<Vec<Payment>, ApiError> {
    let mut payments = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let body = match square
            .list_payments(location, begin, end, cursor.as_deref())
            .await
        {
            Reply::Ok(body) => body,
            Reply::Refused { code, detail, .. } => {
                return Err(ApiError::new(
                    desk::Code::SquareUnavailable,
                    format!("Square would not list payments: {code}: {detail}"),
                ))
            }
            Reply::Unknown(why) => {
                return Err(ApiError::new(
                    desk::Code::SquareUnavailable,
                    format!("Square did not list payments ({why}); try again in a moment"),
                ))
            }
        };
        let page = body["payments"].as_array().cloned().unwrap_or_default();
        payments.extend(page.iter().filter_map(payment_of));
        match body["cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    Ok(payments)
}

fn payment_of(payment: &Value) -> Option<Payment> {
    Some(Payment {
        id: payment["id"].as_str()?.to_string(),
        status: payment["status"].as_str()?.to_string(),
        amount: payment["amount_money"]["amount"].as_u64().unwrap_or(0),
        reference_id: payment["reference_id"].as_str().map(str::to_string),
    })
}

/// Milliseconds since the epoch in RFC 3339, as Square reads times.
fn rfc3339(at_ms: u64) -> String {
    jiff::Timestamp::from_millisecond(at_ms as i64)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| "1970-01-01T00:00:00Z".to_string())
}
