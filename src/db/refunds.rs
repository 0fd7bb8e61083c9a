//! Refunds in D1: which tickets each covers, and voiding them. Every write
//! here is safe to repeat, because webhooks repeat and arrive in any order.

use refunds::{Book, Credit, Elsewhere, News, Order, OrderStatus, Refund, Status, Ticket};
use serde::Deserialize;
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use super::num;

#[derive(Debug, Clone, Deserialize)]
pub struct RefundRow {
    pub id: String,
    pub square_refund_id: Option<String>,
    pub ticket_ids: Option<String>,
    pub amount: f64,
    pub status: String,
    pub applied_at_ms: Option<f64>,
    pub failure: Option<String>,
    pub payment_id: Option<String>,
    pub exchange_to: Option<String>,
    pub created_at_ms: f64,
}

impl RefundRow {
    pub fn tickets(&self) -> Option<Vec<String>> {
        self.ticket_ids
            .as_deref()
            .and_then(|t| serde_json::from_str(t).ok())
    }
}

const COLUMNS: &str = "id, square_refund_id, ticket_ids, amount, status, applied_at_ms, failure, \
                       payment_id, exchange_to, created_at_ms";

/// A paid order as refunds need it.
#[derive(Debug, Clone, Deserialize)]
pub struct PaidOrder {
    pub id: String,
    pub showing_id: String,
    pub amount: f64,
    pub currency: String,
    pub payment_id: Option<String>,
    pub status: String,
    /// What of `amount` the order it was exchanged from paid.
    #[serde(default)]
    pub credit: Option<f64>,
    #[serde(default)]
    pub exchanged_from: Option<String>,
}

const ORDER_COLUMNS: &str =
    "id, showing_id, amount, currency, payment_id, status, credit, exchanged_from";

pub async fn order_by_payment(db: &D1Database, payment_id: &str) -> Result<Option<PaidOrder>> {
    db.prepare(format!(
        "SELECT {ORDER_COLUMNS} FROM orders WHERE payment_id = ?1"
    ))
    .bind(&[payment_id.into()])?
    .first(None)
    .await
}

async fn order_row(db: &D1Database, order_id: &str) -> Result<Option<PaidOrder>> {
    db.prepare(format!("SELECT {ORDER_COLUMNS} FROM orders WHERE id = ?1"))
        .bind(&[order_id.into()])?
        .first(None)
        .await
}

/// The order whose book a report of Square's refund `square_id` of
/// `payment_id` belongs in: the one whose row names it; else one with a
/// refund of that payment Square has not answered yet (an exchanged
/// order's refund of its credit is of its old order's payment); else the
/// payment's own order.
pub async fn order_for_report(
    db: &D1Database,
    square_id: &str,
    payment_id: &str,
) -> Result<Option<String>> {
    if let Some(id) = one_id(
        db,
        "SELECT order_id AS id FROM refunds WHERE square_refund_id = ?1",
        square_id,
    )
    .await?
    {
        return Ok(Some(id));
    }
    if let Some(id) = one_id(
        db,
        "SELECT r.order_id AS id FROM refunds r JOIN orders o ON o.id = r.order_id \
         WHERE r.square_refund_id IS NULL AND r.status = 'requested' AND r.exchange_to IS NULL \
         AND (r.payment_id = ?1 OR (r.payment_id IS NULL AND o.payment_id = ?1)) \
         ORDER BY r.created_at_ms LIMIT 1",
        payment_id,
    )
    .await?
    {
        return Ok(Some(id));
    }
    Ok(order_by_payment(db, payment_id).await?.map(|o| o.id))
}

/// How the order an exchange bought stands in D1: its status and the
/// credit it took; `None` if it has no row.
pub async fn bought_order(db: &D1Database, order_id: &str) -> Result<Option<(String, u64)>> {
    Ok(order_row(db, order_id)
        .await?
        .map(|o| (o.status, o.credit.unwrap_or(0.0) as u64)))
}

/// Paid online orders of a showing that still have a live ticket, oldest
/// first: what a cancellation refunds (the box office's are for staff).
pub async fn paid_with_live_tickets(
    db: &D1Database,
    showing_id: &str,
    limit: u32,
) -> Result<Vec<String>> {
    ids(
        db,
        "SELECT id FROM orders WHERE showing_id = ?1 AND status = 'paid' AND channel = 'online' \
         AND EXISTS (SELECT 1 FROM tickets WHERE tickets.order_id = orders.id \
         AND tickets.status = 'valid') ORDER BY created_at_ms LIMIT ?2",
        showing_id.into(),
        limit.into(),
    )
    .await
}

/// The ids a query of two parameters answers, each row's `id`.
async fn ids(db: &D1Database, sql: &str, first: JsValue, second: JsValue) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
    }
    let rows: Vec<Row> = db
        .prepare(sql)
        .bind(&[first, second])?
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

