//! The admission rate a showing's object can take, by Little's law.
//!
//! Admitted buyers stay `minutes_per_buyer` (choosing, holding, paying)
//! and each sends the object about `requests_per_buyer` requests in that
//! time. At an admission rate of λ a minute, Little's law (L = λW) puts
//! L = λ × minutes_per_buyer buyers in the object at once, sending
//! L × requests_per_buyer / (minutes_per_buyer × 60) = λ ×
//! requests_per_buyer / 60 requests a second: the time a buyer stays
//! cancels out of the load, and sets only how many are inside at once.
//! The rate is then the one that keeps that load at `headroom_percent` of
//! what the object was measured to serve, so holds stay fast while the
//! line moves.

use serde::{Deserialize, Serialize};

/// What one showing's object served in the benchmark: 167 holds a second
/// with 50 buyers on a 2,000-seat showing (bench/HISTORY.md, "Viewers
/// watching over their sockets", no viewers, median of 3 runs), on the
/// 2-core machine the benchmarks run on; Cloudflare's own machines serve
/// more, so the figure errs on the side of a slower line.
pub const MEASURED_REQUESTS_PER_SECOND: u32 = 167;
/// A buyer's requests to the object: the hold, reading it back once or
/// twice while paying, the checkout, and its answer.
pub const REQUESTS_PER_BUYER: u32 = 5;
/// Half the measured capacity, leaving the rest for buyers already in and
/// for the seat map's readers.
pub const HEADROOM_PERCENT: u32 = 50;

/// What the rate is computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RateInputs {
    pub object_requests_per_second: u32,
    pub requests_per_buyer: u32,
    pub headroom_percent: u32,
    /// How long an admitted buyer stays: the showing's payment window.
    pub minutes_per_buyer: u32,
}

impl RateInputs {
    /// The measured figures above, for buyers who stay `minutes_per_buyer`.
    pub fn measured(minutes_per_buyer: u32) -> RateInputs {
        RateInputs {
            object_requests_per_second: MEASURED_REQUESTS_PER_SECOND,
            requests_per_buyer: REQUESTS_PER_BUYER,
            headroom_percent: HEADROOM_PERCENT,
            minutes_per_buyer,
        }
    }
}

/// The rate, with the numbers that produced it, for staff to read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggested {
    pub admit_per_minute: u32,
    /// L = λW: how many admitted buyers are inside at once at that rate.
    pub buyers_at_once: u32,
    /// The load they put on the object.
    pub requests_per_second: u32,
    pub inputs: RateInputs,
}

/// The admission rate that keeps the object at its headroom; at least one
/// a minute, at most [`crate::MAX_ADMIT_PER_MINUTE`].
pub fn suggest(inputs: RateInputs) -> Suggested {
    let budget = u64::from(inputs.object_requests_per_second) * u64::from(inputs.headroom_percent);
    // λ × requests_per_buyer / 60 ≤ budget / 100.
    let per_minute = budget * 60 / (100 * u64::from(inputs.requests_per_buyer.max(1)));
    let admit_per_minute = per_minute.clamp(1, u64::from(crate::MAX_ADMIT_PER_MINUTE)) as u32;
    let buyers_at_once = u64::from(admit_per_minute) * u64::from(inputs.minutes_per_buyer);
    let load = u64::from(admit_per_minute) * u64::from(inputs.requests_per_buyer) / 60;
    Suggested {
        admit_per_minute,
        buyers_at_once: buyers_at_once.min(u64::from(u32::MAX)) as u32,
        requests_per_second: load as u32,
        inputs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_keeps_the_object_at_its_headroom_and_littles_law_gives_who_is_inside() {
        let s = suggest(RateInputs::measured(10));
        // 167 a second, half of it, 5 requests a buyer: 83.5 buyers'
        // requests a second, 1,002 buyers a minute.
        assert_eq!(s.admit_per_minute, 1_002);
        assert_eq!(s.requests_per_second, 83);
        assert_eq!(s.buyers_at_once, 10_020);
        let slow = suggest(RateInputs {
            object_requests_per_second: 1,
            requests_per_buyer: 1_000,
            headroom_percent: 1,
            minutes_per_buyer: 10,
        });
        assert_eq!(slow.admit_per_minute, 1, "never a line that stands still");
    }
}
