//! What the distributor return reads: a week's showings, the tickets sold
//! for them, and the refunds made in the week (`crate::reports` adds them
//! up).

use serde::Deserialize;
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use crate::reports::{RefundRow, ShowingRow, SoldTicket};
use crate::sales::{Captured, Refunded};

/// Most rows one report reads of each kind: a big cinema's week is far
/// below it, and a week past it is refused rather than cut short.
pub const REPORT_LIMIT: usize = 20_000;

/// Orders whose tickets were sold, whatever came after (a refund is
/// counted in its own week).
const SOLD: &str = "('paid', 'refunded', 'exchanged')";

#[derive(Deserialize)]
struct Showing {
    id: String,
    title: String,
    film_id: Option<String>,
    starts_at_ms: f64,
    currency: String,
    seat_count: f64,
}

#[derive(Deserialize)]
struct Ticket {
    showing_id: String,
    price_name: Option<String>,
    price_amount: Option<f64>,
    price_tax: Option<f64>,
    order_amount: f64,
    seats: f64,
    channel: String,
    made_at_ms: f64,
}

#[derive(Deserialize)]
struct Refund {
    id: String,
    title: String,
    film_id: Option<String>,
    amount: f64,
}

#[derive(Deserialize)]
struct RefundedTicket {
    refund_id: String,
    price_amount: Option<f64>,
    price_tax: Option<f64>,
}

fn at(ms: i64) -> JsValue {
    JsValue::from(ms as f64)
}

/// A week past [`REPORT_LIMIT`] rows is refused, not cut short.
fn bounded<T>(rows: Vec<T>) -> Result<Vec<T>> {
    if rows.len() > REPORT_LIMIT {
        return Err(worker::Error::RustError(format!(
            "more than {REPORT_LIMIT} rows in one week's report"
        )));
    }
    Ok(rows)
}

/// The rows a query over the week `[from_ms, to_ms)` answers (`?1`, `?2`),
/// at most [`REPORT_LIMIT`].
async fn week_rows<T: serde::de::DeserializeOwned>(
    db: &D1Database,
    sql: &str,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<T>> {
    let rows = db
        .prepare(format!("{sql} LIMIT {}", REPORT_LIMIT + 1))
        .bind(&[at(from_ms), at(to_ms)])?
        .all()
        .await?
        .results()?;
    bounded(rows)
}

fn whole(n: Option<f64>) -> u64 {
    n.map_or(0, |n| n as u64)
}

/// The showings starting in `[from_ms, to_ms)`.
pub async fn showings(db: &D1Database, from_ms: i64, to_ms: i64) -> Result<Vec<ShowingRow>> {
    let sql = "SELECT id, title, film_id, starts_at_ms, currency, seat_count FROM showings \
               WHERE starts_at_ms >= ?1 AND starts_at_ms < ?2 ORDER BY starts_at_ms";
    let rows: Vec<Showing> = week_rows(db, sql, from_ms, to_ms).await?;
    Ok(rows
        .into_iter()
        .map(|s| ShowingRow {
            id: s.id,
            title: s.title,
            film_id: s.film_id,
            starts_at_ms: s.starts_at_ms as i64,
            currency: s.currency,
            capacity: s.seat_count as u64,
        })
        .collect())
}

/// What `sold` reads of each ticket, from where, and which count.
const SOLD_COLUMNS: &str = "t.showing_id, t.price_name, t.price_amount, t.price_tax, \
    o.amount AS order_amount, \
    (SELECT COUNT(*) FROM tickets u WHERE u.order_id = o.id AND u.moved_from IS NULL) AS seats, \
    o.channel, o.created_at_ms AS made_at_ms";
const SOLD_TABLES: &str =
    "tickets t JOIN orders o ON o.id = t.order_id JOIN showings s ON s.id = t.showing_id";
const SOLD_LIVE: &str = "t.moved_from IS NULL";

/// Which time of a sale a range is read against.
#[derive(Clone, Copy)]
pub enum SoldBy {
    /// The showing it is for starts in the range (the distributor return).
    Showing,
    /// Its order was made in the range (sales by day).
    Order,
}

/// Every ticket sold for showings starting in `[from_ms, to_ms)`, or in
/// orders made then, once each (not the copies staff made moving one). A
/// ticket sold before tickets had prices is its order's amount shared
/// equally.
pub async fn sold(
    db: &D1Database,
    by: SoldBy,
    from_ms: i64,
    to_ms: i64,
) -> Result<Vec<SoldTicket>> {
    let sql = match by {
        SoldBy::Showing => format!(
            "SELECT {SOLD_COLUMNS} FROM {SOLD_TABLES} \
             WHERE s.starts_at_ms >= ?1 AND s.starts_at_ms < ?2 AND {SOLD_LIVE} \
               AND o.status IN {SOLD}"
        ),
        SoldBy::Order => format!(
            "SELECT {SOLD_COLUMNS} FROM {SOLD_TABLES} \
             WHERE o.created_at_ms >= ?1 AND o.created_at_ms < ?2 AND {SOLD_LIVE} \
               AND o.status IN {SOLD}"
        ),
    };
    let rows: Vec<Ticket> = week_rows(db, &sql, from_ms, to_ms).await?;
    Ok(rows
        .into_iter()
        .map(|t| SoldTicket {
            showing_id: t.showing_id,
            category: t.price_name.unwrap_or_else(|| "Standard".into()),
            amount: t
                .price_amount
                .map_or_else(|| (t.order_amount / t.seats.max(1.0)) as u64, |a| a as u64),
            tax: whole(t.price_tax),
            channel: t.channel,
            made_at_ms: t.made_at_ms as i64,
        })
        .collect())
}

#[derive(Deserialize)]
struct Moved {
    at_ms: f64,
    amount: f64,
}

/// Money Square gave back in `[from_ms, to_ms)`, when it went back (an
/// exchange moves money between orders and is none of it).
pub async fn refunded(db: &D1Database, from_ms: i64, to_ms: i64) -> Result<Vec<Refunded>> {
    let rows: Vec<Moved> = week_rows(
        db,
        "SELECT r.applied_at_ms AS at_ms, r.amount FROM refunds r \
         WHERE r.status = 'COMPLETED' AND r.exchange_to IS NULL \
           AND r.applied_at_ms >= ?1 AND r.applied_at_ms < ?2",
        from_ms,
        to_ms,
    )
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| Refunded {
            at_ms: r.at_ms as i64,
            amount: r.amount as u64,
        })
        .collect())
}

