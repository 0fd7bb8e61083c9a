//! The code object's rows: one a use, as it last stood (JSON of
//! [`crate::Use`]), gone when the use is. The statements are here, beside
//! the uses they keep, so the object's shell only runs them.

pub const SCHEMA: &str =
    "CREATE TABLE IF NOT EXISTS uses (key TEXT PRIMARY KEY, record TEXT NOT NULL)";

pub const PUT: &str = "INSERT INTO uses (key, record) VALUES (?, ?) \
    ON CONFLICT (key) DO UPDATE SET record = excluded.record";

pub const DELETE: &str = "DELETE FROM uses WHERE key = ?";

/// Every use standing.
pub const SELECT: &str = "SELECT record FROM uses";
