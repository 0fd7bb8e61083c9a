//! The Durable Object's side: persisting each checkout before acting,
//! performing its actions against the ledger, Square and D1 with faults,
//! feeding the answers back, and crashing.

use crate::square::Square;
use crate::store::Store;
use crate::world::{order, DelayedAnswer, World};
use checkout::{Action, Answer, Event, StepTag};
use ledger::{AbandonError, CommitError, HoldId};

/// What befalls one call to Square or D1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// Done and answered at once.
    None,
    /// Done; the answer arrives later, out of order with others.
    Delayed,
    /// Done, but the answer is lost: the object sees a timeout.
    DoneAnswerDropped,
    /// Not done: 5xx, 429, or D1 unavailable.
    FailedUndone,
    /// Done, and nothing comes back at all (the call hangs until the
    /// object gives up on it): only the checkout's answer timeout helps.
    DoneSilent,
}

impl World {
    pub fn crash_if_allowed(&mut self) -> Result<(), String> {
        if !self.take_fault() {
            return Ok(());
        }
        self.stats.crashes += 1;
        self.incarnation += 1;
        self.note(|| "CRASH: memory lost, every checkout read back from storage".to_owned());
        for run in &mut self.runs {
            let json = serde_json::to_string(&run.persisted).map_err(|e| e.to_string())?;
            if json.contains(&run.token) && run.persisted.stage() != checkout::Stage::Authorizing {
                return Err(format!(
                    "{}: card token stored past the authorization",
                    run.order_id
                ));
            }
            run.live = serde_json::from_str(&json).map_err(|e| format!("reload: {e}"))?;
            if run.live != run.persisted {
                return Err(format!(
                    "{}: JSON round trip changed the checkout",
                    run.order_id
                ));
            }
            run.outbox.clear();
        }
        let incarnation = self.incarnation;
        self.answers.retain(|a| a.incarnation == incarnation);
        Ok(())
    }

    fn pick_fault(&mut self) -> Fault {
        if self.quiet || !self.rng.chance(35) || !self.take_fault() {
            return if !self.quiet && self.rng.chance(25) {
                Fault::Delayed
            } else {
                Fault::None
            };
        }
        match self.rng.below(4) {
            0 => Fault::DoneAnswerDropped,
            1 => Fault::FailedUndone,
            2 => Fault::DoneSilent,
            _ => Fault::Delayed,
        }
    }

    /// Records a checkout call's result as the object does: check it,
    /// persist it, then queue its actions; audit rows are written at once.
    pub fn feed(&mut self, run: usize, actions: Vec<Action>) -> Result<(), String> {
        let r = &mut self.runs[run];
        r.live
            .check_invariants()
            .map_err(|e| format!("{}: {e}", r.order_id))?;
        // Every change of state comes with an audit row; an event that
        // returns nothing must have changed nothing.
        if actions.is_empty() && r.live != r.persisted {
            return Err(format!(
                "{}: state changed without an audit row",
                r.order_id
            ));
        }
        r.persisted = r.live.clone();
        let status = r.live.status();
        if let Some(seen) = &r.seen_final {
            if *seen != status {
                return Err(format!("{}: final {seen:?} became {status:?}", r.order_id));
            }
        } else if status.is_final() {
            r.seen_final = Some(status);
        }
        for action in actions {
            if let Action::Audit {
                detail, from, to, ..
            } = &action
            {
                if detail.contains(&r.token) {
                    return Err(format!("{}: card token in an audit row", r.order_id));
                }
                if let Some(trace) = &mut self.trace {
                    trace.push(format!(
                        "          {} audit {from} -> {to}: {detail}",
                        r.order_id
                    ));
                }
            } else {
                r.outbox.push_back(action);
            }
        }
        Ok(())
    }

    pub fn feed_answer(&mut self, run: usize, step: StepTag, answer: Answer) -> Result<(), String> {
        if self.trace.is_some() {
            let order_id = self.runs[run].order_id.clone();
            self.note(|| format!("{order_id} step {} answered {answer:?}", step.0));
        }
        let event = Event::Answer { step, answer };
        let actions = self.runs[run].live.handle_event(event, self.now_ms);
        self.feed(run, actions)
    }

