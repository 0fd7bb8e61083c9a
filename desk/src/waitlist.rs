//! The waiting list of a sold-out showing: a buyer leaves an e-mail and
//! how many seats they want; when seats come back (a hold lapses, a
//! refund or a cancelled order reopens seats, an allocation is released),
//! the first person on the list those seats fit is offered them. An offer
//! is a hold of the ledger's, made in the same decision that found the
//! seats free, so nobody browsing the map can take them first; it lasts
//! [`crate::Settings::waitlist_offer_ms`] (30 minutes by default) and is
//! mailed as a signed link. Unclaimed or unpaid, the hold lapses like any
//! other, its seats come back, and the next person is offered them.
//!
//! Each entry is offered seats once at most, and an offer takes only seats
//! that are free, so offers never hold more seats than came back. The
//! first person the seats fit goes first: a party of four keeps its place
//! while two returned seats go to the next person who asked for two.
//!
//! The offer's hold id is the SHA-256 of a token the Worker derives from
//! the entry with a key of its own, so the link in the e-mail is the only
//! way to claim it, and nothing stored can be turned back into the link.

use std::collections::BTreeMap;

use ledger::{Best, HoldId, UnitId};
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::holds::{hold_id_of, TOKEN_LEN};
use crate::protocol::{ClaimOffer, JoinWaitlist, Reply, WaitlistEntryView, WaitlistPlace};
use crate::refusal::{Code, Refusal};
use crate::storage::{to_json, Write};
use crate::{Decision, Desk, Effect};

/// Whom an unclaimed offer's hold belongs to: never a buyer's session.
pub const WAITLIST: &str = "waitlist";
/// Most entries a showing's list keeps, ended ones included: a few hundred
/// people is a long list for a few hundred seats, and the list is loaded
/// with the showing.
pub const MAX_WAITLIST: usize = 500;
/// Most entries still waiting from one network: a household or an office,
/// not a script filling the list with addresses it controls.
pub const MAX_WAITLIST_PER_CLIENT: usize = 4;
/// How long an offer holds its seats unless staff set otherwise.
pub const DEFAULT_OFFER_MS: u64 = 30 * 60 * 1000;
/// The longest address mail can be sent to (RFC 5321's path limit).
pub const MAX_EMAIL_BYTES: usize = 254;

/// Where an entry stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum EntryState {
    Waiting,
    /// Seats are held for it until `until_ms`; once its buyer claimed
    /// them, by a hold of their own (`claimed`, its id), until that ends.
    Offered {
        seats: Vec<String>,
        offered_at_ms: u64,
        until_ms: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        claimed: Option<String>,
    },
    /// The offer's seats were paid for.
    Bought {
        seats: Vec<String>,
        at_ms: u64,
    },
    /// The offer ended unpaid, or the buyer left the list: never offered
    /// seats again.
    Lapsed {
        seats: Vec<String>,
        at_ms: u64,
    },
}

/// One person on the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub id: String,
    /// Its place in the order people joined: the list is kept by it.
    pub seq: u64,
    pub email: String,
    pub seats: u32,
    /// The network it was asked from ([`crate::rate::client_key`]).
    pub client: String,
    pub joined_at_ms: u64,
    /// The offer's hold id, known before any offer is made.
    pub hold_id: String,
    pub state: EntryState,
}

impl Entry {
    fn is_open(&self) -> bool {
        matches!(self.state, EntryState::Waiting | EntryState::Offered { .. })
    }
}

/// The showing's list, in the order people joined.
#[derive(Debug, Default)]
pub struct Waitlist {
    by_seq: BTreeMap<u64, Entry>,
    /// Memory only: the ledger version the list was last filled at, so a
    /// decision that changed no seat does not look again.
    filled_at_version: Option<u64>,
}

impl Waitlist {
    pub fn insert(&mut self, entry: Entry) {
        self.by_seq.insert(entry.seq, entry);
    }

    pub fn len(&self) -> usize {
        self.by_seq.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_seq.is_empty()
    }

    fn has_open(&self) -> bool {
        self.by_seq.values().any(Entry::is_open)
    }

    /// The entry's place among those still waiting, from 1.
    fn position(&self, seq: u64) -> u32 {
        let ahead = self
            .by_seq
            .range(..seq)
            .filter(|(_, e)| e.state == EntryState::Waiting)
            .count();
        ahead as u32 + 1
    }
}

