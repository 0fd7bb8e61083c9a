//! The uses of one limited discount code ("the first 50 people"), decided
//! in one place, the code's own object, with the discipline of a seat:
//!
//! 1. **Reserved** when a buyer applies the code to a hold: the Worker
//!    asks here first, then attaches the discount to the hold in the
//!    showing's object. A reservation lapses on its own at `until_ms`,
//!    which the Worker sets past the longest life the hold can have
//!    (its payment cap, and a margin), so a reservation whose hold never
//!    took it (the Worker stopped between the two calls) comes back.
//! 2. **Held** once the showing's object has the discount on the hold:
//!    it says so, and from then on the use never lapses by time; only
//!    the showing decides its end, by a message it keeps until it is
//!    answered.
//! 3. **Committed** when the hold's order is paid, or **released** (the
//!    reservation goes) when the hold lapses, is released, or its
//!    payment fails and the hold ends.
//! 4. A committed use comes back only when staff refund its order and
//!    say so (**returned**).
//!
//! Every reservation, held or committed use counts against the limit, so
//! the uses never exceed it; a committed use is never released, and a use
//! is committed only from a reservation or a held use, never from nothing
//! or after its release (`tests/model.rs`).
//!
//! Nothing here does I/O, reads a clock or draws randomness. The shell
//! writes each [`Change`] as a row ([`store`]) and replays them on load.

pub mod store;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

/// Most uses a code can have, whatever staff set: a code limited only per
/// buyer counts every use it had, one row each.
pub const MAX_USES: u32 = 1_000_000;
/// Longest key, order id and buyer accepted (a showing id and a hold id
/// are 16 hex digits each; a buyer is a hash).
pub const MAX_ID_BYTES: usize = 80;

/// The limits staff set on the code; the Worker passes them with each
/// reservation, as stored with the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Limits {
    pub max_uses: Option<u32>,
    pub max_uses_per_buyer: Option<u32>,
}

/// Where one use stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Stage {
    Reserved { until_ms: u64 },
    Held,
    Committed { order_id: String },
}

/// One use: the hold it is for (`key`, the showing and hold ids), whose
/// buyer it counts for, and its stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Use {
    pub key: String,
    /// The buyer's address as a hash (the Worker makes it).
    pub buyer: String,
    #[serde(flatten)]
    pub stage: Stage,
}

/// What a request asks of the code's uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// A buyer applies the code to the hold `key`.
    Reserve {
        key: String,
        buyer: String,
        until_ms: u64,
        limits: Limits,
    },
    /// The showing has the discount on the hold.
    Hold { key: String },
    /// The hold's order is paid.
    Commit { key: String, order_id: String },
    /// The hold ended unpaid.
    Release { key: String },
    /// Staff refunded the order and gave its use back.
    Return { order_id: String },
    /// How many uses stand at each stage.
    Count,
}

/// How many uses stand at each stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Counts {
    pub reserved: u32,
    pub held: u32,
    pub committed: u32,
}

/// The answer to a request that was taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    /// The use stands as asked (`left`: uses still free, when limited).
    Done {
        left: Option<u32>,
    },
    Counts(Counts),
}

/// Why a request was not taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "refused", rename_all = "snake_case")]
pub enum Refused {
    /// Every use is taken (reserved, held or committed).
    UsedUp,
    /// This buyer has used the code as often as it allows.
    LimitPerBuyer { limit: u32 },
    /// The hold's order is paid with the code already.
    Spent,
    /// No reservation for this key (it lapsed, or was released).
    Unknown,
    /// A key, buyer or order id that is empty or too long.
    Malformed,
}

/// A row to write: a use as it stands now, or gone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Put(Use),
    Gone { key: String },
}

/// Every use of one code.
#[derive(Debug, Default)]
pub struct Uses {
    by_key: BTreeMap<String, Use>,
    /// Reservations by when they lapse, for the sweep.
    lapsing: BTreeSet<(u64, String)>,
    per_buyer: HashMap<String, u32>,
    by_order: HashMap<String, String>,
}

fn fits(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_BYTES
}

impl Uses {
    /// The uses as their rows say (each row a use as it last stood).
    pub fn restore(rows: impl IntoIterator<Item = Use>) -> Uses {
        let mut uses = Uses::default();
        for row in rows {
            uses.put(row);
        }
        uses
    }

