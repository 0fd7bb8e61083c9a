//! Allocations: staff give a block of seats to another channel (a partner
//! site, a school group, a festival) until a release time. The block is a
//! hold of the ledger's (`Ledger::allocate`), so no buyer online can take
//! its seats; the alarm that ends holds lets its unsold seats go at the
//! release time; and staff issue the channel's tickets from it at the box
//! office (`BoxOfficeSale::allocation`), which moves those seats out of the
//! block into the sale in one ledger call.

use crate::holds::{hold_id_of, hold_refusal, TOKEN_LEN};
use crate::protocol::{Allocation, NewAllocation, Reply};
use crate::refusal::{Code, Refusal};
use crate::{Decision, Desk};

/// Whom an allocation's hold belongs to: never a buyer's session.
pub const ALLOCATION: &str = "allocation";
/// Longest name of the channel an allocation is for.
pub const MAX_ALLOCATION_NAME_CHARS: usize = 80;
/// Most allocations a showing has at once: each is a hold of the ledger's,
/// and buyers need those too.
pub const MAX_LIVE_ALLOCATIONS: usize = 50;

/// A channel's name: trimmed, 1 to 80 characters without control ones.
pub fn check_name(name: &str) -> Result<&str, Refusal> {
    let name = name.trim();
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_ALLOCATION_NAME_CHARS
        && !name.chars().any(char::is_control);
    match ok {
        true => Ok(name),
        false => Err(Refusal::new(
            Code::InvalidAllocation,
            format!("name: the channel's name, 1 to {MAX_ALLOCATION_NAME_CHARS} characters"),
        )),
    }
}

impl Desk {
    pub(crate) fn allocate(
        &mut self,
        now_ms: u64,
        new: NewAllocation,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        self.refuse_if_cancelled()?;
        let name = check_name(&new.name)?.to_string();
        if new.seats.len() > ledger::MAX_UNITS {
            return Err(Refusal::new(
                Code::InvalidAllocation,
                "seats: more than the showing can have",
            ));
        }
        if new.token.len() != TOKEN_LEN || !new.token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Refusal::internal("the hold token is not 32 hex characters"));
        }
        if self.live_allocations(now_ms).len() >= MAX_LIVE_ALLOCATIONS {
            return Err(Refusal::new(
                Code::TooManyAllocations,
                format!("a showing has at most {MAX_LIVE_ALLOCATIONS} allocations at once; release one first"),
            ));
        }
        let hold_id = hold_id_of(&new.token);
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        let outcome = showing
            .ledger
            .allocate(now_ms, &hold_id, &new.seats, new.release_at_ms);
        showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
        let granted = outcome.result.map_err(|e| hold_refusal(showing, e))?;
        let seats = showing.names_of(&granted.units);
        self.record_owner(&hold_id, (ALLOCATION, &name), &seats, &[], d);
        Ok(Reply::Allocation(Allocation {
            id: hold_id.as_str().to_string(),
            name,
            seats,
            release_at_ms: granted.expires_at_ms,
        }))
    }

    /// The showing's live allocations, earliest release first.
    pub(crate) fn live_allocations(&self, now_ms: u64) -> Vec<Allocation> {
        let Some(showing) = self.showing.as_ref() else {
            return Vec::new();
        };
        let mut all: Vec<Allocation> = self
            .owners
            .open_of_buyer(ALLOCATION)
            .filter_map(|id| {
                let hold_id = ledger::HoldId::new(id.as_str()).ok()?;
                let record = showing.ledger.hold_record(&hold_id)?;
                if record.expires_at_ms <= now_ms {
                    return None;
                }
                Some(Allocation {
                    id: id.clone(),
                    name: self.owners.get(id)?.client.clone(),
                    seats: showing.names_of(&record.seats),
                    release_at_ms: record.expires_at_ms,
                })
            })
            .collect();
        all.sort_by(|a, b| (a.release_at_ms, &a.id).cmp(&(b.release_at_ms, &b.id)));
        all
    }

    /// Ends an allocation now: its unsold seats return to sale.
    pub(crate) fn release_allocation(
        &mut self,
        now_ms: u64,
        id: &str,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        let hold_id = self.allocation_id(id)?;
        self.end_hold(now_ms, &hold_id, d)
            .map_err(|_| Refusal::not_found("allocation"))?;
        Ok(Reply::Done)
    }

    /// The hold of the allocation of this id, if the id names one.
    pub(crate) fn allocation_id(&self, id: &str) -> Result<ledger::HoldId, Refusal> {
        let owned = self.owners.get(id).is_some_and(|o| o.buyer == ALLOCATION);
        match (owned, ledger::HoldId::new(id)) {
            (true, Ok(hold_id)) => Ok(hold_id),
            _ => Err(Refusal::not_found("allocation")),
        }
    }
}
