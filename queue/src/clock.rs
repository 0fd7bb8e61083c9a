//! A line's admission cursor, apart from who stands where: it moves
//! `admit_per_minute` places a minute of open time from the opening (the
//! first a moment after it), stands still while paused (the showing sold
//! out), and after a change of rate goes on from where it stood. Nothing
//! in it names a session, so it is small enough for the Worker to keep a
//! copy a second old and tell a buyer who has a place where they stand
//! without asking the waiting room's object.

use serde::{Deserialize, Serialize};

use crate::line::{LineError, Standing, MAX_ADMIT_PER_MINUTE, MAX_PLACES};

const MINUTE_MS: u64 = 60_000;
/// How late a buyer in line is told to ask again. A page
/// asks when its turn is due (the cursor moves at a known rate, so that
/// is exact while it moves), and otherwise at least every
/// [`ASK_AT_MOST_MS`] for news (the showing sold out, or the line moving
/// again): a line of thousands then asks about as often as the cursor
/// admits, plus its length over this a second, instead of its whole
/// length every few seconds.
pub const ASK_AT_MOST_MS: u64 = 30_000;
/// How often the front of a line standing still asks: it is let in first
/// when a seat comes back, but the buyers already let in, who watch the
/// map, are as near the seat, so a second sooner wins it little, and a
/// still line's front asking every second was a hundred requests a second.
pub const ASK_WHILE_STILL_MS: u64 = 5_000;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub(crate) opens_at_ms: u64,
    pub(crate) admit_per_minute: u32,
    /// Open time the line has stood still, and since when it stands now.
    paused_ms: u64,
    paused_since: Option<u64>,
    /// The open time of the last change of rate, and how far the cursor
    /// had moved by then, in place-milliseconds (places × a minute), so a
    /// new rate goes on exactly from where the old one left it.
    rated_from_open_ms: u64,
    moved_before: u64,
    /// How many joined before the opening, so the Worker can tell one of
    /// them how many they are without asking the object until it opens.
    #[serde(default)]
    pub(crate) early: u32,
    /// Whether the showing is sold out (no free seat, no hold that could
    /// lapse), which buyers in line are told; the cursor also stands
    /// still while every seat is held, without that being a sell-out.
    #[serde(default)]
    sold_out: bool,
}

impl Clock {
    pub fn new(opens_at_ms: u64, admit_per_minute: u32) -> Result<Clock, LineError> {
        if !(1..=MAX_ADMIT_PER_MINUTE).contains(&admit_per_minute) {
            return Err(LineError::BadRate);
        }
        Ok(Clock {
            opens_at_ms,
            admit_per_minute,
            paused_ms: 0,
            paused_since: None,
            rated_from_open_ms: 0,
            moved_before: 0,
            early: 0,
            sold_out: false,
        })
    }

    /// A new rate from `now_ms`; the places already reached stay reached.
    pub(crate) fn set_rate(&mut self, now_ms: u64, admit_per_minute: u32) -> Result<(), LineError> {
        if !(1..=MAX_ADMIT_PER_MINUTE).contains(&admit_per_minute) {
            return Err(LineError::BadRate);
        }
        if admit_per_minute != self.admit_per_minute {
            let open = self.open_ms(now_ms).unwrap_or(0);
            self.moved_before = self.moved(open);
            self.rated_from_open_ms = open.max(self.rated_from_open_ms);
            self.admit_per_minute = admit_per_minute;
        }
        Ok(())
    }

    /// Open time that counts toward admission at `now_ms`.
    fn open_ms(&self, now_ms: u64) -> Option<u64> {
        let since = now_ms.checked_sub(self.opens_at_ms)?;
        let standing = self.paused_since.map_or(0, |p| now_ms.saturating_sub(p));
        Some(since.saturating_sub(self.paused_ms + standing))
    }

    /// How far the cursor has moved after `open` ms of open time, in
    /// place-milliseconds.
    fn moved(&self, open: u64) -> u64 {
        let since = open.saturating_sub(self.rated_from_open_ms);
        self.moved_before
            .saturating_add(since.saturating_mul(u64::from(self.admit_per_minute)))
    }

