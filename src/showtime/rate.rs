//! A token bucket per client for new holds: a burst, then a steady rate.
//! Kept in the object's memory only: losing it on a restart merely forgives
//! a client early, which is harmless for an abuse limit.

use std::collections::HashMap;

/// The most clients tracked at once; past this the table starts afresh, so
/// a flood of distinct addresses cannot grow memory without bound.
const MAX_CLIENTS: usize = 10_000;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    /// Holds a client may ask for at once.
    pub burst: u32,
    /// Holds per minute a client earns back.
    pub per_minute: u32,
}

impl RateLimit {
    /// From the `HOLD_RATE_BURST` and `HOLD_RATE_PER_MINUTE` settings
    /// (10 and 20 when unset or unreadable).
    pub fn from_env(env: &worker::Env) -> RateLimit {
        let var = |name: &str, default: u32| {
            env.var(name)
                .ok()
                .and_then(|v| v.to_string().parse().ok())
                .unwrap_or(default)
        };
        RateLimit {
            burst: var("HOLD_RATE_BURST", 10),
            per_minute: var("HOLD_RATE_PER_MINUTE", 20),
        }
    }
}

#[derive(Debug, Default)]
pub struct HoldRate {
    buckets: HashMap<String, Bucket>,
}

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at_ms: u64,
}

impl HoldRate {
    /// Takes one token for `client`; on refusal, says how many milliseconds
    /// until the next token.
    pub fn take(&mut self, limit: RateLimit, client: &str, now_ms: u64) -> Result<(), u64> {
        if self.buckets.len() >= MAX_CLIENTS && !self.buckets.contains_key(client) {
            self.buckets.clear();
        }
        let burst = f64::from(limit.burst.max(1));
        let per_ms = f64::from(limit.per_minute) / 60_000.0;
        let bucket = self.buckets.entry(client.to_string()).or_insert(Bucket {
            tokens: burst,
            at_ms: now_ms,
        });
        let elapsed_ms = now_ms.saturating_sub(bucket.at_ms) as f64;
        bucket.tokens = (bucket.tokens + elapsed_ms * per_ms).min(burst);
        bucket.at_ms = bucket.at_ms.max(now_ms);
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            return Ok(());
        }
        if per_ms <= 0.0 {
            return Err(60_000);
        }
        Err(((1.0 - bucket.tokens) / per_ms).ceil() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: RateLimit = RateLimit {
        burst: 3,
        per_minute: 6,
    };

    #[test]
    fn a_burst_then_one_token_per_interval() {
        let mut rate = HoldRate::default();
        for _ in 0..3 {
            assert_eq!(rate.take(LIMIT, "a", 0), Ok(()));
        }
        assert_eq!(rate.take(LIMIT, "a", 0), Err(10_000));
        assert_eq!(rate.take(LIMIT, "b", 0), Ok(()), "clients are separate");
        assert_eq!(rate.take(LIMIT, "a", 10_000), Ok(()));
        assert!(rate.take(LIMIT, "a", 10_001).is_err());
    }

    #[test]
    fn a_clock_going_backwards_earns_nothing() {
        let mut rate = HoldRate::default();
        for _ in 0..3 {
            rate.take(LIMIT, "a", 50_000).unwrap();
        }
        assert!(rate.take(LIMIT, "a", 0).is_err());
        assert!(rate.take(LIMIT, "a", 50_000).is_err());
    }
}
