//! Films and screens in D1, and the showings that follow an edit of one:
//! those that have never had an order.

use serde_json::Value;
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use crate::catalog::{Film, Screen};

/// Most films or screens one listing returns.
const LIST_LIMIT: u32 = 500;

use super::num;

/// Writes a film, new or edited (`id` names it either way).
pub async fn put_film(db: &D1Database, id: &str, film: &Film, now_ms: u64) -> Result<()> {
    db.prepare(
        "INSERT INTO films (id, title, runtime_minutes, certificate, synopsis, poster_url, \
         created_at_ms, updated_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7) \
         ON CONFLICT (id) DO UPDATE SET title = excluded.title, \
         runtime_minutes = excluded.runtime_minutes, certificate = excluded.certificate, \
         synopsis = excluded.synopsis, poster_url = excluded.poster_url, \
         updated_at_ms = excluded.updated_at_ms",
    )
    .bind(&[
        id.into(),
        film.title.as_str().into(),
        film.runtime_minutes
            .map(|m| num(u64::from(m)))
            .unwrap_or(JsValue::NULL),
        super::optional_text(&film.certificate),
        super::optional_text(&film.synopsis),
        super::optional_text(&film.poster_url),
        num(now_ms),
    ])?
    .run()
    .await?;
    Ok(())
}

pub async fn film(db: &D1Database, id: &str) -> Result<Option<Value>> {
    db.prepare(
        "SELECT id, title, runtime_minutes, certificate, synopsis, poster_url FROM films WHERE id = ?1",
    )
    .bind(&[id.into()])?
    .first(None)
    .await
}

pub async fn films(db: &D1Database) -> Result<Vec<Value>> {
    db.prepare(format!(
        "SELECT id, title, runtime_minutes, certificate, synopsis, poster_url FROM films \
         ORDER BY title, id LIMIT {LIST_LIMIT}"
    ))
    .all()
    .await?
    .results()
}

/// The films of the showings starting from `from_ms`.
pub async fn films_from(db: &D1Database, from_ms: i64) -> Result<Vec<Value>> {
    db.prepare(format!(
        "SELECT id, title, runtime_minutes, certificate, synopsis, poster_url FROM films \
         WHERE id IN (SELECT film_id FROM showings WHERE starts_at_ms >= ?1) LIMIT {LIST_LIMIT}"
    ))
    .bind(&[JsValue::from(from_ms as f64)])?
    .all()
    .await?
    .results()
}

/// Writes a screen, new or edited.
pub async fn put_screen(db: &D1Database, id: &str, screen: &Screen, now_ms: u64) -> Result<()> {
    db.prepare(
        "INSERT INTO screens (id, name, layout_json, created_at_ms, updated_at_ms) \
         VALUES (?1, ?2, ?3, ?4, ?4) ON CONFLICT (id) DO UPDATE SET name = excluded.name, \
         layout_json = excluded.layout_json, updated_at_ms = excluded.updated_at_ms",
    )
    .bind(&[
        id.into(),
        screen.name.as_str().into(),
        serde_json::to_string(&screen.layout)?.into(),
        num(now_ms),
    ])?
    .run()
    .await?;
    Ok(())
}

/// A screen with its layout parsed.
pub async fn screen(db: &D1Database, id: &str) -> Result<Option<Value>> {
    let row: Option<Value> = db
        .prepare("SELECT id, name, layout_json FROM screens WHERE id = ?1")
        .bind(&[id.into()])?
        .first(None)
        .await?;
    Ok(row.map(with_layout))
}

pub async fn screens(db: &D1Database) -> Result<Vec<Value>> {
    let rows: Vec<Value> = db
        .prepare(format!(
            "SELECT id, name, layout_json FROM screens ORDER BY name, id LIMIT {LIST_LIMIT}"
        ))
        .all()
        .await?
        .results()?;
    Ok(rows.into_iter().map(with_layout).collect())
}

fn with_layout(mut row: Value) -> Value {
    let layout = row["layout_json"]
        .as_str()
        .and_then(|json| serde_json::from_str::<Value>(json).ok())
        .unwrap_or(Value::Null);
    if let Some(object) = row.as_object_mut() {
        object.remove("layout_json");
        object.insert("layout".into(), layout);
    }
    row
}

/// Showings of a film or a screen (`column` is `film_id` or `screen_id`)
/// yet to start that have never had an order: an edit of the film or the
/// screen carries over to these.
pub async fn unsold_showings_of(
    db: &D1Database,
    column: &str,
    id: &str,
    from_ms: i64,
) -> Result<Vec<String>> {
    let column = match column {
        "film_id" => "film_id",
        _ => "screen_id",
    };
    let rows: Vec<Value> = db
        .prepare(format!(
            "SELECT id FROM showings s WHERE s.{column} = ?1 AND s.starts_at_ms >= ?2 \
             AND s.cancelled_at_ms IS NULL \
             AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.showing_id = s.id) \
             ORDER BY s.starts_at_ms LIMIT {LIST_LIMIT}"
        ))
        .bind(&[id.into(), JsValue::from(from_ms as f64)])?
        .all()
        .await?
        .results()?;
    Ok(rows
        .into_iter()
        .filter_map(|r| r["id"].as_str().map(str::to_string))
        .collect())
}

/// A film's new title, on showings that sold nothing.
pub async fn retitle(db: &D1Database, showing_id: &str, title: &str) -> Result<()> {
    db.prepare("UPDATE showings SET title = ?1 WHERE id = ?2")
        .bind(&[title.into(), showing_id.into()])?
        .run()
        .await?;
    Ok(())
}
