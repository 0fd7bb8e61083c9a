//! A showing's line: who stands where, and how far the admission cursor
//! has come.
//!
//! Places are counted from 1. Sessions that join before `opens_at_ms` are
//! the early ones: each draws a random key (passed in), and at the opening
//! they are placed 1..=E in the order of their keys, so how early one came
//! does not matter. After that, sessions are placed in the order the
//! Worker received them: a join waits [`Line::settle_ms`] before it is placed, so
//! one that took longer to reach the line's object (a read on the way, a
//! far network) is not overtaken by one received after it.
//! The cursor says how many places are admitted: `admit_per_minute` a
//! minute of open time, the first a moment after the opening, where time
//! the line is paused (no seat to choose: sold out, or every seat held by
//! buyers paying) does not count: a line paused
//! before it opens admits nobody until it moves. Staff may change the
//! rate during the rush: the cursor keeps what it had reached and goes on
//! at the new rate from then; and the opening, until the line has opened.

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::clock::Clock;

/// Most places one line holds: far past any cinema's rush, and a bound on
/// the memory a script joining from many sessions can take.
pub const MAX_PLACES: u32 = 100_000;
/// Fastest admission rate a line may have.
pub const MAX_ADMIT_PER_MINUTE: u32 = 100_000;
/// How long a join after the opening waits to be placed: longer than a
/// join takes from the Worker to the line's object (a database read and a
/// call across the network), short beside a rush's wait.
pub const SETTLE_MS: u64 = 1_000;
/// While joins take longer than [`SETTLE_MS`] to reach the line (a rush
/// saturating the stack between the Worker and the object), a join waits
/// twice the slowest of the last [`TRANSIT_MEMORY_MS`], up to this.
pub const MAX_SETTLE_MS: u64 = 5_000;
pub const TRANSIT_MEMORY_MS: u64 = 10_000;
/// The bits of an early one's random draw that count (storage keeps
/// them exactly: rows come back as JSON numbers, exact up to 2^53).
pub const DRAW_MASK: u64 = (1 << 48) - 1;

/// Where a draw falls among all the draws there may be, in 65,536ths:
/// the early ones are placed in the order of their draws, so this says
/// about how far back among them one will stand.
pub fn draw_share(draw: u64) -> u16 {
    ((draw & DRAW_MASK) >> 32) as u16
}

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
    /// when sales open. `early` is how many they are so far; `share`
    /// is where its draw falls ([`draw_share`]).
    Early {
        opens_at_ms: u64,
        early: u32,
        share: u16,
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

/// What a join did to the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// A new session before the opening: placed at random when it opens.
    Early,
    /// A new session after it: placed once [`Line::settle_ms`] has passed.
    Settling,
    /// The session had joined before (early, placed or settling).
    Known,
}

/// Where a session stands for its answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    Stands(Standing),
    /// Not placed yet: ask again at `due_ms`.
    SettlesAt {
        due_ms: u64,
    },
    /// Never joined.
    Absent,
}

/// A session given its place, with when the Worker received its join.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placed {
    pub session: String,
    pub at_ms: u64,
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
    /// Joins after the opening not placed yet, by when the Worker received
    /// them (then by when they reached the line).
    settling: Vec<Placed>,
    /// The next place to give; 1 + places given.
    next: u32,
    settled: bool,
    /// How long joins took from the Worker to the line, for the last
    /// [`TRANSIT_MEMORY_MS`]: (when seen, ms taken), the slowest first
    /// (each entry is slower than every later one, so the first is the
    /// slowest still remembered). Not kept: after a restart the line
    /// starts again from [`SETTLE_MS`].
    #[serde(skip)]
    transit: VecDeque<(u64, u64)>,
}

