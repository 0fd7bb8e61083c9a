//! The desk's rows on the object's SQLite storage, and its alarm. The SQL
//! itself is the desk's (`desk::storage`); this only executes it. SQLite
//! storage calls do not await, so the statements of one decision commit
//! together.

use desk::storage::{ReadRows, SqlValue};
use desk::{Desk, Refusal, Settings, Write};
use serde::de::DeserializeOwned;
use worker::{SqlStorage, SqlStorageValue};

use super::{now_ms, Showtime};

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
pub fn load(sql: &SqlStorage, settings: Settings) -> Result<(Desk, Vec<Write>), Refusal> {
    match desk::storage::load(&mut Reader(sql), now_ms()).map_err(|e| refused("read", e))? {
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

impl Showtime {
    /// Sets the alarm to the desk's next deadline when that is earlier than
    /// the alarm already set, or clears it when nothing is due. An alarm
    /// already due no later than wanted is left alone: it fires first,
    /// finds little to do, and sets the next one. So holds that end early
    /// never move the alarm, and only an earlier deadline costs an alarm
    /// write (a quarter of a storage-bound request's throughput).
    pub(super) async fn arm_alarm(&self) {
        let wanted = match self.desk.borrow().as_ref() {
            // A time in the past means a backlog: fire again at once (an
            // alarm set to exactly now can be dropped, hence the +1).
            Some(desk) => desk.poll_timeout().map(|t| t.max(now_ms() + 1)),
            None => return,
        };
        match (self.alarm_at_ms.get(), wanted) {
            (Some(set), wanted) if set == wanted => return,
            (Some(Some(set)), Some(wanted)) if set <= wanted => return,
            (Some(Some(_)), None) => return,
            _ => {}
        }
        let storage = self.state.storage();
        let done = match wanted {
            // An i64 would be read as an offset from now; a Date is a time.
            Some(at_ms) => {
                let at = worker::js_sys::Date::new(&(at_ms as f64).into());
                storage.set_alarm(worker::ScheduledTime::new(at)).await
            }
            None => storage.delete_alarm().await,
        };
        match done {
            Ok(()) => self.alarm_at_ms.set(Some(wanted)),
            Err(e) => worker::console_error!("alarm not set: {e}"),
        }
    }
}
