//! The object's shell, as the simulation plays it: performing the desk's
//! effects against Square and D1 with faults, feeding the answers back in
//! any order, and crashing: a new desk is loaded from the SQLite rows the
//! old one wrote, and must be the same desk.

use crate::world::{DelayedAnswer, World};
use desk::square::SquareReply;
use desk::{Answer, Effect, OrderWrite, StoreOutcome};

/// What befalls one call to Square or D1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// Done and answered at once.
    None,
    /// Done; the answer arrives later, out of order with others.
    Delayed,
    /// Done, but the answer is lost: the shell's call times out.
    DoneAnswerDropped,
    /// Not done: 5xx, 429, or D1 unavailable.
    FailedUndone,
}

impl World {
    fn pick_fault(&mut self) -> Fault {
        if self.quiet || !self.rng.chance(35) || !self.take_fault() {
            return if !self.quiet && self.rng.chance(25) {
                Fault::Delayed
            } else {
                Fault::None
            };
        }
        match self.rng.below(3) {
            0 => Fault::DoneAnswerDropped,
            1 => Fault::FailedUndone,
            _ => Fault::Delayed,
        }
    }

    /// Performs the `i`th effect in flight.
    pub fn perform(&mut self, i: usize) -> Result<(), String> {
        let flight = self.in_flight.remove(i);
        let fault = self.pick_fault();
        let (order_id, step, answer) = self.carry_out(flight.effect, fault != Fault::FailedUndone);
        self.note(|| {
            format!(
                "{order_id} step {} performed with {fault:?}: {answer:?}",
                step.0
            )
        });
        let unknown = match answer {
            Answer::Square(_) => Answer::Square(SquareReply::Unknown("timeout".into())),
            Answer::Store(_) => Answer::Store(StoreOutcome::Unavailable),
        };
        let delayed = |answer| DelayedAnswer {
            incarnation: flight.incarnation,
            order_id,
            step,
            answer,
        };
        match fault {
            Fault::None => self.feed_answer(delayed(answer)),
            Fault::DoneAnswerDropped | Fault::FailedUndone => self.feed_answer(delayed(unknown)),
            Fault::Delayed => {
                self.answers.push(delayed(answer));
                Ok(())
            }
        }
    }

    /// Does the effect's work (or not, when it fails before doing it).
    fn carry_out(&mut self, effect: Effect, done: bool) -> (String, checkout::StepTag, Answer) {
        let effect = match effect {
            // Sent as the Worker sends it, after recording it.
            Effect::Refund {
                order_id,
                step,
                request,
            } => Effect::Square {
                order_id,
                step,
                call: desk::square::refund_call(&request),
            },
            other => other,
        };
        match effect {
            Effect::Square {
                order_id,
                step,
                call,
            } => {
                let reply = if done {
                    self.square.http(self.now_ms, &call)
                } else {
                    SquareReply::Unknown("503".into())
                };
                if let SquareReply::Ok(body) = &reply {
                    self.stats.refunds += u64::from(body.get("refund").is_some());
                }
                (order_id, step, Answer::Square(reply))
            }
            Effect::Store {
                order_id,
                step,
                write,
            } => {
                let outcome = if !done {
                    StoreOutcome::Unavailable
                } else {
                    match write {
                        OrderWrite::Order {
                            showing_id, seats, ..
                        } => {
                            // Carried by the effect, whatever crashed
                            // between its decision and now.
                            assert_eq!(showing_id, crate::world::SHOWING_ID);
                            self.store.write_order(&order_id, &seats)
                        }
                        OrderWrite::MarkPaid { .. } => self.store.mark_paid(&order_id),
                        OrderWrite::VoidTickets => self.store.void_tickets(&order_id),
                        OrderWrite::Final { detail, .. } => {
                            let outcome = serde_json::from_str(detail.as_deref().unwrap_or("null"))
                                .expect("a final outcome is stored as JSON");
                            self.store.record_final(&order_id, &outcome)
                        }
                    }
                };
                (order_id, step, Answer::Store(outcome))
            }
            other => unreachable!("only Square and D1 effects are in flight: {other:?}"),
        }
    }

    /// The object dies. Calls it had sent may or may not have been carried
    /// out; their answers reach nobody. The new instance loads the desk from
    /// storage, which must hold everything the old one knew.
    pub fn crash_if_allowed(&mut self) -> Result<(), String> {
        if !self.take_fault() {
            return Ok(());
        }
        self.stats.crashes += 1;
        self.incarnation += 1;
        self.note(|| "CRASH: memory lost, the desk loaded from storage".to_owned());
        for flight in std::mem::take(&mut self.in_flight) {
            if self.rng.chance(50) {
                self.carry_out(flight.effect, true);
            }
        }
        let reloaded = self.db.load_at(self.settings.clone(), self.now_ms);
        same_desk(&self.desk, &reloaded, &self.runs)?;
        for run in &self.runs {
            let stored =
                serde_json::to_string(reloaded.checkout(&run.order_id).expect("stored")).unwrap();
            let authorizing = reloaded.checkout(&run.order_id).is_some_and(|c| {
                matches!(
                    c.stage(),
                    checkout::Stage::Authorizing | checkout::Stage::CreatingOrder
                )
            });
            if stored.contains(&run.token) && !authorizing {
                return Err(format!(
                    "{}: card token stored past the authorization",
                    run.order_id
                ));
            }
        }
        self.desk = reloaded;
        // The watchers' sockets outlive the instance.
        self.desk.set_watchers(self.pages.len());
        Ok(())
    }
}

/// The desk in memory and the desk loaded from its rows agree on seats,
/// orders, checkouts and outboxes.
fn same_desk(
    memory: &desk::Desk,
    stored: &desk::Desk,
    runs: &[crate::world::Run],
) -> Result<(), String> {
    let (a, b) = (
        memory.ledger().expect("set up"),
        stored.ledger().expect("set up"),
    );
    let (a, mut b) = (a.snapshot(), b.snapshot());
    // A decision that changed no seat writes nothing, not even the clock it
    // saw, so storage may remember an earlier instant than memory did.
    // That is harmless (nothing was due then), but never a later one.
    if b.latest_now_ms > a.latest_now_ms {
        return Err(format!(
            "storage's clock {} is ahead of memory's {}",
            b.latest_now_ms, a.latest_now_ms
        ));
    }
    b.latest_now_ms = a.latest_now_ms;
    if a != b {
        return Err(format!("seats differ after reload:\n{a:?}\n{b:?}"));
    }
    for run in runs {
        let id = &run.order_id;
        if memory.checkout(id) != stored.checkout(id) {
            return Err(format!("{id}: checkout differs after reload"));
        }
        if memory.outbox(id) != stored.outbox(id) {
            return Err(format!("{id}: outbox differs after reload"));
        }
    }
    Ok(())
}
