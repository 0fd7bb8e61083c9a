//! The decisions: an event and the book in, the book changed and the
//! actions to perform out, in the order they must happen.

use serde::{Deserialize, Serialize};

use crate::book::{Book, OrderStatus, Refund, Source, MAX_REFUNDS};
use crate::policy::Fee;
use crate::request::{refund_key, RefundRequest, MAX_ATTEMPTS};
use crate::status::Status;

/// Square's refusal of a refund because another of the payment is still
/// pending: this one waits for it.
pub const ALREADY_PENDING: &str = "REFUND_ALREADY_PENDING";

/// Most bytes of Square's detail kept with a refusal for staff.
pub const MAX_FAILURE_BYTES: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// Staff refund these live tickets (every one when `None`).
    Ask { tickets: Option<Vec<String>> },
    /// The buyer cancels these live tickets, none of them admitted yet,
    /// and gets back what they cost less the fee on each.
    Cancel { tickets: Vec<String>, fee: Fee },
    /// The showing's object is about to send this refund of a payment whose
    /// seats were lost; it is recorded first, so its webhook is known.
    CheckoutRefund { request: RefundRequest },
    /// The buyer exchanges these live tickets, none admitted, for seats of
    /// another showing, bought as order `to_order` with their worth as its
    /// credit: the tickets are kept from every other change until that
    /// order is paid or has failed.
    Exchange {
        tickets: Vec<String>,
        to_order: String,
    },
    /// How the order an exchange bought stands.
    Exchanged { refund_id: String, outcome: Bought },
    /// Square's answer to [`Action::AskSquare`].
    Answered { refund_id: String, answer: Answer },
    /// Square said where a refund stands: a webhook, or the answer to
    /// [`Action::LookUp`].
    Reported {
        square_id: String,
        /// The payment it refunds.
        payment_id: String,
        amount: u64,
        status: Status,
        /// The answer to a [`Action::LookUp`] this machine asked for.
        looked_up: bool,
    },
    /// Staff say which tickets a partial Dashboard refund covers.
    Choose {
        refund_id: String,
        tickets: Vec<String>,
    },
    /// Time has passed: ask again what was never answered, look up what is
    /// pending, finish what was left half done, ask what waited.
    Sweep,
}

/// How the order an exchange bought stands, as the shell found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Bought {
    /// Paid, using `credit` of the old tickets' worth; the rest of their
    /// worth goes back to the card.
    Paid { credit: u64 },
    /// Ended without tickets: the old tickets stay the buyer's.
    Ended,
    /// Still paying.
    Paying,
    /// Its showing has no such order: it was never started (the request
    /// that would have started it failed), or is being started now. Once
    /// [`EXCHANGE_ABANDONED_MS`] have passed, it never will be.
    Missing,
}

