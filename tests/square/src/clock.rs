//! Wall-clock readings and the timestamp format Square writes.
//!
//! The core (`bank` and friends) never calls [`now_ms`]; the HTTP shell reads
//! the clock once per request and passes the reading in, so every decision
//! about time can be tested with plain numbers.

use std::time::{SystemTime, UNIX_EPOCH};

use time::OffsetDateTime;

pub const MS_PER_MINUTE: u64 = 60_000;
pub const MS_PER_DAY: u64 = 24 * 60 * MS_PER_MINUTE;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        // A clock set before 1970 is a broken machine, not a case to handle.
        .expect("system clock is after 1970");
    u64::try_from(since_epoch.as_millis()).unwrap_or(u64::MAX)
}

/// `2026-11-29T19:02:11.123Z`: RFC 3339 in UTC with milliseconds, as in
/// Square's `created_at` fields.
pub fn rfc3339(at_ms: u64) -> String {
    let at = civil(at_ms);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}

/// The (year, month) a card expiry is compared against.
pub fn year_month(at_ms: u64) -> (u16, u8) {
    let at = civil(at_ms);
    (u16::try_from(at.year()).unwrap_or(0), u8::from(at.month()))
}

fn civil(at_ms: u64) -> OffsetDateTime {
    let nanos = i128::from(at_ms) * 1_000_000;
    // Every u64 millisecond count up to year 9999 fits; later readings are
    // clamped to the epoch rather than crashing a test server.
    OffsetDateTime::from_unix_timestamp_nanos(nanos).unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_milliseconds_in_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_796_065_331_123), "2026-11-30T19:02:11.123Z");
    }

    #[test]
    fn year_month_of_a_known_instant() {
        assert_eq!(year_month(1_796_065_331_123), (2026, 11));
    }
}
