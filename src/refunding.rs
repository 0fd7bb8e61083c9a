//! The shell of the `refunds` machine: loads an order's book from D1,
//! performs each action the machine decides (rows, Square, the showing's
//! object, the buyer's messages) and feeds Square's answers back. Every
//! decision is the machine's; this file moves bytes.

use refunds::{Action, Answer, Book, Bought, Event, Io, Ran, Refusal, RunError, Status};
use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::api_error::ApiError;
use crate::db::refunds as refund_rows;
use crate::showtime::client::ShowtimeClient;
use crate::square::{Reply, Square};
use desk::protocol::VoidSeats;
use desk::Code;

fn now_ms() -> u64 {
    worker::Date::now().as_millis()
}

/// The Worker's [`Io`]: D1, Square and the showing's object.
struct Shell<'a> {
    env: &'a Env,
    db: D1Database,
    /// Built on first use: a free order's refund never needs Square.
    square: Option<Square>,
    order_id: String,
}

impl<'a> Shell<'a> {
    fn new(env: &'a Env) -> Result<Shell<'a>, ApiError> {
        Ok(Shell {
            env,
            db: crate::db::database(env)?,
            square: None,
            order_id: String::new(),
        })
    }

    fn square(&mut self) -> Result<&Square, ApiError> {
        if self.square.is_none() {
            self.square = Some(Square::from_env(self.env).map_err(ApiError::internal)?);
        }
        Ok(self.square.as_ref().expect("set just above"))
    }
}

impl Io for Shell<'_> {
    type Error = ApiError;

    async fn load(&mut self, order_id: &str) -> Result<Option<Book>, ApiError> {
        self.order_id = order_id.to_string();
        Ok(refund_rows::book(&self.db, order_id).await?)
    }

    async fn perform(&mut self, action: &Action) -> Result<Option<Event>, ApiError> {
        let db = &self.db;
        let order_id = self.order_id.as_str();
        match action {
            Action::Save {
                refund,
                news,
                now_ms,
            } => {
                refund_rows::save(db, order_id, refund, *news, *now_ms).await?;
                if news.is_some() {
                    // The buyer's message was queued with it: it goes now
                    // (the sweep sends it if this does not).
                    crate::mail::send_now(self.env, order_id).await;
                }
                Ok(None)
            }
            Action::AskSquare { refund_id, request } => {
                let reply = self.square()?.refund_payment(&request.body()).await;
                Ok(Some(Event::Answered {
                    refund_id: refund_id.clone(),
                    answer: answer_of(reply),
                }))
            }
            Action::LookUp { square_id, .. } => {
                let reply = self.square()?.get_refund(square_id).await;
                Ok(reported(&reply, true))
            }
            Action::LookUpExchange {
                refund_id,
                order_id: bought,
            } => Ok(Some(Event::Exchanged {
                refund_id: refund_id.clone(),
                outcome: bought_outcome(self.env, db, bought).await?,
            })),
            Action::VoidTickets { tickets, .. } => {
                refund_rows::void_tickets(db, tickets, now_ms()).await?;
                Ok(None)
            }
            Action::ReopenSeats {
                refund_id,
                showing_id,
                seats,
            } => {
                let void = VoidSeats {
                    order_id: order_id.to_string(),
                    seats: seats.clone(),
                };
                if let Err(e) = ShowtimeClient::new(self.env, showing_id)?
                    .void_seats(void)
                    .await
                {
                    worker::console_error!("refund {refund_id}: seats not reopened: {}", e.detail);
                    return Err(ApiError::internal(
                        "the showing could not reopen the refunded seats",
                    ));
                }
                Ok(None)
            }
            Action::MarkApplied {
                refund_id,
                exchange,
                now_ms,
            } => {
                refund_rows::mark_applied(db, refund_id, order_id, *exchange, *now_ms).await?;
                crate::mail::send_now(self.env, order_id).await;
                Ok(None)
            }
            Action::NeedsStaff { detail, now_ms } => {
                refund_rows::mark_order_for_staff(db, order_id, detail, *now_ms).await?;
                Ok(None)
            }
            Action::AttentionSettled { now_ms } => {
                crate::db::admin::settle_attention(db, order_id, *now_ms).await?;
                Ok(None)
            }
        }
    }
}

