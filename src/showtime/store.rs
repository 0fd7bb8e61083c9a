//! The object's SQLite storage. Only this module knows its tables.
//!
//! `units` has one row per seat so that a decision writes only the rows of
//! the seats it changed, whatever the size of the venue.

use serde::Deserialize;
use serde_json::Value;
use worker::{SqlStorage, SqlStorageValue};

use super::InitShowing;
use crate::api_error::ApiError;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS units (
  idx   INTEGER PRIMARY KEY,
  name  TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL
);";

/// The seats of one showing, as stored.
#[derive(Debug)]
pub struct Seats {
    names: Vec<String>,
    states: Vec<String>,
    version: u64,
}

#[derive(Deserialize)]
struct UnitRow {
    name: String,
    state: String,
}

#[derive(Deserialize)]
struct MetaRow {
    value: String,
}

impl Seats {
    /// The stored seats, or `None` when this object was never initialised.
    pub fn load(sql: &SqlStorage) -> Result<Option<Seats>, ApiError> {
        // Reading must not write: a request for a showing that does not
        // exist should leave no storage behind.
        let tables: Vec<MetaRow> = sql
            .exec(
                "SELECT name AS value FROM sqlite_master WHERE type = 'table' AND name = 'units'",
                None,
            )?
            .to_array()?;
        if tables.is_empty() {
            return Ok(None);
        }
        let rows: Vec<UnitRow> = sql
            .exec("SELECT name, state FROM units ORDER BY idx", None)?
            .to_array()?;
        if rows.is_empty() {
            return Ok(None);
        }
        let version: Vec<MetaRow> = sql
            .exec("SELECT value FROM meta WHERE key = 'version'", None)?
            .to_array()?;
        let version = version
            .first()
            .and_then(|row| row.value.parse().ok())
            .unwrap_or(0);
        let (names, states) = rows.into_iter().map(|r| (r.name, r.state)).unzip();
        Ok(Some(Seats {
            names,
            states,
            version,
        }))
    }

    /// Writes a new showing's seats. Writes with no `await` between them
    /// commit together, so a half-created showing is never stored.
    pub fn create(sql: &SqlStorage, init: &InitShowing) -> Result<Seats, ApiError> {
        sql.exec(SCHEMA, None)?;
        let blocked: std::collections::HashSet<&str> =
            init.units.blocked.iter().map(String::as_str).collect();
        let mut states = Vec::with_capacity(init.units.names.len());
        for (idx, name) in init.units.names.iter().enumerate() {
            let state = if blocked.contains(name.as_str()) {
                "blocked"
            } else {
                "available"
            };
            sql.exec(
                "INSERT INTO units (idx, name, state) VALUES (?, ?, ?)",
                vec![
                    SqlStorageValue::Integer(idx as i64),
                    name.as_str().into(),
                    state.into(),
                ],
            )?;
            states.push(state.to_string());
        }
        let meta = serde_json::to_string(init).map_err(|e| ApiError::internal(e.to_string()))?;
        sql.exec(
            "INSERT INTO meta (key, value) VALUES ('showing', ?), ('version', '1')",
            vec![meta.into()],
        )?;
        Ok(Seats {
            names: init.units.names.clone(),
            states,
            version: 1,
        })
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The public seat map: each seat's state and nothing about who.
    pub fn availability(&self) -> Value {
        let seats = self
            .names
            .iter()
            .zip(&self.states)
            .map(|(name, state)| {
                let public = if state == "available" { "available" } else { "sold" };
                (name.clone(), Value::from(public))
            })
            .collect();
        serde_json::json!({ "version": self.version, "seats": Value::Object(seats) })
    }
}
