//! The desk's rows on the object's SQLite storage. The SQL itself is the
//! desk's (`desk::storage`); this only executes it. SQLite storage calls
//! do not await, so the statements of one decision commit together.

use desk::storage::{ReadRows, SqlValue};
use desk::{Desk, Refusal, Settings, Write};
use serde::de::DeserializeOwned;
use worker::{SqlStorage, SqlStorageValue};

fn refused(what: &str, e: impl std::fmt::Display) -> Refusal {
    worker::console_error!("storage: {what}: {e}");
    Refusal::internal(format!("the showing's storage refused a {what}"))
}

struct Reader<'a>(&'a SqlStorage);

impl ReadRows for Reader<'_> {
    fn rows<T: DeserializeOwned>(&mut self, sql: &str) -> Result<Vec<T>, String> {
        let cursor = self.0.exec(sql, None).map_err(|e| e.to_string())?;
        cursor.to_array().map_err(|e| e.to_string())
    }
}

/// The stored desk (or a new one for an object never set up), and the
/// writes that bring its tables up to date.
pub fn load(
    sql: &SqlStorage,
    settings: Settings,
    now_ms: u64,
) -> Result<(Desk, Vec<Write>), Refusal> {
    match desk::storage::load(&mut Reader(sql), now_ms).map_err(|e| refused("read", e))? {
        Some(stored) => Desk::restore(settings, stored).map_err(|e| refused("stored row", e)),
        None => Ok((Desk::new(settings), Vec::new())),
    }
}

fn value(value: &SqlValue) -> SqlStorageValue {
    match value {
        SqlValue::Null => SqlStorageValue::Null,
        SqlValue::Integer(n) => SqlStorageValue::Integer(*n),
        SqlValue::Text(text) => SqlStorageValue::String(text.clone()),
    }
}

/// Executes the writes in order; answers how many rows they wrote.
pub fn apply(sql: &SqlStorage, writes: &[Write]) -> Result<u64, Refusal> {
    let mut rows = 0;
    for write in writes {
        for statement in write.statements() {
            let args: Vec<SqlStorageValue> = statement.args.iter().map(value).collect();
            let cursor = sql
                .exec(statement.sql, Some(args))
                .map_err(|e| refused("write", e))?;
            rows += cursor.rows_written() as u64;
        }
    }
    Ok(rows)
}