/// Where the order an exchange bought stands: D1 says once it has ended;
/// before that, its showing's object, which alone knows whether it was
/// ever started.
async fn bought_outcome(env: &Env, db: &D1Database, order_id: &str) -> Result<Bought, ApiError> {
    if let Some((status, credit)) = refund_rows::bought_order(db, order_id).await? {
        match status.as_str() {
            "paid" | "needs_attention" | "refunded" | "exchanged" => {
                return Ok(Bought::Paid { credit })
            }
            "pending" => {}
            _ => return Ok(Bought::Ended),
        }
    }
    let Some(showing_id) = crate::ids::showing_of_order(order_id) else {
        return Ok(Bought::Ended); // No showing's order has such an id.
    };
    let answer = ShowtimeClient::new(env, showing_id)?
        .order_status(order_id)
        .await?;
    Ok(match answer {
        None => Bought::Missing,
        // D1 is written before the object calls an order paid; the next
        // look finds it there with its credit.
        Some(order) if order.status.is_final() && order.status != checkout::PublicStatus::Paid => {
            match order.status {
                checkout::PublicStatus::NeedsAttention => Bought::Paying,
                _ => Bought::Ended,
            }
        }
        Some(_) => Bought::Paying,
    })
}

/// What Square's answer to `POST /v2/refunds` means.
fn answer_of(reply: Reply) -> Answer {
    match reply {
        Reply::Ok(body) => {
            let refund = &body["refund"];
            match (
                refund["id"].as_str(),
                refund["status"].as_str().and_then(Status::from_square),
            ) {
                (Some(id), Some(status)) => Answer::Took {
                    square_id: id.to_string(),
                    status,
                },
                // A 200 without a refund we can read: as good as no answer.
                _ => Answer::Unknown,
            }
        }
        Reply::Unknown(_) => Answer::Unknown,
        Reply::Refused { code, detail, .. } => Answer::Refused { code, detail },
    }
}

/// A refund object from Square (a webhook's, or a lookup's answer) as an
/// event; `None` if it is not one.
fn reported(reply: &Reply, looked_up: bool) -> Option<Event> {
    match reply {
        Reply::Ok(body) => refund_event(&body["refund"], looked_up),
        _ => None,
    }
}

fn refund_event(refund: &Value, looked_up: bool) -> Option<Event> {
    Some(Event::Reported {
        square_id: refund["id"].as_str()?.to_string(),
        payment_id: refund["payment_id"].as_str()?.to_string(),
        amount: refund["amount_money"]["amount"].as_u64()?,
        status: Status::from_square(refund["status"].as_str()?)?,
        looked_up,
    })
}

/// A refusal of the machine's, in the API's words.
fn refusal(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::OrderNotPaid { status } => ApiError::new(
            Code::OrderNotPaid,
            format!("this order is {status}, not paid: there is nothing to refund"),
        ),
        Refusal::UnknownTickets { tickets } => ApiError::new(
            Code::UnknownTickets,
            "these are not live tickets of this order",
        )
        .with("ticket_ids", json!(tickets)),
        Refusal::CheckedIn { tickets } => ApiError::new(
            Code::TicketCheckedIn,
            "these tickets were admitted at the door and can no longer be cancelled",
        )
        .with("ticket_ids", json!(tickets)),
        Refusal::NothingToRefund => ApiError::new(
            Code::NothingToRefund,
            "every ticket of this order is already void or being refunded",
        ),
        Refusal::AlreadyRefunding { tickets } => ApiError::new(
            Code::RefundInProgress,
            "another refund already covers these tickets",
        )
        .with("ticket_ids", json!(tickets)),
        Refusal::RefundFailedBefore => ApiError::new(
            Code::RefundFailedBefore,
            "a refund of this payment FAILED, after which Square allows no other: \
             reimburse the buyer another way (cash at the box office, or a bank \
             transfer)",
        ),
        Refusal::MoreThanPaid { amount, left } => ApiError::new(
            Code::MoreThanPaid,
            format!("a refund of {amount} is more than the {left} left of the payment"),
        ),
        Refusal::TooManyAttempts | Refusal::TooManyRefunds => ApiError::new(
            Code::RefundRefused,
            format!(
                "{} refunds of these tickets did not happen; refund them in the Square Dashboard",
                refunds::MAX_ATTEMPTS
            ),
        ),
        Refusal::UnknownRefund => ApiError::not_found("refund"),
        Refusal::RefundDecided => {
            ApiError::new(Code::RefundDecided, "this refund already names its tickets")
        }
        Refusal::MoreThanRefunded { worth, amount } => ApiError::new(
            Code::MoreThanRefunded,
            format!("those tickets cost {worth}, more than the {amount} refunded"),
        ),
        Refusal::NotExchangeable => ApiError::new(
            Code::NotExchangeable,
            "only tickets paid for online, and not already exchanged once, can be exchanged \
             online: ask the cinema",
        ),
        Refusal::Busy => ApiError::new(
            Code::RefundInProgress,
            "another change of this order is under way: try again in a minute",
        ),
    }
}