/// How long after an exchange was asked an order its showing never heard
/// of counts as never started. Far longer than the one request that
/// starts it could take.
pub const EXCHANGE_ABANDONED_MS: u64 = 60 * 60 * 1000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Answer {
    /// Square took the refund.
    Took { square_id: String, status: Status },
    /// No answer (a timeout, a 5xx): it may or may not have been taken.
    Unknown,
    /// Square refused the request.
    Refused { code: String, detail: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Action {
    /// Write this refund's row as it now is, before anything after it.
    /// A refund that did not happen carries its `failure`, which puts it on
    /// the staff's attention list in the same write; `news` is the message
    /// for the buyer queued with it, when nobody was there to see it.
    Save {
        refund: Refund,
        news: Option<News>,
        now_ms: u64,
    },
    /// Send Square this request; answer with [`Event::Answered`].
    AskSquare {
        refund_id: String,
        request: RefundRequest,
    },
    /// Ask how the order an exchange bought stands; answer with
    /// [`Event::Exchanged`].
    LookUpExchange { refund_id: String, order_id: String },
    /// Ask Square where this refund stands; answer with
    /// [`Event::Reported`] (or nothing, if Square does not say).
    LookUp {
        refund_id: String,
        square_id: String,
    },
    /// Void these tickets in D1, so the door refuses them. Always before
    /// their seats are offered again.
    VoidTickets {
        refund_id: String,
        tickets: Vec<String>,
    },
    /// Ask the showing's object to put these seats back on sale.
    ReopenSeats {
        refund_id: String,
        showing_id: String,
        seats: Vec<String>,
    },
    /// The refund is applied: note it, call the order refunded (or
    /// exchanged) if none of its tickets is live, and queue the buyer's
    /// message, unless it was an exchange (the new order's tickets are
    /// that message).
    MarkApplied {
        refund_id: String,
        exchange: bool,
        now_ms: u64,
    },
    /// The order waits for staff, for this reason.
    NeedsStaff { detail: String, now_ms: u64 },
    /// Staff have said what every refund of the order covers.
    AttentionSettled { now_ms: u64 },
}

/// What the buyer is told of a refund that did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum News {
    Rejected,
    Failed,
}

/// What an event is refused for, when it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Refusal {
    /// Square refunds only a completed payment.
    OrderNotPaid {
        status: String,
    },
    UnknownTickets {
        tickets: Vec<String>,
    },
    /// A buyer may not cancel a ticket already admitted.
    CheckedIn {
        tickets: Vec<String>,
    },
    NothingToRefund,
    /// Another refund already covers these tickets.
    AlreadyRefunding {
        tickets: Vec<String>,
    },
    /// A refund of this payment FAILED, after which Square allows none.
    RefundFailedBefore,
    /// More than is left of the payment.
    MoreThanPaid {
        amount: u64,
        left: u64,
    },
    TooManyAttempts,
    UnknownRefund,
    /// The refund already names its tickets.
    RefundDecided,
    /// The tickets cost more than the refund gave back.
    MoreThanRefunded {
        worth: u64,
        amount: u64,
    },
    /// The book holds as many refunds as it may.
    TooManyRefunds,
    /// Only tickets paid for online, and not themselves bought by an
    /// exchange, may be exchanged.
    NotExchangeable,
    /// Another change of this payment is under way.
    Busy,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Reply {
    /// The refund an `Ask` or a `Choose` made or found.
    Refund(String),
    Done,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub reply: Result<Reply, Refusal>,
    pub actions: Vec<Action>,
}

impl Decision {
    fn refused(refusal: Refusal) -> Decision {
        Decision {
            reply: Err(refusal),
            actions: Vec::new(),
        }
    }
}

/// Decides one event. The book is changed as the actions will change the
/// rows, so the next event of the same run reads what they wrote.
pub fn decide(book: &mut Book, event: Event, now_ms: u64) -> Decision {
    let mut out = Out {
        actions: Vec::new(),
        now_ms,
    };
    let reply = match event {
        Event::Ask { tickets } => ask(book, &mut out, tickets, Fee::None),
        Event::Cancel { tickets, fee } => {
            let admitted: Vec<String> = book
                .tickets
                .iter()
                .filter(|t| t.checked_in && tickets.contains(&t.id))
                .map(|t| t.id.clone())
                .collect();
            if admitted.is_empty() {
                ask(book, &mut out, Some(tickets), fee)
            } else {
                Err(Refusal::CheckedIn { tickets: admitted })
            }
        }
        Event::Exchange { tickets, to_order } => exchange(book, &mut out, tickets, to_order),
        Event::Exchanged { refund_id, outcome } => {
            exchanged(book, &mut out, &refund_id, outcome);
            Ok(Reply::Done)
        }
        Event::CheckoutRefund { request } => {
            record_checkout_refund(book, &mut out, request);
            Ok(Reply::Done)
        }
        Event::Answered { refund_id, answer } => {
            answered(book, &mut out, &refund_id, answer);
            Ok(Reply::Done)
        }
        Event::Reported {
            square_id,
            payment_id,
            amount,
            status,
            looked_up,
        } => {
            let report = Report {
                square_id,
                payment_id,
                amount,
                status,
                looked_up,
            };
            reported(book, &mut out, report);
            Ok(Reply::Done)
        }
        Event::Choose { refund_id, tickets } => choose(book, &mut out, &refund_id, tickets),
        Event::Sweep => {
            sweep(book, &mut out);
            Ok(Reply::Done)
        }
    };
    match reply {
        Ok(reply) => Decision {
            reply: Ok(reply),
            actions: out.actions,
        },
        // A refusal changes nothing; `ask` and `choose` refuse before any
        // change to the book.
        Err(refusal) => Decision::refused(refusal),
    }
}

struct Out {
    actions: Vec<Action>,
    now_ms: u64,
}

impl Out {
    fn save(&mut self, refund: &Refund) {
        self.save_with(refund, None);
    }

    fn save_with(&mut self, refund: &Refund, news: Option<News>) {
        self.actions.push(Action::Save {
            refund: refund.clone(),
            news,
            now_ms: self.now_ms,
        });
    }
}

/// The request that asks Square for this refund; none for an exchange,
/// which moves money between orders and never leaves the payment.
fn request_for(book: &Book, refund: &Refund) -> Option<RefundRequest> {
    if refund.exchange_to.is_some() {
        return None;
    }
    Some(RefundRequest {
        idempotency_key: refund.id.clone(),
        payment_id: book.payment_of(refund)?,
        amount: refund.amount,
        currency: book.order.currency.clone(),
        seats: refund
            .tickets
            .iter()
            .flatten()
            .filter_map(|id| book.tickets.iter().find(|t| &t.id == id))
            .map(|t| t.seat.clone())
            .collect(),
    })
}

/// A refund row's key: the first try at the tickets of the order's own
/// payment keeps the key it always had; money of a credit has its own.
fn part_key(order_id: &str, source: &Option<String>, tickets: &[String], attempt: u32) -> String {
    match source {
        None => refund_key(order_id, tickets, attempt),
        Some(payment) => refund_key(&format!("{order_id}/{payment}"), tickets, attempt),
    }
}

/// A refund that is not an exchange and has not ended without money
/// moving, covering exactly these tickets.
fn same_refund<'a>(book: &'a Book, tickets: &[String]) -> Option<&'a Refund> {
    book.refunds.iter().find(|r| {
        !r.status.did_not_happen()
            && r.exchange_to.is_none()
            && r.tickets.as_deref() == Some(tickets)
    })
}

