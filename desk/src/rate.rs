//! Token buckets: per client network for new holds, and per network and
//! per buyer for card payments: a burst, then a steady rate. A card bucket
//! is stored at every payment, so an evicted object forgives no card
//! tester. A hold bucket is stored once it is down to half its burst or
//! less: most buyers hold once or twice and write no bucket row at all,
//! while a restart forgives a client at most the first half of a burst
//! (which the seat cap per network, stored with every hold, bounds too).
//! Tokens are counted in thousandths, in integers, so a stored bucket
//! reads back exactly.
//!
//! A client is its IPv4 address or its IPv6 /64 ([`client_key`]): one
//! IPv6 subscriber is usually given a whole /64, so counting its single
//! addresses would give it 2^64 budgets.

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;

use crate::storage::Write;
use crate::{Decision, Desk};

/// The most clients tracked at once; past this the least recently used is
/// forgotten, so a flood of distinct addresses cannot grow memory or
/// storage without bound, and forgets only the oldest of them.
pub const MAX_CLIENTS: usize = 10_000;
const MILLI: u64 = 1_000;
/// Longest client key kept: an address the Worker could not parse is
/// cut to this.
const MAX_CLIENT_KEY: usize = 64;

/// The network a client address is counted under: an IPv4 address as it
/// is (an IPv4-mapped IPv6 address included), an IPv6 address by its /64.
pub fn client_key(address: &str) -> String {
    match address.trim().parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Ok(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
        Err(_) => address.chars().take(MAX_CLIENT_KEY).collect(),
    }
}

/// The network a guesser (of door PINs, of buyers' addresses) is counted
/// under: an IPv4 address as it is, an IPv6 address by its /48, the block
/// a single site is given. A /64 is cheap to have by the thousand, so
/// counting guesses by /64 would let one site multiply its tries.
pub fn guesser_key(address: &str) -> String {
    match address.trim().parse::<IpAddr>() {
        Ok(IpAddr::V6(v6)) if v6.to_ipv4_mapped().is_none() => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}::/48", s[0], s[1], s[2])
        }
        _ => client_key(address),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    /// Holds a client may ask for at once.
    pub burst: u32,
    /// Holds per minute a client earns back.
    pub per_minute: u32,
    /// Most seats one client may hold at once for a showing, whatever the
    /// buyers (or cookies) it holds them as: enough for a school trip, too
    /// few to empty a room.
    pub seats_held: u32,
}

