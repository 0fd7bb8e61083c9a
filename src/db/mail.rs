//! The mail outbox in D1. Rows are queued inside the batch that records
//! what they report (see [`queue_tickets`], [`queue_refund`]); a sender
//! claims a row before it sends, so two senders never send one row.

use serde::Deserialize;
use wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement, Result};

use mail::outbox::{Kind, Status};

use super::num;

/// Most messages one order page lists.
const ORDER_LIST_LIMIT: u32 = 100;

/// The tickets mail of a paid order, for its buyer. Keyed by the order, so
/// the paid write repeated queues it once.
pub fn queue_tickets(db: &D1Database, order_id: &str, now_ms: u64) -> Result<D1PreparedStatement> {
    queue_for_order(
        db,
        &format!("tickets:{order_id}"),
        Kind::Tickets,
        order_id,
        About::Order,
        now_ms,
    )
}

/// Staff asked for the tickets again: a new row each time.
pub fn queue_resend(
    db: &D1Database,
    row_id: &str,
    order_id: &str,
    now_ms: u64,
) -> Result<D1PreparedStatement> {
    queue_for_order(db, row_id, Kind::Tickets, order_id, About::Order, now_ms)
}

/// The confirmation of an applied refund, for the order's buyer.
pub fn queue_refund(
    db: &D1Database,
    refund_id: &str,
    order_id: &str,
    now_ms: u64,
) -> Result<D1PreparedStatement> {
    queue_for_order(
        db,
        &format!("refund:{refund_id}"),
        Kind::Refund,
        order_id,
        About::Refund(refund_id),
        now_ms,
    )
}

/// A refund that ended `FAILED` or `REJECTED` (Square's `status`), for
/// the order's buyer. Keyed by the refund, whichever way it ended, so a
/// repeated webhook, sweep or write queues it once. Any other status is
/// refused: only those two leave the money where it was.
pub fn queue_refund_failed(
    db: &D1Database,
    refund_id: &str,
    order_id: &str,
    status: &str,
    now_ms: u64,
) -> Result<D1PreparedStatement> {
    let kind = Kind::of_refund_not_made(status).ok_or_else(|| {
        worker::Error::RustError(format!(
            "refund {refund_id}: no buyer message for a refund {status}"
        ))
    })?;
    queue_for_order(
        db,
        &format!("refund_failed:{refund_id}"),
        kind,
        order_id,
        About::Refund(refund_id),
        now_ms,
    )
}

/// The buyer's message of an order that ended without tickets (declined,
/// seat lost, payment cancelled), queued only when the order is final and
/// its checkout was answered pending (see [`super::orders::answered_pending`]):
/// a buyer answered with the outcome itself saw it on the page. Run in the
/// batch that records the outcome and in the one that marks the answer, so
/// whichever comes second queues it; keyed by the order, so it is queued
/// once however often either runs. Box-office orders are never mailed.
pub fn queue_unpaid_outcome(
    db: &D1Database,
    order_id: &str,
    now_ms: u64,
) -> Result<D1PreparedStatement> {
    // Each final status and its message, as `?3`/`?4`, `?5`/`?6`, `?7`/`?8`.
    const UNPAID: [&str; 3] = ["declined", "seat_lost", "failed"];
    let mut args: Vec<JsValue> = vec![num(now_ms), order_id.into()];
    for status in UNPAID {
        let kind = Kind::of_unpaid_order(status).map_or("", Kind::as_str);
        args.extend([status.into(), kind.into()]);
    }
    db.prepare(
        "INSERT INTO mail_outbox (id, kind, order_id, refund_id, to_addr, status, \
         next_try_at_ms, created_at_ms, updated_at_ms) \
         SELECT kind || ':' || id, kind, id, NULL, email, 'queued', ?1, ?1, ?1 FROM \
         (SELECT id, email, CASE status WHEN ?3 THEN ?4 WHEN ?5 THEN ?6 WHEN ?7 THEN ?8 END \
         AS kind FROM orders WHERE id = ?2 AND answered_pending_at_ms IS NOT NULL \
         AND channel = 'online' AND email <> '') \
         WHERE kind IS NOT NULL ON CONFLICT (id) DO NOTHING",
    )
    .bind(&args)
}