/// Refuses any ticket that is not live, naming them all.
fn all_live(ids: &[String], live: &[String]) -> Result<(), Refusal> {
    let unknown: Vec<String> = ids.iter().filter(|t| !live.contains(t)).cloned().collect();
    match unknown.is_empty() {
        true => Ok(()),
        false => Err(Refusal::UnknownTickets { tickets: unknown }),
    }
}

/// Refuses any ticket another refund already covers, naming them all.
fn none_covered(ids: &[String], covered: &[String]) -> Result<(), Refusal> {
    let twice: Vec<String> = ids
        .iter()
        .filter(|t| covered.contains(t))
        .cloned()
        .collect();
    match twice.is_empty() {
        true => Ok(()),
        false => Err(Refusal::AlreadyRefunding { tickets: twice }),
    }
}

fn sorted(mut ids: Vec<String>) -> Vec<String> {
    ids.sort();
    ids.dedup();
    ids
}

fn ask(
    book: &mut Book,
    out: &mut Out,
    tickets: Option<Vec<String>>,
    fee: Fee,
) -> Result<Reply, Refusal> {
    if book.order.status != OrderStatus::Paid {
        return Err(Refusal::OrderNotPaid {
            status: book.order.status.stored().to_string(),
        });
    }
    let live = book.live_tickets();
    let covered = book.covered();
    if tickets.is_none() {
        // Every live ticket, once more: the refund already covering them
        // all is the answer (a cancelled showing's refunds are asked for
        // again until their orders drop out).
        let mut all = live.clone();
        all.sort();
        if let Some(same) = same_refund(book, &all) {
            if !all.is_empty() {
                return Ok(Reply::Refund(same.id.clone()));
            }
        }
    }
    let chosen = match tickets {
        None => sorted(live.into_iter().filter(|t| !covered.contains(t)).collect()),
        Some(ids) => {
            all_live(&ids, &live)?;
            sorted(ids)
        }
    };
    // Asking again for exactly what is being refunded answers that refund.
    if let Some(same) = same_refund(book, &chosen) {
        let id = same.id.clone();
        if same.status == Status::Asked && same.square_id.is_none() {
            if let Some(request) = request_for(book, same) {
                out.actions.push(Action::AskSquare {
                    refund_id: id.clone(),
                    request,
                });
            }
        }
        return Ok(Reply::Refund(id));
    }
    none_covered(&chosen, &covered)?;
    if chosen.is_empty() {
        return Err(Refusal::NothingToRefund);
    }
    let kept: u64 = book.prices(&chosen).map(|price| fee.of(price)).sum();
    let amount = book.worth(&chosen) - kept;
    start(book, out, chosen, amount)
}

