//! Paying for a hold: the object drives each order's checkout machine
//! (the `checkout` crate), performing its actions against Square, its own
//! ledger and D1, and feeding each answer back.
//!
//! The machine's state is saved before any action is performed, so a crash
//! at any point resumes from storage; the ledger actions are performed in
//! the same synchronous step that feeds their answer back, so the seats and
//! the machine never disagree on disk.

use checkout::{Action, Answer, Checkout, Event, NewCheckout, PaymentStatus, PublicStatus};
use ledger::{CommitError, HoldId, OrderId};
use serde_json::{json, Value};
use worker::Response;

use super::holds::owned_hold;
use super::protocol::{CheckoutRequest, PaymentObserved};
use super::store::{self, HoldEnd};
use super::{Handled, Scope, Showtime};
use crate::api_error::ApiError;
use crate::db::orders as d1;
use crate::square::{Reply, Square};

/// How long a repeated checkout request waits for the first one to finish
/// before answering with the order as it stands (pending).
const WAIT_FOR_DRIVER_MS: u64 = 20_000;

/// What starting a checkout found.
enum Begun {
    Started {
        order_id: String,
        actions: Vec<Action>,
    },
    /// The same hold and card already have an order.
    Existing(String),
}

fn config(scope: &Scope) -> checkout::Config {
    let var = |name: &str| {
        scope
            .env
            .var(name)
            .ok()
            .and_then(|v| v.to_string().parse::<u64>().ok())
    };
    let defaults = checkout::Config::default();
    checkout::Config {
        retry_base_ms: var("CHECKOUT_RETRY_BASE_MS").unwrap_or(defaults.retry_base_ms),
        answer_timeout_ms: var("CHECKOUT_ANSWER_TIMEOUT_MS").unwrap_or(defaults.answer_timeout_ms),
        ..defaults
    }
}

fn begin(scope: &mut Scope, req: &CheckoutRequest, now_ms: u64) -> Result<Begun, ApiError> {
    let (hold_id, _) = owned_hold(scope, &req.hold)?;
    let auth_key = checkout::authorization_key(hold_id.as_str(), &req.source_id);
    if let Some(order_id) = store::checkout_by_key(&scope.sql, &auth_key)? {
        return Ok(Begun::Existing(order_id));
    }
    let outcome = scope.ledger.start_payment(now_ms, &hold_id);
    scope.persist(&outcome.changes, None, now_ms)?;
    if outcome.result.is_err() {
        return Err(ApiError::new(
            410,
            "hold_expired",
            "this hold has expired or was released; choose your seats again",
        ));
    }
    let record = scope
        .ledger
        .hold_record(&hold_id)
        .ok_or_else(|| ApiError::internal("a paying hold has no record"))?;
    let seats: Vec<String> = record
        .seats
        .iter()
        .map(|&u| scope.ledger.unit_name(u).unwrap_or_default().to_string())
        .collect();
    let random = crate::ids::random_hex(12).map_err(|e| ApiError::internal(e.to_string()))?;
    let order_id = format!("{}{random}", scope.meta.showing_id);
    let new = NewCheckout {
        order_id: order_id.clone(),
        hold_id: hold_id.as_str().to_string(),
        amount_minor: scope.meta.price.amount * seats.len() as u64,
        currency: scope.meta.price.currency.clone(),
        seats,
        source_id: req.source_id.clone(),
        buyer_email: req.email.clone(),
        buyer_name: req.name.clone(),
    };
    let (machine, actions) = Checkout::start(new, now_ms, &config(scope))
        .map_err(|e| ApiError::new(400, "invalid_checkout", format!("{e:?}")))?;
    scope.put_checkout(&machine)?;
    Ok(Begun::Started { order_id, actions })
}

