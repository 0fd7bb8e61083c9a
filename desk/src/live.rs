//! The seat map pushed to the browsers watching it. A busy showing changes
//! many times a second, and a page cannot show more than about one change a
//! second, so the map is pushed at most once a [`PushPeriod`] (a second, or
//! longer when so many watch that sending costs too much): the first
//! change at once, the rest of the period's changes together at its end
//! (the alarm wakes the object for it). A push names only the seats that
//! changed since the last push, or carries the whole map when that is
//! shorter; a page that missed a push reads the map afresh. A page needs
//! no polling while its socket is open, so the map's cost does not grow
//! with the number of people looking at it.
//!
//! Everything here is memory only: after a restart the first push is the
//! whole map, made at once when anyone watches.

use serde::Serialize;

use crate::{Code, Refusal};

/// Most live maps of one showing open at once from one client network (an
/// IPv4 address or an IPv6 /64): a household's phones and a box office's
/// screens fit, while one script cannot take the showing's watcher places
/// (or its object's thread) from everyone else.
pub const MAX_WATCHERS_PER_NETWORK: usize = 5;

/// Whether one more socket may open from a network that has `open` open
/// already (the shell counts them by the tag each socket carries).
pub fn admit_watcher(open: usize) -> Result<(), Refusal> {
    if open < MAX_WATCHERS_PER_NETWORK {
        return Ok(());
    }
    Err(Refusal::new(
        Code::TooManyLiveMaps,
        format!(
            "{MAX_WATCHERS_PER_NETWORK} live maps of this showing are open from your network already; the page reads the map instead"
        ),
    )
    .retry_after(30))
}

/// How often a showing's map may be pushed: at most once a `min_ms`, and
/// with many watchers less often, so that the object sends at most about
/// `sends_per_s` messages a second however many watch. A send costs the
/// object's one thread about 60 µs under `wrangler dev` (BENCHMARKS.md,
/// "Viewers"), so the default bounds pushing to about 3 % of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PushPeriod {
    pub min_ms: u64,
    pub sends_per_s: u64,
}

impl PushPeriod {
    /// Every change pushed at once (the scripts use it to see each version).
    pub const EVERY_CHANGE: PushPeriod = PushPeriod {
        min_ms: 0,
        sends_per_s: u64::MAX,
    };

    /// The period for this many watchers, in milliseconds.
    pub fn ms(self, watchers: usize) -> u64 {
        let spread = (watchers as u64).saturating_mul(1_000) / self.sends_per_s.max(1);
        self.min_ms.max(spread)
    }
}

impl Default for PushPeriod {
    /// A second (what a page's refetch was limited to before pushes
    /// carried the map, so a watcher sees changes no later than it did),
    /// and longer beyond 500 watchers: two seconds for 1,000, four for the
    /// most a showing allows.
    fn default() -> Self {
        PushPeriod {
            min_ms: 1_000,
            sends_per_s: 500,
        }
    }
}

/// What one push says. `since` and `changes` when the watcher can bring its
/// map at version `since` up to `version` by setting each listed seat (by
/// its index in layout order) to its new one-letter state; `codes`, the
/// whole map, otherwise.
#[derive(Debug, Serialize)]
struct Message<'a> {
    version: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    since: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<Vec<(usize, char)>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    codes: Option<&'a str>,
}

/// The whole map as a push.
pub(crate) fn whole(version: u64, codes: &str) -> String {
    let message = Message {
        version,
        since: None,
        changes: None,
        codes: Some(codes),
    };
    serde_json::to_string(&message).expect("a map push serialises")
}

/// The shorter of the changes from `before` and the whole map.
fn message(before: Option<&(u64, String)>, version: u64, codes: &str) -> String {
    let full = whole(version, codes);
    let Some((since, old)) = before.filter(|(_, old)| old.len() == codes.len()) else {
        return full;
    };
    let changes: Vec<(usize, char)> = old
        .chars()
        .zip(codes.chars())
        .enumerate()
        .filter(|(_, (was, is))| was != is)
        .map(|(i, (_, is))| (i, is))
        .collect();
    let delta = serde_json::to_string(&Message {
        version,
        since: Some(*since),
        changes: Some(changes),
        codes: None,
    })
    .expect("a map push serialises");
    if delta.len() < full.len() {
        delta
    } else {
        full
    }
}

