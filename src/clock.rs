//! The time as the Worker's routes read it. On Wasm the clock is the
//! runtime's `Date.now()` (`SystemTime` does not work there).

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    worker::Date::now().as_millis() as i64
}
