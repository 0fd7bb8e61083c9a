//! The cinema as its messages and pages name it: its name, its address and
//! the time zone its showings are in. Every time a person reads is local,
//! with the zone's abbreviation, so "19:30 BST" is never mistaken for UTC.

use jiff::civil::DateTime;
use jiff::tz::{AmbiguousOffset, TimeZone};
use jiff::Timestamp;

use crate::MailError;

/// Longest time a member of staff may type: "2026-03-29T19:30:00+01:00".
const MAX_LOCAL_TIME_BYTES: usize = 40;

#[derive(Debug, Clone)]
pub struct Venue {
    pub name: String,
    /// One line, shown under the name; empty when not set.
    pub address: String,
    zone_name: String,
    zone: TimeZone,
}

/// Why a local time typed by staff names no single instant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalTimeError {
    /// Not `YYYY-MM-DDTHH:MM`, with optional seconds and offset.
    Malformed,
    /// The clocks skip this time (a daylight saving change moves past it).
    Skipped,
    /// The clocks pass this time twice; the offset says which one.
    Ambiguous { earlier: String, later: String },
}

impl std::fmt::Display for LocalTimeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LocalTimeError::Malformed => {
                write!(f, "give a local date and time like 2026-03-14T19:30")
            }
            LocalTimeError::Skipped => write!(
                f,
                "that time does not exist here: the clocks go forward past it"
            ),
            LocalTimeError::Ambiguous { earlier, later } => write!(
                f,
                "that time happens twice here as the clocks go back: add the offset, \
                 {earlier} for the first or {later} for the second"
            ),
        }
    }
}

impl Venue {
    /// `time_zone` is an IANA name such as `Europe/London`.
    pub fn new(name: &str, address: &str, time_zone: &str) -> Result<Venue, MailError> {
        let zone = jiff::tz::db()
            .get(time_zone)
            .map_err(|_| MailError::UnknownTimeZone(time_zone.to_string()))?;
        Ok(Venue {
            name: name.trim().to_string(),
            address: address.trim().to_string(),
            zone_name: time_zone.to_string(),
            zone,
        })
    }

    pub fn time_zone(&self) -> &str {
        &self.zone_name
    }

    /// "Sat 14 Mar 2026, 19:30 GMT": the instant as the cinema's clock
    /// shows it.
    pub fn local_time(&self, at_ms: i64) -> String {
        self.format(at_ms, "%a %-d %b %Y, %H:%M %Z")
    }

    /// "19:30 GMT", for a line that already gives the date.
    pub fn local_clock(&self, at_ms: i64) -> String {
        self.format(at_ms, "%H:%M %Z")
    }

    /// "2026-03-14": the cinema's date at that instant.
    pub fn local_date(&self, at_ms: i64) -> String {
        self.format(at_ms, "%Y-%m-%d")
    }

    /// "2026-03-14 19:30:05 GMT": sortable, for exports.
    pub fn local_stamp(&self, at_ms: i64) -> String {
        self.format(at_ms, "%Y-%m-%d %H:%M:%S %Z")
    }

    fn format(&self, at_ms: i64, pattern: &str) -> String {
        match Timestamp::from_millisecond(at_ms) {
            Ok(ts) => ts
                .to_zoned_datetime(self.zone.clone())
                .strftime(pattern)
                .to_string(),
            // Out of jiff's range (years beyond ±9999): no real showing.
            Err(_) => format!("{at_ms} ms"),
        }
    }

    /// The instant a local time names. With an offset (`+01:00`, `Z`) the
    /// offset decides; without one, a time the clocks skip or pass twice is
    /// refused rather than guessed.
    pub fn parse_local(&self, text: &str) -> Result<i64, LocalTimeError> {
        let text = text.trim();
        if text.is_empty() || text.len() > MAX_LOCAL_TIME_BYTES {
            return Err(LocalTimeError::Malformed);
        }
        if let Ok(ts) = text.parse::<Timestamp>() {
            return Ok(ts.as_millisecond());
        }
        let civil: DateTime = text.parse().map_err(|_| LocalTimeError::Malformed)?;
        let ambiguous = self.zone.to_ambiguous_timestamp(civil);
        match ambiguous.offset() {
            AmbiguousOffset::Unambiguous { .. } => ambiguous
                .unambiguous()
                .map(|ts| ts.as_millisecond())
                .map_err(|_| LocalTimeError::Malformed),
            AmbiguousOffset::Gap { .. } => Err(LocalTimeError::Skipped),
            AmbiguousOffset::Fold { before, after } => {
                let local = civil.strftime("%Y-%m-%dT%H:%M");
                Err(LocalTimeError::Ambiguous {
                    earlier: format!("{local}{}", offset_text(before.seconds())),
                    later: format!("{local}{}", offset_text(after.seconds())),
                })
            }
        }
    }
}

/// "+01:00", "-05:30".
fn offset_text(seconds: i32) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn london() -> Venue {
        Venue::new("The Plaza", "1 High St", "Europe/London").unwrap()
    }

    /// 2026-03-29 01:00 UTC: British clocks go from 01:00 GMT to 02:00 BST.
    const SPRING_FORWARD_MS: i64 = 1_774_746_000_000;

    #[test]
    fn times_read_in_the_zone_on_each_side_of_a_change() {
        let v = london();
        let hour = 3_600_000;
        assert_eq!(
            v.local_time(SPRING_FORWARD_MS - hour),
            "Sun 29 Mar 2026, 00:00 GMT"
        );
        assert_eq!(
            v.local_time(SPRING_FORWARD_MS + hour),
            "Sun 29 Mar 2026, 03:00 BST"
        );
        assert_eq!(v.local_clock(SPRING_FORWARD_MS), "02:00 BST");
    }

    #[test]
    fn typed_local_times_become_instants_and_back() {
        let v = london();
        let winter = v.parse_local("2026-03-14T19:30").unwrap();
        assert_eq!(v.local_time(winter), "Sat 14 Mar 2026, 19:30 GMT");
        let summer = v.parse_local("2026-04-14T19:30").unwrap();
        assert_eq!(v.local_time(summer), "Tue 14 Apr 2026, 19:30 BST");
        assert_eq!(v.local_stamp(summer + 5_000), "2026-04-14 19:30:05 BST");
        // An hour apart in UTC terms once the offset is taken off.
        assert_eq!((summer - winter) % 86_400_000, 23 * 3_600_000);
    }

    #[test]
    fn skipped_and_doubled_times_are_refused_not_guessed() {
        let v = london();
        assert_eq!(
            v.parse_local("2026-03-29T01:30"),
            Err(LocalTimeError::Skipped)
        );
        let doubled = v.parse_local("2026-10-25T01:30").unwrap_err();
        assert!(matches!(doubled, LocalTimeError::Ambiguous { .. }));
        assert!(
            doubled
                .to_string()
                .contains("2026-10-25T01:30+01:00 for the first"),
            "{doubled}"
        );
        let first = v.parse_local("2026-10-25T01:30+01:00").unwrap();
        let second = v.parse_local("2026-10-25T01:30+00:00").unwrap();
        assert_eq!(second - first, 3_600_000);
    }

    #[test]
    fn bad_input_is_named() {
        let v = london();
        for text in ["", "tomorrow", "2026-13-01T19:30", &"9".repeat(100)] {
            assert_eq!(
                v.parse_local(text),
                Err(LocalTimeError::Malformed),
                "{text}"
            );
        }
        assert!(Venue::new("x", "", "Mars/Olympus").is_err());
    }
}