/// How a refund of `amount` is drawn: from the order's own payment first,
/// then from its credit, a row each; refused if the payments it may draw
/// on do not have it left.
fn plan(book: &Book, amount: u64) -> Result<Vec<(Source, u64)>, Refusal> {
    let sources = book.sources();
    if amount == 0 {
        return Ok(sources.into_iter().take(1).map(|s| (s, 0)).collect());
    }
    let mut wanted = amount;
    let mut left = 0;
    let mut closed = false;
    let mut parts = Vec::new();
    for source in sources {
        let free = book.free_on(&source);
        if free == 0 {
            continue;
        }
        if source
            .payment_id
            .as_deref()
            .is_some_and(|p| book.closed_on(p))
        {
            closed = true;
            continue;
        }
        left += free;
        let take = wanted.min(free);
        if take > 0 {
            parts.push((source, take));
            wanted -= take;
        }
    }
    match wanted {
        0 => Ok(parts),
        _ if closed => Err(Refusal::RefundFailedBefore),
        _ => Err(Refusal::MoreThanPaid { amount, left }),
    }
}

/// Starts a refund of `chosen` for `amount`, a row for each payment it
/// draws on (the first names the tickets, the others only move money):
/// at once when no money moves, waiting when another may be pending on
/// that payment, asked of Square otherwise.
fn start(
    book: &mut Book,
    out: &mut Out,
    chosen: Vec<String>,
    amount: u64,
) -> Result<Reply, Refusal> {
    let parts = plan(book, amount)?;
    if book.refunds.len() + parts.len() > MAX_REFUNDS {
        return Err(Refusal::TooManyRefunds);
    }
    let order_id = book.order.id.clone();
    let attempt = (1..=MAX_ATTEMPTS)
        .find(|&attempt| {
            parts.iter().all(|(source, _)| {
                book.refund(&part_key(&order_id, &source.key, &chosen, attempt))
                    .is_none()
            })
        })
        .ok_or(Refusal::TooManyAttempts)?;
    let mut ids = Vec::new();
    for (index, (source, part)) in parts.into_iter().enumerate() {
        let id = part_key(&order_id, &source.key, &chosen, attempt);
        let tickets = match index {
            0 => chosen.clone(),
            _ => Vec::new(),
        };
        add_refund(book, out, &id, &source, tickets, part);
        ids.push(id);
    }
    for id in &ids {
        act_on_new(book, out, id);
    }
    Ok(Reply::Refund(ids.swap_remove(0)))
}

/// Saves a new refund row drawing `amount` on `source`.
fn add_refund(
    book: &mut Book,
    out: &mut Out,
    id: &str,
    source: &Source,
    tickets: Vec<String>,
    amount: u64,
) {
    let free = source.payment_id.is_none() || amount == 0;
    let status = if free {
        Status::Completed
    } else if book.in_flight_on(source.payment_id.as_deref()) {
        Status::Waiting
    } else {
        Status::Asked
    };
    let refund = Refund {
        id: id.to_string(),
        square_id: None,
        tickets: Some(tickets),
        amount,
        status,
        applied: false,
        failure: None,
        payment_id: source.key.clone(),
        exchange_to: None,
        asked_ms: out.now_ms,
    };
    out.save(&refund);
    book.refunds.push(refund);
}

/// What a refund just added calls for: applied if no money moves, asked
/// of Square if it may be.
fn act_on_new(book: &mut Book, out: &mut Out, id: &str) {
    match book.refund(id).map(|r| r.status) {
        Some(Status::Completed) => apply(book, out, id),
        Some(Status::Asked) => {
            if let Some(request) = book.refund(id).and_then(|r| request_for(book, r)) {
                out.actions.push(Action::AskSquare {
                    refund_id: id.to_string(),
                    request,
                });
            }
        }
        _ => {}
    }
}

/// The source a refund row draws on.
fn source_of(book: &Book, refund: &Refund) -> Option<Source> {
    book.sources()
        .into_iter()
        .find(|s| s.key == refund.payment_id)
}

