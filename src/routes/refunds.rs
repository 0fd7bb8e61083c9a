//! Refunds: staff ask here or in the Square Dashboard; Square's webhook
//! (or the sweep, if the webhook never comes) says when one completed. A
//! completed refund voids its tickets in D1 first, so the door refuses them,
//! then the showing's object puts the seats back on sale.

use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use worker::{D1Database, Env, Request, Response, RouteContext};

use super::{param, parse_json, read_body, Handled};
use crate::api_error::ApiError;
use crate::db::refunds::{self as refund_rows, RefundRow};
use crate::showtime::client::ShowtimeClient;
use crate::square::{Reply, Square};
use crate::{auth, db};
use desk::protocol::VoidSeats;
use desk::Code;

fn now_ms() -> u64 {
    worker::Date::now().as_millis()
}

/// What the named tickets of an order cost: each at the price it was
/// sold at, or, for a ticket sold before tickets had their own prices, an
/// equal share of its order.
fn worth(
    order: &refund_rows::PaidOrder,
    tickets: &[refund_rows::TicketSeat],
    ids: &[String],
) -> u64 {
    let share = (order.amount as u64) / (tickets.len().max(1) as u64);
    tickets
        .iter()
        .filter(|t| ids.contains(&t.id))
        .map(|t| t.price_amount.map_or(share, |p| p as u64))
        .sum()
}

/// A refund's idempotency key: the order, exactly the tickets it covers,
/// and which try this is, so asking twice for the same tickets refunds
/// once, and asking again after Square refused or failed a refund is a new
/// request. The first try's key is what it always was (`rf-…`).
fn refund_key(order_id: &str, ticket_ids: &[String], attempt: u32) -> String {
    let mut hash = Sha256::new();
    hash.update(order_id.as_bytes());
    for id in ticket_ids {
        hash.update([0u8]);
        hash.update(id.as_bytes());
    }
    if attempt <= 1 {
        return format!("rf-{}", &hex::encode(hash.finalize())[..42]);
    }
    hash.update([1u8]);
    hash.update(attempt.to_be_bytes());
    // At most 45 characters, Square's limit.
    format!("rf{attempt}-{}", &hex::encode(hash.finalize())[..40])
}

/// Most tries at refunding the same tickets.
const MAX_REFUND_ATTEMPTS: u32 = 20;

/// The statuses of a refund that did not happen, after which the same
/// tickets may be refunded again under a new key.
const FAILED_REFUND: [&str; 3] = ["refused", "REJECTED", "FAILED"];

/// A refund not yet made because another of its payment was still
/// pending: Square allows one pending refund per payment
/// (`REFUND_ALREADY_PENDING`). It is asked for again under a new key, as a
/// key Square refused once may answer the same refusal for good.
const WAITING: &str = "waiting";

/// A waiting refund that a later key took over.
const SUPERSEDED: &str = "superseded";