#[derive(Debug, Clone, Deserialize)]
pub struct TicketSeat {
    pub id: String,
    pub seat: String,
    pub status: String,
    /// What it was sold at; `None` if sold before tickets had prices.
    pub price_amount: Option<f64>,
    pub checked_in_at_ms: Option<f64>,
}

/// Every ticket of an order, live or void, in ticket order; a ticket
/// staff moved is left out, as its replacement stands for it (an equal
/// share of an order sold before tickets had prices counts each seat once).
async fn tickets(db: &D1Database, order_id: &str) -> Result<Vec<TicketSeat>> {
    db.prepare(
        "SELECT id, seat, status, price_amount, checked_in_at_ms FROM tickets \
         WHERE order_id = ?1 AND moved_to IS NULL ORDER BY id",
    )
    .bind(&[order_id.into()])?
    .all()
    .await?
    .results()
}

pub async fn by_id(db: &D1Database, id: &str) -> Result<Option<RefundRow>> {
    db.prepare(format!("SELECT {COLUMNS} FROM refunds WHERE id = ?1"))
        .bind(&[id.into()])?
        .first(None)
        .await
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

/// An order's refunds book: the order, its tickets and its refunds, oldest
/// first. `None` if there is no such order.
pub async fn book(db: &D1Database, order_id: &str) -> Result<Option<Book>> {
    let Some(order) = order_row(db, order_id).await? else {
        return Ok(None);
    };
    let tickets = tickets(db, order_id)
        .await?
        .into_iter()
        .take(refunds::MAX_TICKETS)
        .map(|t| Ticket {
            live: t.status != "void",
            checked_in: t.checked_in_at_ms.is_some(),
            id: t.id,
            seat: t.seat,
            price: t.price_amount.map(|p| p as u64),
        })
        .collect();
    let rows: Vec<RefundRow> = db
        .prepare(format!(
            "SELECT {COLUMNS} FROM refunds WHERE order_id = ?1 ORDER BY created_at_ms, id LIMIT ?2"
        ))
        .bind(&[order_id.into(), num(refunds::MAX_REFUNDS as u64)])?
        .all()
        .await?
        .results()?;
    let mut refunds = Vec::with_capacity(rows.len());
    for row in rows {
        let status = Status::from_stored(&row.status).ok_or_else(|| {
            worker::Error::RustError(format!("refund {} has no status {}", row.id, row.status))
        })?;
        refunds.push(Refund {
            tickets: row.tickets(),
            id: row.id,
            square_id: row.square_refund_id,
            amount: row.amount as u64,
            status,
            applied: row.applied_at_ms.is_some(),
            failure: row.failure,
            payment_id: row.payment_id,
            exchange_to: row.exchange_to,
            asked_ms: row.created_at_ms.max(0.0) as u64,
        });
    }
    // An exchanged order draws on its old order's payment for its credit.
    let credit_amount = order.credit.unwrap_or(0.0) as u64;
    let credit = match (&order.exchanged_from, credit_amount) {
        (Some(from), 1..) => order_row(db, from).await?.and_then(|old| {
            Some(Credit {
                from_order: old.id,
                payment_id: old.payment_id?,
                amount: credit_amount,
                payment_amount: old.amount as u64,
            })
        }),
        _ => None,
    };
    let mut book = Book {
        order: Order {
            id: order.id,
            showing_id: order.showing_id,
            payment_id: order.payment_id,
            // Its own payment took what the credit did not pay.
            amount: (order.amount as u64).saturating_sub(credit_amount),
            currency: order.currency,
            status: OrderStatus::from_stored(&order.status),
            credit,
        },
        tickets,
        refunds,
        elsewhere: Vec::new(),
    };
    // Other orders may draw on this order's payments only through an
    // exchange, which leaves a row here; without one, there are none.
    let shared =
        book.order.credit.is_some() || book.refunds.iter().any(|r| r.exchange_to.is_some());
    if shared {
        book.elsewhere = elsewhere(db, &book).await?;
    }
    Ok(Some(book))
}

/// The refunds of other orders of the payments `book` draws on: those an
/// exchanged order drew on its credit, and the old order's own.
async fn elsewhere(db: &D1Database, book: &Book) -> Result<Vec<Elsewhere>> {
    #[derive(Deserialize)]
    struct Row {
        payment_id: String,
        status: String,
        amount: f64,
    }
    let payments: Vec<String> = book
        .sources()
        .into_iter()
        .filter_map(|s| s.payment_id)
        .collect();
    let mut found = Vec::new();
    for payment_id in payments {
        let rows: Vec<Row> = db
            .prepare(
                "SELECT ?1 AS payment_id, r.status, r.amount FROM refunds r \
                 JOIN orders o ON o.id = r.order_id \
                 WHERE r.order_id <> ?2 AND r.exchange_to IS NULL \
                 AND (r.payment_id = ?1 OR (r.payment_id IS NULL AND o.payment_id = ?1)) \
                 LIMIT ?3",
            )
            .bind(&[
                payment_id.as_str().into(),
                book.order.id.as_str().into(),
                num(refunds::MAX_REFUNDS as u64),
            ])?
            .all()
            .await?
            .results()?;
        for row in rows {
            if let Some(status) = Status::from_stored(&row.status) {
                found.push(Elsewhere {
                    payment_id: row.payment_id,
                    status,
                    amount: row.amount as u64,
                });
            }
        }
    }
    Ok(found)
}

/// Writes a refund as the machine now has it. Safe to repeat, and safe
/// beside another writer: an id, its tickets and a final status, once set,
/// stay; a failure puts it on the staff's attention list; `news` queues
/// the buyer's message in the same batch.
pub async fn save(
    db: &D1Database,
    order_id: &str,
    refund: &Refund,
    news: Option<News>,
    now_ms: u64,
) -> Result<()> {
    let mut batch = vec![db
        .prepare(
            "INSERT INTO refunds (id, square_refund_id, order_id, ticket_ids, amount, status, \
             failure, created_at_ms, updated_at_ms, payment_id, exchange_to) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10) \
             ON CONFLICT (id) DO UPDATE SET \
             square_refund_id = COALESCE(refunds.square_refund_id, excluded.square_refund_id), \
             ticket_ids = COALESCE(refunds.ticket_ids, excluded.ticket_ids), \
             status = CASE WHEN refunds.status IN \
                      ('COMPLETED', 'REJECTED', 'FAILED', 'refused', 'superseded') \
                      THEN refunds.status ELSE excluded.status END, \
             failure = COALESCE(excluded.failure, refunds.failure), \
             amount = CASE WHEN refunds.exchange_to IS NOT NULL AND refunds.status = 'requested' \
                      THEN excluded.amount ELSE refunds.amount END, \
             updated_at_ms = excluded.updated_at_ms",
        )
        .bind(&[
            refund.id.as_str().into(),
            refund
                .square_id
                .as_deref()
                .map(JsValue::from)
                .unwrap_or(JsValue::NULL),
            order_id.into(),
            tickets_of(refund),
            num(refund.amount),
            refund.status.stored().into(),
            refund
                .failure
                .as_deref()
                .map(JsValue::from)
                .unwrap_or(JsValue::NULL),
            num(now_ms),
            or_null(refund.payment_id.as_deref()),
            or_null(refund.exchange_to.as_deref()),
        ])?];
    if let Some(news) = news {
        let status = match news {
            News::Failed => Status::Failed,
            News::Rejected => Status::Rejected,
        };
        batch.push(super::mail::queue_refund_failed(
            db,
            &refund.id,
            order_id,
            status.stored(),
            now_ms,
        )?);
    }
    db.batch(batch).await?;
    Ok(())
}

fn or_null(text: Option<&str>) -> JsValue {
    text.map(JsValue::from).unwrap_or(JsValue::NULL)
}

/// A refund's tickets as stored: a JSON list, or NULL while staff have
/// not named them.
fn tickets_of(refund: &Refund) -> JsValue {
    refund
        .tickets
        .as_ref()
        .and_then(|t| serde_json::to_string(t).ok())
        .map(JsValue::from)
        .unwrap_or(JsValue::NULL)
}

/// Records a refund unless one of its id is there already: the refund a
/// showing's object sends, recorded before each time it is sent.
pub async fn record_new(
    db: &D1Database,
    order_id: &str,
    refund: &Refund,
    now_ms: u64,
) -> Result<()> {
    db.prepare(
        "INSERT INTO refunds (id, order_id, ticket_ids, amount, status, created_at_ms, \
         updated_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6) ON CONFLICT (id) DO NOTHING",
    )
    .bind(&[
        refund.id.as_str().into(),
        order_id.into(),
        tickets_of(refund),
        num(refund.amount),
        refund.status.stored().into(),
        num(now_ms),
    ])?
    .run()
    .await?;
    Ok(())
}

/// The refund is fully applied: tickets void and seats back on sale. The
/// order reads `refunded` once none of its tickets is live; the buyer's
/// confirmation is queued with it.
pub async fn mark_applied(
    db: &D1Database,
    refund_id: &str,
    order_id: &str,
    exchange: bool,
    now_ms: u64,
) -> Result<()> {
    // An order whose last tickets were exchanged reads `exchanged`: its
    // buyer's message is the new order's tickets.
    let ended = if exchange { "exchanged" } else { "refunded" };
    let mut batch = vec![
        db.prepare("UPDATE refunds SET applied_at_ms = ?1 WHERE id = ?2 AND applied_at_ms IS NULL")
            .bind(&[num(now_ms), refund_id.into()])?,
        db.prepare(
            "UPDATE orders SET status = ?3, updated_at_ms = ?1 WHERE id = ?2 \
             AND status = 'paid' \
             AND NOT EXISTS (SELECT 1 FROM tickets WHERE order_id = ?2 AND status <> 'void')",
        )
        .bind(&[num(now_ms), order_id.into(), ended.into()])?,
    ];
    if !exchange {
        batch.push(super::mail::queue_refund(db, refund_id, order_id, now_ms)?);
    }
    db.batch(batch).await?;
    Ok(())
}

/// The order a refund belongs to.
pub async fn order_of_refund(db: &D1Database, refund_id: &str) -> Result<Option<String>> {
    one_id(
        db,
        "SELECT order_id AS id FROM refunds WHERE id = ?1",
        refund_id,
    )
    .await
}

/// The one id a query by one key answers, if any.
async fn one_id(db: &D1Database, sql: &str, key: &str) -> Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
    }
    let row: Option<Row> = db.prepare(sql).bind(&[key.into()])?.first(None).await?;
    Ok(row.map(|r| r.id))
}

