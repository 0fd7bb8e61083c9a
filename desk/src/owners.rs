//! Who made each hold, kept for the hold's life and an hour after it ends
//! (so its buyer can still be told how it ended), indexed so that the
//! checks every hold makes (does this buyer hold seats already, how many
//! does this network hold) look at that buyer's or network's open holds
//! only, never at every owner of the showing.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use crate::decision::{CodeSent, Decision, Effect};
use crate::protocol::SeatPrice;
use crate::storage::{to_json, HoldEnd, Write};

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
    /// The discount code the buyer applied, if any.
    pub code: Option<AppliedCode>,
}

/// A discount code on a hold: the seats' prices with it taken off.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AppliedCode {
    pub code: String,
    /// The buyer's address it was applied for (the order's must match).
    pub email: String,
    /// Its uses are limited: the code's object keeps one for this hold.
    pub limited: bool,
    /// Each seat's price with the discount (`discount_minor` its part).
    pub prices: Vec<SeatPrice>,
    /// What it takes off in all.
    pub amount: u64,
    /// The code's object was told (or is being told) how the hold's use
    /// ended: committed or released. Until then the owner is kept.
    #[serde(default)]
    pub settled: bool,
}

/// How long a message a code's object did not answer waits to be sent
/// again.
pub const CODE_RETRY_MS: u64 = 30_000;
/// Most code messages sent again by one alarm.
const CODE_RESENDS_PER_ALARM: usize = 100;

/// What a code's object is told of a hold's use, kept until it answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CodeMessage {
    pub code: String,
    pub request: uses::Request,
}

/// What the shell learnt from a code's object.
#[derive(Debug, Clone, PartialEq)]
pub enum CodeAnswer {
    /// It answered (taken, or refused as no longer standing).
    Answered(Result<uses::Reply, uses::Refused>),
    /// It could not be reached: the message is sent again later.
    Unreachable,
}

/// The key a hold's use has in its code's object.
pub fn use_key(showing_id: &str, hold_id: &str) -> String {
    format!("{showing_id}:{hold_id}")
}

fn message_id(code: &str, hold_id: &str) -> String {
    format!("{code}:{hold_id}")
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
    /// Messages for the codes' objects not yet answered, by code and hold.
    code_messages: BTreeMap<String, CodeMessage>,
    /// Memory only: when unanswered messages are next sent again (a
    /// loaded desk sends them at once).
    codes_due_ms: Option<u64>,
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
    /// `cutoff_ms` or are past [`MAX_ENDED_OWNERS`]; a hold whose limited
    /// code still waits for its order's outcome is kept.
    pub fn to_forget(&self, cutoff_ms: u64, limit: usize) -> Vec<String> {
        let over = self.ended_by_age.len().saturating_sub(MAX_ENDED_OWNERS);
        let waiting = |id: &String| {
            self.by_hold
                .get(id)
                .and_then(|o| o.code.as_ref())
                .is_some_and(|c| c.limited && !c.settled)
        };
        self.ended_by_age
            .iter()
            .enumerate()
            .take_while(|(n, (at_ms, _))| *n < over || *at_ms < cutoff_ms)
            .filter(|(_, (_, id))| !waiting(id))
            .take(limit)
            .map(|(_, (_, id))| id.clone())
            .collect()
    }

    /// Puts a code on a hold, or takes it off, with its row.
    pub fn set_code(&mut self, hold_id: &str, code: Option<AppliedCode>, d: &mut Decision) {
        if let Some(owner) = self.by_hold.get_mut(hold_id) {
            d.writes.push(Write::HoldCode {
                hold_id: hold_id.to_string(),
                record: code.as_ref().map(to_json),
            });
            owner.code = code;
        }
    }

    /// Tells the hold's limited code how its use ended, once: committed
    /// for `order_id`, or released for `None`.
    pub fn settle_code(
        &mut self,
        showing_id: &str,
        hold_id: &str,
        order_id: Option<&str>,
        d: &mut Decision,
    ) {
        let Some(code) = self.by_hold.get_mut(hold_id).and_then(|o| o.code.as_mut()) else {
            return;
        };
        if !code.limited || code.settled {
            return;
        }
        code.settled = true;
        let record = Some(to_json(&*code));
        let name = code.code.clone();
        d.writes.push(Write::HoldCode {
            hold_id: hold_id.to_string(),
            record,
        });
        let key = use_key(showing_id, hold_id);
        let request = match order_id {
            Some(order_id) => uses::Request::Commit {
                key,
                order_id: order_id.to_string(),
            },
            None => uses::Request::Release { key },
        };
        self.tell_code(&name, hold_id, request, d);
    }

    /// Sends a code's object `request` about a hold's use and keeps it
    /// until answered; it replaces what was still to be said of that use.
    pub fn tell_code(
        &mut self,
        code: &str,
        hold_id: &str,
        request: uses::Request,
        d: &mut Decision,
    ) {
        let message = CodeMessage {
            code: code.to_string(),
            request,
        };
        d.writes.push(Write::CodeMessage {
            id: message_id(code, hold_id),
            record: Some(to_json(&message)),
        });
        d.effects.push(Effect::CodeUse(CodeSent {
            code: message.code.clone(),
            hold_id: hold_id.to_string(),
            request: message.request.clone(),
        }));
        self.code_messages
            .insert(message_id(code, hold_id), message);
    }

    /// A message loaded from storage, to be sent again.
    pub fn keep_code_message(&mut self, hold_id: &str, message: CodeMessage) {
        self.code_messages
            .insert(message_id(&message.code, hold_id), message);
        self.codes_due_ms = Some(0);
    }

    /// A code's object answered a message about a hold's use: the message
    /// goes, unless a newer one replaced it meanwhile.
    pub fn code_answered(
        &mut self,
        now_ms: u64,
        sent: &CodeSent,
        answer: CodeAnswer,
        d: &mut Decision,
    ) {
        let id = message_id(&sent.code, &sent.hold_id);
        match answer {
            CodeAnswer::Unreachable => {
                let due = now_ms + CODE_RETRY_MS;
                self.codes_due_ms = Some(self.codes_due_ms.map_or(due, |d| d.min(due)));
            }
            CodeAnswer::Answered(_) => {
                if self
                    .code_messages
                    .get(&id)
                    .is_some_and(|m| m.request == sent.request)
                {
                    self.code_messages.remove(&id);
                    d.writes.push(Write::CodeMessage { id, record: None });
                }
            }
        }
    }

    /// When unanswered code messages are next sent again.
    pub fn codes_due(&self) -> Option<u64> {
        self.codes_due_ms.filter(|_| !self.code_messages.is_empty())
    }

    /// Sends again the unanswered code messages, when due.
    pub fn resend_codes(&mut self, now_ms: u64, d: &mut Decision) {
        if self.codes_due().is_none_or(|due| due > now_ms) {
            return;
        }
        for (id, message) in self.code_messages.iter().take(CODE_RESENDS_PER_ALARM) {
            let hold_id = id.split_once(':').map_or("", |(_, h)| h);
            d.effects.push(Effect::CodeUse(CodeSent {
                code: message.code.clone(),
                hold_id: hold_id.to_string(),
                request: message.request.clone(),
            }));
        }
        self.codes_due_ms = Some(now_ms + CODE_RETRY_MS);
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
            code: None,
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