    /// How many places are admitted at `now_ms`: none before the opening,
    /// then one more each `1 / admit_per_minute` minutes of open time.
    pub fn cursor(&self, now_ms: u64) -> u32 {
        let Some(open) = self.open_ms(now_ms) else {
            return 0;
        };
        self.moved(open)
            .div_ceil(MINUTE_MS)
            .min(u64::from(MAX_PLACES)) as u32
    }

    /// Where one who joined before the opening, with a draw falling at
    /// `share` ([`crate::line::draw_share`]), stands at `now_ms`, while
    /// the line has not opened; `None` once it has: their place is then
    /// the line's to tell.
    pub fn early_standing(&self, now_ms: u64, share: u16) -> Option<Standing> {
        (now_ms < self.opens_at_ms).then_some(Standing::Early {
            opens_at_ms: self.opens_at_ms,
            early: self.early,
            share,
        })
    }

    /// In how many ms the holder of `standing` should ask again (`None`
    /// once admitted), [`ASK_AT_MOST_MS`] at most.
    /// In line: when the cursor reaches its place, or while the line
    /// stands still, when it would if it moved now, and not sooner than
    /// [`ASK_WHILE_STILL_MS`].
    /// Early: at the opening plus the time the cursor takes to come near
    /// the place its draw makes likely, so the early ones do not all ask
    /// the line's object at the opening at once.
    pub fn ask_again_ms(&self, now_ms: u64, standing: &Standing) -> Option<u64> {
        let tick = |places: u64| places * MINUTE_MS / u64::from(self.admit_per_minute);
        let ms = match *standing {
            Standing::Admitted { .. } => return None,
            Standing::Early { early, share, .. } => {
                // Their rank among n uniform draws spreads by about √n/2
                // at most (a binomial's deviation); starting three of those
                // sooner, one rarely asks after its turn came.
                let likely = u64::from(early) * u64::from(share) / 65_536;
                let spread = 3 * u64::from(early.isqrt()) / 2 + 1;
                self.opens_at_ms.saturating_sub(now_ms) + tick(likely.saturating_sub(spread))
            }
            Standing::Waiting {
                ahead, estimate_ms, ..
            } => estimate_ms.unwrap_or_else(|| tick(u64::from(ahead) + 1).max(ASK_WHILE_STILL_MS)),
        };
        Some(ms.clamp(1, ASK_AT_MOST_MS))
    }

    /// Where the holder of `place` stands at `now_ms`.
    pub fn standing(&self, now_ms: u64, place: u32) -> Standing {
        let cursor = self.cursor(now_ms);
        if place <= cursor {
            return Standing::Admitted { place };
        }
        Standing::Waiting {
            place,
            ahead: place - cursor - 1,
            estimate_ms: self.estimate_ms(now_ms, place),
        }
    }

    /// How long until the cursor reaches `place`, if the line moves.
    fn estimate_ms(&self, now_ms: u64, place: u32) -> Option<u64> {
        if self.paused_since.is_some() {
            return None;
        }
        let open = self.open_ms(now_ms)?;
        // The cursor reaches place p once it has moved past p - 1 places:
        // at the current rate, from where the last change left it.
        let target = u64::from(place.saturating_sub(1)) * MINUTE_MS;
        let needed = self.rated_from_open_ms
            + target.saturating_sub(self.moved_before) / u64::from(self.admit_per_minute)
            + 1;
        Some(needed.saturating_sub(open))
    }

    /// Whether buyers in line are told the showing is sold out.
    pub fn is_sold_out(&self) -> bool {
        self.sold_out
    }

    pub(crate) fn set_sold_out(&mut self, sold_out: bool) {
        self.sold_out = sold_out;
    }

    /// No seat to choose (sold out, or every seat held): the cursor stands
    /// still from `now_ms`.
    pub fn pause(&mut self, now_ms: u64) {
        if self.paused_since.is_none() {
            self.paused_since = Some(now_ms.max(self.opens_at_ms));
        }
    }

