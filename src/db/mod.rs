//! Every D1 query lives here. D1 is the record of showings, orders and
//! tickets; the seats' live state belongs to the Showtime objects.
//!
//! - this module: showings.
//! - [`orders`]: orders, tickets and the audit trail.
//! - [`refunds`]: refunds and the tickets they void.
//! - [`mail`]: the mail outbox.
//! - [`admin`]: what the admin pages read: sales, search, attention, export.

pub mod admin;
pub mod mail;
pub mod orders;
pub mod refunds;

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use worker::{D1Database, Env, Result};

use crate::showing::{Layout, Money, NewShowing};

/// The most showings one listing returns.
const LIST_LIMIT: u32 = 200;

pub fn database(env: &Env) -> Result<D1Database> {
    env.d1("DB")
}

/// A showing as listed to buyers and staff.
#[derive(Debug, Clone, Serialize)]
pub struct Showing {
    pub id: String,
    pub title: String,
    pub starts_at_ms: i64,
    pub price: Money,
    pub layout: Layout,
    pub seat_count: u32,
    pub max_seats_per_hold: u32,
    pub hold_ttl_ms: u64,
}

/// A row of `showings` as D1 returns it. Numbers arrive as JSON numbers
/// (f64), so they are read as f64 and converted once, here.
#[derive(Deserialize)]
struct ShowingRow {
    id: String,
    title: String,
    starts_at_ms: f64,
    price_amount: f64,
    currency: String,
    layout_json: String,
    seat_count: f64,
    max_seats_per_hold: f64,
    hold_ttl_ms: f64,
}

impl ShowingRow {
    fn into_showing(self) -> Result<Showing> {
        let layout = serde_json::from_str(&self.layout_json)
            .map_err(|e| worker::Error::RustError(format!("showing {}: layout: {e}", self.id)))?;
        Ok(Showing {
            id: self.id,
            title: self.title,
            starts_at_ms: self.starts_at_ms as i64,
            price: Money {
                amount: self.price_amount as u64,
                currency: self.currency,
            },
            layout,
            seat_count: self.seat_count as u32,
            max_seats_per_hold: self.max_seats_per_hold as u32,
            hold_ttl_ms: self.hold_ttl_ms as u64,
        })
    }
}

const SHOWING_COLUMNS: &str = "id, title, starts_at_ms, price_amount, currency, layout_json, \
     seat_count, max_seats_per_hold, hold_ttl_ms";

pub async fn insert_showing(
    db: &D1Database,
    id: &str,
    showing: &NewShowing,
    seat_count: usize,
    now_ms: i64,
) -> Result<()> {
    let layout_json = serde_json::to_string(&showing.layout)?;
    db.prepare(
        "INSERT INTO showings (id, title, starts_at_ms, price_amount, currency, layout_json, \
         seat_count, max_seats_per_hold, hold_ttl_ms, created_at_ms) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )
    .bind(&[
        id.into(),
        showing.title.as_str().into(),
        JsValue::from(showing.starts_at_ms as f64),
        JsValue::from(showing.price.amount as f64),
        showing.price.currency.as_str().into(),
        layout_json.into(),
        JsValue::from(seat_count as f64),
        JsValue::from(showing.max_seats_per_hold as f64),
        JsValue::from(showing.hold_ttl_ms as f64),
        JsValue::from(now_ms as f64),
    ])?
    .run()
    .await?;
    Ok(())
}

pub async fn get_showing(db: &D1Database, id: &str) -> Result<Option<Showing>> {
    let row: Option<ShowingRow> = db
        .prepare(format!(
            "SELECT {SHOWING_COLUMNS} FROM showings WHERE id = ?1"
        ))
        .bind(&[id.into()])?
        .first(None)
        .await?;
    row.map(ShowingRow::into_showing).transpose()
}

/// Showings that start at or after `from_ms`, soonest first.
pub async fn upcoming_showings(db: &D1Database, from_ms: i64) -> Result<Vec<Showing>> {
    let rows: Vec<ShowingRow> = db
        .prepare(format!(
            "SELECT {SHOWING_COLUMNS} FROM showings WHERE starts_at_ms >= ?1 \
             ORDER BY starts_at_ms, id LIMIT {LIST_LIMIT}"
        ))
        .bind(&[JsValue::from(from_ms as f64)])?
        .all()
        .await?
        .results()?;
    rows.into_iter().map(ShowingRow::into_showing).collect()
}

pub async fn set_door_pin_hash(db: &D1Database, showing_id: &str, hash: &str) -> Result<bool> {
    let result = db
        .prepare("UPDATE showings SET door_pin_hash = ?1 WHERE id = ?2")
        .bind(&[hash.into(), showing_id.into()])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) == 1)
}

pub async fn door_pin_hash(db: &D1Database, showing_id: &str) -> Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        door_pin_hash: Option<String>,
    }
    let row: Option<Row> = db
        .prepare("SELECT door_pin_hash FROM showings WHERE id = ?1")
        .bind(&[showing_id.into()])?
        .first(None)
        .await?;
    Ok(row.and_then(|r| r.door_pin_hash))
}
