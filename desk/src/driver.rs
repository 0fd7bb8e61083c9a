//! Paying for a hold: the desk starts each order's checkout machine (the
//! `checkout` crate), tells the buyer where it stands, feeds it webhooks,
//! Square's and D1's answers and its timeouts, and resumes what is due.
//! What each machine asks for goes through its outbox (`outbox.rs`). A
//! machine is saved in the same decision as whatever it asks for, so a
//! crash anywhere resumes from storage: the outbox is sent again, and
//! every step is safe to repeat.

use checkout::{Action, Answer, Checkout, Credit, Event, NewCheckout, PaymentStatus, StepTag};

use crate::decision::{Effect, Record};
use crate::outbox::store_answer;
use crate::protocol::{
    CheckoutRequest, ExchangeCredit, Money, OrderAnswer, PaymentObserved, Reply,
};
use crate::refusal::{Code, Refusal};
use crate::square;
use crate::storage::{Write, FAILPOINT};
use crate::{Decision, Desk};

/// Most due checkouts one alarm resumes; the rest wait for the next.
const RESUME_BATCH: usize = 20;

/// What an order starts from, besides its hold.
pub(crate) struct OrderStart {
    pub source_id: String,
    /// The SDK's buyer verification token for the card; empty if none.
    pub verification_token: String,
    pub email: String,
    pub name: String,
    pub order_nonce: String,
    pub prices: Vec<crate::protocol::SeatPrice>,
    /// A box-office sale: how it was paid, and why if it was given.
    pub desk: Option<crate::protocol::DeskPayment>,
    /// An exchange: what the exchanged order's payment pays of this one.
    pub credit: Option<Credit>,
    /// The Square order's line item name; empty for a box-office sale.
    pub item_name: String,
}

impl Desk {
    /// Starts (or finds) the order for this hold and card. The reply says
    /// where it stands now; the effects carry it further.
    pub(crate) fn start_checkout(
        &mut self,
        now_ms: u64,
        req: CheckoutRequest,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        let (hold_id, owner) = self.owned_hold(&req.hold)?;
        let owner = owner.clone();
        // A code counts uses by the address it was applied for: the order
        // goes to that address, or the code is applied again for another.
        if let Some(code) = &owner.code {
            if code.email != req.email.trim().to_lowercase() {
                return Err(Refusal::new(
                    Code::InvalidBuyer,
                    format!(
                        "the code {} was applied for another e-mail address; apply it again with this one",
                        code.code
                    ),
                )
                .with("field", "email"));
            }
        }
        // Priced as held: a price staff changed since does not apply.
        let prices = self.showing()?.prices_of(&owner);
        let total_minor: u64 = prices.iter().map(|p| p.amount_minor).sum();
        let credit = match req.exchange {
            Some(exchange) => exchange_credit(exchange, total_minor)?,
            None => None,
        };
        // Nothing to charge: the seats are free, or the credit pays for
        // them all.
        let free = total_minor <= credit.as_ref().map_or(0, |c| c.amount_minor);
        // An order with nothing to charge is paid with no card: whatever
        // card token came is not kept. One with a charge needs one.
        let verification_token = match free {
            true => String::new(),
            false => req.verification_token,
        };
        let source_id = match free {
            true => String::new(),
            false if req.source_id.is_empty() => {
                return Err(Refusal::new(
                    Code::InvalidCheckout,
                    "these seats cost money: pay with a card (source_id)",
                ))
            }
            false => req.source_id,
        };
        let auth_key = checkout::authorization_key(hold_id.as_str(), &source_id);
        if let Some(order_id) = self.checkouts.by_key.get(&auth_key).cloned() {
            return self.order_status(&order_id);
        }
        self.refuse_if_cancelled()?;
        match (free, &credit) {
            (false, _) => {
                self.refuse_card_testing(now_ms, &hold_id, &req.hold.buyer, &req.client, d)?
            }
            (true, None) => self.refuse_free_hoarding(now_ms, &req.client, &req.email, d)?,
            // Paid in full with tickets bought before: no card is tried,
            // and no free seats are given away.
            (true, Some(_)) => {}
        }
        let order = OrderStart {
            source_id,
            verification_token,
            email: req.email,
            name: req.name,
            order_nonce: req.order_nonce,
            prices,
            desk: None,
            credit,
            item_name: checkout::cut_text(req.item_name.trim(), checkout::MAX_ITEM_NAME_BYTES),
        };
        self.begin_order(now_ms, &hold_id, order, d)
    }