fn exchange(
    book: &mut Book,
    out: &mut Out,
    tickets: Vec<String>,
    to_order: String,
) -> Result<Reply, Refusal> {
    let chosen = sorted(tickets);
    let id = refund_key(&format!("ex:{to_order}"), &chosen, 1);
    if book.refund(&id).is_some() {
        return Ok(Reply::Refund(id));
    }
    if book.order.status != OrderStatus::Paid {
        return Err(Refusal::OrderNotPaid {
            status: book.order.status.stored().to_string(),
        });
    }
    // Money that went through Square once, and only once: an exchange
    // draws on one payment, so its own tickets change at the cinema.
    let Some(payment) = book.order.payment_id.clone() else {
        return Err(Refusal::NotExchangeable);
    };
    if book.order.credit.is_some() {
        return Err(Refusal::NotExchangeable);
    }
    if chosen.is_empty() {
        return Err(Refusal::NothingToRefund);
    }
    all_live(&chosen, &book.live_tickets())?;
    let admitted: Vec<String> = book
        .tickets
        .iter()
        .filter(|t| t.checked_in && chosen.contains(&t.id))
        .map(|t| t.id.clone())
        .collect();
    if !admitted.is_empty() {
        return Err(Refusal::CheckedIn { tickets: admitted });
    }
    none_covered(&chosen, &book.covered())?;
    if book.closed_on(&payment) {
        return Err(Refusal::RefundFailedBefore);
    }
    if book.in_flight_on(Some(&payment)) {
        return Err(Refusal::Busy);
    }
    let worth = book.worth(&chosen);
    let left = book.order.amount.saturating_sub(book.committed_on(&None));
    if worth == 0 {
        return Err(Refusal::NotExchangeable);
    }
    if worth > left {
        return Err(Refusal::MoreThanPaid {
            amount: worth,
            left,
        });
    }
    if book.refunds.len() >= MAX_REFUNDS {
        return Err(Refusal::TooManyRefunds);
    }
    let refund = Refund {
        id: id.clone(),
        square_id: None,
        tickets: Some(chosen),
        amount: worth,
        status: Status::Asked,
        applied: false,
        failure: None,
        payment_id: None,
        exchange_to: Some(to_order),
        asked_ms: out.now_ms,
    };
    out.save(&refund);
    book.refunds.push(refund);
    Ok(Reply::Refund(id))
}

/// The order an exchange bought has ended. Paid: the old tickets are void
/// and their seats reopened, and what of their worth the new order did not
/// take goes back to the card. Not paid: nothing moved, the tickets stay.
fn exchanged(book: &mut Book, out: &mut Out, refund_id: &str, outcome: Bought) {
    let now_ms = out.now_ms;
    let Some(refund) = book.refund_mut(refund_id) else {
        return;
    };
    if refund.exchange_to.is_none() || refund.status != Status::Asked {
        return;
    }
    let abandoned = now_ms.saturating_sub(refund.asked_ms) >= EXCHANGE_ABANDONED_MS;
    let credit = match outcome {
        Bought::Paid { credit } => credit,
        Bought::Paying => return,
        Bought::Missing if !abandoned => return,
        Bought::Ended | Bought::Missing => {
            refund.status = Status::Superseded;
            out.save(refund);
            wake(book, out);
            return;
        }
    };
    let moved = credit.min(refund.amount);
    let back = refund.amount - moved;
    refund.amount = moved;
    refund.status = Status::Completed;
    let tickets = refund.tickets.clone().unwrap_or_default();
    out.save(refund);
    apply(book, out, refund_id);
    let id = refund_key(&format!("{refund_id}/back"), &tickets, 1);
    if back > 0 && book.refund(&id).is_none() && book.refunds.len() < MAX_REFUNDS {
        let own = book.sources().swap_remove(0);
        let closed = own.payment_id.as_deref().is_some_and(|p| book.closed_on(p));
        if closed || back > book.free_on(&own) {
            // A refund of the payment FAILED, or one from the Dashboard
            // took what the exchange kept, while it was under way: staff
            // pay this back.
            let why = match closed {
                true => "a refund of this payment FAILED, after which Square allows no other",
                false => "less is left of the payment after other refunds",
            };
            let refund = Refund {
                id,
                square_id: None,
                tickets: Some(Vec::new()),
                amount: back,
                status: Status::Refused,
                applied: false,
                failure: Some(format!(
                    "the difference of an exchange was not refunded: {why}: reimburse the \
                     buyer another way"
                )),
                payment_id: None,
                exchange_to: None,
                asked_ms: out.now_ms,
            };
            out.save(&refund);
            book.refunds.push(refund);
        } else {
            add_refund(book, out, &id, &own, Vec::new(), back);
            act_on_new(book, out, &id);
        }
    }
    wake(book, out);
}