fn run_error(e: RunError<ApiError>) -> ApiError {
    match e {
        RunError::NoSuchOrder => ApiError::not_found("order"),
        RunError::Refused(r) => refusal(r),
        RunError::Io(e) => e,
    }
}

async fn run(env: &Env, order_id: &str, event: Event) -> Result<Ran, ApiError> {
    let mut shell = Shell::new(env)?;
    refunds::run(&mut shell, order_id, event, now_ms())
        .await
        .map_err(run_error)
}

/// A refund asked for here, as it stands once Square has answered.
pub struct Asked {
    pub refund_id: String,
    pub status: String,
    pub ticket_ids: Vec<String>,
    pub amount: u64,
}

impl Asked {
    pub fn json(&self) -> Value {
        json!({
            "refund_id": self.refund_id, "status": self.status,
            "ticket_ids": self.ticket_ids, "amount": self.amount
        })
    }
}

/// Staff refund the order's chosen live tickets (every one not yet being
/// refunded when `None`). Asking twice for the same tickets answers the
/// same refund.
pub async fn refund_tickets(
    env: &Env,
    order_id: &str,
    tickets: Option<Vec<String>>,
) -> Result<Asked, ApiError> {
    let ran = run(env, order_id, Event::Ask { tickets }).await?;
    asked_of(ran)
}

/// The refund an `Ask` or a `Cancel` made or found, as it stands once
/// Square answered; Square's refusal is the caller's error.
fn asked_of(ran: Ran) -> Result<Asked, ApiError> {
    let refunds::Reply::Refund(refund_id) = ran.reply else {
        return Err(ApiError::internal("a refund was asked for and none made"));
    };
    let refund = ran
        .book
        .refund(&refund_id)
        .ok_or_else(|| ApiError::internal("the refund made is not in its book"))?;
    if refund.status == Status::Refused {
        let why = refund.failure.clone().unwrap_or_default();
        return Err(ApiError::new(Code::RefundRefused, why));
    }
    Ok(Asked {
        refund_id,
        status: refund.status.stored().to_string(),
        ticket_ids: refund.tickets.clone().unwrap_or_default(),
        amount: refund.amount,
    })
}

/// Staff say which tickets a partial Dashboard refund covers.
pub async fn choose_tickets(
    env: &Env,
    db: &D1Database,
    refund_id: &str,
    tickets: Vec<String>,
) -> Result<Asked, ApiError> {
    let order_id = refund_rows::order_of_refund(db, refund_id)
        .await?
        .ok_or_else(|| ApiError::not_found("refund"))?;
    let event = Event::Choose {
        refund_id: refund_id.to_string(),
        tickets,
    };
    let ran = run(env, &order_id, event).await?;
    let refund = ran
        .book
        .refund(refund_id)
        .ok_or_else(|| ApiError::not_found("refund"))?;
    Ok(Asked {
        refund_id: refund_id.to_string(),
        status: refund.status.stored().to_string(),
        ticket_ids: refund.tickets.clone().unwrap_or_default(),
        amount: refund.amount,
    })
}

/// A `refund.created` or `refund.updated` webhook's refund object. One
/// the machine could not place yet (one of ours is unanswered) is an
/// error, so the event stays in the inbox for the sweep.
pub async fn on_refund_event(env: &Env, refund: &Value) -> Result<(), ApiError> {
    let Some(payment_id) = refund["payment_id"].as_str() else {
        return Ok(());
    };
    let Some(event) = refund_event(refund, false) else {
        return Ok(()); // Not a refund we can read: nothing to do.
    };
    let db = crate::db::database(env)?;
    let square_id = refund["id"].as_str().unwrap_or_default().to_string();
    let Some(order_id) = refund_rows::order_for_report(&db, &square_id, payment_id).await? else {
        return Ok(()); // Not a payment of ours.
    };
    let ran = run(env, &order_id, event).await?;
    let placed = ran
        .book
        .refunds
        .iter()
        .any(|r| r.square_id.as_deref() == Some(square_id.as_str()));
    if !placed {
        return Err(ApiError::internal(
            "a refund of this order is unanswered: this event waits for it",
        ));
    }
    Ok(())
}

