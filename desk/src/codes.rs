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
use crate::protocol::{ApplyCode, CodeTerms, Reply, SeatPrice};
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

/// The seats' prices with the code taken off, and the code as the hold
/// keeps it; refused when it is for none of the seats' categories.
pub(crate) fn discounted(
    terms: &CodeTerms,
    email: &str,
    mut prices: Vec<SeatPrice>,
    tax: &checkout::Tax,
) -> Result<AppliedCode, Refusal> {
    let applies: Vec<bool> = prices
        .iter()
        .map(|p| terms.categories.is_empty() || terms.categories.contains(&p.category))
        .collect();
    if !applies.contains(&true) {
        return Err(not_here(
            "category",
            "the code is not for the price categories of these seats",
        ));
    }
    let amount = checkout::discount::apply(terms.off, &applies, &mut prices, tax);
    Ok(AppliedCode {
        code: terms.code.clone(),
        email: email.trim().to_lowercase(),
        limited: terms.limited,
        prices,
        amount,
        settled: false,
    })
}

impl Desk {
    /// Applies a code to the buyer's hold (replacing the one it had),
    /// answering the hold with its discount.
    pub(crate) fn apply_code(
        &mut self,
        now_ms: u64,
        request: ApplyCode,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        self.sweep(now_ms, d);
        let result = self.try_apply_code(now_ms, &request, d);
        self.release_if_refused(&result, &request.terms, &request.hold.token, d);
        result
    }

    /// Refused, a use the Worker reserved for the hold is released, unless
    /// the hold has this code already.
    pub(crate) fn release_if_refused<T>(
        &mut self,
        result: &Result<T, Refusal>,
        terms: &CodeTerms,
        token: &str,
        d: &mut Decision,
    ) {
        let Ok(showing) = self.showing() else { return };
        if result.is_ok() || !terms.limited {
            return;
        }
        let showing_id = showing.meta.showing_id.clone();
        let hold_id = hold_id_of(token);
        let carries = self
            .owners
            .get(hold_id.as_str())
            .and_then(|o| o.code.as_ref())
            .is_some_and(|c| c.code == terms.code);
        if !carries {
            let key = use_key(&showing_id, hold_id.as_str());
            let release = uses::Request::Release { key };
            self.owners
                .tell_code(&terms.code, hold_id.as_str(), release, d);
        }
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
        let listed = showing.listed_prices_of(owner);
        let applied = discounted(&request.terms, &request.email, listed, &self.settings.tax)?;
        let before = owner.code.clone();
        let showing_id = showing.meta.showing_id.clone();
        let hold = hold_id.as_str();
        // Another limited code the hold had gives its use back.
        if let Some(before) = before.filter(|b| b.limited && b.code != applied.code) {
            let release = uses::Request::Release {
                key: use_key(&showing_id, hold),
            };
            self.owners.tell_code(&before.code, hold, release, d);
        }
        self.put_code(&showing_id, hold, applied, d);
        self.get_hold(now_ms, &request.hold, d)
    }

    /// Puts the code on the hold and, for a limited one, tells its object
    /// the showing has it.
    pub(crate) fn put_code(
        &mut self,
        showing_id: &str,
        hold_id: &str,
        applied: AppliedCode,
        d: &mut Decision,
    ) {
        let (code, limited) = (applied.code.clone(), applied.limited);
        self.owners.set_code(hold_id, Some(applied), d);
        if limited {
            let held = uses::Request::Hold {
                key: use_key(showing_id, hold_id),
            };
            self.owners.tell_code(&code, hold_id, held, d);
        }
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
