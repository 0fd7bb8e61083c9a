//! The object's storage for tests: a real SQLite database (rusqlite) on
//! which a desk's writes are executed as the object executes them, and
//! from which a desk is loaded as a restarted object loads it.

#![allow(dead_code)]

use desk::storage::{ReadRows, SqlValue};
use desk::{Desk, Settings, Write};
use rusqlite::types::ValueRef;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub struct Sqlite(pub rusqlite::Connection);

impl Sqlite {
    pub fn new() -> Sqlite {
        Sqlite(rusqlite::Connection::open_in_memory().expect("an in-memory database"))
    }

    /// A database made from a `.sql` dump.
    pub fn from_dump(dump: &str) -> Sqlite {
        let db = Sqlite::new();
        db.0.execute_batch(dump).expect("the dump loads");
        db
    }

    pub fn apply(&self, writes: &[Write]) {
        for write in writes {
            for statement in write.statements() {
                let args: Vec<rusqlite::types::Value> = statement
                    .args
                    .iter()
                    .map(|v| match v {
                        SqlValue::Null => rusqlite::types::Value::Null,
                        SqlValue::Integer(n) => rusqlite::types::Value::Integer(*n),
                        SqlValue::Text(t) => rusqlite::types::Value::Text(t.clone()),
                    })
                    .collect();
                self.0
                    .prepare_cached(statement.sql)
                    .and_then(|mut prepared| prepared.execute(rusqlite::params_from_iter(args)))
                    .unwrap_or_else(|e| panic!("{}: {e}", statement.sql));
            }
        }
    }

    /// The desk as a restarted object loads it, with its upgrade applied.
    pub fn load(&self, settings: Settings) -> Desk {
        self.load_at(settings, 0)
    }

    /// The desk as an object restarted at `now_ms` loads it.
    pub fn load_at(&self, settings: Settings, now_ms: u64) -> Desk {
        let stored = desk::storage::load(&mut Reader(&self.0), now_ms).expect("rows read");
        match stored {
            Some(stored) => {
                let (desk, upgrade) = Desk::restore(settings, stored).expect("the desk restores");
                self.apply(&upgrade);
                desk
            }
            None => Desk::new(settings),
        }
    }

    pub fn count(&self, table: &str) -> i64 {
        self.0
            .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
            .expect("a count")
    }
}

struct Reader<'a>(&'a rusqlite::Connection);

impl ReadRows for Reader<'_> {
    fn rows<T: DeserializeOwned>(&mut self, sql: &str) -> Result<Vec<T>, String> {
        let mut stmt = self.0.prepare(sql).map_err(|e| e.to_string())?;
        let names: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
        let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| e.to_string())? {
            let mut object = Map::new();
            for (i, name) in names.iter().enumerate() {
                let value = match row.get_ref(i).map_err(|e| e.to_string())? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(n) => Value::from(n),
                    ValueRef::Real(f) => Value::from(f),
                    ValueRef::Text(t) => Value::from(String::from_utf8_lossy(t).to_string()),
                    ValueRef::Blob(_) => return Err("a blob".into()),
                };
                object.insert(name.clone(), value);
            }
            out.push(serde_json::from_value(Value::Object(object)).map_err(|e| e.to_string())?);
        }
        Ok(out)
    }
}

/// A store and a desk with the showing set up in it.
pub fn showing(settings: Settings, setup: desk::protocol::ShowingSetup) -> (Sqlite, Desk) {
    let db = Sqlite::new();
    let mut desk = Desk::new(settings);
    let made = desk.handle_request(0, desk::Request::Init(setup));
    db.apply(&made.writes);
    (db, desk)
}
