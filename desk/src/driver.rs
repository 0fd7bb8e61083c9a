//! Paying for a hold: the desk drives each order's checkout machine (the
//! `checkout` crate). Ledger steps are done at once, in the decision that
//! produced them, so seats and machine never disagree on disk. Square and
//! D1 steps go to the order's outbox (a row) and are handed to the shell
//! one at a time per order; the answer comes back through
//! [`Desk::handle_answer`]. A machine is saved in the same decision as
//! whatever it asks for, so a crash anywhere resumes from storage: the
//! outbox is sent again, and every step is safe to repeat.

use std::collections::{BTreeMap, HashMap};

use checkout::{
    Action, Answer, Checkout, Event, NewCheckout, PaymentStatus, PublicStatus, StepTag,
};
use ledger::{CommitError, HoldId, OrderId};

use crate::decision::{Effect, OrderWrite, Record, StoreOutcome};
use crate::protocol::{CheckoutRequest, Money, OrderAnswer, PaymentObserved, Reply};
use crate::refusal::{Code, Refusal};
use crate::square;
use crate::storage::{to_json, HoldEnd, Write, FAILPOINT};
use crate::{Decision, Desk};

/// Most due checkouts one alarm resumes; the rest wait for the next.
const RESUME_BATCH: usize = 20;

#[derive(Debug, Default)]
pub struct Checkouts {
    pub machines: HashMap<String, Checkout>,
    /// Order by authorization key: the same hold and card find the same order.
    pub by_key: HashMap<String, String>,
    /// The one Square or D1 action waiting to be performed per order.
    pub outbox: BTreeMap<String, Action>,
    /// When each unfinished checkout's step is next due.
    pub due: HashMap<String, u64>,
    /// Memory only: the action of each order this instance has handed to
    /// the shell and whose answer has not come back; it is what the answer
    /// is read by. Nothing is sent for such an order meanwhile. A restart
    /// forgets them, and the outbox is sent again.
    pub awaiting: HashMap<String, Action>,
}

impl Checkouts {
    /// The earliest step due, or at once when an outbox action waits to be
    /// handed out; orders awaiting an answer wait for it instead.
    pub fn next_due(&self) -> Option<u64> {
        let idle = |order: &&String| !self.awaiting.contains_key(*order);
        if self.outbox.keys().any(|o| idle(&o)) {
            return Some(0);
        }
        self.due
            .iter()
            .filter(|(o, _)| idle(o))
            .map(|(_, &at)| at)
            .min()
    }

    pub fn outbox_len(&self) -> usize {
        self.outbox.len()
    }

    pub fn insert(&mut self, machine: Checkout) {
        let order_id = machine.order().order_id.clone();
        self.by_key
            .insert(machine.authorization_key().to_string(), order_id.clone());
        match machine.poll_timeout() {
            Some(at) => self.due.insert(order_id.clone(), at),
            None => self.due.remove(&order_id),
        };
        self.machines.insert(order_id, machine);
    }
}

/// The buyer-facing name of a status, as D1 and the API spell it.
pub fn status_name(status: &PublicStatus) -> &'static str {
    match status {
        PublicStatus::Pending => "pending",
        PublicStatus::Paid => "paid",
        PublicStatus::Declined { .. } => "declined",
        PublicStatus::SeatLost { .. } => "seat_lost",
        PublicStatus::NeedsAttention => "needs_attention",
        PublicStatus::Failed { .. } => "failed",
    }
}

fn store_write(action: &Action) -> Option<OrderWrite> {
    Some(match action {
        Action::WriteOrder {
            seats, payment_id, ..
        } => OrderWrite::Order {
            seats: seats.clone(),
            payment_id: payment_id.clone(),
        },
        Action::MarkPaid { payment_id, .. } => OrderWrite::MarkPaid {
            payment_id: payment_id.clone(),
        },
        Action::VoidTickets { .. } => OrderWrite::VoidTickets,
        Action::RecordFinal {
            outcome,
            payment_id,
            ..
        } => OrderWrite::Final {
            status: status_name(&outcome.public()),
            detail: serde_json::to_string(outcome).ok(),
            payment_id: payment_id.clone(),
        },
        _ => return None,
    })
}

fn store_answer(action: &Action, outcome: StoreOutcome) -> Answer {
    match (action, outcome) {
        (Action::WriteOrder { .. }, StoreOutcome::Stored) => Answer::OrderWritten,
        (Action::WriteOrder { .. }, StoreOutcome::Conflict { seats }) => {
            Answer::OrderConflict { seats }
        }
        (_, StoreOutcome::Stored) => Answer::Stored,
        _ => Answer::StoreUnavailable,
    }
}