/// The sweep's share: for each order with a refund not yet settled, the
/// machine asks again, looks up, finishes or wakes what it must. One
/// order's failure is logged and the others go on.
pub async fn refund_sweep(env: &Env, now_ms: u64) -> Result<usize, ApiError> {
    let db = crate::db::database(env)?;
    let min_age_ms = crate::settings::Settings::from_env(env).sweep_min_age_ms;
    let orders = refund_rows::orders_unsettled(&db, now_ms.saturating_sub(min_age_ms)).await?;
    let mut shell = Shell::new(env)?;
    let swept = refunds::sweep(&mut shell, &orders, now_ms).await;
    for (order_id, e) in &swept.failed {
        let detail = match e {
            RunError::Io(e) => e.detail.clone(),
            other => format!("{other:?}"),
        };
        worker::console_error!("refund sweep: order {order_id}: {detail}");
        // Tried now: it goes behind the others next time, so orders that
        // keep failing never crowd out the rest of a sweep.
        if let Err(e) = refund_rows::tried(&db, order_id, now_ms).await {
            worker::console_error!("refund sweep: order {order_id}: not marked tried: {e}");
        }
    }
    Ok(orders.len())
}

/// Most orders of a cancelled showing one request refunds (each is a call
/// to Square); the cron sweep refunds the rest, as many each run.
pub const CANCEL_REFUNDS_PER_CALL: u32 = 20;

/// Refunds what a cancelled showing still owes: each paid order with a
/// live ticket, whole, at most [`CANCEL_REFUNDS_PER_CALL`] of them, each
/// with its cancellation message queued (once). Repeating it asks nothing
/// new: the refunds' keys are the same, and refunded orders drop out.
/// Answers what was asked, what was refused, and whether more remain.
pub async fn refund_cancelled(
    env: &Env,
    db: &D1Database,
    showing_id: &str,
) -> Result<Value, ApiError> {
    let orders =
        refund_rows::paid_with_live_tickets(db, showing_id, CANCEL_REFUNDS_PER_CALL + 1).await?;
    let mut asked = Vec::new();
    let mut refused = Vec::new();
    for order_id in orders.iter().take(CANCEL_REFUNDS_PER_CALL as usize) {
        crate::db::mail::queue_cancelled(db, order_id, now_ms())?
            .run()
            .await?;
        match refund_tickets(env, order_id, None).await {
            Ok(a) => asked.push(json!({
                "order_id": order_id, "refund_id": a.refund_id, "status": a.status, "amount": a.amount
            })),
            Err(e) => refused.push(json!({"order_id": order_id, "error": e.code, "detail": e.detail})),
        }
    }
    Ok(json!({
        "refunds": asked,
        "refused": refused,
        "more": orders.len() > CANCEL_REFUNDS_PER_CALL as usize,
        // Sold or given at the desk: staff settle these with each guest.
        "box_office": refund_rows::box_office_orders(db, showing_id).await?,
    }))
}

/// The buyer cancels these tickets of their order, keeping `fee` of each.
pub async fn cancel_tickets(
    env: &Env,
    order_id: &str,
    tickets: Vec<String>,
    fee: refunds::Fee,
) -> Result<Asked, ApiError> {
    let ran = run(env, order_id, Event::Cancel { tickets, fee }).await?;
    asked_of(ran)
}

/// A showing's buyer policy: its own, or the cinema's.
pub fn policy_of(env: &Env, stored: Option<&str>) -> refunds::Policy {
    match stored.map(serde_json::from_str::<refunds::Policy>) {
        Some(Ok(policy)) => policy,
        Some(Err(e)) => {
            worker::console_error!("a showing's buyer policy does not read: {e}");
            crate::settings::buyer_policy(env)
        }
        None => crate::settings::buyer_policy(env),
    }
}

/// What the buyer of an order may change now, for the order page:
/// whether they may cancel, until when, and what each ticket they may
/// cancel would bring back; or why not.
pub async fn buyer_options(env: &Env, db: &D1Database, order_id: &str) -> Result<Value, ApiError> {
    let Some(book) = refund_rows::book(db, order_id).await? else {
        return Ok(Value::Null);
    };
    let Some((starts_at_ms, stored)) = refund_rows::order_policy(db, order_id).await? else {
        return Ok(Value::Null);
    };
    let policy = policy_of(env, stored.as_deref());
    let cancel = match policy.cancel_open(starts_at_ms, now_ms()) {
        _ if book.order.status != refunds::OrderStatus::Paid => json!({
            "open": false, "reason": "not_paid",
        }),
        Ok((closes_at_ms, fee)) => {
            let tickets: Vec<Value> = book
                .cancel_quote(fee)
                .into_iter()
                .map(|(id, back)| json!({"id": id, "refund": back}))
                .collect();
            json!({
                "open": true, "closes_at_ms": closes_at_ms, "fee": fee,
                "currency": book.order.currency, "tickets": tickets,
            })
        }
        Err(refunds::Closed::NotAllowed) => json!({"open": false, "reason": "not_cancellable"}),
        Err(refunds::Closed::Passed { closed_at_ms }) => json!({
            "open": false, "reason": "cancel_closed", "closed_at_ms": closed_at_ms,
        }),
    };
    let exchange = exchange_options(db, &book, &policy, starts_at_ms).await?;
    Ok(json!({ "cancel": cancel, "exchange": exchange }))
}