/// The key for refunding these tickets now: the first try's, or, after
/// tries that did not happen or waited, the next one's. A waiting try is
/// superseded by the one this key starts.
async fn next_refund_key(
    db: &D1Database,
    order_id: &str,
    ticket_ids: &[String],
) -> Result<String, ApiError> {
    for attempt in 1..=MAX_REFUND_ATTEMPTS {
        let key = refund_key(order_id, ticket_ids, attempt);
        match refund_rows::by_id(db, &key).await? {
            Some(row) if FAILED_REFUND.contains(&row.status.as_str()) => continue,
            Some(row) if row.status == SUPERSEDED => continue,
            Some(row) if row.status == WAITING => {
                refund_rows::supersede(db, &row.id, now_ms()).await?;
                continue;
            }
            _ => return Ok(key),
        }
    }
    Err(ApiError::new(
        Code::RefundRefused,
        format!("{MAX_REFUND_ATTEMPTS} refunds of these tickets did not happen; refund them in the Square Dashboard"),
    ))
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RefundBody {
    ticket_ids: Option<Vec<String>>,
}

/// `POST /api/admin/orders/{oid}/refund`, optionally `{"ticket_ids": […]}`.
pub async fn refund_order(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let order_id = param(&ctx, "oid").to_string();
    let bytes = read_body(&mut req).await?;
    let body: RefundBody = if bytes.is_empty() {
        RefundBody::default()
    } else {
        parse_json(&bytes)?
    };
    let db = db::database(&ctx.env)?;
    let asked = refund_tickets(&ctx.env, &db, &order_id, body.ticket_ids).await?;
    Ok(Response::from_json(&json!({
        "refund_id": asked.refund_id, "status": asked.status,
        "ticket_ids": asked.ticket_ids, "amount": asked.amount
    }))?
    .with_status(202))
}

/// A refund asked of Square.
pub(super) struct Asked {
    pub refund_id: String,
    pub status: String,
    pub ticket_ids: Vec<String>,
    pub amount: u64,
}

/// Refunds the order's chosen live tickets (every live one when `None`):
/// stored with its tickets, then asked of Square under a key made of the
/// order and those tickets, so asking twice refunds once; applied at once
/// if Square completes it in its answer.
pub(super) async fn refund_tickets(
    env: &Env,
    db: &D1Database,
    order_id: &str,
    ticket_ids: Option<Vec<String>>,
) -> Result<Asked, ApiError> {
    let order = refund_rows::order(db, order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    // Square refunds only a completed payment; an order still paying, or
    // one that failed, has nothing to refund.
    if order.status != "paid" {
        return Err(ApiError::new(
            Code::OrderNotPaid,
            format!(
                "this order is {}, not paid: there is nothing to refund",
                order.status
            ),
        ));
    }
    let tickets = refund_rows::tickets(db, order_id).await?;
    let live: Vec<&refund_rows::TicketSeat> =
        tickets.iter().filter(|t| t.status != "void").collect();
    let chosen: Vec<String> = match ticket_ids {
        None => live.iter().map(|t| t.id.clone()).collect(),
        Some(ids) => {
            let unknown: Vec<&String> = ids
                .iter()
                .filter(|id| !live.iter().any(|t| &&t.id == id))
                .collect();
            if !unknown.is_empty() {
                return Err(ApiError::new(
                    Code::UnknownTickets,
                    "these are not live tickets of this order",
                )
                .with("ticket_ids", json!(unknown)));
            }
            let mut ids = ids;
            ids.sort();
            ids.dedup();
            ids
        }
    };
    if chosen.is_empty() {
        return Err(ApiError::new(
            Code::NothingToRefund,
            "every ticket of this order is already void",
        ));
    }
    let amount = worth(&order, &tickets, &chosen);
    let key = next_refund_key(db, order_id, &chosen).await?;
    // The refund and its tickets are stored before Square is asked. A paid
    // order with no payment was free: its refund is complete as it is made
    // (the tickets voided, the seats reopened), with nothing to ask of
    // Square.
    let status = match order.payment_id {
        Some(_) => "requested",
        None => "COMPLETED",
    };
    refund_rows::upsert(
        db,
        &key,
        None,
        order_id,
        Some(&chosen),
        amount,
        status,
        now_ms(),
    )
    .await?;
    let Some(payment_id) = order.payment_id.clone() else {
        if let Some(row) = refund_rows::by_id(db, &key).await? {
            apply(env, db, &row).await?;
        }
        return Ok(Asked {
            refund_id: key,
            status: "COMPLETED".into(),
            ticket_ids: chosen,
            amount,
        });
    };
    // One pending refund per payment: this one waits for the others.
    if refund_rows::other_in_flight(db, order_id, &key).await? {
        refund_rows::upsert(db, &key, None, order_id, None, amount, WAITING, now_ms()).await?;
        return Ok(Asked {
            refund_id: key,
            status: WAITING.into(),
            ticket_ids: chosen,
            amount,
        });
    }
    let square = Square::from_env(env).map_err(ApiError::internal)?;
    let status = request_refund(&square, db, &key, &order, &payment_id, amount).await?;
    if status == "COMPLETED" {
        if let Some(row) = refund_rows::by_id(db, &key).await? {
            apply(env, db, &row).await?;
        }
    }
    Ok(Asked {
        refund_id: key,
        status,
        ticket_ids: chosen,
        amount,
    })
}

/// Most orders of a cancelled showing one request refunds (each is a call
/// to Square); the cron sweep refunds the rest, as many each run.
pub const CANCEL_REFUNDS_PER_CALL: u32 = 20;

/// Refunds what a cancelled showing still owes: each paid order with a
/// live ticket, whole, at most [`CANCEL_REFUNDS_PER_CALL`] of them, each
/// with its cancellation message queued (once). Repeating it asks nothing
/// new: the refunds' keys are the same, and refunded orders drop out.
/// Answers what was asked, what Square refused, and whether more remain.
pub async fn refund_cancelled(
    env: &Env,
    db: &D1Database,
    showing_id: &str,
) -> Result<Value, ApiError> {
    let orders =
        refund_rows::paid_with_live_tickets(db, showing_id, CANCEL_REFUNDS_PER_CALL + 1).await?;
    let mut asked = Vec::new();
    let mut refused = Vec::new();
    for order_id in orders.iter().take(CANCEL_REFUNDS_PER_CALL as usize) {
        crate::db::mail::queue_cancelled(db, order_id, now_ms())?
            .run()
            .await?;
        match refund_tickets(env, db, order_id, None).await {
            Ok(a) => asked.push(json!({
                "order_id": order_id, "refund_id": a.refund_id, "status": a.status, "amount": a.amount
            })),
            Err(e) => refused.push(json!({"order_id": order_id, "error": e.code, "detail": e.detail})),
        }
    }
    Ok(json!({
        "refunds": asked,
        "refused": refused,
        "more": orders.len() > CANCEL_REFUNDS_PER_CALL as usize,
        // Sold or given at the desk: staff settle these with each guest.
        "box_office": refund_rows::box_office_orders(db, showing_id).await?,
    }))
}

/// Asks Square for a refund with its key and records what Square said.
async fn request_refund(
    square: &Square,
    db: &D1Database,
    key: &str,
    order: &refund_rows::PaidOrder,
    payment_id: &str,
    amount: u64,
) -> Result<String, ApiError> {
    let order_id = order.id.as_str();
    let body = json!({
        "idempotency_key": key,
        "payment_id": payment_id,
        "amount_money": {"amount": amount, "currency": order.currency},
        // The same words every time: a retry with the same key must send
        // the same body, or Square refuses it.
        "reason": desk::square::REFUND_REASON,
    });
    match square.refund_payment(&body).await {
        Reply::Ok(answer) => {
            let refund = &answer["refund"];
            let status = refund["status"].as_str().unwrap_or("PENDING").to_string();
            let id = refund["id"].as_str();
            refund_rows::upsert(db, key, id, order_id, None, amount, &status, now_ms()).await?;
            note_failure(db, key, &status).await?;
            Ok(status)
        }
        // Recorded as requested; the sweep asks again with the same key.
        Reply::Unknown(_) => Ok("requested".into()),
        // Another refund of the payment, perhaps one from the Dashboard we
        // have not heard of yet, is still pending: this one waits.
        Reply::Refused { code, .. } if code == "REFUND_ALREADY_PENDING" => {
            refund_rows::upsert(db, key, None, order_id, None, amount, WAITING, now_ms()).await?;
            Ok(WAITING.into())
        }
        Reply::Refused { code, detail, .. } => {
            refund_rows::upsert(db, key, None, order_id, None, amount, "refused", now_ms()).await?;
            refund_rows::record_failure(db, key, &format!("Square refused it: {code}: {detail}"))
                .await?;
            Err(ApiError::new(
                Code::RefundRefused,
                format!("Square refused the refund: {code}: {detail}"),
            ))
        }
    }
}

/// A `refund.created` or `refund.updated` webhook's refund object.
pub async fn on_refund_event(env: &Env, refund: &Value) -> Result<(), ApiError> {
    let (Some(square_id), Some(payment_id), Some(status)) = (
        refund["id"].as_str(),
        refund["payment_id"].as_str(),
        refund["status"].as_str(),
    ) else {
        return Ok(());
    };
    let amount = refund["amount_money"]["amount"].as_u64().unwrap_or(0);
    let db = db::database(env)?;
    let Some(order) = refund_rows::order_by_payment(&db, payment_id).await? else {
        return Ok(()); // Not a payment of ours.
    };
    let now = now_ms();
    let row = match refund_rows::by_square_id(&db, square_id).await? {
        Some(row) => row,
        None => match refund_rows::unnamed_request(&db, &order.id, amount).await? {
            Some(asked) => asked,
            None => {
                // Started in the Dashboard: a full refund covers every live
                // ticket; anything else waits for staff.
                let tickets = refund_rows::tickets(&db, &order.id).await?;
                let live: Vec<String> = tickets
                    .iter()
                    .filter(|t| t.status != "void")
                    .map(|t| t.id.clone())
                    .collect();
                let covers =
                    (amount == worth(&order, &tickets, &live) && !live.is_empty()).then_some(live);
                let id = format!("square:{square_id}");
                refund_rows::upsert(
                    &db,
                    &id,
                    Some(square_id),
                    &order.id,
                    covers.as_deref(),
                    amount,
                    status,
                    now,
                )
                .await?;
                if covers.is_none() {
                    let detail = format!("partial refund {square_id} of {amount} from the Square Dashboard: choose its tickets");
                    refund_rows::mark_order_for_staff(&db, &order.id, &detail, now).await?;
                }
                refund_rows::by_id(&db, &id)
                    .await?
                    .ok_or_else(|| ApiError::internal("refund row vanished"))?
            }
        },
    };
    refund_rows::upsert(
        &db,
        &row.id,
        Some(square_id),
        &order.id,
        None,
        amount,
        status,
        now,
    )
    .await?;
    let row = refund_rows::by_id(&db, &row.id).await?.unwrap_or(row);
    note_failure(&db, &row.id, &row.status).await?;
    if row.status == "COMPLETED" {
        apply(env, &db, &row).await?;
    }
    Ok(())
}

/// A refund Square ended REJECTED or FAILED goes on the attention list
/// with that status; its tickets may be refunded again.
async fn note_failure(db: &D1Database, refund_id: &str, status: &str) -> Result<(), ApiError> {
    if matches!(status, "REJECTED" | "FAILED") {
        // Square allows no further refund of a payment once one FAILED.
        let failure = match status {
            "FAILED" => "Square marked the refund FAILED and allows no other refund of this \
                         payment: reimburse the buyer another way"
                .to_string(),
            _ => format!("Square marked the refund {status}"),
        };
        refund_rows::record_failure(db, refund_id, &failure).await?;
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChosenTickets {
    ticket_ids: Vec<String>,
}

/// `POST /api/admin/refunds/{rid}/tickets` `{"ticket_ids": […]}`: staff say
/// which tickets a partial refund from the Square Dashboard covers (none,
/// for money back on tickets that stay valid). Once it has completed, they
/// are voided and their seats reopen, as for any refund.
pub async fn choose_tickets(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let refund_id = param(&ctx, "rid").to_string();
    let body: ChosenTickets = parse_json(&read_body(&mut req).await?)?;
    let db = db::database(&ctx.env)?;
    let refund = refund_rows::by_id(&db, &refund_id)
        .await?
        .ok_or_else(|| ApiError::not_found("refund"))?;
    if refund.ticket_ids.is_some() {
        return Err(ApiError::new(
            Code::RefundDecided,
            "this refund already names its tickets",
        ));
    }
    let order = refund_rows::order(&db, &refund.order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let tickets = refund_rows::tickets(&db, &refund.order_id).await?;
    let mut chosen = body.ticket_ids;
    chosen.sort();
    chosen.dedup();
    let unknown: Vec<&String> = chosen
        .iter()
        .filter(|id| !tickets.iter().any(|t| &t.id == *id && t.status != "void"))
        .collect();
    if !unknown.is_empty() {
        return Err(ApiError::new(
            Code::UnknownTickets,
            "these are not live tickets of this refund's order",
        )
        .with("ticket_ids", json!(unknown)));
    }
    let worth = worth(&order, &tickets, &chosen);
    if worth > refund.amount as u64 {
        return Err(ApiError::new(
            Code::MoreThanRefunded,
            format!(
                "those tickets cost {worth}, more than the {} refunded",
                refund.amount
            ),
        ));
    }
    let now = now_ms();
    if !crate::db::admin::set_refund_tickets(&db, &refund_id, &chosen, now).await? {
        return Err(ApiError::new(
            Code::RefundDecided,
            "this refund already names its tickets",
        ));
    }
    crate::db::admin::settle_attention(&db, &refund.order_id, now).await?;
    let row = refund_rows::by_id(&db, &refund_id)
        .await?
        .ok_or_else(|| ApiError::internal("refund row vanished"))?;
    if row.status == "COMPLETED" {
        apply(&ctx.env, &db, &row).await?;
    }
    Ok(Response::from_json(&json!({
        "refund_id": refund_id, "status": row.status, "ticket_ids": chosen
    }))?)
}

/// Voids a completed refund's tickets, then reopens their seats. Repeating
/// it changes nothing.
async fn apply(env: &Env, db: &D1Database, refund: &RefundRow) -> Result<(), ApiError> {
    if refund.applied_at_ms.is_some() {
        return Ok(());
    }
    let Some(ticket_ids) = refund.tickets() else {
        return Ok(()); // Waits for staff to say which tickets.
    };
    let now = now_ms();
    if ticket_ids.is_empty() {
        // Money back, every ticket kept.
        refund_rows::mark_applied(db, refund, now).await?;
        crate::mail::send_now(env, &refund.order_id).await;
        return Ok(());
    }
    refund_rows::void_tickets(db, &ticket_ids, now).await?;
    let order = refund_rows::order(db, &refund.order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let tickets = refund_rows::tickets(db, &refund.order_id).await?;
    let seats: Vec<String> = tickets
        .iter()
        .filter(|t| ticket_ids.contains(&t.id))
        .map(|t| t.seat.clone())
        .collect();
    let void = VoidSeats {
        order_id: refund.order_id.clone(),
        seats,
    };
    let reopened = ShowtimeClient::new(env, &order.showing_id)?
        .void_seats(void)
        .await;
    if let Err(e) = reopened {
        worker::console_error!("refund {}: seats not reopened: {}", refund.id, e.detail);
        return Err(ApiError::internal(
            "the showing could not reopen the refunded seats",
        ));
    }
    refund_rows::mark_applied(db, refund, now).await?;
    crate::mail::send_now(env, &refund.order_id).await;
    Ok(())
}

/// The sweep's share: refunds whose webhook never came are looked up (or,
/// if Square never answered, asked for again with the same key).
pub async fn refund_sweep(env: &Env, now_ms: u64) -> Result<usize, ApiError> {
    let db = db::database(env)?;
    let square = Square::from_env(env).map_err(ApiError::internal)?;
    let min_age_ms = crate::settings::Settings::from_env(env).sweep_min_age_ms;
    let unsettled = refund_rows::unsettled(&db, now_ms.saturating_sub(min_age_ms)).await?;
    for refund in &unsettled {
        if refund.status == WAITING {
            ask_waiting(env, &db, refund).await?;
            continue;
        }
        let status = match &refund.square_refund_id {
            Some(id) => match square.get_refund(id).await {
                Reply::Ok(answer) => answer["refund"]["status"].as_str().map(str::to_string),
                _ => None,
            },
            None => match refund_rows::order(&db, &refund.order_id).await? {
                Some(order) => match order.payment_id.clone() {
                    Some(payment_id) => {
                        let amount = refund.amount as u64;
                        request_refund(&square, &db, &refund.id, &order, &payment_id, amount)
                            .await
                            .ok()
                    }
                    None => None,
                },
                None => None,
            },
        };
        if let Some(status) = status {
            refund_rows::upsert(
                &db,
                &refund.id,
                None,
                &refund.order_id,
                None,
                refund.amount as u64,
                &status,
                now_ms,
            )
            .await?;
            if let Some(row) = refund_rows::by_id(&db, &refund.id).await? {
                note_failure(&db, &row.id, &row.status).await?;
                if row.status == "COMPLETED" {
                    apply(env, &db, &row).await?;
                }
            }
        }
    }
    Ok(unsettled.len())
}

/// A waiting refund is asked for (under a new key) once no other refund of
/// its order may still be pending. If its tickets were refunded or voided
/// meanwhile, it is no longer needed.
async fn ask_waiting(env: &Env, db: &D1Database, refund: &RefundRow) -> Result<(), ApiError> {
    if refund_rows::other_in_flight(db, &refund.order_id, &refund.id).await? {
        return Ok(());
    }
    // An order waiting for staff (say, to choose what a Dashboard refund
    // covers) keeps its waiting refund until they have.
    let order = refund_rows::order(db, &refund.order_id).await?;
    if order.is_some_and(|o| o.status == "needs_attention") {
        return Ok(());
    }
    match refund_tickets(env, db, &refund.order_id, refund.tickets()).await {
        Ok(_) => Ok(()),
        Err(e)
            if [
                Code::UnknownTickets,
                Code::NothingToRefund,
                Code::OrderNotPaid,
            ]
            .iter()
            .any(|c| c.as_str() == e.code) =>
        {
            refund_rows::supersede(db, &refund.id, now_ms()).await?;
            Ok(())
        }
        // Refused refunds are on the attention list; anything else is
        // tried again next sweep.
        Err(e) if e.code == Code::RefundRefused.as_str() => Ok(()),
        Err(e) => {
            worker::console_error!("waiting refund {}: {}", refund.id, e.detail);
            Ok(())
        }
    }
}
