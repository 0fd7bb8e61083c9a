//! Refunds in D1: which tickets each covers, and voiding them. Every write
//! here is safe to repeat, because webhooks repeat and arrive in any order.

use serde::Deserialize;
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use super::num;

#[derive(Debug, Clone, Deserialize)]
pub struct RefundRow {
    pub id: String,
    pub square_refund_id: Option<String>,
    pub order_id: String,
    pub ticket_ids: Option<String>,
    pub amount: f64,
    pub status: String,
    pub applied_at_ms: Option<f64>,
}

impl RefundRow {
    pub fn tickets(&self) -> Option<Vec<String>> {
        self.ticket_ids
            .as_deref()
            .and_then(|t| serde_json::from_str(t).ok())
    }
}

const COLUMNS: &str = "id, square_refund_id, order_id, ticket_ids, amount, status, applied_at_ms";

/// A paid order as refunds need it.
#[derive(Debug, Clone, Deserialize)]
pub struct PaidOrder {
    pub id: String,
    pub showing_id: String,
    pub amount: f64,
    pub currency: String,
    pub payment_id: Option<String>,
    pub status: String,
}

pub async fn order_by_payment(db: &D1Database, payment_id: &str) -> Result<Option<PaidOrder>> {
    db.prepare(
        "SELECT id, showing_id, amount, currency, payment_id, status FROM orders WHERE payment_id = ?1",
    )
    .bind(&[payment_id.into()])?
    .first(None)
    .await
}

/// Paid online orders of a showing that still have a live ticket, oldest
/// first: what a cancellation refunds (the box office's are for staff).
pub async fn paid_with_live_tickets(
    db: &D1Database,
    showing_id: &str,
    limit: u32,
) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
    }
    let rows: Vec<Row> = db
        .prepare(
            "SELECT id FROM orders WHERE showing_id = ?1 AND status = 'paid' AND channel = 'online' \
             AND EXISTS (SELECT 1 FROM tickets WHERE tickets.order_id = orders.id \
             AND tickets.status = 'valid') ORDER BY created_at_ms LIMIT ?2",
        )
        .bind(&[showing_id.into(), limit.into()])?
        .all()
        .await?
        .results()?;
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// Box-office orders of a showing with a live ticket: on a cancellation,
/// staff give the money back at the desk (or tell the guest of a comp).
pub async fn box_office_orders(
    db: &D1Database,
    showing_id: &str,
) -> Result<Vec<serde_json::Value>> {
    db.prepare(
        "SELECT id, channel, name, email, amount, currency, comp_reason FROM orders \
         WHERE showing_id = ?1 AND status = 'paid' AND channel <> 'online' \
         AND EXISTS (SELECT 1 FROM tickets WHERE tickets.order_id = orders.id \
         AND tickets.status = 'valid') ORDER BY created_at_ms LIMIT 200",
    )
    .bind(&[showing_id.into()])?
    .all()
    .await?
    .results()
}

pub async fn order(db: &D1Database, order_id: &str) -> Result<Option<PaidOrder>> {
    db.prepare(
        "SELECT id, showing_id, amount, currency, payment_id, status FROM orders WHERE id = ?1",
    )
    .bind(&[order_id.into()])?
    .first(None)
    .await
}

#[derive(Debug, Clone, Deserialize)]
pub struct TicketSeat {
    pub id: String,
    pub seat: String,
    pub status: String,
    /// What it was sold at; `None` if sold before tickets had prices.
    pub price_amount: Option<f64>,
}

/// Every ticket of an order, live or void, in ticket order.
pub async fn tickets(db: &D1Database, order_id: &str) -> Result<Vec<TicketSeat>> {
    db.prepare("SELECT id, seat, status, price_amount FROM tickets WHERE order_id = ?1 ORDER BY id")
        .bind(&[order_id.into()])?
        .all()
        .await?
        .results()
}

pub async fn by_square_id(db: &D1Database, square_refund_id: &str) -> Result<Option<RefundRow>> {
    db.prepare(format!(
        "SELECT {COLUMNS} FROM refunds WHERE square_refund_id = ?1"
    ))
    .bind(&[square_refund_id.into()])?
    .first(None)
    .await
}

pub async fn by_id(db: &D1Database, id: &str) -> Result<Option<RefundRow>> {
    db.prepare(format!("SELECT {COLUMNS} FROM refunds WHERE id = ?1"))
        .bind(&[id.into()])?
        .first(None)
        .await
}

/// A refund this Worker asked for that Square has not named yet, for the
/// same order and amount: a webhook can arrive before Square's answer does.
pub async fn unnamed_request(
    db: &D1Database,
    order_id: &str,
    amount: u64,
) -> Result<Option<RefundRow>> {
    db.prepare(format!(
        "SELECT {COLUMNS} FROM refunds WHERE order_id = ?1 AND amount = ?2 \
         AND square_refund_id IS NULL AND status = 'requested' ORDER BY created_at_ms LIMIT 1"
    ))
    .bind(&[order_id.into(), num(amount)])?
    .first(None)
    .await
}