/// Who watches, and what they were last sent.
#[derive(Debug, Default)]
pub(crate) struct Live {
    /// Open sockets, as the shell last counted them (at load, on each
    /// push and each new watcher) less those closed since.
    watchers: usize,
    /// The map as last pushed: every watcher has it or is told how to get
    /// it, and the next push is the changes from it.
    pushed: Option<(u64, String)>,
    pushed_at_ms: Option<u64>,
    /// A change waits to be pushed at this instant.
    due_ms: Option<u64>,
}

impl Live {
    pub(crate) fn set_watchers(&mut self, watchers: usize) {
        self.watchers = watchers;
        // Watched, with no record of what was sent (the object restarted,
        // and a push it held back may be lost with its memory): the whole
        // map is pushed at the next decision, and an alarm at once makes
        // one.
        if watchers > 0 && self.pushed.is_none() && self.due_ms.is_none() {
            self.due_ms = Some(0);
        }
    }

    /// Answers how many are left.
    pub(crate) fn watcher_left(&mut self) -> usize {
        self.watchers = self.watchers.saturating_sub(1);
        self.watchers
    }

    pub(crate) fn due_ms(&self) -> Option<u64> {
        self.due_ms
    }

    /// A new watcher joins: what to send it first. It is the map as last
    /// pushed, so the next push's changes apply to it; with nothing pushed
    /// yet, the map now becomes that starting point.
    pub(crate) fn join(&mut self, version: u64, codes: impl FnOnce() -> String) -> String {
        self.watchers += 1;
        let (version, codes) = self
            .pushed
            .get_or_insert_with(|| (version, codes()))
            .clone();
        whole(version, &codes)
    }