    /// Bounds what a card tester can run through the cinema's Square
    /// account, before Square is asked: a few cards a hold, and a budget
    /// of cards an hour per address and per buyer.
    fn refuse_card_testing(
        &mut self,
        now_ms: u64,
        hold_id: &ledger::HoldId,
        buyer: &str,
        client: &str,
        d: &mut Decision,
    ) -> Result<(), Refusal> {
        let tried = self
            .checkouts
            .machines
            .values()
            .filter(|m| m.order().hold_id == hold_id.as_str())
            .count();
        if tried >= crate::MAX_CARDS_PER_HOLD {
            let left_ms = self
                .showing()?
                .ledger
                .hold_record(hold_id)
                .map_or(0, |r| r.expires_at_ms.saturating_sub(now_ms));
            return Err(Refusal::new(
                Code::TooManyAttempts,
                format!(
                    "{} cards were tried for these seats; choose them again when this hold ends",
                    crate::MAX_CARDS_PER_HOLD
                ),
            )
            .retry_after(left_ms.div_ceil(1000).max(1)));
        }
        for key in [format!("card:{client}"), format!("card-buyer:{buyer}")] {
            if let Err(wait_ms) = self.take_card_token(&key, now_ms, d) {
                return Err(Refusal::new(
                    Code::TooManyAttempts,
                    "too many card payments were tried from here; wait a while and try again",
                )
                .retry_after(wait_ms.div_ceil(1000)));
            }
        }
        Ok(())
    }

    /// Bounds the free orders of this showing one network places, and one
    /// address receives (`rate::FREE_ORDERS_PER_NETWORK`, `…_PER_ADDRESS`).
    /// The address is kept only as a hash, in any case.
    fn refuse_free_hoarding(
        &mut self,
        now_ms: u64,
        client: &str,
        email: &str,
        d: &mut Decision,
    ) -> Result<(), Refusal> {
        use sha2::{Digest, Sha256};
        let address = hex::encode(&Sha256::digest(email.to_lowercase().as_bytes())[..16]);
        let caps = [
            (
                format!("free:{client}"),
                crate::rate::FREE_ORDERS_PER_NETWORK,
                "your network",
            ),
            (
                format!("free-to:{address}"),
                crate::rate::FREE_ORDERS_PER_ADDRESS,
                "this e-mail address",
            ),
        ];
        // Both are checked before either is taken, so a refusal for the
        // address costs the network nothing.
        if let Some((_, cap, whose)) = caps.iter().find(|(key, _, _)| !self.has_free_order(key)) {
            return Err(Refusal::new(
                Code::TooManyFreeOrders,
                format!(
                    "{whose} already has {cap} free orders for this showing, as many as one may"
                ),
            ));
        }
        for (key, cap, _) in caps {
            // Both have an order left: checked above, in this decision.
            let _ = self.take_free_order(&key, cap, now_ms, d);
        }
        Ok(())
    }

    /// Starts the checkout of a hold whose seats are priced: its seats
    /// start paying, the order is recorded pending, and its first steps go
    /// out. Online orders and box-office sales both start here.
    pub(crate) fn begin_order(
        &mut self,
        now_ms: u64,
        hold_id: &ledger::HoldId,
        start: OrderStart,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        let OrderStart {
            source_id,
            verification_token,
            email,
            name,
            order_nonce,
            prices,
            desk,
            credit,
            item_name,
        } = start;
        self.count_started_checkout(d);
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        let outcome = showing.ledger.start_payment(now_ms, hold_id);
        showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
        if outcome.result.is_err() {
            return Err(Refusal::new(
                Code::HoldExpired,
                "this hold has expired or was released; choose your seats again",
            ));
        }
        let record = showing
            .ledger
            .hold_record(hold_id)
            .ok_or_else(|| Refusal::internal("a paying hold has no record"))?;
        let seats: Vec<String> = record
            .seats
            .iter()
            .map(|&u| showing.ledger.unit_name(u).unwrap_or_default().to_string())
            .collect();
        let order_id = format!("{}{}", showing.meta.showing_id, order_nonce);
        let discount_code = self
            .owners
            .get(hold_id.as_str())
            .and_then(|o| o.code.as_ref())
            .map(|c| c.code.clone());
        let amount = showing.total(&prices);
        // A PENDING payment is waited for while the paying hold lasts and
        // Square still keeps the authorization.
        let pay_by_ms = record
            .expires_at_ms
            .min(now_ms.saturating_add(self.settings.authorization_delay.ms()));
        let new = NewCheckout {
            order_id: order_id.clone(),
            hold_id: hold_id.as_str().to_string(),
            amount_minor: amount.amount,
            currency: amount.currency.clone(),
            seats,
            source_id,
            verification_token,
            buyer_email: email.clone(),
            buyer_name: name.clone(),
            prices,
            paid_at_desk: desk.is_some(),
            credit: credit.clone(),
            item_name,
            pay_by_ms: Some(pay_by_ms),
            discount_code: discount_code.clone(),
        };
        let (machine, actions) = Checkout::start(new, now_ms, &self.settings.checkout)
            .map_err(|e| Refusal::new(Code::InvalidCheckout, format!("{e:?}")))?;
        d.effects.push(Effect::Record(Record::PendingOrder {
            order_id: order_id.clone(),
            showing_id: showing.meta.showing_id.clone(),
            email,
            name,
            amount: amount.amount,
            currency: amount.currency,
            channel: desk
                .as_ref()
                .map_or("online", |s| s.paid.as_str())
                .to_string(),
            comp_reason: desk.and_then(|s| s.reason),
            credit: credit.as_ref().map_or(0, |c| c.amount_minor),
            exchanged_from: credit.map(|c| c.from_order),
            discount_code,
        }));
        self.put(machine, d);
        self.process(now_ms, &order_id, actions, d);
        self.dispatch(now_ms, &order_id, d);
        self.order_status(&order_id)
    }