    /// Performs the run's next action against Square, the ledger or D1.
    pub fn perform(&mut self, run: usize) -> Result<(), String> {
        let Some(action) = self.runs[run].outbox.pop_front() else {
            return Ok(());
        };
        let step = action.step().expect("audit rows are not queued");
        let order_id = self.runs[run].order_id.clone();
        if !self.runs[run].live.is_current(&action) {
            self.stats.stale_actions_skipped += 1;
            self.note(|| format!("{order_id} skips stale {action:?}"));
            return Ok(());
        }
        self.note(|| format!("{order_id} performs {action:?}"));
        let now_ms = self.now_ms;
        match action {
            Action::CommitSeats { hold_id, seats, .. } => {
                let answer = self.commit(&hold_id, &order_id, &seats);
                self.ledger_answer(run, step, answer)
            }
            Action::ConfirmSeats { .. } => {
                let confirmed = self.ledger.confirm(now_ms, &order(&order_id)).result;
                confirmed.map_err(|e| format!("{order_id}: confirm refused: {e}"))?;
                self.ledger_answer(run, step, Answer::SeatsConfirmed)
            }
            Action::AbandonSeats { .. } => {
                match self.ledger.abandon(now_ms, &order(&order_id)).result {
                    Ok(_) | Err(AbandonError::OrderNotFound) => {}
                    Err(e) => return Err(format!("{order_id}: abandon refused: {e}")),
                }
                self.ledger_answer(run, step, Answer::SeatsAbandoned)
            }
            Action::WriteOrder { seats, .. } => {
                self.store_call(run, step, |store| store.write_order(&order_id, &seats))
            }
            Action::MarkPaid { .. } => {
                self.store_call(run, step, |store| store.mark_paid(&order_id))
            }
            Action::VoidTickets { .. } => {
                self.store_call(run, step, |store| store.void_tickets(&order_id))
            }
            Action::RecordFinal { outcome, .. } => {
                self.store_call(run, step, |store| store.record_final(&order_id, &outcome))
            }
            square_call => self.square_call(run, step, square_call),
        }
    }

    /// The ledger answers at once, but the object may die between storing
    /// the ledger's change and storing the checkout's answer.
    fn ledger_answer(&mut self, run: usize, step: StepTag, answer: Answer) -> Result<(), String> {
        if !self.quiet && self.rng.chance(10) && self.faults_left > 0 {
            self.note(|| format!("  ledger answered {answer:?}, then the object died"));
            return self.crash_if_allowed();
        }
        self.feed_answer(run, step, answer)
    }

    fn commit(&mut self, hold_id: &str, order_id: &str, seats: &[String]) -> Answer {
        let hold = HoldId::new(hold_id).expect("sim hold ids are valid");
        match self
            .ledger
            .commit(self.now_ms, &hold, &order(order_id), seats)
            .result
        {
            Ok(_) => Answer::SeatsCommitted,
            Err(CommitError::SeatsTaken { seats }) => Answer::SeatsTaken { seats },
            Err(other) => Answer::CommitRefused {
                reason: other.to_string(),
            },
        }
    }

    fn square_call(&mut self, run: usize, step: StepTag, action: Action) -> Result<(), String> {
        let fault = self.pick_fault();
        let now_ms = self.now_ms;
        let square = &mut self.square;
        let work = |square: &mut Square| match &action {
            Action::CreatePayment {
                idempotency_key,
                source_id,
                amount_minor,
                reference_id,
                autocomplete,
                ..
            } => square.create(
                now_ms,
                idempotency_key,
                source_id,
                *amount_minor,
                reference_id,
                *autocomplete,
            ),
            Action::GetPayment { payment_id, .. } => square.get(payment_id),
            Action::CompletePayment { payment_id, .. } => square.complete(payment_id),
            Action::CancelPayment { payment_id, .. } => square.cancel(payment_id),
            Action::CancelPaymentByKey {
                idempotency_key, ..
            } => square.cancel_by_key(idempotency_key),
            Action::RefundPayment {
                payment_id,
                idempotency_key,
                amount_minor,
                ..
            } => square.refund(idempotency_key, payment_id, *amount_minor),
            other => unreachable!("not a Square call: {other:?}"),
        };
        let answer = match fault {
            Fault::FailedUndone => Answer::OutcomeUnknown,
            _ => work(square),
        };
        if matches!(answer, Answer::RefundAccepted { .. }) {
            self.stats.refunds += 1;
        }
        self.answer_with(run, step, fault, answer, Answer::OutcomeUnknown)
    }

    fn store_call(
        &mut self,
        run: usize,
        step: StepTag,
        work: impl FnOnce(&mut Store) -> Answer,
    ) -> Result<(), String> {
        let fault = self.pick_fault();
        let answer = match fault {
            Fault::FailedUndone => Answer::StoreUnavailable,
            _ => work(&mut self.store),
        };
        self.answer_with(run, step, fault, answer, Answer::StoreUnavailable)
    }

    /// Hands the answer back as the fault says.
    fn answer_with(
        &mut self,
        run: usize,
        step: StepTag,
        fault: Fault,
        answer: Answer,
        unknown: Answer,
    ) -> Result<(), String> {
        self.note(|| format!("  fault {fault:?}, answer {answer:?}"));
        match fault {
            Fault::None => self.feed_answer(run, step, answer),
            Fault::DoneAnswerDropped | Fault::FailedUndone => self.feed_answer(run, step, unknown),
            Fault::DoneSilent => Ok(()),
            Fault::Delayed => {
                self.answers.push(DelayedAnswer {
                    run,
                    incarnation: self.incarnation,
                    step,
                    answer,
                });
                Ok(())
            }
        }
    }
}