impl Default for RateLimit {
    fn default() -> Self {
        RateLimit {
            burst: 10,
            per_minute: 20,
            seats_held: 20,
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

/// Free orders one client network may place for a showing: a free
/// showing has no card to stop a script emptying it (one hold at a time
/// from many cookies) or mailing tickets to strangers.
pub const FREE_ORDERS_PER_NETWORK: u32 = 10;
/// Free orders one e-mail address may receive for a showing.
pub const FREE_ORDERS_PER_ADDRESS: u32 = 4;

/// Whether a bucket counts a showing's free orders (`free:<network>`,
/// `free-to:<address hash>`). Those are never forgotten to make room for
/// other clients, or a flood of new networks would give every network
/// its free orders again; they need no cap of their own, since each is
/// made by a free order, and a showing has no more orders than seats.
fn counts_free_orders(key: &str) -> bool {
    key.starts_with("free:") || key.starts_with("free-to:")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    pub tokens_milli: u64,
    pub at_ms: u64,
}

#[derive(Debug, Default)]
pub struct HoldRate {
    pub buckets: HashMap<String, Bucket>,
    /// Each bucket by when it was last asked of (memory only: a loaded
    /// bucket counts from when it last earned), for forgetting the least
    /// recently used; the buckets of free orders are never forgotten and
    /// not listed.
    by_use: BTreeSet<(u64, String)>,
    used: HashMap<String, u64>,
}

/// A bucket taken from, and the client forgotten to make room for it.
type Taken = (Result<(), u64>, Bucket, Option<String>);

impl HoldRate {
    /// Puts back a stored bucket.
    pub fn restore(&mut self, client: String, bucket: Bucket) {
        self.touch(&client, bucket.at_ms);
        self.buckets.insert(client, bucket);
    }

    fn touch(&mut self, client: &str, at_ms: u64) {
        if counts_free_orders(client) {
            return;
        }
        if let Some(old) = self.used.insert(client.to_string(), at_ms) {
            self.by_use.remove(&(old, client.to_string()));
        }
        self.by_use.insert((at_ms, client.to_string()));
    }

    /// Forgets the least recently used client, if the table is full and
    /// `client` is new to it.
    fn make_room(&mut self, client: &str) -> Option<String> {
        if counts_free_orders(client)
            || self.used.len() < MAX_CLIENTS
            || self.used.contains_key(client)
        {
            return None;
        }
        let (_, oldest) = self.by_use.pop_first()?;
        self.used.remove(&oldest);
        self.buckets.remove(&oldest);
        Some(oldest)
    }

    /// Takes one token for `client`; on refusal, says how many milliseconds
    /// until the next token. The bucket as it now stands is returned to be
    /// stored either way.
    pub fn take(&mut self, limit: RateLimit, client: &str, now_ms: u64) -> Taken {
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
    ) -> Taken {
        let forgotten = self.make_room(client);
        let last_use = self.used.get(client).copied().unwrap_or(0);
        self.touch(client, last_use.max(now_ms));
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
        (result, *bucket, forgotten)
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
        let limit = self.settings.hold_rate;
        let taken = self.rate.take(limit, client, now_ms);
        let half_burst = u64::from(limit.burst.max(1)) * MILLI / 2;
        let (_, bucket, _) = &taken;
        let store = bucket.tokens_milli <= half_burst;
        self.store_bucket(client, taken, store, d)
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
        self.store_bucket(key, taken, true, d)
    }

    /// Whether a key (`free:<network>` or `free-to:<hash of the
    /// address>`) has a free order left of its `cap`.
    pub(crate) fn has_free_order(&self, key: &str) -> bool {
        self.rate
            .buckets
            .get(key)
            .is_none_or(|bucket| bucket.tokens_milli >= MILLI)
    }

    /// Takes one of the free orders a key may place for this showing: a
    /// bucket of `cap` that earns nothing back, stored at once.
    pub(crate) fn take_free_order(
        &mut self,
        key: &str,
        cap: u32,
        now_ms: u64,
        d: &mut Decision,
    ) -> Result<(), u64> {
        let taken = self.rate.take_per(cap, 0, 3_600_000, key, now_ms);
        self.store_bucket(key, taken, true, d)
    }

    /// Writes the bucket's row when `store`, and forgets the row of the
    /// client that made room for it.
    fn store_bucket(
        &mut self,
        client: &str,
        (result, bucket, forgotten): Taken,
        store: bool,
        d: &mut Decision,
    ) -> Result<(), u64> {
        if let Some(client) = forgotten {
            d.writes.push(Write::ForgetRateBucket { client });
        }
        if store {
            d.writes.push(Write::RateBucket {
                client: client.to_string(),
                tokens_milli: bucket.tokens_milli,
                at_ms: bucket.at_ms,
            });
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: RateLimit = RateLimit {
        burst: 3,
        per_minute: 6,
        seats_held: 20,
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
    fn past_the_client_limit_the_least_recently_used_is_forgotten() {
        let mut rate = HoldRate::default();
        for n in 0..MAX_CLIENTS as u64 {
            let _ = rate.take(LIMIT, &n.to_string(), n);
        }
        // Client 0 asks again, so client 1 is now the least recently used.
        let _ = rate.take(LIMIT, "0", MAX_CLIENTS as u64);
        let (_, _, forgotten) = rate.take(LIMIT, "one more", MAX_CLIENTS as u64 + 1);
        assert_eq!(forgotten.as_deref(), Some("1"));
        assert_eq!(rate.buckets.len(), MAX_CLIENTS);
        assert!(rate.buckets.contains_key("0"), "everyone else is kept");
        let (_, _, forgotten) = rate.take(LIMIT, "0", MAX_CLIENTS as u64 + 2);
        assert_eq!(forgotten, None, "a known client makes no room");
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_slash_64() {
        assert_eq!(client_key("2001:db8:1:2::7"), "2001:db8:1:2::/64");
        assert_eq!(
            client_key("2001:db8:1:2:ffff:1:2:3"),
            client_key("2001:db8:1:2::9")
        );
        assert_ne!(client_key("2001:db8:1:3::1"), client_key("2001:db8:1:2::1"));
        assert_eq!(client_key("203.0.113.9"), "203.0.113.9");
        assert_eq!(client_key("::ffff:203.0.113.9"), "203.0.113.9");
        assert_eq!(client_key("unknown"), "unknown");
        assert_eq!(client_key(&"x".repeat(500)).len(), MAX_CLIENT_KEY);
    }

    #[test]
    fn a_showings_free_orders_are_never_forgotten_to_make_room() {
        let mut rate = HoldRate::default();
        let free = "free:203.0.113.9";
        assert!(rate.take_per(1, 0, 3_600_000, free, 0).0.is_ok());
        for n in 0..MAX_CLIENTS + 10 {
            let _ = rate.take_per(1, 0, 3_600_000, &format!("net{n}"), 1 + n as u64);
        }
        assert_eq!(rate.used.len(), MAX_CLIENTS, "the others are capped");
        assert!(
            rate.take_per(1, 0, 3_600_000, free, 1_000_000).0.is_err(),
            "still used up"
        );
    }

    #[test]
    fn a_guesser_is_counted_by_its_ipv6_slash_48() {
        assert_eq!(guesser_key("2001:db8:1:2::7"), "2001:db8:1::/48");
        assert_eq!(
            guesser_key("2001:db8:1:ffff::1"),
            guesser_key("2001:db8:1:2::9")
        );
        assert_ne!(guesser_key("2001:db8:2::1"), guesser_key("2001:db8:1::1"));
        assert_eq!(guesser_key("203.0.113.9"), "203.0.113.9");
        assert_eq!(guesser_key("::ffff:203.0.113.9"), "203.0.113.9");
        assert_eq!(guesser_key("unknown"), "unknown");
    }
}