fn is_ledger_action(action: &Action) -> bool {
    matches!(
        action,
        Action::CommitSeats { .. } | Action::ConfirmSeats { .. } | Action::AbandonSeats { .. }
    )
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
        let (hold_id, _) = self.owned_hold(&req.hold)?;
        let auth_key = checkout::authorization_key(hold_id.as_str(), &req.source_id);
        if let Some(order_id) = self.checkouts.by_key.get(&auth_key).cloned() {
            return self.order_status(&order_id);
        }
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        let outcome = showing.ledger.start_payment(now_ms, &hold_id);
        showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
        if outcome.result.is_err() {
            return Err(Refusal::new(
                Code::HoldExpired,
                "this hold has expired or was released; choose your seats again",
            ));
        }
        let record = showing
            .ledger
            .hold_record(&hold_id)
            .ok_or_else(|| Refusal::internal("a paying hold has no record"))?;
        let seats: Vec<String> = record
            .seats
            .iter()
            .map(|&u| showing.ledger.unit_name(u).unwrap_or_default().to_string())
            .collect();
        let order_id = format!("{}{}", showing.meta.showing_id, req.order_nonce);
        let amount = showing.price_of(seats.len());
        let new = NewCheckout {
            order_id: order_id.clone(),
            hold_id: hold_id.as_str().to_string(),
            amount_minor: amount.amount,
            currency: amount.currency.clone(),
            seats,
            source_id: req.source_id,
            buyer_email: req.email.clone(),
            buyer_name: req.name.clone(),
        };
        let (machine, actions) = Checkout::start(new, now_ms, &self.settings.checkout)
            .map_err(|e| Refusal::new(Code::InvalidCheckout, format!("{e:?}")))?;
        d.effects.push(Effect::Record(Record::PendingOrder {
            order_id: order_id.clone(),
            showing_id: showing.meta.showing_id.clone(),
            email: req.email,
            name: req.name,
            amount: amount.amount,
            currency: amount.currency,
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
            settling: self.checkouts.awaiting.contains_key(order_id),
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
        let actions = self.feed(now_ms, order_id, Event::Answer { step, answer }, d);
        self.process(now_ms, order_id, actions, d);
        self.dispatch(now_ms, order_id, d);
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

    /// Feeds one event to a checkout and saves it.
    fn feed(&mut self, now_ms: u64, order_id: &str, event: Event, d: &mut Decision) -> Vec<Action> {
        let Some(mut machine) = self.checkouts.machines.get(order_id).cloned() else {
            return Vec::new();
        };
        let actions = machine.handle_event(event, now_ms);
        self.put(machine, d);
        actions
    }

    fn put(&mut self, machine: Checkout, d: &mut Decision) {
        d.writes.push(Write::Checkout {
            order_id: machine.order().order_id.clone(),
            auth_key: machine.authorization_key().to_string(),
            record: to_json(&machine),
            due_at_ms: machine.poll_timeout(),
        });
        self.checkouts.insert(machine);
    }

    /// Audit rows go out as records, ledger steps are done now and their
    /// answers fed back, and a Square or D1 step waits in the outbox.
    fn process(&mut self, now_ms: u64, order_id: &str, actions: Vec<Action>, d: &mut Decision) {
        let mut queue: std::collections::VecDeque<Action> = actions.into();
        while let Some(action) = queue.pop_front() {
            match action {
                Action::Audit {
                    at_ms,
                    order_id,
                    from,
                    to,
                    detail,
                } => {
                    d.effects.push(Effect::Record(Record::Audit {
                        order_id,
                        at_ms,
                        from: from.to_string(),
                        to: to.to_string(),
                        detail,
                    }));
                }
                // While a Square or D1 step of the order is being
                // performed, a ledger step a webhook brought on waits in the
                // outbox for that answer, like any other step: seats are
                // taken only once the order's call in flight has come back.
                ledger_action
                    if is_ledger_action(&ledger_action)
                        && !self.checkouts.awaiting.contains_key(order_id) =>
                {
                    queue.extend(self.ledger_feed(now_ms, order_id, &ledger_action, d));
                }
                request => {
                    d.writes.push(Write::Outbox {
                        order_id: order_id.to_string(),
                        action: Some(to_json(&request)),
                    });
                    self.checkouts.outbox.insert(order_id.to_string(), request);
                }
            }
        }
    }

    /// Hands the order's outbox action to the shell, unless one of its
    /// steps is being performed or the action is no longer current.
    fn dispatch(&mut self, now_ms: u64, order_id: &str, d: &mut Decision) {
        // A ledger step waiting in the outbox is done now, and whatever it
        // leads to is dispatched in turn.
        while let Some(action) = self.checkouts.outbox.get(order_id) {
            let waiting = is_ledger_action(action)
                && !self.checkouts.awaiting.contains_key(order_id)
                && self
                    .checkouts
                    .machines
                    .get(order_id)
                    .is_some_and(|m| m.is_current(action));
            if !waiting {
                break;
            }
            let action = action.clone();
            self.checkouts.outbox.remove(order_id);
            d.writes.push(Write::Outbox {
                order_id: order_id.to_string(),
                action: None,
            });
            let actions = self.ledger_feed(now_ms, order_id, &action, d);
            self.process(now_ms, order_id, actions, d);
        }
        if self.checkouts.awaiting.contains_key(order_id) {
            return;
        }
        let Some(action) = self.checkouts.outbox.get(order_id) else {
            return;
        };
        let current = self
            .checkouts
            .machines
            .get(order_id)
            .is_some_and(|m| m.is_current(action));
        let step = action.step();
        let effect = match (current, step) {
            (true, Some(step)) => match square::call_for(action, &self.settings.location_id) {
                Some(call) => Some(Effect::Square {
                    order_id: order_id.to_string(),
                    step,
                    call,
                }),
                None => store_write(action).map(|write| Effect::Store {
                    order_id: order_id.to_string(),
                    step,
                    write,
                }),
            },
            _ => None,
        };
        match effect {
            Some(effect) => {
                self.checkouts
                    .awaiting
                    .insert(order_id.to_string(), action.clone());
                d.effects.push(effect);
            }
            None => {
                self.checkouts.outbox.remove(order_id);
                d.writes.push(Write::Outbox {
                    order_id: order_id.to_string(),
                    action: None,
                });
            }
        }
    }

    /// Performs a ledger action and feeds its answer back.
    fn ledger_feed(
        &mut self,
        now_ms: u64,
        order_id: &str,
        action: &Action,
        d: &mut Decision,
    ) -> Vec<Action> {
        let Some(step) = action.step() else {
            return Vec::new();
        };
        let answer = self.ledger_step(now_ms, action, d);
        self.feed(now_ms, order_id, Event::Answer { step, answer }, d)
    }

    /// Performs a ledger action and reads its answer.
    fn ledger_step(&mut self, now_ms: u64, action: &Action, d: &mut Decision) -> Answer {
        let Some(showing) = self.showing.as_mut() else {
            return Answer::CommitRefused {
                reason: "no showing".into(),
            };
        };
        let order_of = |id: &str| OrderId::new(id).map_err(|e| format!("{e:?}"));
        match action {
            Action::CommitSeats {
                hold_id,
                order_id,
                seats,
                ..
            } => {
                let ids = HoldId::new(hold_id.as_str())
                    .map_err(|e| format!("{e:?}"))
                    .and_then(|hold| Ok((hold, order_of(order_id)?)));
                let (hold, order) = match ids {
                    Ok(ids) => ids,
                    Err(reason) => return Answer::CommitRefused { reason },
                };
                let outcome = showing.ledger.commit(now_ms, &hold, &order, seats);
                showing.persist(
                    &outcome.changes,
                    Some((&hold, HoldEnd::Committed)),
                    now_ms,
                    &mut self.owners,
                    d,
                );
                match outcome.result {
                    Ok(_) => Answer::SeatsCommitted,
                    Err(CommitError::SeatsTaken { seats }) => Answer::SeatsTaken { seats },
                    Err(other) => Answer::CommitRefused {
                        reason: format!("{other:?}"),
                    },
                }
            }
            Action::ConfirmSeats { order_id, .. } => {
                if let Ok(order) = order_of(order_id) {
                    let outcome = showing.ledger.confirm(now_ms, &order);
                    showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
                }
                Answer::SeatsConfirmed
            }
            Action::AbandonSeats { order_id, .. } => {
                if let Ok(order) = order_of(order_id) {
                    let outcome = showing.ledger.abandon(now_ms, &order);
                    showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
                }
                Answer::SeatsAbandoned
            }
            _ => Answer::OutcomeUnknown,
        }
    }
}
