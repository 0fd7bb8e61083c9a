//! When a showing sells and when its door admits: worked out from its start
//! and staff's overrides, and asked with the time passed in. The object
//! refuses holds outside the sales window; the Worker asks the door window
//! before admitting a ticket and when listing a door's showings.

use serde::{Deserialize, Serialize};

/// An hour in milliseconds.
const HOUR_MS: i64 = 3_600_000;
/// The door lists a showing from this long before its start until this
/// long after: today's showings, without yesterday's late ones.
pub const DOOR_LIST_MS: i64 = 6 * HOUR_MS;
/// Sales close by default this long after the start (the cinema's setting
/// may change it): a latecomer can still buy during the trailers.
pub const DEFAULT_SALES_CLOSE_AFTER_START_MS: i64 = 15 * 60 * 1000;
/// The door admits by default until this long after the start.
pub const DEFAULT_DOOR_CLOSE_AFTER_START_MS: i64 = 2 * HOUR_MS;
/// The latest a window may end after its start: a day.
pub const MAX_AFTER_START_MS: i64 = 24 * HOUR_MS;

/// The cinema's defaults, from its settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Defaults {
    pub sales_close_after_start_ms: i64,
    pub door_close_after_start_ms: i64,
}

impl Default for Defaults {
    fn default() -> Self {
        Defaults {
            sales_close_after_start_ms: DEFAULT_SALES_CLOSE_AFTER_START_MS,
            door_close_after_start_ms: DEFAULT_DOOR_CLOSE_AFTER_START_MS,
        }
    }
}

/// What staff set for one showing; `None` takes the default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overrides {
    pub sales_open_at_ms: Option<i64>,
    pub sales_close_at_ms: Option<i64>,
    pub door_close_at_ms: Option<i64>,
}

/// Why staff's times for a showing were refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WindowError {
    /// Sales would close before (or as) they open.
    SalesCloseBeforeOpen,
    /// Sales would open after the door closes.
    SalesOpenAfterDoorClose,
    /// A window would end more than a day after the start.
    TooLongAfterStart,
    /// The door would close before the showing starts.
    DoorCloseBeforeStart,
}

impl std::fmt::Display for WindowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            WindowError::SalesCloseBeforeOpen => "sales_close_at must be after sales_open_at",
            WindowError::SalesOpenAfterDoorClose => "sales_open_at must be before the door closes",
            WindowError::TooLongAfterStart => {
                "sales and the door close at most a day after the start"
            }
            WindowError::DoorCloseBeforeStart => "door_close_at must be after starts_at",
        })
    }
}

/// A showing's sales window, as the object keeps it: holds are granted
/// from `opens_at_ms` until just before `closes_at_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SalesWindow {
    pub opens_at_ms: u64,
    pub closes_at_ms: u64,
}

impl Default for SalesWindow {
    /// Always open: what a showing set up before sales windows existed
    /// keeps until staff next save it.
    fn default() -> Self {
        SalesWindow {
            opens_at_ms: 0,
            closes_at_ms: u64::MAX,
        }
    }
}

/// Where sales stand at a moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sales {
    NotOpen,
    Open,
    Closed,
}

impl SalesWindow {
    pub fn at(&self, now_ms: u64) -> Sales {
        if now_ms < self.opens_at_ms {
            Sales::NotOpen
        } else if now_ms >= self.closes_at_ms {
            Sales::Closed
        } else {
            Sales::Open
        }
    }
}

/// A showing's windows, worked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Windows {
    pub starts_at_ms: i64,
    pub sales_open_at_ms: i64,
    pub sales_close_at_ms: i64,
    pub door_close_at_ms: i64,
}

fn to_u64(ms: i64) -> u64 {
    ms.max(0) as u64
}

impl Windows {
    /// The windows of a showing that starts at `starts_at_ms` and was made
    /// at `created_at_ms`, with staff's overrides checked.
    pub fn of(
        starts_at_ms: i64,
        created_at_ms: i64,
        overrides: Overrides,
        defaults: Defaults,
    ) -> Result<Windows, WindowError> {
        let windows = Windows::unchecked(starts_at_ms, created_at_ms, overrides, defaults);
        let latest = starts_at_ms.saturating_add(MAX_AFTER_START_MS);
        // Only times staff typed can contradict each other: a showing saved
        // after its default close (one moved into the past, say) simply
        // does not sell.
        if overrides.sales_open_at_ms.is_some()
            && windows.sales_close_at_ms <= windows.sales_open_at_ms
        {
            return Err(WindowError::SalesCloseBeforeOpen);
        }
        if windows.door_close_at_ms <= starts_at_ms {
            return Err(WindowError::DoorCloseBeforeStart);
        }
        if overrides.sales_open_at_ms.is_some()
            && windows.sales_open_at_ms >= windows.door_close_at_ms
        {
            return Err(WindowError::SalesOpenAfterDoorClose);
        }
        if windows.sales_close_at_ms > latest || windows.door_close_at_ms > latest {
            return Err(WindowError::TooLongAfterStart);
        }
        Ok(windows)
    }

