//! The local D1 database of a `wrangler dev` state directory, read and
//! written with SQLite directly, as `wrangler d1 execute --local` would.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::types::ValueRef;
use serde_json::{Map, Value};

/// The database file D1 keeps for the one `DB` binding: the only SQLite
/// file of its folder that is not miniflare's own metadata.
fn database_file(state: &Path) -> PathBuf {
    let folder = state.join("v3/d1/miniflare-D1DatabaseObject");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| {
            path.extension().is_some_and(|ext| ext == "sqlite")
                && path.file_stem().is_some_and(|stem| stem != "metadata")
        })
        .collect();
    assert_eq!(files.len(), 1, "one D1 database in {}", folder.display());
    files.remove(0)
}

/// Runs `sql` and answers its rows, each an object of its columns.
pub fn query(state: &Path, sql: &str) -> Vec<Value> {
    let db = rusqlite::Connection::open(database_file(state)).expect("open D1's database");
    // The Worker may be writing: wait for its lock rather than fail.
    db.busy_timeout(Duration::from_secs(10))
        .expect("a busy timeout");
    let mut statement = match db.prepare(sql) {
        Ok(statement) => statement,
        // Several statements (a test writing rows of its own) answer no
        // rows, and go in one transaction as `d1 execute` sends them.
        Err(rusqlite::Error::MultipleStatement) => {
            db.execute_batch(&format!("BEGIN; {sql}; COMMIT;"))
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
            return Vec::new();
        }
        Err(e) => panic!("{sql}: {e}"),
    };
    let names: Vec<String> = statement
        .column_names()
        .map(|name| name.to_string())
        .collect();
    let mut rows = statement.query([]).unwrap_or_else(|e| panic!("{sql}: {e}"));
    let mut out = Vec::new();
    while let Some(row) = rows.next().unwrap_or_else(|e| panic!("{sql}: {e}")) {
        let mut object = Map::new();
        for (i, name) in names.iter().enumerate() {
            let value = match row.get_ref(i).expect("a column") {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(n) => Value::from(n),
                ValueRef::Real(f) => Value::from(f),
                ValueRef::Text(text) => Value::from(String::from_utf8_lossy(text).into_owned()),
                ValueRef::Blob(bytes) => Value::from(hex::encode(bytes)),
            };
            object.insert(name.clone(), value);
        }
        out.push(Value::Object(object));
    }
    out
}
