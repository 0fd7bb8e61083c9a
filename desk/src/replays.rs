//! The first answer to each `Idempotency-Key`, kept so that a retried hold
//! gets the same answer, within bounds a stranger cannot stretch: only
//! answers that depend on the showing's state are kept (a hold granted,
//! a 409), each at most [`MAX_REPLAY_BODY_BYTES`] and never with the seat
//! map; at most [`MAX_REPLAYS`] of them and [`MAX_REPLAY_BYTES`] in all,
//! the least recently used forgotten first; and none older than
//! [`REPLAY_TTL_MS`] is loaded or kept.

use std::collections::{BTreeSet, HashMap};

use crate::storage::Write;
use crate::Decision;

/// The two bounds the object's loading applies too, kept with its tables.
pub use crate::storage::{MAX_REPLAY_BODY_BYTES, REPLAY_TTL_MS};
/// Most answers kept for one showing.
pub const MAX_REPLAYS: usize = 5_000;
/// Most bytes of kept answers (key, fingerprint, body and buyer) for one
/// showing: with the largest answers, about 230 of them; with a
/// cinema's usual ones (a few seats), over a thousand.
pub const MAX_REPLAY_BYTES: usize = 1024 * 1024;
/// Most stale answers one decision forgets, so forgetting never makes a
/// hold slow; the alarm forgets more at a time.
const STALE_PER_HOLD: usize = 20;
pub(crate) const STALE_PER_ALARM: usize = 1_000;

/// A stored first answer to an idempotent request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub fingerprint: String,
    pub status: u16,
    pub body: String,
    pub buyer: String,
    pub created_at_ms: u64,
    /// When it was last made or replayed, for forgetting the least
    /// recently used first.
    pub used_at_ms: u64,
}

impl Recorded {
    /// The bytes its row keeps, as counted against [`MAX_REPLAY_BYTES`].
    fn bytes(&self, key: &str) -> usize {
        key.len() + self.fingerprint.len() + self.body.len() + self.buyer.len()
    }
}

/// The kept answers by key, by age (for the 24-hour window) and by last
/// use (for making room).
#[derive(Debug, Default)]
pub struct Replays {
    by_key: HashMap<String, Recorded>,
    by_age: BTreeSet<(u64, String)>,
    by_use: BTreeSet<(u64, String)>,
    bytes: usize,
}

impl Replays {
    pub fn get(&self, key: &str) -> Option<&Recorded> {
        self.by_key.get(key)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_key.len()
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.bytes
    }

    fn remove(&mut self, key: &str) -> Option<Recorded> {
        let old = self.by_key.remove(key)?;
        self.by_age.remove(&(old.created_at_ms, key.to_string()));
        self.by_use.remove(&(old.used_at_ms, key.to_string()));
        self.bytes -= old.bytes(key);
        Some(old)
    }

    /// Keeps an answer as loaded or made, with no room made for it.
    pub fn insert(&mut self, key: String, recorded: Recorded) {
        self.remove(&key);
        self.bytes += recorded.bytes(&key);
        self.by_age.insert((recorded.created_at_ms, key.clone()));
        self.by_use.insert((recorded.used_at_ms, key.clone()));
        self.by_key.insert(key, recorded);
    }

    /// Keeps a new answer, forgetting the least recently used until it
    /// fits; an answer over [`MAX_REPLAY_BODY_BYTES`] is not kept.
    pub fn record(&mut self, key: String, recorded: Recorded, d: &mut Decision) {
        if recorded.body.len() > MAX_REPLAY_BODY_BYTES {
            return;
        }
        self.remove(&key);
        self.make_room(recorded.bytes(&key), d);
        d.writes.push(Write::Replay {
            key: key.clone(),
            fingerprint: recorded.fingerprint.clone(),
            status: recorded.status,
            body: recorded.body.clone(),
            buyer: recorded.buyer.clone(),
            at_ms: recorded.created_at_ms,
        });
        self.insert(key, recorded);
    }

