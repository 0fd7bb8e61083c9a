//! The waiting room object's rows: one a join, replayed in order to
//! rebuild the line (`Line::join` places the same sessions the same way
//! given the same times and draws). The statements are here, beside the
//! line they keep, so the object's shell only runs them.

/// One row a session that joined: when, its draw, and the line's opening
/// and rate as the first join set them.
pub const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS joins (seq INTEGER PRIMARY KEY, \
    session TEXT NOT NULL UNIQUE, at_ms INTEGER NOT NULL, draw INTEGER NOT NULL, \
    opens_at_ms INTEGER NOT NULL, admit_per_minute INTEGER NOT NULL)";

pub const INSERT_JOIN: &str =
    "INSERT INTO joins (session, at_ms, draw, opens_at_ms, admit_per_minute) VALUES (?, ?, ?, ?, ?)";

/// Every join, in the order they came.
pub const SELECT_JOINS: &str =
    "SELECT session, at_ms, draw, opens_at_ms, admit_per_minute FROM joins ORDER BY seq";