    /// Where an order stands, for its buyer.
    pub(crate) fn order_status(&self, order_id: &str) -> Result<Reply, Refusal> {
        let machine = self
            .checkouts
            .machines
            .get(order_id)
            .ok_or_else(|| Refusal::not_found("order"))?;
        let order = machine.order();
        Ok(Reply::Order(OrderAnswer {
            order_id: order_id.to_string(),
            status: machine.status(),
            seats: order.seats.clone(),
            amount: Money {
                amount: order.amount_minor,
                currency: order.currency.clone(),
            },
            prices: order.prices.clone(),
            // Cancelling the Square order of a payment that was not taken,
            // and watching a payment given up on while PENDING, come after
            // the buyer's answer: nobody waits for them.
            settling: self.checkouts.awaiting.get(order_id).is_some_and(|a| {
                let watching = machine.status().is_final()
                    && matches!(a, Action::GetPayment { .. } | Action::CancelPayment { .. });
                !watching && !matches!(a, Action::GetOrder { .. } | Action::CancelOrder { .. })
            }),
            credit: order.credit.as_ref().map_or(0, |c| c.amount_minor),
            tax: self.tax_line(&order.prices),
        }))
    }

    /// A webhook's payment status, fed to its checkout.
    pub(crate) fn payment_observed(
        &mut self,
        now_ms: u64,
        seen: PaymentObserved,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        let Some(status) = PaymentStatus::from_square(&seen.status) else {
            return Ok(Reply::Done);
        };
        if !self.checkouts.machines.contains_key(&seen.order_id) {
            return Ok(Reply::Done);
        }
        // A declined payment's webhook says FAILED without the decline code.
        // While the shell awaits that payment's answer, the answer (which has
        // the code) is on its way; if it is lost, the retried request gets
        // the same decline back, code and all.
        if status == PaymentStatus::Failed && self.checkouts.awaiting.contains_key(&seen.order_id) {
            return Ok(Reply::Done);
        }
        let event = Event::PaymentObserved {
            payment_id: seen.payment_id,
            status,
        };
        let actions = self.feed(now_ms, &seen.order_id, event, d);
        self.process(now_ms, &seen.order_id, actions, d);
        self.dispatch(now_ms, &seen.order_id, d);
        Ok(Reply::Done)
    }

    /// Resumes every checkout whose step is due, and hands out outbox
    /// actions nobody is performing (after a restart).
    pub(crate) fn resume_checkouts(&mut self, now_ms: u64, d: &mut Decision) {
        let awaiting = &self.checkouts.awaiting;
        let mut due: Vec<(u64, String)> = self
            .checkouts
            .due
            .iter()
            .filter(|(o, &at)| at <= now_ms && !awaiting.contains_key(*o))
            .map(|(o, &at)| (at, o.clone()))
            .collect();
        due.sort();
        for (_, order_id) in due.into_iter().take(RESUME_BATCH) {
            let Some(mut machine) = self.checkouts.machines.get(&order_id).cloned() else {
                continue;
            };
            let actions = machine.handle_timeout(now_ms);
            self.put(machine, d);
            self.process(now_ms, &order_id, actions, d);
        }
        let idle: Vec<String> = self
            .checkouts
            .outbox
            .keys()
            .filter(|o| !self.checkouts.awaiting.contains_key(*o))
            .take(RESUME_BATCH)
            .cloned()
            .collect();
        for order_id in idle {
            self.dispatch(now_ms, &order_id, d);
        }
    }