/// Records a refund (or learns more about one). The status only moves
/// forward: a late PENDING never overwrites COMPLETED.
#[allow(clippy::too_many_arguments)]
pub async fn upsert(
    db: &D1Database,
    id: &str,
    square_refund_id: Option<&str>,
    order_id: &str,
    ticket_ids: Option<&[String]>,
    amount: u64,
    status: &str,
    now_ms: u64,
) -> Result<()> {
    let tickets = ticket_ids.map(|t| serde_json::to_string(t).unwrap_or_default());
    db.prepare(
        "INSERT INTO refunds (id, square_refund_id, order_id, ticket_ids, amount, status, \
         created_at_ms, updated_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) \
         ON CONFLICT (id) DO UPDATE SET \
         square_refund_id = COALESCE(refunds.square_refund_id, excluded.square_refund_id), \
         status = CASE WHEN refunds.status IN ('COMPLETED', 'REJECTED', 'FAILED', 'refused', 'superseded') \
                  THEN refunds.status ELSE excluded.status END, \
         updated_at_ms = excluded.updated_at_ms",
    )
    .bind(&[
        id.into(),
        square_refund_id.map(JsValue::from).unwrap_or(JsValue::NULL),
        order_id.into(),
        tickets.map(JsValue::from).unwrap_or(JsValue::NULL),
        num(amount),
        status.into(),
        num(now_ms),
    ])?
    .run()
    .await?;
    Ok(())
}

/// Whether another refund of the order than `except_id` may still be
/// pending at Square: asked for (answer unknown) or PENDING.
pub async fn other_in_flight(db: &D1Database, order_id: &str, except_id: &str) -> Result<bool> {
    let row: Option<serde_json::Value> = db
        .prepare(
            "SELECT 1 AS one FROM refunds WHERE order_id = ?1 AND id <> ?2 \
             AND status IN ('requested', 'PENDING') LIMIT 1",
        )
        .bind(&[order_id.into(), except_id.into()])?
        .first(None)
        .await?;
    Ok(row.is_some())
}

/// A refund that waited for another is asked for again under a new key
/// (or no longer needed): this one is left behind for good.
pub async fn supersede(db: &D1Database, id: &str, now_ms: u64) -> Result<()> {
    db.prepare(
        "UPDATE refunds SET status = 'superseded', updated_at_ms = ?1 WHERE id = ?2 AND status = 'waiting'",
    )
    .bind(&[num(now_ms), id.into()])?
    .run()
    .await?;
    Ok(())
}

/// Why a refund did not happen (Square's code and detail, or the status
/// Square gave it), for the attention list.
pub async fn record_failure(db: &D1Database, id: &str, failure: &str) -> Result<()> {
    let failure: String = failure.chars().take(300).collect();
    db.prepare("UPDATE refunds SET failure = ?1 WHERE id = ?2")
        .bind(&[failure.into(), id.into()])?
        .run()
        .await?;
    Ok(())
}

/// Voids the tickets a completed refund covers: first of all, so the door
/// refuses them even before the seats are back on sale.
pub async fn void_tickets(db: &D1Database, ticket_ids: &[String], now_ms: u64) -> Result<()> {
    let mut batch = Vec::new();
    for id in ticket_ids {
        batch.push(
            db.prepare(
                "UPDATE tickets SET status = 'void', voided_at_ms = ?1 WHERE id = ?2 AND status <> 'void'",
            )
            .bind(&[num(now_ms), id.as_str().into()])?,
        );
    }
    db.batch(batch).await?;
    Ok(())
}

/// The refund is fully applied: tickets void and seats back on sale. The
/// order reads `refunded` once none of its tickets is live.
pub async fn mark_applied(db: &D1Database, refund: &RefundRow, now_ms: u64) -> Result<()> {
    db.batch(vec![
        db.prepare("UPDATE refunds SET applied_at_ms = ?1 WHERE id = ?2 AND applied_at_ms IS NULL")
            .bind(&[num(now_ms), refund.id.as_str().into()])?,
        db.prepare(
            "UPDATE orders SET status = 'refunded', updated_at_ms = ?1 WHERE id = ?2 \
             AND status = 'paid' \
             AND NOT EXISTS (SELECT 1 FROM tickets WHERE order_id = ?2 AND status <> 'void')",
        )
        .bind(&[num(now_ms), refund.order_id.as_str().into()])?,
        // The buyer's confirmation, queued with the refund it reports.
        super::mail::queue_refund(db, &refund.id, &refund.order_id, now_ms)?,
    ])
    .await?;
    Ok(())
}

/// A partial refund from the Dashboard that names no tickets: staff decide.
pub async fn mark_order_for_staff(
    db: &D1Database,
    order_id: &str,
    detail: &str,
    now_ms: u64,
) -> Result<()> {
    db.prepare(
        "UPDATE orders SET status = 'needs_attention', status_detail = ?1, updated_at_ms = ?2 WHERE id = ?3",
    )
    .bind(&[detail.into(), num(now_ms), order_id.into()])?
    .run()
    .await?;
    Ok(())
}

/// Refunds not yet applied and untouched since `before_ms`: the sweep asks
/// Square about them.
pub async fn unsettled(db: &D1Database, before_ms: u64) -> Result<Vec<RefundRow>> {
    db.prepare(format!(
        "SELECT {COLUMNS} FROM refunds WHERE applied_at_ms IS NULL AND updated_at_ms < ?1 \
         AND status NOT IN ('REJECTED', 'FAILED', 'refused', 'superseded') LIMIT 50"
    ))
    .bind(&[num(before_ms)])?
    .all()
    .await?
    .results()
}