/// Performs a ledger action and feeds its answer in one synchronous step.
fn ledger_step(
    scope: &mut Scope,
    order_id: &str,
    action: &Action,
    now_ms: u64,
) -> Result<Vec<Action>, ApiError> {
    let answer = match action {
        Action::CommitSeats {
            hold_id,
            order_id,
            seats,
            ..
        } => {
            let (hold, order) = ids(hold_id, order_id)?;
            let outcome = scope.ledger.commit(now_ms, &hold, &order, seats);
            scope.persist(&outcome.changes, Some((&hold, HoldEnd::Committed)), now_ms)?;
            match outcome.result {
                Ok(_) => Answer::SeatsCommitted,
                Err(CommitError::SeatsTaken { seats }) => Answer::SeatsTaken { seats },
                Err(other) => Answer::CommitRefused {
                    reason: format!("{other:?}"),
                },
            }
        }
        Action::ConfirmSeats { order_id, .. } => {
            let order = order_id_of(order_id)?;
            let outcome = scope.ledger.confirm(now_ms, &order);
            scope.persist(&outcome.changes, None, now_ms)?;
            Answer::SeatsConfirmed
        }
        Action::AbandonSeats { order_id, .. } => {
            let order = order_id_of(order_id)?;
            let outcome = scope.ledger.abandon(now_ms, &order);
            scope.persist(&outcome.changes, None, now_ms)?;
            Answer::SeatsAbandoned
        }
        _ => return Err(ApiError::internal("not a ledger action")),
    };
    let step = action
        .step()
        .ok_or_else(|| ApiError::internal("a ledger action has a step"))?;
    feed(scope, order_id, Event::Answer { step, answer }, now_ms)
}

fn ids(hold_id: &str, order_id: &str) -> Result<(HoldId, OrderId), ApiError> {
    let hold = HoldId::new(hold_id).map_err(|e| ApiError::internal(format!("{e:?}")))?;
    Ok((hold, order_id_of(order_id)?))
}

fn order_id_of(order_id: &str) -> Result<OrderId, ApiError> {
    OrderId::new(order_id).map_err(|e| ApiError::internal(format!("{e:?}")))
}

/// Feeds one event to a stored checkout and saves it before its next
/// actions are performed.
fn feed(
    scope: &mut Scope,
    order_id: &str,
    event: Event,
    now_ms: u64,
) -> Result<Vec<Action>, ApiError> {
    let mut machine =
        store::get_checkout(&scope.sql, order_id)?.ok_or_else(|| ApiError::not_found("order"))?;
    let actions = machine.handle_event(event, now_ms);
    scope.put_checkout(&machine)?;
    Ok(actions)
}

fn is_ledger_action(action: &Action) -> bool {
    matches!(
        action,
        Action::CommitSeats { .. } | Action::ConfirmSeats { .. } | Action::AbandonSeats { .. }
    )
}

fn payment_answer(reply: Reply) -> Answer {
    match reply {
        Reply::Ok(body) => payment_of(&body).unwrap_or(Answer::OutcomeUnknown),
        Reply::Unknown(_) => Answer::OutcomeUnknown,
        Reply::Refused { status: 404, .. } => Answer::PaymentNotFound,
        Reply::Refused {
            category,
            code,
            payment,
            ..
        } => {
            let payment = payment.map(|p| json!({ "payment": p }));
            let failed = payment.as_ref().and_then(payment_of);
            match failed {
                Some(Answer::Payment {
                    payment_id,
                    status: PaymentStatus::Failed,
                })
                | Some(Answer::Payment {
                    payment_id,
                    status: PaymentStatus::Canceled,
                }) if category == "PAYMENT_METHOD_ERROR" => Answer::Declined {
                    code,
                    payment_id: Some(payment_id),
                },
                _ if category == "PAYMENT_METHOD_ERROR" => Answer::Declined {
                    code,
                    payment_id: None,
                },
                Some(answer) => answer,
                None => Answer::Rejected { code },
            }
        }
    }
}

fn payment_of(body: &Value) -> Option<Answer> {
    let payment = &body["payment"];
    let payment_id = payment["id"].as_str()?.to_string();
    let status = PaymentStatus::from_square(payment["status"].as_str()?)?;
    Some(Answer::Payment { payment_id, status })
}