/// Whether the buyer may exchange now, until when, which tickets, and to
/// which showings; or why not.
async fn exchange_options(
    db: &D1Database,
    book: &Book,
    policy: &refunds::Policy,
    starts_at_ms: u64,
) -> Result<Value, ApiError> {
    let now = now_ms();
    let closes_at_ms = match policy.exchange_open(starts_at_ms, now) {
        _ if book.order.status != refunds::OrderStatus::Paid => {
            return Ok(json!({"open": false, "reason": "not_paid"}))
        }
        _ if book.order.payment_id.is_none() || book.order.credit.is_some() => {
            return Ok(json!({"open": false, "reason": "not_exchangeable"}))
        }
        Ok(closes_at_ms) => closes_at_ms,
        Err(refunds::Closed::NotAllowed) => {
            return Ok(json!({"open": false, "reason": "not_exchangeable"}))
        }
        Err(refunds::Closed::Passed { closed_at_ms }) => {
            return Ok(json!({
                "open": false, "reason": "exchange_closed", "closed_at_ms": closed_at_ms,
            }))
        }
    };
    let covered = book.covered();
    let tickets: Vec<Value> = book
        .tickets
        .iter()
        .filter(|t| t.live && !t.checked_in && !covered.contains(&t.id))
        .map(|t| {
            let ids = [t.id.clone()];
            json!({"id": t.id, "worth": book.worth(&ids)})
        })
        .collect();
    let showings = crate::db::same_film_showings(db, &book.order.showing_id, now).await?;
    Ok(json!({
        "open": true, "closes_at_ms": closes_at_ms, "currency": book.order.currency,
        "tickets": tickets, "showings": showings,
    }))
}

/// Finishes whatever exchange of `from_order` has an outcome: the old
/// tickets void and their seats reopened once the new order is paid (and
/// the difference refunded), or kept once it has failed. The showing's
/// object calls it when an exchanged order ends; the sweep, if that is lost.
pub async fn settle_exchange(env: &Env, from_order: &str) -> worker::Result<()> {
    run(env, from_order, Event::Sweep)
        .await
        .map(|_| ())
        .map_err(|e| worker::Error::RustError(format!("{}: {}", e.code, e.detail)))
}

/// The buyer starts exchanging these tickets for an order `to_order` of
/// another showing: the old order keeps them for it. Answers the row that
/// does, and the tickets' worth (the most the new order may be credited).
pub async fn exchange_tickets(
    env: &Env,
    order_id: &str,
    tickets: Vec<String>,
    to_order: &str,
) -> Result<(String, u64), ApiError> {
    // An earlier exchange of these tickets that has ended (a card declined)
    // lets go of them first, so trying again is not refused as under way.
    if let Err(e) = settle_exchange(env, order_id).await {
        worker::console_error!("order {order_id}: exchanges not settled: {e}");
    }
    let event = Event::Exchange {
        tickets,
        to_order: to_order.to_string(),
    };
    let ran = run(env, order_id, event).await?;
    let refunds::Reply::Refund(refund_id) = ran.reply else {
        return Err(ApiError::internal(
            "an exchange was asked for and none made",
        ));
    };
    let worth = ran.book.refund(&refund_id).map_or(0, |r| r.amount);
    Ok((refund_id, worth))
}

/// The new showing's object refused to start the exchange's order, and has
/// no such order: the old tickets stay the buyer's.
pub async fn exchange_not_started(env: &Env, order_id: &str, refund_id: &str) {
    let event = Event::Exchanged {
        refund_id: refund_id.to_string(),
        outcome: Bought::Ended,
    };
    if let Err(e) = run(env, order_id, event).await {
        worker::console_error!(
            "order {order_id}: exchange {refund_id} not let go: {}",
            e.detail
        );
    }
}
