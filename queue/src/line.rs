//! A showing's line: who stands where, and how far the admission cursor
//! has come.
//!
//! Places are counted from 1. Sessions that join before `opens_at_ms` are
//! the early ones: each draws a random key (passed in), and at the opening
//! they are placed 1..=E in the order of their keys, so how early one came
//! does not matter. After that, each new session takes the next place.
//! The cursor says how many places are admitted: `admit_per_minute` a
//! minute of open time, the first a moment after the opening, where time
//! the line is paused (the showing sold out) does not count: a line paused
//! before it opens admits nobody until it moves. Staff may change the
//! rate during the rush: the cursor keeps what it had reached and goes on
//! at the new rate from then; and the opening, until the line has opened.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::clock::Clock;

/// Most places one line holds: far past any cinema's rush, and a bound on
/// the memory a script joining from many sessions can take.
pub const MAX_PLACES: u32 = 100_000;
/// Fastest admission rate a line may have.
pub const MAX_ADMIT_PER_MINUTE: u32 = 100_000;

/// Why a line refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LineError {
    /// The admission rate is 0 or above [`MAX_ADMIT_PER_MINUTE`].
    BadRate,
    /// The line has [`MAX_PLACES`] places.
    Full,
}

/// Where a session stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Standing {
    /// Joined before the opening: placed at random among the early ones
    /// when sales open. `early` is how many they are so far.
    Early {
        opens_at_ms: u64,
        early: u32,
    },
    /// In line at `place`, with `ahead` not yet admitted in front; an
    /// estimate of the wait unless the line is paused.
    Waiting {
        place: u32,
        ahead: u32,
        estimate_ms: Option<u64>,
    },
    Admitted {
        place: u32,
    },
}

/// A join's answer: where the session stands, and whether it was new.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Joined {
    pub standing: Standing,
    pub new: bool,
}

/// One showing's line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// The admission cursor: it needs nothing of who stands where, so the
    /// Worker can keep a copy and tell a placed buyer where they stand.
    clock: Clock,
    /// Early sessions with their random keys, until the opening.
    early: Vec<(u64, String)>,
    places: HashMap<String, u32>,
    /// The next place to give; 1 + places given.
    next: u32,
    settled: bool,
}

impl Line {
    pub fn new(opens_at_ms: u64, admit_per_minute: u32) -> Result<Line, LineError> {
        Ok(Line {
            clock: Clock::new(opens_at_ms, admit_per_minute)?,
            early: Vec::new(),
            places: HashMap::new(),
            next: 1,
            settled: false,
        })
    }

    /// Staff changed the showing's rate or opening at `now_ms`. A new rate
    /// counts from now, the cursor keeping the places it had reached; a new
    /// opening counts only while the line has not opened (those who came
    /// early are then placed at the new one).
    pub fn reconfigure(
        &mut self,
        now_ms: u64,
        opens_at_ms: u64,
        admit_per_minute: u32,
    ) -> Result<(), LineError> {
        self.settle(now_ms);
        if !self.settled {
            self.clock.opens_at_ms = opens_at_ms;
        }
        self.clock.set_rate(now_ms, admit_per_minute)
    }

    /// When the line opens, and how many it admits a minute.
    pub fn config(&self) -> (u64, u32) {
        (self.clock.opens_at_ms, self.clock.admit_per_minute)
    }

    /// The cursor as it stands, for the Worker to keep.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Whether the line has opened by `now_ms` (its opening can no longer
    /// move).
    pub fn has_opened(&self, now_ms: u64) -> bool {
        self.settled || now_ms >= self.clock.opens_at_ms
    }