/// The showing was cancelled: one message to each order paid so far (an
/// order paid later is queued when it is refunded).
pub fn queue_cancelled_of_showing(
    db: &D1Database,
    showing_id: &str,
    now_ms: u64,
) -> Result<D1PreparedStatement> {
    db.prepare(
        "INSERT INTO mail_outbox (id, kind, order_id, refund_id, to_addr, status, next_try_at_ms, \
         created_at_ms, updated_at_ms) \
         SELECT 'cancelled:' || id, ?1, id, NULL, email, 'queued', ?2, ?2, ?2 FROM orders \
         WHERE showing_id = ?3 AND status = 'paid' AND email <> '' \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(&[
        Kind::Cancelled.as_str().into(),
        num(now_ms),
        showing_id.into(),
    ])
}

/// A moved ticket's replacement, for the order's buyer: keyed by the new
/// ticket, so the move's write repeated queues it once, and queued only
/// once the new ticket is issued (the statement before it in the batch).
pub fn queue_moved(
    db: &D1Database,
    ticket_id: &str,
    order_id: &str,
    now_ms: u64,
) -> Result<D1PreparedStatement> {
    queue_for_order(
        db,
        &format!("moved:{ticket_id}"),
        Kind::Moved,
        order_id,
        About::Ticket(ticket_id),
        now_ms,
    )
}

/// The cancellation message of one order, queued once.
pub fn queue_cancelled(
    db: &D1Database,
    order_id: &str,
    now_ms: u64,
) -> Result<D1PreparedStatement> {
    queue_for_order(
        db,
        &format!("cancelled:{order_id}"),
        Kind::Cancelled,
        order_id,
        About::Order,
        now_ms,
    )
}

/// What a message to an order's buyer is about, besides the order.
enum About<'a> {
    Order,
    Refund(&'a str),
    /// A ticket of the order: queued only once that ticket exists.
    Ticket(&'a str),
}

/// A message to the buyer of `order_id` (none when it has no address),
/// keyed `row_id`, so queueing it again changes nothing.
fn queue_for_order(
    db: &D1Database,
    row_id: &str,
    kind: Kind,
    order_id: &str,
    about: About,
    now_ms: u64,
) -> Result<D1PreparedStatement> {
    let (refund_id, ticket_id) = match about {
        About::Order => (None, None),
        About::Refund(refund_id) => (Some(refund_id), None),
        About::Ticket(ticket_id) => (None, Some(ticket_id)),
    };
    let or_null = |id: Option<&str>| id.map(JsValue::from).unwrap_or(JsValue::NULL);
    db.prepare(
        "INSERT INTO mail_outbox (id, kind, order_id, refund_id, ticket_id, to_addr, status, \
         next_try_at_ms, created_at_ms, updated_at_ms) \
         SELECT ?1, ?2, id, ?3, ?6, email, 'queued', ?4, ?4, ?4 FROM orders WHERE id = ?5 \
         AND email <> '' AND (?6 IS NULL OR EXISTS (SELECT 1 FROM tickets WHERE id = ?6)) \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(&[
        row_id.into(),
        kind.as_str().into(),
        or_null(refund_id),
        num(now_ms),
        order_id.into(),
        or_null(ticket_id),
    ])
}

/// A message to an address with no order of its own (order links, the
/// staff digest, a waiting list offer with what it offers as `detail`),
/// named by `row_id` so queueing it twice is one row. Answers whether the
/// row is new.
pub async fn queue_to(
    db: &D1Database,
    row_id: &str,
    kind: Kind,
    to: &str,
    detail: Option<&str>,
    now_ms: u64,
) -> Result<bool> {
    let result = db
        .prepare(
            "INSERT INTO mail_outbox (id, kind, to_addr, detail, status, next_try_at_ms, \
             created_at_ms, updated_at_ms) VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5, ?5) \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(&[
            row_id.into(),
            kind.as_str().into(),
            to.into(),
            detail.map(JsValue::from).unwrap_or(JsValue::NULL),
            num(now_ms),
        ])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) == 1)
}