fn record_checkout_refund(book: &mut Book, out: &mut Out, request: RefundRequest) {
    if book.refund(&request.idempotency_key).is_some() || book.refunds.len() >= MAX_REFUNDS {
        return;
    }
    let refund = checkout_refund(&request);
    out.save(&refund);
    book.refunds.push(refund);
}

/// The row of the refund a showing's object sends for a checkout that took
/// money for seats it could not give, written before it is sent (and only
/// if it is not there yet: the object may send it again).
pub fn checkout_refund(request: &RefundRequest) -> Refund {
    Refund {
        id: request.idempotency_key.clone(),
        square_id: None,
        // Its order never had tickets: money back, nothing to void.
        tickets: Some(Vec::new()),
        amount: request.amount,
        status: Status::Asked,
        applied: false,
        failure: None,
        payment_id: None,
        exchange_to: None,
        asked_ms: 0,
    }
}

fn answered(book: &mut Book, out: &mut Out, refund_id: &str, answer: Answer) {
    let Some(refund) = book.refund_mut(refund_id) else {
        return;
    };
    match answer {
        Answer::Took { square_id, status } => {
            if refund.square_id.is_none() {
                refund.square_id = Some(square_id);
                out.save(refund);
            }
            become_(book, out, refund_id, status);
        }
        Answer::Unknown => {}
        Answer::Refused { code, .. } if code == ALREADY_PENDING => {
            if refund.status == Status::Asked {
                refund.status = Status::Waiting;
                out.save(refund);
            }
        }
        Answer::Refused { code, detail } => {
            if refund.status != Status::Asked {
                return;
            }
            refund.status = Status::Refused;
            refund.failure = Some(clipped(format!("Square refused it: {code}: {detail}")));
            // Whoever asked is answered with the refusal itself.
            out.save(refund);
            wake(book, out);
        }
    }
}