/// Money through Square in `[from_ms, to_ms)`: each online order made
/// then, by id, with what its card paid (its price less any exchange
/// credit) and when it was made.
pub async fn captured(db: &D1Database, from_ms: i64, to_ms: i64) -> Result<Vec<Captured>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
        at_ms: f64,
        amount: f64,
    }
    let sql = format!(
        "SELECT o.id, o.created_at_ms AS at_ms, o.amount - o.credit AS amount FROM orders o \
         WHERE o.channel = 'online' AND o.status IN {SOLD} AND o.amount > o.credit \
           AND o.created_at_ms >= ?1 AND o.created_at_ms < ?2"
    );
    let rows: Vec<Row> = week_rows(db, &sql, from_ms, to_ms).await?;
    Ok(rows
        .into_iter()
        .map(|r| Captured {
            order_id: r.id,
            at_ms: r.at_ms as i64,
            amount: r.amount as u64,
        })
        .collect())
}

/// The refunds completed in `[from_ms, to_ms)`, each with its showing's
/// film and the tickets it covered.
pub async fn refunds(db: &D1Database, from_ms: i64, to_ms: i64) -> Result<Vec<RefundRow>> {
    let refunds: Vec<Refund> = week_rows(
        db,
        "SELECT r.id, s.title, s.film_id, r.amount FROM refunds r \
         JOIN orders o ON o.id = r.order_id JOIN showings s ON s.id = o.showing_id \
         WHERE r.status = 'COMPLETED' AND r.applied_at_ms >= ?1 AND r.applied_at_ms < ?2 \
         ORDER BY r.applied_at_ms",
        from_ms,
        to_ms,
    )
    .await?;
    let tickets: Vec<RefundedTicket> = week_rows(
        db,
        "SELECT r.id AS refund_id, t.price_amount, t.price_tax \
         FROM refunds r, json_each(r.ticket_ids) j JOIN tickets t ON t.id = j.value \
         WHERE r.status = 'COMPLETED' AND r.applied_at_ms >= ?1 AND r.applied_at_ms < ?2",
        from_ms,
        to_ms,
    )
    .await?;
    Ok(refunds
        .into_iter()
        .map(|r| RefundRow {
            tickets: tickets
                .iter()
                .filter(|t| t.refund_id == r.id)
                .map(|t| (whole(t.price_amount), whole(t.price_tax)))
                .collect(),
            title: r.title,
            film_id: r.film_id,
            amount: r.amount as u64,
        })
        .collect())
}

/// Each order of the showing that still has valid tickets: when it was
/// made, and how many.
pub async fn orders_over_time(db: &D1Database, showing_id: &str) -> Result<Vec<(i64, u64)>> {
    #[derive(Deserialize)]
    struct Row {
        at_ms: f64,
        tickets: f64,
    }
    let sql = format!(
        "SELECT o.created_at_ms AS at_ms, COUNT(*) AS tickets FROM tickets t \
         JOIN orders o ON o.id = t.order_id \
         WHERE t.showing_id = ?1 AND t.status = 'valid' AND o.status IN {SOLD} \
         GROUP BY o.id LIMIT {}",
        REPORT_LIMIT + 1
    );
    let rows: Vec<Row> = bounded(super::rows(db, &sql, &[showing_id.into()]).await?)?;
    Ok(rows
        .into_iter()
        .map(|r| (r.at_ms as i64, r.tickets as u64))
        .collect())
}
