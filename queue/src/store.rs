//! The waiting room object's rows: what happened to the line, in order (a
//! session joined; the showing sold out; seats came back; staff changed
//! its rate or opening), replayed to rebuild it: `Line::join`, `pause`,
//! `resume` and `reconfigure` given the same times and draws place the
//! same sessions the same way. The statements are here,
//! beside the line they keep, so the object's shell only runs them.

/// One row an event: `join` (with its session and draw), `pause`,
/// `resume`, or `config` (staff changed the opening or rate); each row
/// carries the line's opening and rate as they were then.
pub const SCHEMA: &str = "CREATE TABLE IF NOT EXISTS line_events (seq INTEGER PRIMARY KEY, \
    kind TEXT NOT NULL, session TEXT UNIQUE, at_ms INTEGER NOT NULL, draw INTEGER, \
    opens_at_ms INTEGER NOT NULL, admit_per_minute INTEGER NOT NULL)";

pub const INSERT_EVENT: &str = "INSERT INTO line_events \
    (kind, session, at_ms, draw, opens_at_ms, admit_per_minute) VALUES (?, ?, ?, ?, ?, ?)";

/// Every event, in the order they came.
pub const SELECT_EVENTS: &str = "SELECT kind, session, at_ms, draw, opens_at_ms, admit_per_minute \
    FROM line_events ORDER BY seq";

pub const JOIN: &str = "join";
pub const PAUSE: &str = "pause";
pub const RESUME: &str = "resume";
pub const CONFIG: &str = "config";