/// Queues an order-link message to `to` unless it was sent `limit` of
/// them since `since_ms`, in one statement, so lookups handled at once
/// cannot each count the same few and all queue; answers whether it did.
pub async fn queue_lookup(
    db: &D1Database,
    row_id: &str,
    to: &str,
    since_ms: u64,
    limit: u64,
    now_ms: u64,
) -> Result<bool> {
    let kind = Kind::Lookup.as_str();
    let result = db
        .prepare(
            "INSERT INTO mail_outbox (id, kind, to_addr, status, next_try_at_ms, created_at_ms, \
             updated_at_ms) SELECT ?1, ?2, ?3, 'queued', ?4, ?4, ?4 \
             WHERE (SELECT COUNT(*) FROM mail_outbox WHERE to_addr = ?3 AND kind = ?2 \
             AND created_at_ms >= ?5) < ?6 ON CONFLICT (id) DO NOTHING",
        )
        .bind(&[
            row_id.into(),
            kind.into(),
            to.into(),
            num(now_ms),
            num(since_ms),
            num(limit),
        ])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) == 1)
}

#[derive(Debug, Deserialize)]
pub struct MailRow {
    pub id: String,
    pub kind: String,
    pub order_id: Option<String>,
    pub refund_id: Option<String>,
    /// The ticket a `moved` message sends.
    pub ticket_id: Option<String>,
    /// What an `offer` message offers (JSON).
    pub detail: Option<String>,
    pub to_addr: String,
    pub status: String,
    pub tries: f64,
    pub created_at_ms: f64,
}

const ROW_COLUMNS: &str =
    "id, kind, order_id, refund_id, ticket_id, detail, to_addr, status, tries, created_at_ms";

/// Which due rows a drain takes.
#[derive(Clone, Copy)]
pub enum Filter<'a> {
    All,
    Order(&'a str),
    Row(&'a str),
}

/// Rows whose time has come, oldest first: queued ones due now, and
/// claimed ones whose sender may have stopped (the caller decides).
pub async fn due(
    db: &D1Database,
    filter: Filter<'_>,
    now_ms: u64,
    limit: u32,
) -> Result<Vec<MailRow>> {
    let (filter, args): (&str, Vec<JsValue>) = match filter {
        Filter::Order(id) => ("AND order_id = ?2", vec![num(now_ms), id.into()]),
        Filter::Row(id) => ("AND id = ?2", vec![num(now_ms), id.into()]),
        Filter::All => ("", vec![num(now_ms)]),
    };
    db.prepare(format!(
        "SELECT {ROW_COLUMNS} FROM mail_outbox WHERE status IN ('queued', 'sending') \
         AND next_try_at_ms <= ?1 {filter} ORDER BY next_try_at_ms LIMIT {limit}"
    ))
    .bind(&args)?
    .all()
    .await?
    .results()
}

/// Takes a queued row for this sender; false when another took it first.
/// The claim moves the row's next try past the lease, so a lapsed claim
/// comes back as due.
pub async fn claim(db: &D1Database, row_id: &str, now_ms: u64, lease_ms: u64) -> Result<bool> {
    let result = db
        .prepare(
            "UPDATE mail_outbox SET status = 'sending', claimed_at_ms = ?1, tries = tries + 1, \
             next_try_at_ms = ?2, updated_at_ms = ?1 WHERE id = ?3 AND status = 'queued'",
        )
        .bind(&[num(now_ms), num(now_ms + lease_ms), row_id.into()])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) == 1)
}

pub async fn mark_sent(db: &D1Database, row_id: &str, message_id: &str, now_ms: u64) -> Result<()> {
    db.prepare(
        "UPDATE mail_outbox SET status = 'sent', sent_at_ms = ?1, message_id = ?2, \
         last_error = NULL, updated_at_ms = ?1 WHERE id = ?3",
    )
    .bind(&[num(now_ms), message_id.into(), row_id.into()])?
    .run()
    .await?;
    Ok(())
}

