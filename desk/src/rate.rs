//! Token buckets: per client address for new holds, and per address and
//! per buyer for card payments: a burst, then a steady rate. Each bucket is
//! a row, so an evicted object forgives no one.
//! Tokens are counted in thousandths, in integers, so a stored bucket
//! reads back exactly.

use std::collections::HashMap;

use crate::storage::Write;
use crate::{Decision, Desk};

/// The most clients tracked at once; past this the table starts afresh, so
/// a flood of distinct addresses cannot grow memory or storage without bound.
pub const MAX_CLIENTS: usize = 10_000;
const MILLI: u64 = 1_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Holds a client may ask for at once.
    pub burst: u32,
    /// Holds per minute a client earns back.
    pub per_minute: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit {
            burst: 10,
            per_minute: 20,
        }
    }
}

/// Card payments a client (address, or buyer) may try: a burst, then a
/// few an hour. A card tester runs many cards; a buyer whose card is
/// declined tries another or two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardLimit {
    pub burst: u32,
    pub per_hour: u32,
}

impl Default for CardLimit {
    fn default() -> Self {
        CardLimit {
            burst: 6,
            per_hour: 10,
        }
    }
}

/// Most cards tried on one hold: after three declines, the buyer chooses
/// seats again (when the hold ends), which the hold rate bounds.
pub const MAX_CARDS_PER_HOLD: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    pub tokens_milli: u64,
    pub at_ms: u64,
}

#[derive(Debug, Default)]
pub struct HoldRate {
    pub buckets: HashMap<String, Bucket>,
}

impl HoldRate {
    /// Takes one token for `client`; on refusal, says how many milliseconds
    /// until the next token. The bucket as it now stands is returned to be
    /// stored either way.
    pub fn take(
        &mut self,
        limit: RateLimit,
        client: &str,
        now_ms: u64,
    ) -> (Result<(), u64>, Bucket, bool) {
        self.take_per(limit.burst, limit.per_minute, 60_000, client, now_ms)
    }

    /// Takes a token earned back at `per_period` tokens each `period_ms`.
    fn take_per(
        &mut self,
        burst: u32,
        per_period: u32,
        period_ms: u64,
        client: &str,
        now_ms: u64,
    ) -> (Result<(), u64>, Bucket, bool) {
        let cleared = self.buckets.len() >= MAX_CLIENTS && !self.buckets.contains_key(client);
        if cleared {
            self.buckets.clear();
        }
        let burst = u64::from(burst.max(1)) * MILLI;
        let per_minute = u64::from(per_period);
        let bucket = self.buckets.entry(client.to_string()).or_insert(Bucket {
            tokens_milli: burst,
            at_ms: now_ms,
        });
        let elapsed_ms = now_ms.saturating_sub(bucket.at_ms);
        // Thousandths earned: per_period tokens per period.
        let earned = elapsed_ms.saturating_mul(per_minute) * MILLI / period_ms;
        bucket.tokens_milli = bucket.tokens_milli.saturating_add(earned).min(burst);
        // Time that earned less than a thousandth is not thrown away, so a
        // client asking often still earns at the full rate.
        if earned > 0 || bucket.tokens_milli == burst {
            bucket.at_ms = bucket.at_ms.max(now_ms);
        }
        let result = if bucket.tokens_milli >= MILLI {
            bucket.tokens_milli -= MILLI;
            Ok(())
        } else if per_minute == 0 {
            Err(period_ms)
        } else {
            let missing = MILLI - bucket.tokens_milli;
            Err((missing * period_ms).div_ceil(per_minute * MILLI))
        };
        (result, *bucket, cleared)
    }
}

impl Desk {
    /// Takes a hold token for the client and stores its bucket.
    pub(crate) fn take_hold_token(
        &mut self,
        client: &str,
        now_ms: u64,
        d: &mut Decision,
    ) -> Result<(), u64> {
        let taken = self.rate.take(self.settings.hold_rate, client, now_ms);
        self.store_bucket(client, taken, d)
    }

    /// Takes a card-payment token for the key (`card:<address>` or
    /// `card-buyer:<buyer>`) and stores its bucket.
    pub(crate) fn take_card_token(
        &mut self,
        key: &str,
        now_ms: u64,
        d: &mut Decision,
    ) -> Result<(), u64> {
        let limit = self.settings.card_limit;
        let taken = self
            .rate
            .take_per(limit.burst, limit.per_hour, 3_600_000, key, now_ms);
        self.store_bucket(key, taken, d)
    }

    fn store_bucket(
        &mut self,
        client: &str,
        (result, bucket, cleared): (Result<(), u64>, Bucket, bool),
        d: &mut Decision,
    ) -> Result<(), u64> {
        if cleared {
            d.writes.push(Write::ClearRateBuckets);
        }
        d.writes.push(Write::RateBucket {
            client: client.to_string(),
            tokens_milli: bucket.tokens_milli,
            at_ms: bucket.at_ms,
        });
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: RateLimit = RateLimit {
        burst: 3,
        per_minute: 6,
    };

    fn take(rate: &mut HoldRate, client: &str, now_ms: u64) -> Result<(), u64> {
        rate.take(LIMIT, client, now_ms).0
    }

    #[test]
    fn a_burst_then_one_token_per_interval() {
        let mut rate = HoldRate::default();
        for _ in 0..3 {
            assert_eq!(take(&mut rate, "a", 0), Ok(()));
        }
        assert_eq!(take(&mut rate, "a", 0), Err(10_000));
        assert_eq!(take(&mut rate, "b", 0), Ok(()), "clients are separate");
        assert_eq!(take(&mut rate, "a", 10_000), Ok(()));
        assert!(take(&mut rate, "a", 10_001).is_err());
    }

    #[test]
    fn a_clock_going_backwards_earns_nothing() {
        let mut rate = HoldRate::default();
        for _ in 0..3 {
            take(&mut rate, "a", 50_000).unwrap();
        }
        assert!(take(&mut rate, "a", 0).is_err());
        assert!(take(&mut rate, "a", 50_000).is_err());
    }

    #[test]
    fn past_the_client_limit_the_table_starts_afresh() {
        let mut rate = HoldRate::default();
        for n in 0..MAX_CLIENTS {
            let _ = rate.take(LIMIT, &n.to_string(), 0);
        }
        let (_, _, cleared) = rate.take(LIMIT, "one more", 0);
        assert!(cleared);
        assert_eq!(rate.buckets.len(), 1);
    }
}