/// Most orders one sweep settles refunds of.
pub const SWEEP_ORDERS: u32 = 50;

/// Orders with a refund not yet settled and untouched since `before_ms`,
/// least recently touched first: the sweep hands each to the machine. A
/// completed refund waiting for staff to name its tickets is theirs, not
/// the sweep's.
pub async fn orders_unsettled(db: &D1Database, before_ms: u64) -> Result<Vec<String>> {
    ids(
        db,
        "SELECT order_id AS id FROM refunds WHERE applied_at_ms IS NULL AND updated_at_ms < ?1 \
         AND status NOT IN ('REJECTED', 'FAILED', 'refused', 'superseded') \
         AND NOT (status = 'COMPLETED' AND ticket_ids IS NULL) \
         GROUP BY order_id ORDER BY MIN(updated_at_ms) LIMIT ?2",
        num(before_ms),
        SWEEP_ORDERS.into(),
    )
    .await
}

/// The sweep tried an order's unsettled refunds and failed: they count
/// as touched now, so the next sweep takes the others first.
pub async fn tried(db: &D1Database, order_id: &str, now_ms: u64) -> Result<()> {
    db.prepare(
        "UPDATE refunds SET updated_at_ms = ?1 WHERE order_id = ?2 AND applied_at_ms IS NULL \
         AND status NOT IN ('REJECTED', 'FAILED', 'refused', 'superseded')",
    )
    .bind(&[num(now_ms), order_id.into()])?
    .run()
    .await?;
    Ok(())
}