    /// An effect's answer for `order_id`'s step `step`.
    pub(crate) fn answered(
        &mut self,
        now_ms: u64,
        order_id: &str,
        step: StepTag,
        answer: crate::Answer,
        d: &mut Decision,
    ) {
        let action = match self.checkouts.awaiting.remove(order_id) {
            Some(action) if action.step() == Some(step) => action,
            // Not the step handed out: nothing to read it by.
            _ => return self.dispatch(now_ms, order_id, d),
        };
        let answer = match answer {
            crate::Answer::Square(reply) => square::answer_for(&action, reply),
            crate::Answer::Store(outcome) => store_answer(&action, outcome),
        };
        if self.failpoint(&action, &answer, d) {
            return;
        }
        // The outbox may hold a newer step already (a webhook moved the
        // order on meanwhile); the machine then ignores this answer.
        if self.checkouts.outbox.get(order_id).and_then(Action::step) == Some(step) {
            self.checkouts.outbox.remove(order_id);
            d.writes.push(Write::Outbox {
                order_id: order_id.to_string(),
                action: None,
            });
        }
        let was_finished = self.is_finished(order_id);
        let actions = self.feed(now_ms, order_id, Event::Answer { step, answer }, d);
        self.process(now_ms, order_id, actions, d);
        self.dispatch(now_ms, order_id, d);
        // Only MarkPaid or RecordFinal, once stored, finish a checkout;
        // a refund found needed later and made does so again, and is left
        // out here: the exchange was settled by the outcome before it.
        let recorded = matches!(action, Action::MarkPaid { .. } | Action::RecordFinal { .. });
        if recorded && !was_finished && self.is_finished(order_id) {
            self.settle_exchange(order_id, d);
            self.settle_code(now_ms, order_id, d);
        }
    }

    fn is_finished(&self, order_id: &str) -> bool {
        self.checkouts
            .machines
            .get(order_id)
            .is_some_and(Checkout::is_finished)
    }

    /// Tells the shell that an exchange's new order has its outcome, once
    /// that outcome is stored, so the old order's tickets are settled.
    fn settle_exchange(&self, order_id: &str, d: &mut Decision) {
        let credit = self
            .checkouts
            .machines
            .get(order_id)
            .and_then(|m| m.order().credit.as_ref());
        if let Some(credit) = credit {
            d.effects.push(Effect::ExchangeSettled {
                order_id: order_id.to_string(),
                from_order: credit.from_order.clone(),
            });
        }
    }

    /// Test-only crash injection (`SHOWTIME_FAILPOINT=after_capture`): the
    /// object dies right after a capture is answered and before the answer
    /// is recorded, once per object; recovery must finish the order.
    fn failpoint(&mut self, action: &Action, answer: &Answer, d: &mut Decision) -> bool {
        let captured = matches!(action, Action::CompletePayment { .. })
            && matches!(
                answer,
                Answer::Payment {
                    status: PaymentStatus::Completed,
                    ..
                }
            );
        if !self.settings.failpoint_after_capture || self.failpoint_fired || !captured {
            return false;
        }
        self.failpoint_fired = true;
        d.writes.push(Write::Meta {
            key: FAILPOINT,
            value: "after_capture".into(),
        });
        d.effects.push(Effect::Crash {
            reason: "failpoint after_capture: the object crashes between capture and recording it"
                .into(),
        });
        true
    }
}

/// The credit an exchange brings: the old tickets' worth, as far as the
/// held seats cost (none when either is 0). Checked before the hold starts
/// paying, so a bad exchange leaves the hold as it was.
fn exchange_credit(exchange: ExchangeCredit, total_minor: u64) -> Result<Option<Credit>, Refusal> {
    let amount_minor = exchange.credit_limit_minor.min(total_minor);
    if amount_minor == 0 {
        return Ok(None);
    }
    let credit = Credit {
        from_order: exchange.from_order,
        amount_minor,
    };
    credit
        .validate(total_minor)
        .map_err(|e| Refusal::new(Code::InvalidCheckout, format!("exchange: {e:?}")))?;
    Ok(Some(credit))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(from_order: &str, credit_limit_minor: u64) -> ExchangeCredit {
        ExchangeCredit {
            from_order: from_order.into(),
            credit_limit_minor,
        }
    }

    fn credited(limit: u64, total: u64) -> Option<u64> {
        exchange_credit(exchange("old1", limit), total)
            .expect("a valid exchange")
            .map(|c| c.amount_minor)
    }

    #[test]
    fn an_exchange_credits_the_old_tickets_worth_up_to_what_the_seats_cost() {
        assert_eq!(credited(3_000, 2_400), Some(2_400));
        assert_eq!(credited(1_000, 2_400), Some(1_000));
        assert_eq!(credited(0, 2_400), None, "nothing to credit");
        assert_eq!(credited(1_000, 0), None, "free seats need no credit");
        let refused = exchange_credit(exchange("no such order", 1_000), 2_400);
        assert_eq!(refused.map_err(|r| r.code), Err(Code::InvalidCheckout));
    }
}
