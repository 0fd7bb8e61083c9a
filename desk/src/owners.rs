//! Who made each hold, kept for the hold's life and an hour after it ends
//! (so its buyer can still be told how it ended), indexed so that the
//! checks every hold makes (does this buyer hold seats already, how many
//! does this network hold) look at that buyer's or network's open holds
//! only, never at every owner of the showing.

use std::collections::{BTreeSet, HashMap};

use crate::protocol::SeatPrice;
use crate::storage::HoldEnd;

/// Most ended holds whose owners are kept, however many ended within the
/// hour: past it the oldest are forgotten first, and their buyers are
/// told "no such hold" rather than how it ended. A busy evening ends far
/// fewer holds an hour; a script making holds from many networks cannot
/// make the table larger than this.
pub const MAX_ENDED_OWNERS: usize = 1_000;

/// Who made a hold and how it ended.
#[derive(Debug, Clone)]
pub struct Owner {
    pub buyer: String,
    /// The network the hold was asked from (empty for the box office and
    /// for holds made before it was kept).
    pub client: String,
    pub seats: Vec<String>,
    /// Each seat's price as held (empty for a hold made before seats had
    /// prices: each then costs the showing's default price).
    pub prices: Vec<SeatPrice>,
    pub ended: Option<(HoldEnd, u64)>,
}

/// Every owner by hold id, with the open ones (not known to have ended:
/// live, or expired and not yet swept) by buyer and by network, and the
/// ended ones by when they ended.
#[derive(Debug, Default)]
pub struct Owners {
    by_hold: HashMap<String, Owner>,
    open_by_buyer: HashMap<String, BTreeSet<String>>,
    open_by_client: HashMap<String, BTreeSet<String>>,
    ended_by_age: BTreeSet<(u64, String)>,
}

fn unindex(index: &mut HashMap<String, BTreeSet<String>>, who: &str, hold_id: &str) {
    if let Some(holds) = index.get_mut(who) {
        holds.remove(hold_id);
        if holds.is_empty() {
            index.remove(who);
        }
    }
}

impl Owners {
    pub fn get(&self, hold_id: &str) -> Option<&Owner> {
        self.by_hold.get(hold_id)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.by_hold.len()
    }

    pub fn insert(&mut self, hold_id: String, owner: Owner) {
        self.remove(&hold_id);
        match owner.ended {
            Some((_, at_ms)) => {
                self.ended_by_age.insert((at_ms, hold_id.clone()));
            }
            None => {
                for (index, who) in [
                    (&mut self.open_by_buyer, &owner.buyer),
                    (&mut self.open_by_client, &owner.client),
                ] {
                    index
                        .entry(who.clone())
                        .or_default()
                        .insert(hold_id.clone());
                }
            }
        }
        self.by_hold.insert(hold_id, owner);
    }

    pub fn remove(&mut self, hold_id: &str) -> Option<Owner> {
        let owner = self.by_hold.remove(hold_id)?;
        match owner.ended {
            Some((_, at_ms)) => {
                self.ended_by_age.remove(&(at_ms, hold_id.to_string()));
            }
            None => {
                unindex(&mut self.open_by_buyer, &owner.buyer, hold_id);
                unindex(&mut self.open_by_client, &owner.client, hold_id);
            }
        }
        Some(owner)
    }

    /// Marks an open hold ended; `false` if it was unknown or had ended.
    pub fn end(&mut self, hold_id: &str, how: HoldEnd, at_ms: u64) -> bool {
        match self.by_hold.get(hold_id) {
            Some(owner) if owner.ended.is_none() => {}
            _ => return false,
        }
        let Some(mut owner) = self.remove(hold_id) else {
            return false;
        };
        owner.ended = Some((how, at_ms));
        self.insert(hold_id.to_string(), owner);
        true
    }

    /// The holds of `buyer` not known to have ended.
    pub fn open_of_buyer<'a>(&'a self, buyer: &str) -> impl Iterator<Item = &'a String> {
        self.open_by_buyer.get(buyer).into_iter().flatten()
    }

    /// The holds asked from `client` not known to have ended.
    pub fn open_of_client<'a>(&'a self, client: &str) -> impl Iterator<Item = &'a String> {
        self.open_by_client.get(client).into_iter().flatten()
    }

    /// Every hold not known to have ended.
    pub fn open(&self) -> impl Iterator<Item = &String> {
        self.open_by_buyer.values().flatten()
    }

    /// Up to `limit` ended holds, oldest first, that ended before
    /// `cutoff_ms` or are past [`MAX_ENDED_OWNERS`].
    pub fn to_forget(&self, cutoff_ms: u64, limit: usize) -> Vec<String> {
        let over = self.ended_by_age.len().saturating_sub(MAX_ENDED_OWNERS);
        self.ended_by_age
            .iter()
            .enumerate()
            .take_while(|(n, (at_ms, _))| *n < over || *at_ms < cutoff_ms)
            .take(limit)
            .map(|(_, (_, id))| id.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(buyer: &str, client: &str) -> Owner {
        Owner {
            buyer: buyer.into(),
            client: client.into(),
            seats: vec!["A1".into()],
            prices: Vec::new(),
            ended: None,
        }
    }

    #[test]
    fn the_indexes_follow_holds_as_they_open_end_and_go() {
        let mut owners = Owners::default();
        owners.insert("h1".into(), owner("ana", "net1"));
        owners.insert("h2".into(), owner("bob", "net1"));
        assert_eq!(owners.open_of_client("net1").count(), 2);
        assert_eq!(owners.open_of_buyer("ana").collect::<Vec<_>>(), ["h1"]);
        assert!(owners.end("h1", HoldEnd::Released, 5));
        assert!(!owners.end("h1", HoldEnd::Expired, 6), "ended once");
        assert_eq!(owners.open_of_buyer("ana").count(), 0);
        assert_eq!(owners.open_of_client("net1").collect::<Vec<_>>(), ["h2"]);
        assert_eq!(owners.to_forget(5, 10), Vec::<String>::new());
        assert_eq!(owners.to_forget(6, 10), ["h1"]);
        owners.remove("h1");
        owners.remove("h2");
        assert_eq!(owners.len(), 0);
        assert!(owners.open_by_client.is_empty() && owners.open_by_buyer.is_empty());
    }

    #[test]
    fn past_the_cap_the_oldest_ended_holds_are_forgotten_first() {
        let mut owners = Owners::default();
        for n in 0..MAX_ENDED_OWNERS + 3 {
            let id = format!("h{n}");
            owners.insert(id.clone(), owner("ana", "net"));
            owners.end(&id, HoldEnd::Expired, n as u64 + 100);
        }
        assert_eq!(owners.to_forget(0, 10), ["h0", "h1", "h2"]);
    }
}