impl Line {
    pub fn new(opens_at_ms: u64, admit_per_minute: u32) -> Result<Line, LineError> {
        Ok(Line {
            clock: Clock::new(opens_at_ms, admit_per_minute)?,
            early: Vec::new(),
            places: HashMap::new(),
            settling: Vec::new(),
            next: 1,
            settled: false,
            transit: VecDeque::new(),
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

    /// How many sessions stand in line (early, placed or settling).
    pub fn len(&self) -> usize {
        self.early.len() + self.places.len() + self.settling.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Puts `session` in line at `now_ms` at once, as a replay of the kept
    /// joins does (live joins [`Line::arrive`] and settle): joining again
    /// answers where it already stands. `random` is the shell's fresh random draw,
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
            false => {
                self.early.push((random, session.to_string()));
                self.clock.early = self.early.len() as u32;
            }
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

    /// Takes `session`'s join, which the Worker received at `at_ms`, at
    /// `now_ms` (the line's own time; a stamp later than it counts as it).
    /// Before the opening it joins the early ones at once (the shell keeps
    /// the join); after it, the join settles until [`Line::place_due`]
    /// places it. `random` is the shell's fresh draw, for an early one.
    pub fn arrive(
        &mut self,
        now_ms: u64,
        at_ms: u64,
        session: &str,
        random: u64,
    ) -> Result<Arrival, LineError> {
        let at = at_ms.min(now_ms);
        self.settle(at);
        if self.settled {
            self.note_transit(now_ms, now_ms - at);
        }
        let known = self.early.iter().any(|(_, s)| s == session)
            || self.places.contains_key(session)
            || self.settling.iter().any(|p| p.session == session);
        if known {
            return Ok(Arrival::Known);
        }
        if self.len() >= MAX_PLACES as usize {
            return Err(LineError::Full);
        }
        if !self.settled {
            self.early.push((random, session.to_string()));
            self.clock.early = self.early.len() as u32;
            return Ok(Arrival::Early);
        }
        // Received before the opening but reaching the line after it: the
        // first to be placed, at the opening (which is how a replay, placing
        // it at its stamp, places it too).
        let at = at.max(self.clock.opens_at_ms);
        let slot = self.settling.partition_point(|p| p.at_ms <= at);
        self.settling.insert(
            slot,
            Placed {
                session: session.to_string(),
                at_ms: at,
            },
        );
        Ok(Arrival::Settling)
    }

    /// Places every settling join received [`Line::settle_ms`] or more
    /// before `now_ms`, in the order the Worker received them; answers them in
    /// that order for the shell to keep (replaying them with
    /// [`Line::join`] in that order gives the same places).
    pub fn place_due(&mut self, now_ms: u64) -> Vec<Placed> {
        self.settle(now_ms);
        let wait = self.settle_ms(now_ms);
        let due = self
            .settling
            .partition_point(|p| p.at_ms.saturating_add(wait) <= now_ms);
        let placed: Vec<Placed> = self.settling.drain(..due).collect();
        for p in &placed {
            self.places.insert(p.session.clone(), self.next);
            self.next += 1;
        }
        placed
    }

    /// Where `session` stands at `now_ms`, or when to ask again.
    pub fn answer(&mut self, now_ms: u64, session: &str) -> Answer {
        let wait = self.settle_ms(now_ms);
        if let Some(p) = self.settling.iter().find(|p| p.session == session) {
            return Answer::SettlesAt {
                due_ms: p.at_ms.saturating_add(wait),
            };
        }
        match self.standing(now_ms, session) {
            Some(standing) => Answer::Stands(standing),
            None => Answer::Absent,
        }
    }

    /// Where `session` stands at `now_ms`, if it joined.
    pub fn standing(&mut self, now_ms: u64, session: &str) -> Option<Standing> {
        self.settle(now_ms);
        if !self.settled {
            return self
                .early
                .iter()
                .find(|(_, s)| s == session)
                .map(|(draw, _)| Standing::Early {
                    opens_at_ms: self.clock.opens_at_ms,
                    early: self.early.len() as u32,
                    share: draw_share(*draw),
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

    /// Notes that a join took `transit_ms` from the Worker to the line.
    fn note_transit(&mut self, now_ms: u64, transit_ms: u64) {
        self.forget_transit(now_ms);
        while self.transit.back().is_some_and(|&(_, t)| t <= transit_ms) {
            self.transit.pop_back();
        }
        self.transit.push_back((now_ms, transit_ms));
    }

    fn forget_transit(&mut self, now_ms: u64) {
        while self
            .transit
            .front()
            .is_some_and(|&(seen, _)| seen.saturating_add(TRANSIT_MEMORY_MS) <= now_ms)
        {
            self.transit.pop_front();
        }
    }

    /// How long a join waits to be placed at `now_ms`: [`SETTLE_MS`], or
    /// twice the slowest join of late, up to [`MAX_SETTLE_MS`].
    pub fn settle_ms(&mut self, now_ms: u64) -> u64 {
        self.forget_transit(now_ms);
        let slowest = self.transit.front().map_or(0, |&(_, t)| t);
        slowest.saturating_mul(2).clamp(SETTLE_MS, MAX_SETTLE_MS)
    }

    /// How many places are admitted at `now_ms`.
    pub fn cursor(&self, now_ms: u64) -> u32 {
        self.clock.cursor(now_ms)
    }

    /// No seat to choose (sold out, or every seat held): the cursor stands
    /// still from `now_ms`.
    pub fn pause(&mut self, now_ms: u64) {
        self.clock.pause(now_ms);
    }

    /// A seat is free again: the cursor moves again from `now_ms`.
    pub fn resume(&mut self, now_ms: u64) {
        self.clock.resume(now_ms);
    }

    pub fn is_paused(&self) -> bool {
        self.clock.is_paused()
    }

    /// The showing sold out (or not), which buyers in line are told; the
    /// shell sets it from the map with each join, as it pauses the line.
    pub fn set_sold_out(&mut self, sold_out: bool) {
        self.clock.set_sold_out(sold_out);
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
        sessions.extend(self.settling.iter().map(|p| p.session.clone()));
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

    #[test]
    fn joins_are_placed_in_the_order_the_worker_received_them_once_settled() {
        let mut line = Line::new(1_000, 60).unwrap();
        assert_eq!(line.arrive(500, 400, "early", 7), Ok(Arrival::Early));
        // Until the opening, the Worker's copy of the cursor tells an early
        // one how many they are; from then, only the line knows its place.
        let early = Standing::Early {
            opens_at_ms: 1_000,
            early: 1,
            share: draw_share(7),
        };
        assert_eq!(line.clock().early_standing(999, 0), Some(early.clone()));
        assert_eq!(line.answer(999, "early"), Answer::Stands(early));
        assert_eq!(line.clock().early_standing(1_000, 0), None);
        // "bo" was received first but reached the line second.
        assert_eq!(line.arrive(2_000, 1_900, "cy", 0), Ok(Arrival::Settling));
        assert_eq!(line.arrive(2_010, 1_800, "bo", 0), Ok(Arrival::Settling));
        assert_eq!(
            line.arrive(2_020, 1_800, "bo", 0),
            Ok(Arrival::Known),
            "a second tab"
        );
        assert_eq!(
            line.answer(2_020, "bo"),
            Answer::SettlesAt { due_ms: 2_800 }
        );
        assert_eq!(line.place_due(2_799), []);
        assert_eq!(
            line.place_due(2_850),
            [Placed {
                session: "bo".into(),
                at_ms: 1_800
            }],
            "the early one was placed at the opening; cy is not due yet"
        );
        // Received 1.2 s before it reached the line: slow joins make the
        // line wait twice as long (2.4 s) before placing anyone, so cy,
        // received after it but sooner at the line, is not placed first.
        assert_eq!(line.arrive(3_000, 1_800, "dee", 0), Ok(Arrival::Settling));
        assert_eq!(line.settle_ms(3_000), 2_400);
        // A stamp ahead of the line's own time counts as its time.
        assert_eq!(line.arrive(3_000, 9_000, "eve", 0), Ok(Arrival::Settling));
        assert_eq!(
            line.answer(3_000, "eve"),
            Answer::SettlesAt { due_ms: 5_400 }
        );
        assert_eq!(line.place_due(4_199), []);
        let placed: Vec<String> = line
            .place_due(4_300)
            .into_iter()
            .map(|p| p.session)
            .collect();
        assert_eq!(placed, ["dee", "cy"]);
        let place = |line: &mut Line, s: &str| match line.answer(4_300, s) {
            Answer::Stands(Standing::Waiting { place, .. } | Standing::Admitted { place }) => place,
            other => panic!("{s}: {other:?}"),
        };
        assert_eq!(
            ["early", "bo", "dee", "cy"].map(|s| place(&mut line, s)),
            [1, 2, 3, 4]
        );
        assert_eq!(line.answer(4_300, "nobody"), Answer::Absent);
        assert_eq!(line.waiting(4_300), ["eve"], "four admitted by 4.3 s");
        // Once joins are quick again for a while, the wait is a second.
        assert_eq!(line.settle_ms(3_000 + TRANSIT_MEMORY_MS), SETTLE_MS);
        // And however slow they were, it is never more than 5 s.
        line.arrive(13_000, 9_000, "fay", 0).unwrap();
        assert_eq!(line.settle_ms(13_000), MAX_SETTLE_MS);
    }

    #[test]
    fn a_replay_of_the_kept_joins_gives_every_place_again() {
        let mut live = Line::new(1_000, 60).unwrap();
        let mut kept = Vec::new();
        for (now, at, s, draw) in [(10, 10, "a", 5), (20, 20, "b", 3), (1_100, 990, "c", 9)] {
            assert_eq!(live.arrive(now, at, s, draw), Ok(Arrival::Early));
            kept.push((at, s.to_string(), draw));
        }
        // Received before the opening, reaching the line once it settled.
        for (now, at, s) in [(1_500, 1_400, "d"), (1_510, 999, "e"), (1_520, 1_450, "f")] {
            live.place_due(now);
            assert_eq!(live.arrive(now, at, s, 0), Ok(Arrival::Settling));
        }
        kept.extend(
            live.place_due(5_000)
                .into_iter()
                .map(|p| (p.at_ms, p.session, 0)),
        );
        let mut replayed = Line::new(1_000, 60).unwrap();
        for (at, s, draw) in &kept {
            replayed.join(*at, s, *draw).unwrap();
        }
        for s in ["a", "b", "c", "d", "e", "f"] {
            assert_eq!(replayed.answer(5_000, s), live.answer(5_000, s), "{s}");
        }
        assert!(
            matches!(
                live.answer(5_000, "e"),
                Answer::Stands(
                    Standing::Waiting { place: 4, .. } | Standing::Admitted { place: 4 }
                )
            ),
            "received before the opening: first of those placed after it"
        );
    }
}