    /// The windows as they fall, unchecked: for showing a stored showing,
    /// whose times were checked when saved (under the settings of then).
    pub fn unchecked(
        starts_at_ms: i64,
        created_at_ms: i64,
        overrides: Overrides,
        defaults: Defaults,
    ) -> Windows {
        Windows {
            starts_at_ms,
            sales_open_at_ms: overrides.sales_open_at_ms.unwrap_or(created_at_ms),
            sales_close_at_ms: overrides
                .sales_close_at_ms
                .unwrap_or(starts_at_ms.saturating_add(defaults.sales_close_after_start_ms)),
            door_close_at_ms: overrides
                .door_close_at_ms
                .unwrap_or(starts_at_ms.saturating_add(defaults.door_close_after_start_ms)),
        }
    }

    pub fn sales(&self) -> SalesWindow {
        SalesWindow {
            opens_at_ms: to_u64(self.sales_open_at_ms),
            closes_at_ms: to_u64(self.sales_close_at_ms),
        }
    }

    /// Whether the door admits this showing's tickets now. Doors open
    /// whenever staff scan, so only the close matters.
    pub fn door_admits(&self, now_ms: i64) -> bool {
        now_ms < self.door_close_at_ms
    }

    /// Whether the door lists this showing now: from six hours before its
    /// start to six hours after (and while it still admits).
    pub fn door_lists(&self, now_ms: i64) -> bool {
        let from = self.starts_at_ms.saturating_sub(DOOR_LIST_MS);
        let until = self
            .starts_at_ms
            .saturating_add(DOOR_LIST_MS)
            .max(self.door_close_at_ms);
        (from..until).contains(&now_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: i64 = 1_000 * HOUR_MS;
    const MIN: i64 = 60_000;

    fn windows(overrides: Overrides) -> Result<Windows, WindowError> {
        Windows::of(START, START - 48 * HOUR_MS, overrides, Defaults::default())
    }

    #[test]
    fn by_default_sales_run_from_creation_to_fifteen_minutes_after_the_start() {
        let w = windows(Overrides::default()).unwrap();
        let sales = w.sales();
        assert_eq!(sales.at(to_u64(START - 48 * HOUR_MS) - 1), Sales::NotOpen);
        assert_eq!(sales.at(to_u64(START - 48 * HOUR_MS)), Sales::Open);
        assert_eq!(sales.at(to_u64(START + 15 * MIN) - 1), Sales::Open);
        assert_eq!(sales.at(to_u64(START + 15 * MIN)), Sales::Closed);
    }

    #[test]
    fn the_door_admits_until_two_hours_after_the_start_and_lists_six_either_side() {
        let w = windows(Overrides::default()).unwrap();
        assert!(w.door_admits(START + 30 * MIN));
        assert!(w.door_admits(START + 120 * MIN - 1));
        assert!(!w.door_admits(START + 120 * MIN));
        assert!(!w.door_lists(START - 6 * HOUR_MS - 1));
        assert!(w.door_lists(START - 6 * HOUR_MS));
        assert!(w.door_lists(START + 6 * HOUR_MS - 1));
        assert!(!w.door_lists(START + 6 * HOUR_MS));
    }

    #[test]
    fn staff_times_replace_the_defaults_and_the_cinemas_settings_move_them() {
        let w = windows(Overrides {
            sales_open_at_ms: Some(START - HOUR_MS),
            sales_close_at_ms: Some(START),
            door_close_at_ms: Some(START + 3 * HOUR_MS),
        })
        .unwrap();
        assert_eq!(
            (w.sales_open_at_ms, w.sales_close_at_ms, w.door_close_at_ms),
            (START - HOUR_MS, START, START + 3 * HOUR_MS)
        );
        let defaults = Defaults {
            sales_close_after_start_ms: 0,
            door_close_after_start_ms: HOUR_MS,
        };
        let w = Windows::of(START, 0, Overrides::default(), defaults).unwrap();
        assert_eq!(
            (w.sales_close_at_ms, w.door_close_at_ms),
            (START, START + HOUR_MS)
        );
    }

    #[test]
    fn windows_that_make_no_sense_are_refused() {
        let refused = |o: Overrides| windows(o).unwrap_err();
        assert_eq!(
            refused(Overrides {
                sales_open_at_ms: Some(START),
                sales_close_at_ms: Some(START),
                ..Overrides::default()
            }),
            WindowError::SalesCloseBeforeOpen
        );
        assert_eq!(
            refused(Overrides {
                door_close_at_ms: Some(START),
                ..Overrides::default()
            }),
            WindowError::DoorCloseBeforeStart
        );
        assert_eq!(
            refused(Overrides {
                sales_close_at_ms: Some(START + 25 * HOUR_MS),
                ..Overrides::default()
            }),
            WindowError::TooLongAfterStart
        );
        assert_eq!(
            refused(Overrides {
                sales_open_at_ms: Some(START + HOUR_MS),
                sales_close_at_ms: Some(START + 3 * HOUR_MS),
                door_close_at_ms: Some(START + HOUR_MS),
            }),
            WindowError::SalesOpenAfterDoorClose
        );
    }

    #[test]
    fn a_showing_saved_after_its_default_close_is_not_refused_but_never_sells() {
        let w = Windows::of(
            START,
            START + HOUR_MS,
            Overrides::default(),
            Defaults::default(),
        )
        .unwrap();
        assert_eq!(w.sales().at(to_u64(START + 2 * HOUR_MS)), Sales::Closed);
    }

    #[test]
    fn a_showing_from_before_windows_is_always_on_sale() {
        let always = SalesWindow::default();
        assert_eq!(always.at(0), Sales::Open);
        assert_eq!(always.at(u64::MAX - 1), Sales::Open);
    }
}