/// A failed try: back to `queued` for `retry_at_ms`, or `failed` for good.
pub async fn mark_failed_try(
    db: &D1Database,
    row_id: &str,
    error: &str,
    retry_at_ms: Option<u64>,
    now_ms: u64,
) -> Result<()> {
    let (status, next) = match retry_at_ms {
        Some(at) => (Status::Queued, at),
        None => (Status::Failed, now_ms),
    };
    db.prepare(
        "UPDATE mail_outbox SET status = ?1, last_error = ?2, next_try_at_ms = ?3, \
         claimed_at_ms = NULL, updated_at_ms = ?4 WHERE id = ?5",
    )
    .bind(&[
        status.as_str().into(),
        error.into(),
        num(next),
        num(now_ms),
        row_id.into(),
    ])?
    .run()
    .await?;
    Ok(())
}

/// An order's messages, newest first, as staff see them.
pub async fn of_order(db: &D1Database, order_id: &str) -> Result<Vec<serde_json::Value>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
        kind: String,
        to_addr: String,
        status: String,
        tries: f64,
        last_error: Option<String>,
        sent_at_ms: Option<f64>,
        created_at_ms: f64,
    }
    let rows: Vec<Row> = db
        .prepare(format!(
            "SELECT id, kind, to_addr, status, tries, last_error, sent_at_ms, created_at_ms \
             FROM mail_outbox WHERE order_id = ?1 ORDER BY created_at_ms DESC, id \
             LIMIT {ORDER_LIST_LIMIT}"
        ))
        .bind(&[order_id.into()])?
        .all()
        .await?
        .results()?;
    Ok(rows
        .into_iter()
        .map(|r| {
            serde_json::json!({
                "id": r.id,
                "kind": r.kind,
                "to": r.to_addr,
                "status": Status::parse(&r.status).map_or("queued", Status::public),
                "tries": r.tries as u64,
                "last_error": r.last_error,
                "sent_at_ms": r.sent_at_ms.map(|t| t as u64),
                "queued_at_ms": r.created_at_ms as u64,
            })
        })
        .collect())
}

/// An order as a lookup mail lists it.
#[derive(Debug, Deserialize)]
pub struct AddressOrder {
    pub id: String,
    pub amount: f64,
    pub currency: String,
    pub title: String,
    pub starts_at_ms: f64,
}

/// Most orders one lookup mail lists.
const LOOKUP_LIMIT: u32 = 50;

/// The orders of an address that a buyer may want back: those made since
/// `since_ms` and those whose showing is still to come. Orders that never
/// took money (declined, failed) are left out.
pub async fn orders_of_address(
    db: &D1Database,
    email: &str,
    since_ms: u64,
    now_ms: u64,
) -> Result<Vec<AddressOrder>> {
    db.prepare(format!(
        "SELECT o.id, o.amount, o.currency, s.title, s.starts_at_ms FROM orders o \
         JOIN showings s ON s.id = o.showing_id \
         WHERE o.email = ?1 COLLATE NOCASE \
         AND o.status IN ('paid', 'refunded', 'exchanged', 'pending') \
         AND (o.created_at_ms >= ?2 OR s.starts_at_ms >= ?3) \
         ORDER BY s.starts_at_ms DESC LIMIT {LOOKUP_LIMIT}"
    ))
    .bind(&[email.into(), num(since_ms), num(now_ms)])?
    .all()
    .await?
    .results()
}

/// Records one order-link request of `client` unless it made `limit`
/// since `since_ms`; answers whether it was recorded (allowed). Rows older
/// than the window are cleared on the way.
pub async fn note_lookup(
    db: &D1Database,
    client: &str,
    since_ms: u64,
    limit: u32,
    now_ms: u64,
) -> Result<bool> {
    let results = db
        .batch(vec![
            db.prepare("DELETE FROM lookup_requests WHERE at_ms < ?1")
                .bind(&[num(since_ms)])?,
            db.prepare(
                "INSERT INTO lookup_requests (client, at_ms) SELECT ?1, ?2 \
                 WHERE (SELECT COUNT(*) FROM lookup_requests WHERE client = ?1) < ?3",
            )
            .bind(&[client.into(), num(now_ms), num(u64::from(limit))])?,
        ])
        .await?;
    let inserted = results
        .last()
        .map(|r| r.meta().ok().flatten().and_then(|m| m.changes).unwrap_or(0))
        .unwrap_or(0);
    Ok(inserted == 1)
}
