//! Discount codes in D1, by their upper-case code.

use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use super::num;
use crate::discount_code::{DiscountCode, Off};

/// Most codes one listing returns.
const LIST_LIMIT: u32 = 1_000;

fn optional(n: Option<u64>) -> JsValue {
    n.map(num).unwrap_or(JsValue::NULL)
}

fn json_text(value: &impl serde::Serialize) -> JsValue {
    serde_json::to_string(value).unwrap_or_default().into()
}

/// Stores a new code; false when one of that code exists already.
pub async fn insert(db: &D1Database, code: &DiscountCode, now_ms: u64) -> Result<bool> {
    let done = db
        .prepare(
            "INSERT INTO discount_codes (code, off_json, max_uses, max_uses_per_buyer, \
             valid_from_ms, valid_until_ms, showings_json, films_json, categories_json, \
             box_office_only, created_at_ms) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (code) DO NOTHING",
        )
        .bind(&[
            code.code.as_str().into(),
            json_text(&code.off),
            optional(code.max_uses.map(u64::from)),
            optional(code.max_uses_per_buyer.map(u64::from)),
            optional(code.valid_from_ms),
            optional(code.valid_until_ms),
            json_text(&code.showings),
            json_text(&code.films),
            json_text(&code.categories),
            num(u64::from(code.box_office_only)),
            num(now_ms),
        ])?
        .run()
        .await?;
    Ok(done.meta()?.and_then(|m| m.changes).unwrap_or(0) > 0)
}

/// Every code, newest first.
pub async fn list(db: &D1Database) -> Result<Vec<Value>> {
    db.prepare(format!(
        "SELECT code, off_json, max_uses, max_uses_per_buyer, valid_from_ms, valid_until_ms, \
         showings_json, films_json, categories_json, box_office_only, paused_at_ms, \
         created_at_ms FROM discount_codes ORDER BY created_at_ms DESC, code LIMIT {LIST_LIMIT}"
    ))
    .all()
    .await?
    .results()
}

/// Pauses (`Some(now)`) or resumes (`None`) a code; false when there is none.
pub async fn set_paused(db: &D1Database, code: &str, paused_at_ms: Option<u64>) -> Result<bool> {
    let done = db
        .prepare("UPDATE discount_codes SET paused_at_ms = ?2 WHERE code = ?1")
        .bind(&[code.into(), optional(paused_at_ms)])?
        .run()
        .await?;
    Ok(done.meta()?.and_then(|m| m.changes).unwrap_or(0) > 0)
}

/// A stored code as D1 returns it (numbers as JSON numbers).
#[derive(Deserialize)]
struct CodeRow {
    code: String,
    off_json: String,
    max_uses: Option<f64>,
    max_uses_per_buyer: Option<f64>,
    valid_from_ms: Option<f64>,
    valid_until_ms: Option<f64>,
    showings_json: String,
    films_json: String,
    categories_json: String,
    box_office_only: f64,
    paused_at_ms: Option<f64>,
}

/// A stored code, and whether staff paused it.
pub struct Stored {
    pub code: DiscountCode,
    pub paused: bool,
}

/// The code (upper case), if defined.
pub async fn get(db: &D1Database, code: &str) -> Result<Option<Stored>> {
    let row: Option<CodeRow> = db
        .prepare(
            "SELECT code, off_json, max_uses, max_uses_per_buyer, valid_from_ms, valid_until_ms, \
             showings_json, films_json, categories_json, box_office_only, paused_at_ms \
             FROM discount_codes WHERE code = ?1",
        )
        .bind(&[code.into()])?
        .first(None)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let list = |text: &str| -> Result<Vec<String>> {
        serde_json::from_str(text)
            .map_err(|e| worker::Error::RustError(format!("stored code: {e}")))
    };
    let off: Off = serde_json::from_str(&row.off_json)
        .map_err(|e| worker::Error::RustError(format!("stored code: {e}")))?;
    Ok(Some(Stored {
        code: DiscountCode {
            code: row.code,
            off,
            max_uses: row.max_uses.map(|n| n as u32),
            max_uses_per_buyer: row.max_uses_per_buyer.map(|n| n as u32),
            valid_from_ms: row.valid_from_ms.map(|n| n as u64),
            valid_until_ms: row.valid_until_ms.map(|n| n as u64),
            showings: list(&row.showings_json)?,
            films: list(&row.films_json)?,
            categories: list(&row.categories_json)?,
            box_office_only: row.box_office_only != 0.0,
        },
        paused: row.paused_at_ms.is_some(),
    }))
}

/// What a code's orders were: how many were sold with it (paid, since
/// refunded or exchanged: the use was theirs) and what it took off their
/// tickets in all, in minor units.
pub struct Sold {
    pub orders: u64,
    pub discounted_minor: u64,
}

pub async fn sold_with(db: &D1Database, code: &str) -> Result<Sold> {
    #[derive(Deserialize)]
    struct Row {
        orders: f64,
        discounted: f64,
    }
    let row: Option<Row> = db
        .prepare(
            "SELECT COUNT(DISTINCT o.id) AS orders, COALESCE(SUM(t.price_discount), 0) AS discounted \
             FROM orders o JOIN tickets t ON t.order_id = o.id \
             WHERE o.discount_code = ?1 AND o.status IN ('paid', 'refunded', 'exchanged')",
        )
        .bind(&[code.into()])?
        .first(None)
        .await?;
    Ok(row.map_or(
        Sold {
            orders: 0,
            discounted_minor: 0,
        },
        |r| Sold {
            orders: r.orders as u64,
            discounted_minor: r.discounted as u64,
        },
    ))
}
