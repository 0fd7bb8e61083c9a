//! Each order's outbox: the checkout machine saved with every event, its
//! ledger steps done at once (or, while a call of the order is in flight,
//! kept until its answer), and its one Square or D1 step a time handed to
//! the shell, remembered as a row until answered.

use std::collections::{BTreeMap, HashMap};

use checkout::{Action, Answer, Checkout, Event};
use ledger::{CommitError, HoldId, OrderId};

use crate::decision::{Effect, OrderWrite, Record, StoreOutcome};
use crate::square;
use crate::storage::{to_json, HoldEnd, Write};
use crate::{Decision, Desk};

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
    /// Memory only: checkouts started since the settled unpaid ones were
    /// last counted against their cap.
    pub started_since_trim: usize,
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

    /// Forgets an order's checkout.
    fn remove(&mut self, order_id: &str) {
        if let Some(machine) = self.machines.remove(order_id) {
            self.by_key.remove(machine.authorization_key());
        }
        self.due.remove(order_id);
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

/// How long a finished checkout is kept after its last event. Its order,
/// tickets and payment stay in D1; the checkout itself is only needed while
/// its hold could still be paid for, and for webhooks of its payment, which
/// Square sends within hours. Without this, every declined card of a card
/// tester would be a row forever.
pub const FINISHED_CHECKOUT_TTL_MS: u64 = 7 * 24 * 3600 * 1000;
/// Most finished checkouts one alarm forgets.
const CHECKOUT_PURGE_BATCH: usize = 500;
/// Most settled checkouts that took no money (declined, seat lost,
/// failed) kept for one showing, before their week is up: a card tester
/// spread over many networks makes these and nothing else. Past it the
/// oldest go first; their orders stay in D1.
pub const MAX_UNPAID_CHECKOUTS: usize = 500;
/// Checkouts started between two counts of the unpaid ones, which a count
/// brings this far below their cap: one count per this many checkouts
/// keeps the work per checkout constant and the table within its cap.
const UNPAID_TRIM_SLACK: usize = 50;

impl crate::Desk {
    /// Forgets checkouts finished over [`FINISHED_CHECKOUT_TTL_MS`] ago,
    /// a batch at a time, with nothing of theirs waiting to be sent.
    pub(crate) fn forget_finished_checkouts(&mut self, now_ms: u64, d: &mut Decision) {
        let cutoff = now_ms.saturating_sub(FINISHED_CHECKOUT_TTL_MS);
        let checkouts = &self.checkouts;
        let old: Vec<String> = checkouts
            .machines
            .iter()
            .filter(|(id, m)| {
                m.is_finished()
                    && m.last_active_ms() < cutoff
                    && !checkouts.outbox.contains_key(*id)
                    && !checkouts.awaiting.contains_key(*id)
            })
            .map(|(id, _)| id.clone())
            .take(CHECKOUT_PURGE_BATCH)
            .collect();
        for order_id in old {
            self.checkouts.remove(&order_id);
            d.writes.push(Write::ForgetCheckout { order_id });
        }
        self.forget_unpaid_past_cap(d);
    }

    /// Counted once every [`UNPAID_TRIM_SLACK`] checkouts (and by every
    /// alarm): forgets the oldest settled checkouts that took no money
    /// until [`MAX_UNPAID_CHECKOUTS`] less the slack are left.
    pub(crate) fn forget_unpaid_past_cap(&mut self, d: &mut Decision) {
        let checkouts = &mut self.checkouts;
        checkouts.started_since_trim = 0;
        let mut unpaid: Vec<(u64, String)> = checkouts
            .machines
            .iter()
            .filter(|(id, m)| {
                m.is_finished()
                    && matches!(
                        m.status(),
                        checkout::PublicStatus::Declined { .. }
                            | checkout::PublicStatus::SeatLost { .. }
                            | checkout::PublicStatus::Failed { .. }
                    )
                    && !checkouts.outbox.contains_key(*id)
                    && !checkouts.awaiting.contains_key(*id)
            })
            .map(|(id, m)| (m.last_active_ms(), id.clone()))
            .collect();
        let keep = MAX_UNPAID_CHECKOUTS - UNPAID_TRIM_SLACK;
        if unpaid.len() <= keep {
            return;
        }
        unpaid.sort_unstable();
        let over = unpaid.len() - keep;
        for (_, order_id) in unpaid.into_iter().take(over) {
            checkouts.remove(&order_id);
            d.writes.push(Write::ForgetCheckout { order_id });
        }
    }

    /// Notes a checkout started, counting the unpaid ones when due.
    pub(crate) fn count_started_checkout(&mut self, d: &mut Decision) {
        self.checkouts.started_since_trim += 1;
        if self.checkouts.started_since_trim >= UNPAID_TRIM_SLACK {
            self.forget_unpaid_past_cap(d);
        }
    }
}

fn store_write(action: &Action, showing_id: &str, tax: &checkout::Tax) -> Option<OrderWrite> {
    Some(match action {
        Action::WriteOrder {
            seats,
            payment_id,
            prices,
            credit,
            ..
        } => OrderWrite::Order {
            showing_id: showing_id.to_string(),
            seats: seats.clone(),
            payment_id: payment_id.clone(),
            prices: prices.clone(),
            credit: credit.as_ref().map_or(0, |c| c.amount_minor),
            exchanged_from: credit.as_ref().map(|c| c.from_order.clone()),
            tax_name: tax.name.clone(),
            tax_inclusive: tax.inclusive,
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
            status: outcome.public().name(),
            detail: serde_json::to_string(outcome).ok(),
            payment_id: payment_id.clone(),
        },
        _ => return None,
    })
}

pub(crate) fn store_answer(action: &Action, outcome: StoreOutcome) -> Answer {
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
    /// Feeds one event to a checkout and saves it.
    pub(crate) fn feed(
        &mut self,
        now_ms: u64,
        order_id: &str,
        event: Event,
        d: &mut Decision,
    ) -> Vec<Action> {
        let Some(mut machine) = self.checkouts.machines.get(order_id).cloned() else {
            return Vec::new();
        };
        let actions = machine.handle_event(event, now_ms);
        self.put(machine, d);
        actions
    }

    pub(crate) fn put(&mut self, machine: Checkout, d: &mut Decision) {
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
    pub(crate) fn process(
        &mut self,
        now_ms: u64,
        order_id: &str,
        actions: Vec<Action>,
        d: &mut Decision,
    ) {
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
    pub(crate) fn dispatch(&mut self, now_ms: u64, order_id: &str, d: &mut Decision) {
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
        // A checkout exists only in a showing's desk; without the showing
        // the action waits rather than be written under no showing.
        let Some(showing_id) = self.showing.as_ref().map(|s| s.meta.showing_id.as_str()) else {
            return;
        };
        let current = self
            .checkouts
            .machines
            .get(order_id)
            .is_some_and(|m| m.is_current(action));
        let step = action.step();
        let effect = match (current, step) {
            (true, Some(step)) => match (
                square::refund_for(action),
                square::call_for(action, &self.settings),
            ) {
                (Some(request), _) => Some(Effect::Refund {
                    order_id: order_id.to_string(),
                    step,
                    request,
                }),
                (None, Some(call)) => Some(Effect::Square {
                    order_id: order_id.to_string(),
                    step,
                    call,
                }),
                (None, None) => {
                    store_write(action, showing_id, &self.settings.tax).map(|write| Effect::Store {
                        order_id: order_id.to_string(),
                        step,
                        write,
                    })
                }
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
        if showing.meta.cancelled_at_ms.is_some() && matches!(action, Action::CommitSeats { .. }) {
            // The authorization is voided and the order goes to staff.
            return Answer::CommitRefused {
                reason: "the showing was cancelled".into(),
            };
        }
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
