//! Discount codes in D1, by their upper-case code.

use serde_json::Value;
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use super::num;
use crate::discount_code::DiscountCode;

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