/// Performs a Square or D1 action and reads its answer.
async fn perform(
    square: &Square,
    db: &worker::D1Database,
    showing_id: &str,
    action: &Action,
    now_ms: u64,
) -> Answer {
    match action {
        Action::CreatePayment {
            idempotency_key,
            source_id,
            amount_minor,
            currency,
            reference_id,
            buyer_email,
            autocomplete,
            ..
        } => {
            let body = json!({
                "idempotency_key": idempotency_key,
                "source_id": source_id,
                "amount_money": {"amount": amount_minor, "currency": currency},
                "autocomplete": autocomplete,
                "location_id": square.location_id,
                "reference_id": reference_id,
                "buyer_email_address": buyer_email,
            });
            payment_answer(square.create_payment(&body).await)
        }
        Action::GetPayment { payment_id, .. } => {
            payment_answer(square.get_payment(payment_id).await)
        }
        Action::CompletePayment { payment_id, .. } => {
            payment_answer(square.complete_payment(payment_id).await)
        }
        Action::CancelPayment { payment_id, .. } => {
            payment_answer(square.cancel_payment(payment_id).await)
        }
        Action::CancelPaymentByKey {
            idempotency_key, ..
        } => match square.cancel_payment_by_key(idempotency_key).await {
            Reply::Ok(_) => Answer::CanceledByKey,
            Reply::Unknown(_) => Answer::OutcomeUnknown,
            Reply::Refused { code, .. } => Answer::Rejected { code },
        },
        Action::RefundPayment {
            payment_id,
            idempotency_key,
            amount_minor,
            currency,
            ..
        } => {
            let body = json!({
                "idempotency_key": idempotency_key,
                "payment_id": payment_id,
                "amount_money": {"amount": amount_minor, "currency": currency},
                "reason": "Seats could not be issued",
            });
            match square.refund_payment(&body).await {
                Reply::Ok(body) => match body["refund"]["id"].as_str() {
                    Some(id) => Answer::RefundAccepted {
                        refund_id: id.to_string(),
                    },
                    None => Answer::OutcomeUnknown,
                },
                Reply::Unknown(_) => Answer::OutcomeUnknown,
                Reply::Refused { code, .. } => Answer::Rejected { code },
            }
        }
        Action::WriteOrder {
            order_id,
            seats,
            payment_id,
            ..
        } => match d1::write_order(db, order_id, showing_id, seats, payment_id, now_ms).await {
            Ok(d1::Written::Written) => Answer::OrderWritten,
            Ok(d1::Written::Conflict(seats)) => Answer::OrderConflict { seats },
            Err(e) => stored(Err(e)),
        },
        Action::MarkPaid {
            order_id,
            payment_id,
            ..
        } => stored(d1::mark_paid(db, order_id, payment_id, now_ms).await),
        Action::VoidTickets { order_id, .. } => {
            stored(d1::void_tickets(db, order_id, now_ms).await)
        }
        Action::RecordFinal {
            order_id,
            outcome,
            payment_id,
            ..
        } => {
            let status = status_name(&outcome.public());
            let detail = serde_json::to_string(outcome).ok();
            stored(
                d1::record_final(
                    db,
                    order_id,
                    status,
                    detail.as_deref(),
                    payment_id.as_deref(),
                    now_ms,
                )
                .await,
            )
        }
        Action::CommitSeats { .. }
        | Action::ConfirmSeats { .. }
        | Action::AbandonSeats { .. }
        | Action::Audit { .. } => Answer::OutcomeUnknown,
    }
}

fn stored(result: worker::Result<()>) -> Answer {
    match result {
        Ok(()) => Answer::Stored,
        Err(e) => {
            worker::console_error!("D1 write failed: {e}");
            Answer::StoreUnavailable
        }
    }
}

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

impl Showtime {
    /// `POST /checkout`: starts (or finds) the order for this hold and card,
    /// drives it as far as it goes now, and answers with where it stands.
    pub(super) async fn checkout(&self, req: CheckoutRequest) -> Handled {
        let begun = self.decide_with(|s, now| begin(s, &req, now))?;
        let order_id = match begun {
            Begun::Started { order_id, actions } => {
                self.record_pending(&order_id).await;
                self.drive(&order_id, actions).await?;
                order_id
            }
            Begun::Existing(order_id) => {
                self.wait_for_driver(&order_id).await;
                order_id
            }
        };
        self.answer(&order_id)
    }

    /// The order row D1 keeps from the start, so staff see a checkout whose
    /// payment outcome is unknown. Losing it is harmless: WriteOrder and
    /// RecordFinal write what matters.
    async fn record_pending(&self, order_id: &str) {
        let Ok(Some(machine)) = store::get_checkout(&self.sql(), order_id) else {
            return;
        };
        let order = machine.order();
        let Ok(db) = self.env.d1("DB") else { return };
        let showing_id = self.showing_id().unwrap_or_default();
        let row = d1::NewOrder {
            id: &order.order_id,
            showing_id: &showing_id,
            email: &order.buyer_email,
            name: &order.buyer_name,
            amount: order.amount_minor,
            currency: &order.currency,
        };
        if let Err(e) = d1::insert_pending(&db, &row, super::now_ms()).await {
            worker::console_error!("order {order_id}: pending row not written: {e}");
        }
    }