fn clipped(mut text: String) -> String {
    if text.len() > MAX_FAILURE_BYTES {
        let mut end = MAX_FAILURE_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    text
}

/// Moves a refund to `status` if that is forward, and does what the new
/// status calls for.
fn become_(book: &mut Book, out: &mut Out, refund_id: &str, status: Status) {
    let Some(refund) = book.refund_mut(refund_id) else {
        return;
    };
    if !refund.status.may_become(status) {
        return;
    }
    refund.status = status;
    match status {
        Status::Rejected | Status::Failed => {
            let (failure, news) = match status {
                Status::Failed => (
                    "Square marked the refund FAILED and allows no other refund of this \
                     payment: reimburse the buyer another way",
                    News::Failed,
                ),
                _ => ("Square marked the refund REJECTED", News::Rejected),
            };
            refund.failure = Some(failure.to_string());
            out.save_with(refund, Some(news));
        }
        _ => out.save(refund),
    }
    match status {
        Status::Completed => {
            apply(book, out, refund_id);
            wake(book, out);
        }
        Status::Rejected | Status::Failed => wake(book, out),
        _ => {}
    }
}

/// Voids a completed refund's tickets, reopens their seats, and marks it
/// applied; once only, and only when its tickets are known.
fn apply(book: &mut Book, out: &mut Out, refund_id: &str) {
    let Some(refund) = book.refund(refund_id) else {
        return;
    };
    if refund.applied || refund.status != Status::Completed {
        return;
    }
    let Some(tickets) = refund.tickets.clone() else {
        return; // Waits for staff to say which tickets.
    };
    let exchange = refund.exchange_to.is_some();
    if !tickets.is_empty() {
        out.actions.push(Action::VoidTickets {
            refund_id: refund_id.to_string(),
            tickets: tickets.clone(),
        });
        out.actions.push(Action::ReopenSeats {
            refund_id: refund_id.to_string(),
            showing_id: book.order.showing_id.clone(),
            seats: book.seats_of(&tickets),
        });
        for ticket in book.tickets.iter_mut().filter(|t| tickets.contains(&t.id)) {
            ticket.live = false;
        }
    }
    out.actions.push(Action::MarkApplied {
        refund_id: refund_id.to_string(),
        exchange,
        now_ms: out.now_ms,
    });
    if let Some(refund) = book.refund_mut(refund_id) {
        refund.applied = true;
    }
    if book.order.status == OrderStatus::Paid && book.tickets.iter().all(|t| !t.live) {
        book.order.status = OrderStatus::Refunded;
    }
}

/// Once nothing may be pending at Square on its payment, the oldest
/// waiting refund of each payment is asked for under a new key (a key
/// Square once refused may answer that refusal for good); after a FAILED
/// one, none is.
fn wake(book: &mut Book, out: &mut Out) {
    // An order waiting for staff to say what a Dashboard refund covers
    // keeps its waiting refunds until they have: that refund may cover
    // the same tickets.
    if book.refunds.iter().any(|r| r.tickets.is_none()) {
        return;
    }
    let waiting: Vec<String> = book
        .refunds
        .iter()
        .filter(|r| r.status == Status::Waiting)
        .map(|r| r.id.clone())
        .collect();
    for id in waiting {
        let Some(refund) = book.refund(&id) else {
            continue;
        };
        if !book.in_flight_on(book.payment_of(refund).as_deref()) {
            restart(book, out, &id);
        }
    }
}

/// Asks again, on the same payment, for what a waiting refund was for.
fn restart(book: &mut Book, out: &mut Out, id: &str) {
    let Some(waiting) = book.refund_mut(id) else {
        return;
    };
    waiting.status = Status::Superseded;
    out.save(waiting);
    let waiting = waiting.clone();
    let tickets = waiting.tickets.clone().unwrap_or_default();
    let live = book.live_tickets();
    let covered = book.covered();
    if !tickets.iter().all(|t| live.contains(t)) || tickets.iter().any(|t| covered.contains(t)) {
        return; // Refunded or voided meanwhile: no longer needed.
    }
    let Some(source) = source_of(book, &waiting) else {
        return;
    };
    if source
        .payment_id
        .as_deref()
        .is_some_and(|p| book.closed_on(p))
    {
        if let Some(refund) = book.refund_mut(id) {
            refund.failure = Some(
                "a refund of this payment FAILED, after which Square allows no other: \
                 reimburse the buyer another way"
                    .to_string(),
            );
            out.save(refund);
        }
        return;
    }
    // A refusal here leaves the refund superseded; staff see it in the
    // order's refunds and may ask again.
    let left = book.free_on(&source);
    let order_id = book.order.id.clone();
    let key = (1..=MAX_ATTEMPTS)
        .map(|attempt| part_key(&order_id, &source.key, &tickets, attempt))
        .find(|key| book.refund(key).is_none());
    let Some(key) = key else { return };
    if waiting.amount > left || book.refunds.len() >= MAX_REFUNDS {
        return;
    }
    add_refund(book, out, &key, &source, tickets, waiting.amount);
    act_on_new(book, out, &key);
}

/// Square says where a refund stands. A refund this machine has not named
/// yet may be its own whose answer has not come (a webhook can come first)
/// or one from the Dashboard; Square's refund does not carry our key, so
/// while one of ours is unanswered, ours is asked again first (the same
/// key names it), then the reported one is looked up afresh. If ours still
/// has no answer, the report is left for Square's next word on it.
/// What Square said of one refund.
struct Report {
    square_id: String,
    payment_id: String,
    amount: u64,
    status: Status,
    looked_up: bool,
}

fn reported(book: &mut Book, out: &mut Out, report: Report) {
    let Report {
        square_id,
        payment_id,
        amount,
        status,
        looked_up,
    } = report;
    let known = book
        .refunds
        .iter()
        .find(|r| r.square_id.as_deref() == Some(square_id.as_str()))
        .map(|r| r.id.clone());
    let id = match known {
        Some(id) => id,
        None => {
            let unnamed = book.refunds.iter().find(|r| {
                r.square_id.is_none()
                    && r.status == Status::Asked
                    && r.exchange_to.is_none()
                    && book.payment_of(r).as_deref() == Some(payment_id.as_str())
            });
            if let Some(ours) = unnamed {
                if !looked_up {
                    if let Some(request) = request_for(book, ours) {
                        out.actions.push(Action::AskSquare {
                            refund_id: ours.id.clone(),
                            request,
                        });
                        out.actions.push(Action::LookUp {
                            refund_id: ours.id.clone(),
                            square_id,
                        });
                    }
                }
                return;
            }
            // A Dashboard refund is its payment's own order's to sort out.
            let own = book.order.payment_id.as_deref() == Some(payment_id.as_str());
            if book.refunds.len() >= MAX_REFUNDS || !own {
                return;
            }
            from_dashboard(book, out, square_id, amount)
        }
    };
    become_(book, out, &id, status);
}

/// A refund started in the Square Dashboard: one for exactly what every
/// live ticket cost covers them, if no other refund covers any of them;
/// anything else waits for staff to say what it covers (while one of ours
/// is under way, a Dashboard refund of the same amount may be for its
/// tickets or for others).
fn from_dashboard(book: &mut Book, out: &mut Out, square_id: String, amount: u64) -> String {
    let covered = book.covered();
    let live = book.live_tickets();
    let whole = !live.is_empty()
        && live.iter().all(|t| !covered.contains(t))
        && amount == book.worth(&live);
    let covers = whole.then_some(live);
    let id = format!("square:{square_id}");
    let refund = Refund {
        id: id.clone(),
        square_id: Some(square_id.clone()),
        tickets: covers,
        amount,
        status: Status::Asked,
        applied: false,
        failure: None,
        payment_id: None,
        exchange_to: None,
        asked_ms: out.now_ms,
    };
    out.save(&refund);
    if refund.tickets.is_none() {
        out.actions.push(Action::NeedsStaff {
            detail: format!(
                "partial refund {square_id} of {amount} from the Square Dashboard: choose its tickets"
            ),
            now_ms: out.now_ms,
        });
        if book.order.status == OrderStatus::Paid {
            book.order.status = OrderStatus::NeedsAttention;
        }
    }
    book.refunds.push(refund);
    id
}

fn choose(
    book: &mut Book,
    out: &mut Out,
    refund_id: &str,
    tickets: Vec<String>,
) -> Result<Reply, Refusal> {
    let refund = book.refund(refund_id).ok_or(Refusal::UnknownRefund)?;
    if refund.tickets.is_some() {
        return Err(Refusal::RefundDecided);
    }
    let amount = refund.amount;
    let chosen = sorted(tickets);
    all_live(&chosen, &book.live_tickets())?;
    none_covered(&chosen, &book.covered())?;
    let worth = book.worth(&chosen);
    if worth > amount {
        return Err(Refusal::MoreThanRefunded { worth, amount });
    }
    if let Some(refund) = book.refund_mut(refund_id) {
        refund.tickets = Some(chosen);
        out.save(refund);
    }
    if book.refunds.iter().all(|r| r.tickets.is_some()) {
        out.actions
            .push(Action::AttentionSettled { now_ms: out.now_ms });
        if book.order.status == OrderStatus::NeedsAttention {
            book.order.status = OrderStatus::Paid;
        }
    }
    apply(book, out, refund_id);
    wake(book, out);
    Ok(Reply::Refund(refund_id.to_string()))
}

fn sweep(book: &mut Book, out: &mut Out) {
    let ids: Vec<String> = book.refunds.iter().map(|r| r.id.clone()).collect();
    for id in ids {
        let Some(refund) = book.refund(&id) else {
            continue;
        };
        match (&refund.square_id, refund.status) {
            (None, Status::Asked) if refund.exchange_to.is_some() => {
                out.actions.push(Action::LookUpExchange {
                    refund_id: id.clone(),
                    order_id: refund.exchange_to.clone().unwrap_or_default(),
                });
            }
            (None, Status::Asked) => {
                // Never answered: the same key and body again, which Square
                // answers as the same request (the refund it took, or the
                // reason it takes none: another pending, too little left).
                // Nothing else can tell whether it was taken.
                if let Some(request) = request_for(book, refund) {
                    out.actions.push(Action::AskSquare {
                        refund_id: id.clone(),
                        request,
                    });
                }
            }
            (Some(square_id), status) if status.in_flight() => {
                out.actions.push(Action::LookUp {
                    refund_id: id.clone(),
                    square_id: square_id.clone(),
                });
            }
            (_, Status::Completed) => apply(book, out, &id),
            _ => {}
        }
    }
    // Staff said what every Dashboard refund covers, but the order was not
    // put back (the write was lost): it is now.
    if book.order.status == OrderStatus::NeedsAttention
        && book.refunds.iter().all(|r| r.tickets.is_some())
    {
        out.actions
            .push(Action::AttentionSettled { now_ms: out.now_ms });
    }
    wake(book, out);
}
