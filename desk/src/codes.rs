//! Discount codes on holds. The Worker finds the code defined and valid
//! for the showing, its film and the day, and, when its uses are
//! limited, reserves one for the hold in the code's own object; the desk
//! then checks the hold and its seats' categories, takes the discount
//! off the seats' prices, and from then on says how that use ends: the
//! showing has it (held), its order paid (committed), or the hold ended
//! unpaid (released). Each of those is a message kept in storage until the
//! code's object answers, and sent again by the alarm meanwhile, so the
//! code's count follows every hold however the objects restart.

use checkout::PublicStatus;

use crate::decision::{CodeSent, Decision};
use crate::holds::{hold_id_of, live};
use crate::owners::{use_key, AppliedCode, CodeAnswer};
use crate::protocol::{ApplyCode, Reply};
use crate::refusal::{Code, Refusal};
use crate::Desk;

/// The hold a message to a code's object is about (its key's end).
pub fn hold_of(request: &uses::Request) -> &str {
    let key = match request {
        uses::Request::Reserve { key, .. }
        | uses::Request::Hold { key }
        | uses::Request::Commit { key, .. }
        | uses::Request::Release { key } => key.as_str(),
        _ => "",
    };
    key.split_once(':').map_or("", |(_, hold)| hold)
}

/// Why a code does not apply here, as the refusal's `why` says it.
fn not_here(why: &str, detail: &str) -> Refusal {
    Refusal::new(Code::CodeNotValidHere, detail).with("why", why)
}

impl Desk {
    /// Applies a code to the buyer's hold (replacing the one it had),
    /// answering the hold with its discount. Refused, a use the Worker
    /// reserved for this is released, unless the hold has this code
    /// already.
    pub(crate) fn apply_code(
        &mut self,
        now_ms: u64,
        request: ApplyCode,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        let showing_id = self.showing()?.meta.showing_id.clone();
        self.sweep(now_ms, d);
        let result = self.try_apply_code(now_ms, &request, d);
        if result.is_err() && request.limited {
            let hold_id = hold_id_of(&request.hold.token);
            let carries = self
                .owners
                .get(hold_id.as_str())
                .and_then(|o| o.code.as_ref())
                .is_some_and(|c| c.code == request.code);
            if !carries {
                let key = use_key(&showing_id, hold_id.as_str());
                let release = uses::Request::Release { key };
                self.owners
                    .tell_code(&request.code, hold_id.as_str(), release, d);
            }
        }
        result
    }

    fn try_apply_code(
        &mut self,
        now_ms: u64,
        request: &ApplyCode,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        let showing = self.showing()?;
        let (hold_id, owner) = self.owned_hold(&request.hold)?;
        match live(showing, &hold_id, now_ms) {
            None => {
                return Err(Refusal::new(
                    Code::HoldExpired,
                    "this hold has expired or was released; choose your seats again",
                ))
            }
            Some(record) if record.paying => {
                return Err(not_here(
                    "paying",
                    "these seats are being paid for: a code is applied before paying",
                ))
            }
            Some(_) => {}
        }
        let mut prices = showing.listed_prices_of(owner);
        let applies: Vec<bool> = prices
            .iter()
            .map(|p| request.categories.is_empty() || request.categories.contains(&p.category))
            .collect();
        if !applies.contains(&true) {
            return Err(not_here(
                "category",
                "the code is not for the price categories of these seats",
            ));
        }
        let amount =
            checkout::discount::apply(request.off, &applies, &mut prices, &self.settings.tax);
        let before = owner.code.clone();
        let showing_id = showing.meta.showing_id.clone();
        let applied = AppliedCode {
            code: request.code.clone(),
            email: request.email.trim().to_lowercase(),
            limited: request.limited,
            prices,
            amount,
            settled: false,
        };
        let hold = hold_id.as_str();
        let key = use_key(&showing_id, hold);
        self.owners.set_code(hold, Some(applied), d);
        // Another limited code the hold had gives its use back.
        if let Some(before) = before.filter(|b| b.limited && b.code != request.code) {
            let release = uses::Request::Release { key: key.clone() };
            self.owners.tell_code(&before.code, hold, release, d);
        }
        if request.limited {
            self.owners
                .tell_code(&request.code, hold, uses::Request::Hold { key }, d);
        }
        self.get_hold(now_ms, &request.hold, d)
    }

    /// A checkout of a hold with a limited code finished: paid, its use
    /// is committed; not paid, and the hold gone, released (a declined
    /// card leaves the hold, and its use, for another card). An order
    /// staff must look at keeps its use held.
    pub(crate) fn settle_code(&mut self, now_ms: u64, order_id: &str, d: &mut Decision) {
        let Some(machine) = self.checkouts.machines.get(order_id) else {
            return;
        };
        let hold_id = machine.order().hold_id.clone();
        let Ok(showing) = self.showing() else { return };
        let showing_id = showing.meta.showing_id.clone();
        let Ok(id) = ledger::HoldId::new(&hold_id) else {
            return;
        };
        let hold_lives = live(showing, &id, now_ms).is_some();
        match machine.status() {
            PublicStatus::Paid => self
                .owners
                .settle_code(&showing_id, &hold_id, Some(order_id), d),
            PublicStatus::NeedsAttention | PublicStatus::Pending => {}
            _ if hold_lives => {}
            _ => self.owners.settle_code(&showing_id, &hold_id, None, d),
        }
    }

    /// The answer of a code's object to a message the shell performed.
    pub fn handle_code_answer(
        &mut self,
        now_ms: u64,
        sent: &CodeSent,
        answer: CodeAnswer,
    ) -> Decision {
        let mut d = Decision::default();
        self.owners.code_answered(now_ms, sent, answer, &mut d);
        d
    }
}