    fn showing_id(&self) -> Option<String> {
        self.loaded
            .borrow()
            .as_ref()
            .map(|l| l.meta.showing_id.clone())
    }

    /// Performs a checkout's actions until it waits for a retry or ends.
    /// One driver per order at a time: a second caller leaves it to the first.
    pub(super) async fn drive(
        &self,
        order_id: &str,
        mut actions: Vec<Action>,
    ) -> Result<(), ApiError> {
        if !self.driving.borrow_mut().insert(order_id.to_string()) {
            self.queued
                .borrow_mut()
                .entry(order_id.to_string())
                .or_default()
                .extend(actions);
            return Ok(());
        }
        let result = loop {
            let result = self.drive_actions(order_id, &mut actions).await;
            // Actions queued after the last look are taken here, with no
            // await between this check and leaving, so none is dropped.
            match self.queued.borrow_mut().remove(order_id) {
                Some(more) if result.is_ok() => actions = more,
                _ => break result,
            }
        };
        self.driving.borrow_mut().remove(order_id);
        result
    }

    async fn drive_actions(
        &self,
        order_id: &str,
        actions: &mut Vec<Action>,
    ) -> Result<(), ApiError> {
        let square = Square::from_env(&self.env).map_err(ApiError::internal)?;
        let db = self.env.d1("DB")?;
        let showing_id = self.showing_id().unwrap_or_default();
        loop {
            // The alarm covers this order's next retry before anything is
            // sent, so a crash mid-call is resumed by the alarm.
            self.arm_alarm().await?;
            if let Some(more) = self.queued.borrow_mut().remove(order_id) {
                actions.extend(more);
            }
            let mut requests = Vec::new();
            for action in actions.drain(..) {
                match action {
                    Action::Audit {
                        at_ms,
                        order_id,
                        from,
                        to,
                        detail,
                    } => {
                        let (from, to) = (from.to_string(), to.to_string());
                        if let Err(e) = d1::audit(&db, &order_id, at_ms, &from, &to, &detail).await
                        {
                            worker::console_error!("order {order_id}: audit row not written: {e}");
                        }
                    }
                    other => requests.push(other),
                }
            }
            // Only the step in flight is performed; anything else is stale
            // (a webhook or another answer moved the order on).
            let current = self.decide_with(|s, _| {
                let machine = store::get_checkout(&s.sql, order_id)?;
                Ok(requests
                    .into_iter()
                    .rev()
                    .find(|a| machine.as_ref().is_some_and(|m| m.is_current(a))))
            })?;
            let Some(action) = current else { return Ok(()) };
            *actions = if is_ledger_action(&action) {
                self.decide_with(|s, now| ledger_step(s, order_id, &action, now))?
            } else {
                let answer = perform(&square, &db, &showing_id, &action, super::now_ms()).await;
                self.failpoint(&action, &answer).await;
                let step = action
                    .step()
                    .ok_or_else(|| ApiError::internal("a request has a step"))?;
                self.decide_with(|s, now| feed(s, order_id, Event::Answer { step, answer }, now))?
            };
        }
    }

    /// Test-only crash injection: with `SHOWTIME_FAILPOINT=after_capture`,
    /// the object dies right after a capture is answered and before the
    /// answer is recorded, once per object. A panic resets the instance, as a
    /// crash would; recovery must then finish the order from storage.
    async fn failpoint(&self, action: &Action, answer: &Answer) {
        let armed = self
            .env
            .var("SHOWTIME_FAILPOINT")
            .map(|v| v.to_string() == "after_capture")
            .unwrap_or(false);
        let captured = matches!(action, Action::CompletePayment { .. })
            && matches!(
                answer,
                Answer::Payment {
                    status: PaymentStatus::Completed,
                    ..
                }
            );
        if !armed || !captured {
            return;
        }
        let sql = self.sql();
        if store::get_meta(&sql, "failpoint_fired")
            .ok()
            .flatten()
            .is_some()
        {
            return;
        }
        let _ = store::set_meta(&sql, "failpoint_fired", "after_capture");
        let _ = self.state.storage().sync().await;
        panic!("failpoint after_capture: the object crashes between capture and recording it");
    }