/// An address as the list keeps it: trimmed, at most 254 bytes, one `@`
/// with something either side. The Worker has checked it properly; this
/// bounds what the object keeps.
fn check_email(email: &str) -> Result<String, Refusal> {
    let email = email.trim();
    let ok = email.len() <= MAX_EMAIL_BYTES
        && !email.chars().any(|c| c.is_control() || c.is_whitespace())
        && email
            .split_once('@')
            .is_some_and(|(local, domain)| !local.is_empty() && !domain.is_empty());
    match ok {
        true => Ok(email.to_string()),
        false => Err(Refusal::new(
            Code::InvalidWaitlist,
            "email: an address we can write to",
        )),
    }
}

fn write(entry: &Entry) -> Write {
    Write::WaitlistEntry {
        id: entry.id.clone(),
        record: to_json(entry),
    }
}

impl Desk {
    /// Puts a buyer on the list, or answers where they already are.
    pub(crate) fn join_waitlist(
        &mut self,
        now_ms: u64,
        join: JoinWaitlist,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        self.refuse_if_cancelled()?;
        self.refuse_unless_on_sale(now_ms)?;
        let email = check_email(&join.email)?;
        let most = self.showing()?.ledger.config().max_seats_per_hold;
        if join.seats == 0 || join.seats > most {
            return Err(Refusal::new(
                Code::InvalidWaitlist,
                format!("seats: how many seats you want, 1 to {most}"),
            ));
        }
        if join.id.is_empty()
            || join.id.len() > 64
            || join.token.len() != TOKEN_LEN
            || !join.token.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(Refusal::internal(
                "a waiting list entry needs an id and a 32-hex token",
            ));
        }
        // The same address asking again is told its place, not listed twice.
        if let Some(entry) = self
            .waitlist
            .by_seq
            .values()
            .find(|e| e.is_open() && e.email.eq_ignore_ascii_case(&email))
        {
            return Ok(Reply::WaitlistJoined(WaitlistPlace {
                id: entry.id.clone(),
                position: self.waitlist.position(entry.seq),
                seats: entry.seats,
                new: false,
                offered: matches!(entry.state, EntryState::Offered { .. }),
            }));
        }
        self.sweep(now_ms, d);
        if let Some(seats) = self.offer_seats(now_ms, join.seats) {
            return Err(Refusal::new(
                Code::SeatsAvailable,
                "there are seats for you now: choose them on the seat map",
            )
            .with("available", seats.len()));
        }
        if self.waitlist.len() >= MAX_WAITLIST {
            return Err(Refusal::new(
                Code::WaitlistFull,
                format!("the waiting list for this showing is full ({MAX_WAITLIST} people)"),
            ));
        }
        let client = crate::rate::client_key(&join.client);
        let from_client = self
            .waitlist
            .by_seq
            .values()
            .filter(|e| e.is_open() && e.client == client)
            .count();
        if from_client >= MAX_WAITLIST_PER_CLIENT {
            return Err(Refusal::new(
                Code::RateLimited,
                format!("at most {MAX_WAITLIST_PER_CLIENT} people from one network may wait for a showing"),
            ));
        }
        let seq = self.waitlist.by_seq.keys().next_back().map_or(0, |s| s + 1);
        let entry = Entry {
            id: join.id,
            seq,
            email,
            seats: join.seats,
            client,
            joined_at_ms: now_ms,
            hold_id: hold_id_of(&join.token).as_str().to_string(),
            state: EntryState::Waiting,
        };
        d.writes.push(write(&entry));
        let place = WaitlistPlace {
            id: entry.id.clone(),
            position: self.waitlist.position(seq),
            seats: entry.seats,
            new: true,
            offered: false,
        };
        self.waitlist.insert(entry);
        Ok(Reply::WaitlistJoined(place))
    }

    /// The list as staff see it, in the order people joined.
    pub(crate) fn waitlist_view(&self) -> Result<Reply, Refusal> {
        let showing = self.showing()?;
        let entries = self
            .waitlist
            .by_seq
            .values()
            .map(|e| {
                let (state, seats, until_ms, claimed) = match &e.state {
                    EntryState::Waiting => ("waiting", Vec::new(), None, false),
                    EntryState::Offered {
                        seats,
                        until_ms,
                        claimed,
                        ..
                    } => {
                        // Claimed, the seats are held until the buyer's hold ends.
                        let until = claimed
                            .as_deref()
                            .and_then(|id| HoldId::new(id).ok())
                            .and_then(|id| showing.ledger.hold_record(&id))
                            .map_or(*until_ms, |r| r.expires_at_ms);
                        ("offered", seats.clone(), Some(until), claimed.is_some())
                    }
                    EntryState::Bought { seats, .. } => ("bought", seats.clone(), None, false),
                    EntryState::Lapsed { seats, .. } => ("lapsed", seats.clone(), None, false),
                };
                WaitlistEntryView {
                    id: e.id.clone(),
                    email: e.email.clone(),
                    seats: e.seats,
                    joined_at_ms: e.joined_at_ms,
                    state: state.to_string(),
                    offered_seats: seats,
                    until_ms,
                    claimed,
                }
            })
            .collect();
        Ok(Reply::Waitlist { entries })
    }

    /// A buyer opened their offer's link and chose to pay: the offer's
    /// seats pass, in one ledger call, into a hold of their own of the
    /// usual length, paid for like any other (the ledger pays no
    /// allocation, and an offer is one).
    pub(crate) fn claim_offer(
        &mut self,
        now_ms: u64,
        claim: ClaimOffer,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        if claim.hold_token.len() != TOKEN_LEN
            || !claim.hold_token.bytes().all(|b| b.is_ascii_hexdigit())
        {
            return Err(Refusal::internal("the hold token is not 32 hex characters"));
        }
        self.sweep(now_ms, d);
        self.fill_waitlist(now_ms, d);
        let asked = hold_id_of(&claim.token);
        let entry = self
            .waitlist
            .by_seq
            .values()
            .find(|e| {
                e.id == claim.entry
                    && bool::from(asked.as_str().as_bytes().ct_eq(e.hold_id.as_bytes()))
            })
            .ok_or_else(|| Refusal::not_found("offer"))?;
        let seq = entry.seq;
        let ended = |how: &str| {
            Refusal::new(
                Code::OfferEnded,
                format!("this offer has {how}; join the waiting list again if the showing is still sold out"),
            )
            .with("state", how.rsplit(' ').next().unwrap_or(how))
        };
        let seats = match &entry.state {
            EntryState::Offered {
                claimed: None,
                seats,
                ..
            } => seats.clone(),
            EntryState::Offered {
                claimed: Some(_), ..
            } => return Err(ended("been claimed")),
            EntryState::Bought { .. } => return Err(ended("been bought")),
            _ => return Err(ended("ended")),
        };
        self.refuse_second_hold(&claim.buyer.buyer, now_ms)?;
        let hold_id = hold_id_of(&claim.hold_token);
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        let outcome = showing.ledger.split_hold(now_ms, &asked, &hold_id, &seats);
        let end = Some((&asked, crate::storage::HoldEnd::Committed));
        showing.persist(&outcome.changes, end, now_ms, &mut self.owners, d);
        let granted = outcome.result.map_err(|_| ended("ended"))?;
        // Each seat at the showing's first price: an offer has no choice
        // of prices (yet); the box office can refund a concession's difference.
        let categories = showing.best_categories(seats.len() as u32, &Default::default())?;
        let prices = crate::showing::priced(&seats, &categories, &self.settings.tax);
        let amount = showing.total(&prices);
        let caller = &claim.buyer;
        self.record_owner(
            &hold_id,
            (&caller.buyer, &caller.client),
            &seats,
            &prices,
            d,
        );
        if let Some(entry) = self.waitlist.by_seq.get_mut(&seq) {
            if let EntryState::Offered { claimed, .. } = &mut entry.state {
                *claimed = Some(hold_id.as_str().to_string());
            }
            d.writes.push(write(entry));
        }
        Ok(Reply::Held(crate::protocol::HoldGranted {
            hold_id: claim.hold_token,
            tax: self.tax_line(&prices),
            amount,
            prices,
            seats,
            expires_at_ms: granted.expires_at_ms,
            expires_in_ms: granted.expires_at_ms.saturating_sub(now_ms),
        }))
    }

    /// The seats an offer of `count` would hold now: best available side by
    /// side, else in blocks, else places in the first zone with room; for
    /// a showing of named slots, the first free ones. Never a seat the box
    /// office alone sells.
    fn offer_seats(&self, now_ms: u64, count: u32) -> Option<Vec<UnitId>> {
        let showing = self.showing.as_ref()?;
        let ledger = &showing.ledger;
        let Some(seating) = showing.meta.seating.as_ref() else {
            let online = (0..ledger.unit_count() as u32).map(UnitId).filter(|&u| {
                ledger.unit_state(u) == Some(&ledger::UnitState::Available)
                    && ledger
                        .unit_name(u)
                        .is_some_and(|name| !showing.meta.desk_only.iter().any(|d| d == name))
            });
            let picked: Vec<UnitId> = online.take(count as usize).collect();
            return (picked.len() == count as usize).then_some(picked);
        };
        let best = |together, zone| Best {
            count,
            together,
            accessible: false,
            counter: false,
            zone,
        };
        [best(true, None), best(false, None)]
            .into_iter()
            .chain((0..seating.zones.len() as u32).map(|z| best(false, Some(z))))
            .find_map(|b| ledger.best_seats(now_ms, &b).ok())
            .filter(|units| units.len() == count as usize)
    }

    /// Settles offers whose hold ended, then offers the seats that are free
    /// to the people waiting, first come first, each once. Run after every
    /// decision; it looks only when seats changed since it last did.
    pub(crate) fn fill_waitlist(&mut self, now_ms: u64, d: &mut Decision) {
        let Some(version) = self.showing.as_ref().map(|s| s.ledger.version()) else {
            return;
        };
        if self.waitlist.filled_at_version == Some(version) || !self.waitlist.has_open() {
            return;
        }
        self.settle_offers(now_ms, d);
        let open = self.refuse_if_cancelled().is_ok() && self.refuse_unless_on_sale(now_ms).is_ok();
        if open {
            let waiting: Vec<u64> = self
                .waitlist
                .by_seq
                .values()
                .filter(|e| e.state == EntryState::Waiting)
                .map(|e| e.seq)
                .collect();
            for seq in waiting {
                self.offer(now_ms, seq, d);
            }
        }
        self.waitlist.filled_at_version = self.showing.as_ref().map(|s| s.ledger.version());
    }

    /// An offer whose hold is no longer live ended: bought if its seats
    /// were committed to an order, lapsed otherwise.
    fn settle_offers(&mut self, now_ms: u64, d: &mut Decision) {
        let Some(showing) = self.showing.as_ref() else {
            return;
        };
        let mut settled = Vec::new();
        for entry in self.waitlist.by_seq.values() {
            let EntryState::Offered { seats, claimed, .. } = &entry.state else {
                continue;
            };
            // The hold that has the seats now: the buyer's, once claimed.
            let holding = claimed.as_deref().unwrap_or(&entry.hold_id);
            let live = HoldId::new(holding)
                .ok()
                .and_then(|id| showing.ledger.hold_record(&id))
                .is_some_and(|r| r.expires_at_ms > now_ms);
            if live {
                continue;
            }
            let committed = claimed.is_some()
                && self
                    .owners
                    .get(holding)
                    .and_then(|o| o.ended)
                    .is_some_and(|(how, _)| how == crate::storage::HoldEnd::Committed);
            let seats = seats.clone();
            let state = match committed {
                true => EntryState::Bought {
                    seats,
                    at_ms: now_ms,
                },
                false => EntryState::Lapsed {
                    seats,
                    at_ms: now_ms,
                },
            };
            settled.push((entry.seq, state));
        }
        for (seq, state) in settled {
            if let Some(entry) = self.waitlist.by_seq.get_mut(&seq) {
                entry.state = state;
                d.writes.push(write(entry));
            }
        }
    }

    /// Offers the waiting entry `seq` seats, if enough are free for it.
    fn offer(&mut self, now_ms: u64, seq: u64, d: &mut Decision) {
        let Some(entry) = self.waitlist.by_seq.get(&seq) else {
            return;
        };
        let Some(units) = self.offer_seats(now_ms, entry.seats) else {
            return;
        };
        let Some(showing) = self.showing.as_mut() else {
            return;
        };
        // Never past the close of sales: the seats could not be paid then.
        let until_ms =
            (now_ms + self.settings.waitlist_offer_ms).min(showing.meta.sales.closes_at_ms);
        let Ok(hold_id) = HoldId::new(entry.hold_id.as_str()) else {
            return;
        };
        let names = showing.names_of(&units);
        let outcome = showing.ledger.allocate(now_ms, &hold_id, &names, until_ms);
        showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
        if outcome.result.is_err() {
            return;
        }
        let showing_id = showing.meta.showing_id.clone();
        let entry_id = entry.id.clone();
        let email = entry.email.clone();
        self.record_owner(&hold_id, (WAITLIST, &entry_id), &names, &[], d);
        d.effects.push(Effect::OfferMail {
            showing_id,
            entry_id,
            email,
            seats: names.clone(),
            until_ms,
        });
        if let Some(entry) = self.waitlist.by_seq.get_mut(&seq) {
            entry.state = EntryState::Offered {
                seats: names,
                offered_at_ms: now_ms,
                until_ms,
                claimed: None,
            };
            d.writes.push(write(entry));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_bounded_and_needs_something_either_side_of_its_at() {
        assert_eq!(
            check_email("  ana@example.com ").unwrap(),
            "ana@example.com"
        );
        for bad in [
            "",
            "ana",
            "@example.com",
            "ana@",
            "a na@example.com",
            "ana@ex\u{7}.com",
        ] {
            assert!(check_email(bad).is_err(), "{bad:?}");
        }
        let long = format!("{}@example.com", "a".repeat(MAX_EMAIL_BYTES));
        assert!(check_email(&long).is_err());
    }
}