/// A showing's start and its own buyer policy (JSON; `None` takes the
/// cinema's); `None` if there is no such showing.
pub async fn showing_policy(
    db: &D1Database,
    showing_id: &str,
) -> Result<Option<(u64, Option<String>)>> {
    policy_row(
        db,
        "SELECT starts_at_ms, buyer_policy FROM showings WHERE id = ?1",
        showing_id,
    )
    .await
}

/// [`showing_policy`] of the showing an order is for, in one query;
/// `None` if there is no such order.
pub async fn order_policy(
    db: &D1Database,
    order_id: &str,
) -> Result<Option<(u64, Option<String>)>> {
    policy_row(
        db,
        "SELECT s.starts_at_ms, s.buyer_policy FROM orders o \
         JOIN showings s ON s.id = o.showing_id WHERE o.id = ?1",
        order_id,
    )
    .await
}

async fn policy_row(
    db: &D1Database,
    sql: &str,
    key: &str,
) -> Result<Option<(u64, Option<String>)>> {
    #[derive(Deserialize)]
    struct Row {
        starts_at_ms: f64,
        buyer_policy: Option<String>,
    }
    let row: Option<Row> = db.prepare(sql).bind(&[key.into()])?.first(None).await?;
    Ok(row.map(|r| (r.starts_at_ms.max(0.0) as u64, r.buyer_policy)))
}

/// Sets a showing's own buyer policy (`None`: the cinema's); answers
/// whether the showing exists.
pub async fn set_showing_policy(
    db: &D1Database,
    showing_id: &str,
    policy: Option<&str>,
) -> Result<bool> {
    let result = db
        .prepare("UPDATE showings SET buyer_policy = ?1 WHERE id = ?2")
        .bind(&[
            policy.map(JsValue::from).unwrap_or(JsValue::NULL),
            showing_id.into(),
        ])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) == 1)
}