    pub fn get(&self, key: &str) -> Option<&Use> {
        self.by_key.get(key)
    }

    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for u in self.by_key.values() {
            match u.stage {
                Stage::Reserved { .. } => counts.reserved += 1,
                Stage::Held => counts.held += 1,
                Stage::Committed { .. } => counts.committed += 1,
            }
        }
        counts
    }

    /// Every use standing: reserved, held or committed.
    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// The uses standing for one buyer.
    pub fn of_buyer(&self, buyer: &str) -> u32 {
        self.per_buyer.get(buyer).copied().unwrap_or(0)
    }

    /// Decides one request at `now_ms`; the changes to write come back
    /// beside the answer.
    pub fn decide(
        &mut self,
        now_ms: u64,
        request: Request,
    ) -> (Result<Reply, Refused>, Vec<Change>) {
        let mut changes = self.sweep(now_ms);
        let answer = match request {
            Request::Reserve {
                key,
                buyer,
                until_ms,
                limits,
            } => self.reserve(key, buyer, until_ms, limits, &mut changes),
            Request::Hold { key } => self.advance(&key, Stage::Held, &mut changes),
            Request::Commit { key, order_id } if fits(&order_id) => {
                self.advance(&key, Stage::Committed { order_id }, &mut changes)
            }
            Request::Commit { .. } => Err(Refused::Malformed),
            Request::Release { key } => self.release(&key, &mut changes),
            Request::Return { order_id } => self.give_back(&order_id, &mut changes),
            Request::Count => Ok(Reply::Counts(self.counts())),
        };
        (answer, changes)
    }

    fn reserve(
        &mut self,
        key: String,
        buyer: String,
        until_ms: u64,
        limits: Limits,
        changes: &mut Vec<Change>,
    ) -> Result<Reply, Refused> {
        if !fits(&key) || !fits(&buyer) {
            return Err(Refused::Malformed);
        }
        let max = limits.max_uses.unwrap_or(MAX_USES).min(MAX_USES);
        let left = |uses: &Uses| {
            limits
                .max_uses
                .map(|_| max.saturating_sub(uses.len() as u32))
        };
        // The same hold again: a repeated request, or another buyer's
        // address given for it, which then counts for that buyer.
        let (counted_before, standing) = match self.by_key.get(&key) {
            Some(u) if matches!(u.stage, Stage::Committed { .. }) => return Err(Refused::Spent),
            Some(u) => (u.buyer == buyer, Some(u.stage.clone())),
            None => (false, None),
        };
        if standing.is_none() && self.len() as u32 >= max {
            return Err(Refused::UsedUp);
        }
        if let Some(limit) = limits.max_uses_per_buyer {
            if !counted_before && self.of_buyer(&buyer) >= limit {
                return Err(Refused::LimitPerBuyer { limit });
            }
        }
        let stage = match standing {
            Some(Stage::Held) => Stage::Held,
            Some(Stage::Reserved { until_ms: was }) => Stage::Reserved {
                until_ms: was.max(until_ms),
            },
            _ => Stage::Reserved { until_ms },
        };
        let fresh = Use { key, buyer, stage };
        self.put(fresh.clone());
        changes.push(Change::Put(fresh));
        Ok(Reply::Done { left: left(self) })
    }

    /// A reservation held, or a reservation or held use committed.
    fn advance(
        &mut self,
        key: &str,
        to: Stage,
        changes: &mut Vec<Change>,
    ) -> Result<Reply, Refused> {
        let current = self.by_key.get(key).ok_or(Refused::Unknown)?;
        match (&current.stage, &to) {
            // Repeated: the message was answered before and sent again.
            (Stage::Held, Stage::Held) => return Ok(Reply::Done { left: None }),
            (Stage::Committed { order_id: was }, Stage::Committed { order_id })
                if was == order_id =>
            {
                return Ok(Reply::Done { left: None })
            }
            (Stage::Committed { .. }, _) => return Err(Refused::Spent),
            _ => {}
        }
        let next = Use {
            stage: to,
            ..current.clone()
        };
        self.put(next.clone());
        changes.push(Change::Put(next));
        Ok(Reply::Done { left: None })
    }

    fn release(&mut self, key: &str, changes: &mut Vec<Change>) -> Result<Reply, Refused> {
        match self.by_key.get(key).map(|u| &u.stage) {
            // Paid: only staff give a paid use back, by its order.
            Some(Stage::Committed { .. }) => Err(Refused::Spent),
            Some(_) => {
                self.remove(key);
                changes.push(Change::Gone {
                    key: key.to_string(),
                });
                Ok(Reply::Done { left: None })
            }
            // Released before, or lapsed: nothing stands.
            None => Ok(Reply::Done { left: None }),
        }
    }

    fn give_back(&mut self, order_id: &str, changes: &mut Vec<Change>) -> Result<Reply, Refused> {
        let key = self
            .by_order
            .get(order_id)
            .cloned()
            .ok_or(Refused::Unknown)?;
        self.remove(&key);
        changes.push(Change::Gone { key });
        Ok(Reply::Done { left: None })
    }

    /// Reservations past their time go.
    fn sweep(&mut self, now_ms: u64) -> Vec<Change> {
        let mut gone = Vec::new();
        while let Some((until, key)) = self.lapsing.first().cloned() {
            if until > now_ms {
                break;
            }
            self.remove(&key);
            gone.push(Change::Gone { key });
        }
        gone
    }

    fn put(&mut self, u: Use) {
        self.remove(&u.key);
        *self.per_buyer.entry(u.buyer.clone()).or_default() += 1;
        match &u.stage {
            Stage::Reserved { until_ms } => {
                self.lapsing.insert((*until_ms, u.key.clone()));
            }
            Stage::Committed { order_id } => {
                self.by_order.insert(order_id.clone(), u.key.clone());
            }
            Stage::Held => {}
        }
        self.by_key.insert(u.key.clone(), u);
    }

    fn remove(&mut self, key: &str) {
        let Some(u) = self.by_key.remove(key) else {
            return;
        };
        if let Some(n) = self.per_buyer.get_mut(&u.buyer) {
            *n -= 1;
            if *n == 0 {
                self.per_buyer.remove(&u.buyer);
            }
        }
        match u.stage {
            Stage::Reserved { until_ms } => {
                self.lapsing.remove(&(until_ms, u.key));
            }
            Stage::Committed { order_id } => {
                self.by_order.remove(&order_id);
            }
            Stage::Held => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reserve(key: &str, buyer: &str, until_ms: u64, limits: Limits) -> Request {
        Request::Reserve {
            key: key.into(),
            buyer: buyer.into(),
            until_ms,
            limits,
        }
    }

    #[test]
    fn a_reservation_lapses_unless_the_showing_holds_it() {
        let limits = Limits {
            max_uses: Some(1),
            max_uses_per_buyer: None,
        };
        let mut uses = Uses::default();
        assert_eq!(
            uses.decide(0, reserve("s:h1", "b1", 100, limits)).0,
            Ok(Reply::Done { left: Some(0) })
        );
        assert_eq!(
            uses.decide(1, reserve("s:h2", "b2", 100, limits)).0,
            Err(Refused::UsedUp)
        );
        // Lapsed: the next buyer has it.
        assert!(uses
            .decide(100, reserve("s:h2", "b2", 300, limits))
            .0
            .is_ok());
        assert_eq!(
            uses.decide(101, Request::Hold { key: "s:h1".into() }).0,
            Err(Refused::Unknown)
        );
        assert!(uses
            .decide(101, Request::Hold { key: "s:h2".into() })
            .0
            .is_ok());
        // Held: time no longer ends it.
        assert_eq!(
            uses.decide(10_000, reserve("s:h3", "b3", 20_000, limits)).0,
            Err(Refused::UsedUp)
        );
        let (answer, changes) = uses.decide(
            10_001,
            Request::Commit {
                key: "s:h2".into(),
                order_id: "o2".into(),
            },
        );
        assert!(answer.is_ok());
        assert_eq!(changes.len(), 1);
        assert_eq!(
            uses.decide(10_002, Request::Release { key: "s:h2".into() })
                .0,
            Err(Refused::Spent)
        );
        assert_eq!(uses.counts().committed, 1);
        // Staff give it back with a refund.
        assert!(uses
            .decide(
                10_003,
                Request::Return {
                    order_id: "o2".into()
                }
            )
            .0
            .is_ok());
        assert!(uses
            .decide(10_004, reserve("s:h3", "b3", 20_000, limits))
            .0
            .is_ok());
    }

    #[test]
    fn a_buyer_counts_every_use_standing_for_them() {
        let limits = Limits {
            max_uses: None,
            max_uses_per_buyer: Some(1),
        };
        let mut uses = Uses::default();
        assert_eq!(
            uses.decide(0, reserve("s:h1", "b1", 100, limits)).0,
            Ok(Reply::Done { left: None })
        );
        // The same hold again is the same use.
        assert!(uses.decide(1, reserve("s:h1", "b1", 100, limits)).0.is_ok());
        assert_eq!(
            uses.decide(2, reserve("s:h2", "b1", 100, limits)).0,
            Err(Refused::LimitPerBuyer { limit: 1 })
        );
        assert!(uses.decide(2, reserve("s:h2", "b2", 100, limits)).0.is_ok());
        assert!(uses
            .decide(3, Request::Release { key: "s:h1".into() })
            .0
            .is_ok());
        assert!(
            uses.decide(4, reserve("s:h2", "b1", 100, limits)).0.is_ok(),
            "moved to b1"
        );
        assert_eq!(uses.of_buyer("b2"), 0);
    }

    #[test]
    fn the_rows_give_back_the_same_uses() {
        let limits = Limits {
            max_uses: Some(5),
            max_uses_per_buyer: None,
        };
        let mut uses = Uses::default();
        let mut rows: BTreeMap<String, Use> = BTreeMap::new();
        for (i, request) in [
            reserve("k1", "b", 50, limits),
            reserve("k2", "b", 50, limits),
            Request::Hold { key: "k2".into() },
            Request::Commit {
                key: "k2".into(),
                order_id: "o".into(),
            },
            reserve("k3", "c", 60, limits),
        ]
        .into_iter()
        .enumerate()
        {
            for change in uses.decide(i as u64, request).1 {
                match change {
                    Change::Put(u) => rows.insert(u.key.clone(), u),
                    Change::Gone { key } => rows.remove(&key),
                };
            }
        }
        let back = Uses::restore(rows.into_values());
        assert_eq!(back.counts(), uses.counts());
        assert_eq!(back.of_buyer("b"), 2);
    }
}
