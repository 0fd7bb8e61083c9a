//! The end-to-end test harness: starts the real Worker with `wrangler dev`
//! (workerd, SQLite-backed Durable Objects, alarms, a local D1) on a free
//! loopback port with its own fresh state directory, and always stops what it
//! started, also when a test panics.
//!
//! The Worker bundle must already be built (`npm test` builds it once);
//! every [`Stack`] then starts with `SHOWTIME_PREBUILT=1` so that starting
//! many servers does not rebuild anything.

mod api;
mod d1;
pub mod mailbox;
mod process;
pub mod square;
mod stack;

pub use api::{family_showing, sixteen_seat_room, Api, Reply};
pub use process::Group;
pub use reqwest::Method;
pub use stack::{
    await_ready, free_port, plain_get, repo_root, wrangler, Stack, StackOptions, Unready,
};

/// The wall clock in epoch milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_millis() as i64
}

/// A time `from_now_ms` from now as the API reads it (RFC 3339, UTC).
pub fn time_from_now(from_now_ms: i64) -> String {
    jiff::Timestamp::from_millisecond(now_ms() + from_now_ms)
        .expect("a time")
        .to_string()
}