    /// The map is at `version` now: the push to send, if one is due.
    /// `codes` is called only when one is.
    pub(crate) fn changed(
        &mut self,
        now_ms: u64,
        period: PushPeriod,
        version: u64,
        codes: impl FnOnce() -> String,
    ) -> Option<String> {
        if self.watchers == 0 {
            // Nobody to tell; a watcher who comes is sent the map as it is
            // then.
            self.pushed = None;
            self.due_ms = None;
            return None;
        }
        // Version 0 is the map as set up, which no watcher can be behind.
        let pushed = self.pushed.as_ref().map_or(0, |(v, _)| *v);
        if pushed == version {
            self.due_ms = None;
            return None;
        }
        let period_ms = period.ms(self.watchers);
        if let Some(next) = self.pushed_at_ms.map(|at| at.saturating_add(period_ms)) {
            if now_ms < next {
                self.due_ms = Some(next);
                return None;
            }
        }
        let codes = codes();
        let push = message(self.pushed.as_ref(), version, &codes);
        self.pushed = Some((version, codes));
        self.pushed_at_ms = Some(now_ms);
        self.due_ms = None;
        Some(push)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watched() -> Live {
        let mut live = Live::default();
        live.set_watchers(1);
        live
    }

    /// A 40-seat map with these seats held and these sold.
    fn map(held: &[usize], sold: &[usize]) -> String {
        (0..40)
            .map(|i| match () {
                _ if held.contains(&i) => 'h',
                _ if sold.contains(&i) => 's',
                _ => 'a',
            })
            .collect()
    }

    fn whole_map(version: u64, codes: &str) -> String {
        format!(r#"{{"version":{version},"codes":"{codes}"}}"#)
    }

    #[test]
    fn a_network_may_open_five_live_maps_and_no_more() {
        for open in 0..MAX_WATCHERS_PER_NETWORK {
            assert_eq!(admit_watcher(open), Ok(()));
        }
        let refused = admit_watcher(MAX_WATCHERS_PER_NETWORK).unwrap_err();
        assert_eq!(refused.code, Code::TooManyLiveMaps);
        assert_eq!(refused.code.status(), 429);
    }

    #[test]
    fn the_first_change_goes_at_once_and_the_rest_of_the_period_together_at_its_end() {
        let mut live = watched();
        let period = PushPeriod::default();
        let first = live.changed(0, period, 1, || map(&[0], &[]));
        assert_eq!(first, Some(whole_map(1, &map(&[0], &[]))));
        assert_eq!(live.changed(100, period, 2, || map(&[0, 1], &[])), None);
        assert_eq!(live.changed(400, period, 3, || map(&[0, 1, 2], &[])), None);
        assert_eq!(live.due_ms(), Some(1_000));
        // The alarm at the period's end: one push with both changes.
        let push = live.changed(1_000, period, 3, || map(&[0, 1, 2], &[]));
        assert_eq!(
            push.as_deref(),
            Some(r#"{"version":3,"since":1,"changes":[[1,"h"],[2,"h"]]}"#)
        );
        assert_eq!(live.due_ms(), None);
        // Nothing new: nothing sent, nothing due.
        assert_eq!(
            live.changed(2_500, period, 3, || map(&[0, 1, 2], &[])),
            None
        );
        assert_eq!(live.due_ms(), None);
        // A change after a quiet period goes at once.
        let push = live.changed(2_600, period, 4, || map(&[0, 1], &[2]));
        assert_eq!(
            push.as_deref(),
            Some(r#"{"version":4,"since":3,"changes":[[2,"s"]]}"#)
        );
    }

    #[test]
    fn many_watchers_are_pushed_less_often() {
        let period = PushPeriod::default();
        assert_eq!(period.ms(0), 1_000);
        assert_eq!(period.ms(500), 1_000);
        assert_eq!(period.ms(1_000), 2_000);
        assert_eq!(period.ms(2_000), 4_000);
        let mut live = Live::default();
        live.set_watchers(1_000);
        live.changed(0, period, 1, || map(&[0], &[])).unwrap();
        assert_eq!(live.changed(1_500, period, 2, || map(&[0, 1], &[])), None);
        assert_eq!(live.due_ms(), Some(2_000));
    }

    #[test]
    fn a_push_is_the_whole_map_when_that_is_shorter() {
        let mut live = watched();
        let period = PushPeriod::EVERY_CHANGE;
        live.changed(0, period, 1, || map(&[], &[])).unwrap();
        let all: Vec<usize> = (0..40).collect();
        let push = live.changed(1, period, 2, || map(&[], &all)).unwrap();
        assert_eq!(push, whole_map(2, &"s".repeat(40)));
    }

    #[test]
    fn with_nobody_watching_nothing_is_pushed_or_due_and_a_watcher_gets_the_map_then() {
        let mut live = Live::default();
        let period = PushPeriod::default();
        assert_eq!(live.changed(0, period, 1, || map(&[0], &[])), None);
        assert_eq!(live.due_ms(), None);
        let joined = live.join(2, || map(&[0, 1], &[]));
        assert_eq!(joined, whole_map(2, &map(&[0, 1], &[])));
        // The next change is sent at once, as changes from what it was sent.
        let push = live.changed(10, period, 3, || map(&[0, 1], &[2]));
        assert_eq!(
            push.as_deref(),
            Some(r#"{"version":3,"since":2,"changes":[[2,"s"]]}"#)
        );
        live.watcher_left();
        assert_eq!(live.changed(20, period, 4, || map(&[0, 1], &[2, 3])), None);
        assert_eq!(live.due_ms(), None);
    }

    #[test]
    fn a_late_watcher_starts_from_the_last_push_so_the_next_changes_apply_to_it() {
        let mut live = watched();
        let period = PushPeriod::default();
        live.changed(0, period, 1, || map(&[0], &[])).unwrap();
        assert_eq!(live.changed(10, period, 2, || map(&[0, 1], &[])), None);
        // Joining between the two: it is sent version 1, then the push.
        let joined = live.join(2, || map(&[0, 1], &[]));
        assert_eq!(joined, whole_map(1, &map(&[0], &[])));
        let push = live.changed(1_000, period, 2, || map(&[0, 1], &[]));
        assert_eq!(
            push.as_deref(),
            Some(r#"{"version":2,"since":1,"changes":[[1,"h"]]}"#)
        );
    }
}