    /// Forgets the least recently used answers until one of `bytes` more
    /// fits within both caps.
    fn make_room(&mut self, bytes: usize, d: &mut Decision) {
        self.shrink_to(MAX_REPLAYS - 1, MAX_REPLAY_BYTES.saturating_sub(bytes), d);
    }

    /// Forgets the least recently used answers until the table is within
    /// its caps: what brings one loaded from older code within them.
    pub fn keep_within_caps(&mut self, d: &mut Decision) {
        self.shrink_to(MAX_REPLAYS, MAX_REPLAY_BYTES, d);
    }

    fn shrink_to(&mut self, count: usize, bytes: usize, d: &mut Decision) {
        while !self.by_key.is_empty() && (self.by_key.len() > count || self.bytes > bytes) {
            let Some((_, key)) = self.by_use.first().cloned() else {
                break;
            };
            self.remove(&key);
            d.writes.push(Write::ForgetReplay { key });
        }
    }

    /// Marks an answer replayed now, so it is among the last to go.
    pub fn touch(&mut self, key: &str, now_ms: u64, d: &mut Decision) {
        let Some(mut recorded) = self.remove(key) else {
            return;
        };
        recorded.used_at_ms = now_ms;
        d.writes.push(Write::ReplayUsed {
            key: key.to_string(),
            at_ms: now_ms,
        });
        self.insert(key.to_string(), recorded);
    }

    /// Forgets up to `limit` answers older than the replay window.
    pub fn forget_stale(&mut self, now_ms: u64, limit: usize, d: &mut Decision) {
        let cutoff = now_ms.saturating_sub(REPLAY_TTL_MS);
        let stale: Vec<String> = self
            .by_age
            .iter()
            .take_while(|(at, _)| *at < cutoff)
            .take(limit)
            .map(|(_, key)| key.clone())
            .collect();
        for key in stale {
            self.remove(&key);
            d.writes.push(Write::ForgetReplay { key });
        }
    }

    pub(crate) fn forget_stale_on_hold(&mut self, now_ms: u64, d: &mut Decision) {
        self.forget_stale(now_ms, STALE_PER_HOLD, d);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(body_bytes: usize, at_ms: u64) -> Recorded {
        Recorded {
            fingerprint: "f".repeat(64),
            status: 201,
            body: "b".repeat(body_bytes),
            buyer: "u".repeat(32),
            created_at_ms: at_ms,
            used_at_ms: at_ms,
        }
    }

    #[test]
    fn the_least_recently_used_answer_makes_room_first() {
        let mut replays = Replays::default();
        let mut d = Decision::default();
        let each = MAX_REPLAY_BODY_BYTES;
        let fit = MAX_REPLAY_BYTES / answer(each, 0).bytes("k-00000");
        for n in 0..fit {
            replays.record(format!("k-{n:05}"), answer(each, n as u64), &mut d);
        }
        assert_eq!(replays.len(), fit);
        replays.touch("k-00000", 1_000_000, &mut d);
        replays.record("k-new".into(), answer(each, 2_000_000), &mut d);
        assert!(replays.get("k-00000").is_some(), "used lately, so kept");
        assert!(
            replays.get("k-00001").is_none(),
            "the least recently used goes"
        );
        assert!(replays.bytes() <= MAX_REPLAY_BYTES);
        assert!(d.writes.contains(&Write::ForgetReplay {
            key: "k-00001".into()
        }));
    }

    #[test]
    fn an_answer_over_four_kilobytes_is_not_kept() {
        let mut replays = Replays::default();
        let mut d = Decision::default();
        replays.record("k".into(), answer(MAX_REPLAY_BODY_BYTES + 1, 0), &mut d);
        assert_eq!(replays.len(), 0);
        assert!(d.writes.is_empty());
    }

    #[test]
    fn no_more_than_the_most_answers_are_kept_however_small() {
        let mut replays = Replays::default();
        let mut d = Decision::default();
        for n in 0..MAX_REPLAYS + 10 {
            replays.record(format!("{n}"), answer(10, n as u64), &mut d);
        }
        assert_eq!(replays.len(), MAX_REPLAYS);
        assert!(replays.get("9").is_none() && replays.get("10").is_some());
    }
}