    /// How many sessions stand in line (early or placed).
    pub fn len(&self) -> usize {
        self.early.len() + self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Puts `session` in line at `now_ms`, once: joining again answers
    /// where it already stands. `random` is the shell's fresh random draw,
    /// used only for a session that joins before the opening.
    pub fn join(&mut self, now_ms: u64, session: &str, random: u64) -> Result<Joined, LineError> {
        self.settle(now_ms);
        if let Some(standing) = self.standing(now_ms, session) {
            return Ok(Joined {
                standing,
                new: false,
            });
        }
        if self.len() >= MAX_PLACES as usize {
            return Err(LineError::Full);
        }
        match self.settled {
            false => self.early.push((random, session.to_string())),
            true => {
                self.places.insert(session.to_string(), self.next);
                self.next += 1;
            }
        }
        let standing = self
            .standing(now_ms, session)
            .expect("the session just joined");
        Ok(Joined {
            standing,
            new: true,
        })
    }

    /// Where `session` stands at `now_ms`, if it joined.
    pub fn standing(&mut self, now_ms: u64, session: &str) -> Option<Standing> {
        self.settle(now_ms);
        if !self.settled {
            return self
                .early
                .iter()
                .any(|(_, s)| s == session)
                .then_some(Standing::Early {
                    opens_at_ms: self.clock.opens_at_ms,
                    early: self.early.len() as u32,
                });
        }
        let place = *self.places.get(session)?;
        Some(self.clock.standing(now_ms, place))
    }

    /// At the opening, the early sessions take places 1..=E in the order
    /// of their random keys (ties, which a 64-bit draw makes vanishingly
    /// rare, by session).
    fn settle(&mut self, now_ms: u64) {
        if self.settled || now_ms < self.clock.opens_at_ms {
            return;
        }
        let mut early = std::mem::take(&mut self.early);
        early.sort();
        for (_, session) in early {
            self.places.insert(session, self.next);
            self.next += 1;
        }
        self.settled = true;
    }

    /// How many places are admitted at `now_ms`.
    pub fn cursor(&self, now_ms: u64) -> u32 {
        self.clock.cursor(now_ms)
    }

    /// The showing sold out: the cursor stands still from `now_ms`.
    pub fn pause(&mut self, now_ms: u64) {
        self.clock.pause(now_ms);
    }

    /// Seats came back: the cursor moves again from `now_ms`.
    pub fn resume(&mut self, now_ms: u64) {
        self.clock.resume(now_ms);
    }

    pub fn is_paused(&self) -> bool {
        self.clock.is_paused()
    }

    /// Every session still waiting at `now_ms` (to tell them all at once
    /// when the showing sells out), in place order.
    pub fn waiting(&mut self, now_ms: u64) -> Vec<String> {
        self.settle(now_ms);
        let cursor = self.cursor(now_ms);
        let mut all: Vec<(u32, &String)> = self
            .places
            .iter()
            .filter(|(_, &p)| p > cursor)
            .map(|(s, &p)| (p, s))
            .collect();
        all.sort();
        let mut sessions: Vec<String> = all.into_iter().map(|(_, s)| s.clone()).collect();
        sessions.extend(self.early.iter().map(|(_, s)| s.clone()));
        sessions
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_admits_one_at_the_opening_then_the_rate_and_stands_still_while_paused() {
        let mut line = Line::new(60_000, 60).unwrap();
        assert_eq!(line.cursor(60_000), 0);
        assert_eq!(line.cursor(60_001), 1);
        assert_eq!(line.cursor(61_000), 1);
        assert_eq!(line.cursor(61_001), 2);
        assert_eq!(line.cursor(120_000), 60);
        line.pause(120_000);
        assert_eq!(line.cursor(180_000), 60, "sold out: nobody more admitted");
        line.resume(180_000);
        assert_eq!(line.cursor(181_000), 61);
        // Sold out before it opens: nobody is admitted until it moves.
        let mut early = Line::new(10_000, 60).unwrap();
        early.pause(5_000);
        assert_eq!(early.cursor(20_000), 0);
        assert_eq!(Line::new(0, 0), Err(LineError::BadRate));
    }

    #[test]
    fn a_new_rate_goes_on_from_where_the_cursor_stood_and_a_new_opening_counts_until_it_opens() {
        let mut line = Line::new(60_000, 60).unwrap();
        line.reconfigure(30_000, 90_000, 60).unwrap();
        assert_eq!(
            line.config(),
            (90_000, 60),
            "not open yet: the opening moves"
        );
        assert_eq!(line.cursor(60_001), 0);
        assert_eq!(line.cursor(100_000), 10);
        line.reconfigure(100_000, 0, 600).unwrap();
        assert_eq!(line.config(), (90_000, 600), "open: the opening stays");
        assert_eq!(
            line.cursor(100_000),
            10,
            "nothing taken back, nothing jumped"
        );
        assert_eq!(line.cursor(100_100), 11);
        assert_eq!(line.cursor(101_000), 20);
        // Place 30 is reached once 19 more places' worth of time passes.
        let mut waiting = Line::new(0, 60).unwrap();
        for n in 0..30 {
            waiting.join(1, &format!("s{n}"), 0).unwrap();
        }
        waiting.reconfigure(10_000, 0, 600).unwrap();
        let Some(Standing::Waiting {
            place,
            estimate_ms: Some(wait),
            ..
        }) = waiting.standing(10_000, "s29")
        else {
            panic!("s29 waits");
        };
        assert_eq!(place, 30);
        assert_eq!(waiting.cursor(10_000 + wait), 30);
        assert_eq!(waiting.cursor(10_000 + wait - 1), 29);
        assert_eq!(waiting.reconfigure(10_000, 0, 0), Err(LineError::BadRate));
    }

    #[test]
    fn early_sessions_are_placed_by_their_draws_and_later_ones_by_arrival() {
        let mut line = Line::new(1_000, 60).unwrap();
        for (session, draw) in [("ann", 30), ("bo", 10), ("cy", 20)] {
            let joined = line.join(0, session, draw).unwrap();
            assert!(matches!(joined.standing, Standing::Early { .. }));
        }
        assert!(
            !line.join(500, "ann", 1).unwrap().new,
            "one place a session"
        );
        let dee = line.join(1_500, "dee", 0).unwrap();
        assert_eq!(
            dee.standing,
            Standing::Waiting {
                place: 4,
                ahead: 2,
                // Half a second of open time; place 4 is past three seconds.
                estimate_ms: Some(2_501)
            }
        );
        assert_eq!(
            line.standing(1_500, "bo"),
            Some(Standing::Admitted { place: 1 })
        );
        assert_eq!(
            line.standing(1_500, "cy"),
            Some(Standing::Waiting {
                place: 2,
                ahead: 0,
                estimate_ms: Some(501)
            })
        );
        assert_eq!(line.standing(1_500, "ann").map(|_| ()), Some(()));
        assert_eq!(line.waiting(1_500), ["cy", "ann", "dee"]);
        assert_eq!(line.standing(1_500, "nobody"), None);
    }
}
