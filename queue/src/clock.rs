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

    /// Where the holder of `place` stands at `now_ms`.
    /// Where one who joined before the opening stands at `now_ms`, while
    /// the line has not opened; `None` once it has: their place is then
    /// the line's to tell.
    pub fn early_standing(&self, now_ms: u64) -> Option<Standing> {
        (now_ms < self.opens_at_ms).then_some(Standing::Early {
            opens_at_ms: self.opens_at_ms,
            early: self.early,
        })
    }

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