    /// Waits (briefly) while another request drives this order.
    async fn wait_for_driver(&self, order_id: &str) {
        let deadline = super::now_ms() + WAIT_FOR_DRIVER_MS;
        while self.driving.borrow().contains(order_id) && super::now_ms() < deadline {
            worker::Delay::from(std::time::Duration::from_millis(50)).await;
        }
    }

    /// The checkout's answer to its buyer.
    fn answer(&self, order_id: &str) -> Handled {
        let machine = store::get_checkout(&self.sql(), order_id)?
            .ok_or_else(|| ApiError::not_found("order"))?;
        let order = machine.order();
        let tickets: Vec<Value> = order
            .seats
            .iter()
            .enumerate()
            .map(|(i, seat)| json!({"id": d1::ticket_id(order_id, i), "seat": seat}))
            .collect();
        let status = machine.status();
        let base = json!({
            "order_id": order_id,
            "status": status_name(&status),
            "seats": order.seats,
            "amount": {"amount": order.amount_minor, "currency": order.currency},
        });
        let (code, body) = match status {
            PublicStatus::Paid => (201, with(base, json!({ "tickets": tickets }))),
            PublicStatus::Pending => (
                202,
                with(
                    base,
                    json!({
                        "detail": "your payment is being confirmed; this page will show the outcome"
                    }),
                ),
            ),
            PublicStatus::Declined { code } => (
                402,
                with(
                    base,
                    json!({
                        "error": "card_declined", "code": code,
                        "detail": "the card was declined and nothing was charged; your seats are still held, so you can try another card",
                    }),
                ),
            ),
            PublicStatus::SeatLost { seats } => (
                409,
                with(
                    base,
                    json!({
                        "error": "seat_lost", "seats_lost": seats,
                        "detail": "your hold ran out and another buyer took these seats; the payment was cancelled and nothing was charged",
                    }),
                ),
            ),
            PublicStatus::Failed { code } => (
                402,
                with(
                    base,
                    json!({
                        "error": "payment_failed", "code": code,
                        "detail": "the payment could not be made and nothing was charged",
                    }),
                ),
            ),
            PublicStatus::NeedsAttention => (
                409,
                with(
                    base,
                    json!({
                        "error": "order_not_completed",
                        "detail": "we could not issue tickets for this order; nothing was charged, and the cinema's staff have been alerted",
                    }),
                ),
            ),
        };
        Ok(Response::from_json(&body)?.with_status(code))
    }

    /// `POST /payment`: a webhook's payment status, fed to its checkout.
    pub(super) async fn payment_observed(&self, seen: PaymentObserved) -> Handled {
        let Some(status) = PaymentStatus::from_square(&seen.status) else {
            return Ok(Response::empty()?.with_status(204));
        };
        // A declined payment's webhook says FAILED without the decline code.
        // While a driver awaits that payment's answer, the answer (which has
        // the code) is on its way; if it is lost, the retried request gets
        // the same decline back, code and all.
        if status == PaymentStatus::Failed && self.driving.borrow().contains(&seen.order_id) {
            return Ok(Response::empty()?.with_status(204));
        }
        let event = Event::PaymentObserved {
            payment_id: seen.payment_id.clone(),
            status,
        };
        let actions =
            self.decide_with(
                |s, now| match store::get_checkout(&s.sql, &seen.order_id)? {
                    Some(_) => feed(s, &seen.order_id, event, now),
                    None => Ok(Vec::new()),
                },
            )?;
        self.drive(&seen.order_id, actions).await?;
        Ok(Response::empty()?.with_status(204))
    }

    /// Resumes every checkout whose next step is due: from the alarm, the
    /// cron sweep, and after a restart.
    pub(super) async fn resume_due(&self) -> Result<(), ApiError> {
        let due = self.decide_with(|s, now| store::due_checkouts(&s.sql, now))?;
        for order_id in due {
            if self.driving.borrow().contains(&order_id) {
                continue;
            }
            let actions = self.decide_with(|s, now| {
                let Some(mut machine) = store::get_checkout(&s.sql, &order_id)? else {
                    return Ok(Vec::new());
                };
                let actions = machine.handle_timeout(now);
                s.put_checkout(&machine)?;
                Ok(actions)
            })?;
            self.drive(&order_id, actions).await?;
        }
        Ok(())
    }
}

fn with(mut base: Value, extra: Value) -> Value {
    if let (Some(base), Value::Object(extra)) = (base.as_object_mut(), extra) {
        base.extend(extra);
    }
    base
}
