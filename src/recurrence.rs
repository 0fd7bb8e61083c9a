//! Recurring showings: the same film in the same screen at the same local
//! time on chosen weekdays between two dates, each its own showing. Pure:
//! the dates and their instants are worked out here, with the cinema's
//! time zone, so a 19:30 showing stays at 19:30 across a change of the
//! clocks.

use jiff::civil::{Date, Time, Weekday};
use serde::Deserialize;

use mail::venue::{LocalTimeError, Venue};

/// Most showings one request makes.
pub const MAX_OCCURRENCES: usize = 60;
/// Longest span one request covers.
pub const MAX_SPAN_DAYS: i32 = 366;

/// `{"at": "19:30", "weekdays": ["fri", "sat"], "from": "2026-03-27",
/// "until": "2026-04-05"}`: both dates included.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recurrence {
    pub at: String,
    pub weekdays: Vec<String>,
    pub from: String,
    pub until: String,
}

/// One date of a recurrence: its local start, and the instant, or why
/// there is none (the clocks skip that time, or pass it twice).
#[derive(Debug, Clone, PartialEq)]
pub struct Occurrence {
    pub local: String,
    pub starts_at_ms: Result<i64, String>,
}

/// "fri", "Friday": the weekday named by its first three letters.
pub fn weekday(name: &str) -> Option<Weekday> {
    Some(match name.trim().to_ascii_lowercase().get(..3)? {
        "mon" => Weekday::Monday,
        "tue" => Weekday::Tuesday,
        "wed" => Weekday::Wednesday,
        "thu" => Weekday::Thursday,
        "fri" => Weekday::Friday,
        "sat" => Weekday::Saturday,
        "sun" => Weekday::Sunday,
        _ => return None,
    })
}

impl Recurrence {
    /// Every chosen weekday from `from` to `until`, at `at` local time.
    pub fn occurrences(&self, venue: &Venue) -> Result<Vec<Occurrence>, String> {
        let time: Time = self
            .at
            .trim()
            .parse()
            .map_err(|_| "at: a time of day like 19:30".to_string())?;
        let date = |field: &str, text: &str| -> Result<Date, String> {
            text.trim()
                .parse()
                .map_err(|_| format!("{field}: a date like 2026-03-27"))
        };
        let (from, until) = (date("from", &self.from)?, date("until", &self.until)?);
        if until < from {
            return Err("until must not be before from".into());
        }
        let span = from.until(until).map_err(|e| e.to_string())?.get_days();
        if span > MAX_SPAN_DAYS {
            return Err(format!("from and until at most {MAX_SPAN_DAYS} days apart"));
        }
        let mut days = Vec::new();
        for name in &self.weekdays {
            let day = weekday(name).ok_or_else(|| format!("weekdays: {name:?} is not a day"))?;
            if !days.contains(&day) {
                days.push(day);
            }
        }
        if days.is_empty() {
            return Err("weekdays: choose at least one day".into());
        }
        let mut out = Vec::new();
        let mut day = from;
        while day <= until {
            if days.contains(&day.weekday()) {
                if out.len() == MAX_OCCURRENCES {
                    return Err(format!(
                        "that makes more than {MAX_OCCURRENCES} showings; make them in parts"
                    ));
                }
                let local = day.to_datetime(time).strftime("%Y-%m-%dT%H:%M").to_string();
                let starts_at_ms = venue.parse_local(&local).map_err(|e| match e {
                    LocalTimeError::Ambiguous { .. } => {
                        "the clocks pass this time twice that night; make this one on its own"
                            .into()
                    }
                    other => other.to_string(),
                });
                out.push(Occurrence {
                    local,
                    starts_at_ms,
                });
            }
            day = day.tomorrow().map_err(|e| e.to_string())?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn london() -> Venue {
        Venue::new("Rio", "", "Europe/London").unwrap()
    }

    fn weekends(from: &str, until: &str, at: &str) -> Recurrence {
        Recurrence {
            at: at.into(),
            weekdays: vec!["Sat".into(), "sun".into()],
            from: from.into(),
            until: until.into(),
        }
    }

    #[test]
    fn the_same_local_time_across_the_spring_change_of_the_clocks() {
        // London's clocks go forward at 01:00 GMT on Sunday 29 March 2026.
        let days = weekends("2026-03-27", "2026-04-05", "19:30")
            .occurrences(&london())
            .unwrap();
        let locals: Vec<&str> = days.iter().map(|d| d.local.as_str()).collect();
        assert_eq!(
            locals,
            [
                "2026-03-28T19:30",
                "2026-03-29T19:30",
                "2026-04-04T19:30",
                "2026-04-05T19:30"
            ]
        );
        // 19:30 GMT, then 19:30 BST (18:30 UTC).
        assert_eq!(days[0].starts_at_ms, Ok(1_774_726_200_000));
        assert_eq!(days[1].starts_at_ms, Ok(1_774_809_000_000));
        assert_eq!(
            days[1].starts_at_ms.clone().unwrap() - days[0].starts_at_ms.clone().unwrap(),
            23 * 3_600_000,
            "a day of 23 hours"
        );
    }

    #[test]
    fn a_time_the_clocks_skip_or_pass_twice_has_no_showing_and_says_why() {
        let spring = weekends("2026-03-29", "2026-03-29", "01:30")
            .occurrences(&london())
            .unwrap();
        assert!(spring[0]
            .starts_at_ms
            .as_ref()
            .unwrap_err()
            .contains("does not exist"));
        let autumn = weekends("2026-10-25", "2026-10-25", "01:30")
            .occurrences(&london())
            .unwrap();
        assert!(autumn[0]
            .starts_at_ms
            .as_ref()
            .unwrap_err()
            .contains("twice"));
    }

    #[test]
    fn bad_requests_are_refused_by_field() {
        let venue = london();
        let bad = |r: Recurrence| r.occurrences(&venue).unwrap_err();
        assert!(bad(weekends("2026-04-05", "2026-03-27", "19:30")).contains("until"));
        assert!(bad(weekends("2026-03-27", "2026-04-05", "7pm")).starts_with("at:"));
        assert!(bad(weekends("2026-03-27", "2028-04-05", "19:30")).contains("366"));
        let mut no_days = weekends("2026-03-27", "2026-04-05", "19:30");
        no_days.weekdays = vec!["Funday".into()];
        assert!(bad(no_days).contains("Funday"));
        let every_day = Recurrence {
            weekdays: ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
                .map(String::from)
                .to_vec(),
            ..weekends("2026-01-01", "2026-12-31", "19:30")
        };
        assert!(bad(every_day).contains("more than 60"));
    }
}