    /// A seat is free again: the cursor moves again from `now_ms`.
    pub fn resume(&mut self, now_ms: u64) {
        if let Some(since) = self.paused_since.take() {
            self.paused_ms += now_ms.saturating_sub(since);
        }
    }

    pub fn is_paused(&self) -> bool {
        self.paused_since.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::line::{draw_share, Line, DRAW_MASK};

    #[test]
    fn one_in_line_asks_when_the_cursor_reaches_it_and_now_and_then_when_far_or_still() {
        // 600 a minute: one place each 100 ms from the opening at 1 s.
        let mut clock = Clock::new(1_000, 600).unwrap();
        let now = 2_000;
        // Asked exactly when the cursor reaches it, whether that is over
        // a second away (place 25) or under (place 11).
        for place in [25, 11] {
            let ask = clock
                .ask_again_ms(now, &clock.standing(now, place))
                .unwrap();
            assert_eq!(place == 11, ask < 1_000, "{place}: {ask}");
            assert!(matches!(
                clock.standing(now + ask - 1, place),
                Standing::Waiting { .. }
            ));
            assert_eq!(
                clock.standing(now + ask, place),
                Standing::Admitted { place }
            );
        }
        // Far back: asked for news at most every 30 s, long before its turn.
        let far = clock.standing(now, 5_000);
        assert_eq!(clock.ask_again_ms(now, &far), Some(ASK_AT_MOST_MS));
        // Standing still: the front asks every 5 s, the back every 30 s.
        clock.pause(now);
        let front = clock.standing(now, clock.cursor(now) + 1);
        assert_eq!(clock.ask_again_ms(now, &front), Some(ASK_WHILE_STILL_MS));
        assert_eq!(
            clock.ask_again_ms(now, &clock.standing(now, 5_000)),
            Some(ASK_AT_MOST_MS)
        );
        let admitted = clock.standing(now, 1);
        assert_eq!(clock.ask_again_ms(now, &admitted), None);
    }

    #[test]
    fn the_early_ones_ask_spread_after_the_opening_and_before_their_turn() {
        // 2,000 come early for a line opening at 60 s that admits 1,200 a
        // minute (one each 50 ms): placed by their draws at the opening.
        let opens = 60_000;
        let mut line = Line::new(opens, 1_200).unwrap();
        let mut draw: u64 = 0x2545_f491;
        let mut asks = Vec::new();
        for n in 0..2_000u32 {
            draw = draw.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            line.join(1_000 + u64::from(n), &format!("s{n}"), draw & DRAW_MASK)
                .unwrap();
        }
        // Each asks last a few seconds before the opening, as a page would.
        let last = opens - 3_000;
        for n in 0..2_000u32 {
            let session = format!("s{n}");
            let standing = line.standing(last, &session).unwrap();
            let Standing::Early { share, .. } = standing else {
                panic!("{standing:?}")
            };
            assert_eq!(
                line.clock().early_standing(last, share),
                Some(standing.clone())
            );
            asks.push((
                session,
                last + line.clock().ask_again_ms(last, &standing).unwrap(),
            ));
        }
        let mut late = 0;
        for (session, at) in &asks {
            assert!(*at >= opens && *at <= last + ASK_AT_MOST_MS);
            // Its turn: when the cursor reaches the place its draw gave.
            let Some(Standing::Waiting { estimate_ms, .. }) = line.standing(opens, session) else {
                continue; // the first, let in at the opening
            };
            if *at > opens + estimate_ms.unwrap() {
                late += 1;
            }
        }
        // A handful at most ask after their turn came (by a few ms).
        assert!(late <= 10, "{late} asked after their turn");
        // And they do not all ask at the opening: most ask later.
        let at_opening = asks.iter().filter(|(_, at)| *at < opens + 1_000).count();
        assert!(
            at_opening < 200,
            "{at_opening} asked in the opening's second"
        );
        assert!(draw_share(DRAW_MASK) == u16::MAX);
    }
}
