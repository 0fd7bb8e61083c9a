//! Sending the outbox: reads a due row and what it reports from D1, has the
//! `mail` crate write the message, and hands it to the platform's e-mail
//! binding (`EMAIL`). Decisions (when to retry, when to give up) are the
//! `mail` crate's; nothing here changes an order.

use js_sys::{Reflect, Uint8Array};
use mail::compose::{self, OrderView, TaxView, TicketView};
use mail::outbox::{self, Failure, Kind, Next};
use mail::outcome::{self as unpaid, Cancellation, RefundEnd};
use mail::{Message, Venue};
use wasm_bindgen::JsValue;
use worker::{D1Database, EmailAddress, EmailAttachment, Env, SendEmailBuilder};

use crate::db::mail::{self as mail_rows, Filter, MailRow};
use crate::db::{self, orders as order_rows, refunds as refund_rows};
use crate::settings::{Settings, DIGEST_EVERY_MS};
use crate::ticket_code;

/// What the sender needs from the environment.
pub struct MailSettings {
    /// `MAIL_FROM`: the sender address, on a domain onboarded for sending.
    pub from: String,
    /// `MAIL_REPLY_TO`: where buyers' replies go, when not the sender.
    pub reply_to: Option<String>,
    /// `PUBLIC_URL`: the site's address, for the links in messages.
    pub public_url: String,
    pub venue: Venue,
    /// `MAIL_RETRY_BASE_MS`: the first wait after a failed send.
    pub retry_base_ms: u64,
}

fn var(env: &Env, name: &str) -> Option<String> {
    env.var(name)
        .ok()
        .map(|v| v.to_string().trim().to_string())
        .filter(|v| !v.is_empty())
}

impl MailSettings {
    pub fn from_env(env: &Env) -> Result<MailSettings, String> {
        let from = var(env, "MAIL_FROM").ok_or("MAIL_FROM is not set")?;
        let public_url = var(env, "PUBLIC_URL").ok_or("PUBLIC_URL is not set")?;
        Ok(MailSettings {
            from,
            reply_to: var(env, "MAIL_REPLY_TO"),
            public_url: public_url.trim_end_matches('/').to_string(),
            venue: venue(env)?,
            retry_base_ms: var(env, "MAIL_RETRY_BASE_MS")
                .and_then(|v| v.parse().ok())
                .unwrap_or(60_000),
        })
    }
}

/// The cinema as pages and messages name it: `CINEMA_NAME`,
/// `CINEMA_ADDRESS` and `VENUE_TIME_ZONE` (UTC when unset).
pub fn venue(env: &Env) -> Result<Venue, String> {
    let name = var(env, "CINEMA_NAME").unwrap_or_else(|| "Showtime Cinema".into());
    let address = var(env, "CINEMA_ADDRESS").unwrap_or_default();
    let zone = var(env, "VENUE_TIME_ZONE").unwrap_or_else(|| "UTC".into());
    Venue::new(&name, &address, &zone).map_err(|e| format!("VENUE_TIME_ZONE: {e}"))
}

/// What one drain did, for the sweep's log.
#[derive(Debug, Default)]
pub struct Drained {
    pub sent: u32,
    pub retrying: u32,
    pub failed: u32,
}

/// Sends what is due (only `order_id`'s messages when given), at most
/// [`outbox::DRAIN_LIMIT`] rows. A row another sender claimed is skipped.
pub async fn drain(env: &Env, order_id: Option<&str>, now_ms: u64) -> worker::Result<Drained> {
    let filter = match order_id {
        Some(id) => Filter::Order(id),
        None => Filter::All,
    };
    drain_rows(env, filter, now_ms).await
}

async fn drain_rows(env: &Env, filter: Filter<'_>, now_ms: u64) -> worker::Result<Drained> {
    let db = db::database(env)?;
    let rows = mail_rows::due(&db, filter, now_ms, outbox::DRAIN_LIMIT).await?;
    // Read once a drain: the settings hold the parsed time zone.
    let settings = MailSettings::from_env(env);
    let base_ms = settings.as_ref().map_or(60_000, |s| s.retry_base_ms);
    let mut drained = Drained::default();
    for row in rows {
        if row.status == outbox::Status::Sending.as_str() {
            // The claim lapsed: its sender stopped, and whether the message
            // left is unknown. Not sent again, so it never arrives twice.
            let note = "the send's outcome is unknown (its sender stopped mid-send); \
                        not sent again so it cannot arrive twice: resend if needed";
            mail_rows::mark_failed_try(&db, &row.id, note, None, now_ms).await?;
            drained.failed += 1;
            continue;
        }
        if !mail_rows::claim(&db, &row.id, now_ms, outbox::CLAIM_LEASE_MS).await? {
            continue;
        }
        let result = match &settings {
            Ok(settings) => send_row(env, &db, settings, &row, now_ms).await,
            Err(e) => Err(Failure {
                code: None,
                message: e.clone(),
            }),
        };
        match result {
            Ok(message_id) => {
                mail_rows::mark_sent(&db, &row.id, &message_id, worker::Date::now().as_millis())
                    .await?;
                drained.sent += 1;
            }
            Err(failure) => {
                let next = outbox::after_failure(
                    &failure,
                    row.tries as u32 + 1,
                    row.created_at_ms as u64,
                    now_ms,
                    base_ms,
                );
                worker::console_error!("mail {}: {}", row.id, failure.summary());
                let retry_at = match next {
                    Next::RetryAt { at_ms } => {
                        drained.retrying += 1;
                        Some(at_ms)
                    }
                    Next::GiveUp => {
                        drained.failed += 1;
                        None
                    }
                };
                mail_rows::mark_failed_try(&db, &row.id, &failure.summary(), retry_at, now_ms)
                    .await?;
            }
        }
    }
    Ok(drained)
}

/// Sends an order's due messages right after the write that queued them.
/// A failure is only logged: the row stays due and the sweep retries it.
pub async fn send_now(env: &Env, order_id: &str) {
    if let Err(e) = drain(env, Some(order_id), worker::Date::now().as_millis()).await {
        worker::console_error!("order {order_id}: mail not sent now: {e}");
    }
}

/// Sends one row right after it was queued (an order-link mail).
pub async fn send_row_now(env: &Env, row_id: &str) {
    if let Err(e) = drain_rows(env, Filter::Row(row_id), worker::Date::now().as_millis()).await {
        worker::console_error!("mail {row_id}: not sent now: {e}");
    }
}

fn failed(message: impl std::fmt::Display) -> Failure {
    Failure {
        code: None,
        message: message.to_string(),
    }
}

async fn send_row(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    row: &MailRow,
    now_ms: u64,
) -> Result<String, Failure> {
    let kind =
        Kind::parse(&row.kind).ok_or_else(|| failed(format!("unknown kind {}", row.kind)))?;
    let message = match kind {
        Kind::Tickets => tickets_message(env, db, settings, row, now_ms).await?,
        Kind::Refund => refund_message(env, db, settings, row).await?,
        Kind::Moved => moved_message(env, db, settings, row).await?,
        Kind::Lookup => lookup_message(env, db, settings, &row.to_addr, now_ms).await?,
        Kind::Offer => offer_message(env, db, settings, row).await?,
        Kind::Digest => digest_message(env, db, settings, now_ms).await?,
        Kind::Reconciliation => reconciliation_message(db, settings, row).await?,
        Kind::Cancelled => {
            let facts = order_facts(env, db, settings, row).await?;
            let reason = facts.showing.cancel_reason.clone().unwrap_or_default();
            compose::cancelled(&settings.venue, &view(&facts), &reason)
        }
        Kind::Declined | Kind::SeatLost | Kind::PaymentCancelled => {
            unpaid_message(env, db, settings, row, kind, now_ms).await?
        }
        Kind::RefundFailed | Kind::RefundRejected => {
            let facts = order_facts(env, db, settings, row).await?;
            let (amount, seats) = refund_of(db, row, &facts).await?;
            let end = match kind {
                Kind::RefundFailed => RefundEnd::Failed,
                _ => RefundEnd::Rejected,
            };
            unpaid::refund_not_made(&settings.venue, &view(&facts), amount, &seats, end)
        }
    };
    send(env, settings, &row.to_addr, &message).await
}

/// What a waiting list offer's row carries.
#[derive(serde::Serialize, serde::Deserialize)]
struct OfferDetail {
    showing_id: String,
    entry_id: String,
    seats: Vec<String>,
    until_ms: u64,
}

/// Queues the mail of a waiting list offer (once per entry) and sends it
/// now; the sweep retries a send that fails. A row that cannot be queued
/// is logged: the offer then lapses unclaimed and goes to the next person.
pub async fn queue_offer(
    env: &Env,
    showing_id: &str,
    entry_id: &str,
    email: &str,
    seats: Vec<String>,
    until_ms: u64,
) {
    let row_id = format!("offer-{entry_id}");
    let detail = OfferDetail {
        showing_id: showing_id.to_string(),
        entry_id: entry_id.to_string(),
        seats,
        until_ms,
    };
    let queued = async {
        let db = env.d1("DB")?;
        let detail =
            serde_json::to_string(&detail).map_err(|e| worker::Error::RustError(e.to_string()))?;
        let now_ms = worker::Date::now().as_millis();
        mail_rows::queue_to(&db, &row_id, Kind::Offer, email, Some(&detail), now_ms).await
    };
    match queued.await {
        Ok(_) => send_row_now(env, &row_id).await,
        Err(e) => worker::console_error!("waiting list offer {entry_id}: mail not queued: {e}"),
    }
}

/// Tells staff at once what a showing's reconciliation left them
/// (`STAFF_EMAIL`; nothing without one). One message a run.
pub async fn queue_reconciliation(
    env: &Env,
    showing_id: &str,
    run_id: &str,
    now_ms: u64,
) -> worker::Result<()> {
    let Some(staff) = var(env, "STAFF_EMAIL") else {
        return Ok(());
    };
    let db = db::database(env)?;
    let row_id = format!("reconcile:{showing_id}:{run_id}");
    let kind = Kind::Reconciliation;
    if mail_rows::queue_to(&db, &row_id, kind, &staff, Some(showing_id), now_ms).await? {
        send_row_now(env, &row_id).await;
    }
    Ok(())
}

/// The showing's differences still open when the message is sent.
async fn reconciliation_message(
    db: &D1Database,
    settings: &MailSettings,
    row: &MailRow,
) -> Result<Message, Failure> {
    let showing_id = row
        .detail
        .as_deref()
        .ok_or_else(|| failed("the message names no showing"))?;
    let showing = db::get_showing(db, showing_id)
        .await
        .map_err(failed)?
        .ok_or_else(|| failed("the showing is gone"))?;
    let findings = db::reconcile::findings(db, showing_id)
        .await
        .map_err(failed)?;
    let text = |f: &serde_json::Value, k: &str| f[k].as_str().unwrap_or_default().to_string();
    let differences: Vec<compose::Difference> = findings
        .iter()
        .filter(|f| f["fixed_at_ms"].is_null() && f["handled_at_ms"].is_null())
        .map(|f| compose::Difference {
            what: desk::reconcile::describe(&text(f, "kind"), &text(f, "subject")),
            sides: desk::reconcile::sides(
                &text(f, "object_says"),
                &text(f, "d1_says"),
                &text(f, "square_says"),
            ),
        })
        .collect();
    if differences.is_empty() {
        return Err(Failure {
            code: Some("NOTHING_WAITING".into()),
            message: "every difference was dealt with".into(),
        });
    }
    Ok(compose::reconciliation(
        &settings.venue,
        &showing.title,
        showing.starts_at_ms,
        &differences,
        &format!("{}/admin", settings.public_url),
    ))
}

async fn offer_message(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    row: &MailRow,
) -> Result<Message, Failure> {
    let detail: OfferDetail = row
        .detail
        .as_deref()
        .ok_or_else(|| failed("the offer has no detail"))
        .and_then(|d| serde_json::from_str(d).map_err(failed))?;
    let showing = db::get_showing(db, &detail.showing_id)
        .await
        .map_err(failed)?
        .ok_or_else(|| failed("the showing is gone"))?;
    let token = crate::auth::offer_token(env, &detail.showing_id, &detail.entry_id)
        .map_err(|e| failed(e.detail))?;
    let url = format!(
        "{}/showings/{}?offer={}&key={token}",
        settings.public_url, detail.showing_id, detail.entry_id
    );
    Ok(compose::offer(
        &settings.venue,
        &compose::OfferView {
            film: &showing.title,
            starts_at_ms: showing.starts_at_ms,
            seats: &detail.seats,
            until_ms: detail.until_ms as i64,
            url: &url,
        },
    ))
}

/// The links to an order and its tickets, as they go into a message.
pub fn order_link(env: &Env, settings: &MailSettings, order_id: &str) -> Result<String, Failure> {
    let key = crate::auth::order_key(env, order_id).map_err(|e| failed(e.detail))?;
    Ok(format!(
        "{}/orders/{order_id}?key={key}",
        settings.public_url
    ))
}

struct OrderFacts {
    order: order_rows::OrderRow,
    showing: db::Showing,
    url: String,
}

async fn order_facts(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    row: &MailRow,
) -> Result<OrderFacts, Failure> {
    let order_id = row.order_id.as_deref().ok_or_else(|| failed("no order"))?;
    let order = order_rows::get_order(db, order_id)
        .await
        .map_err(failed)?
        .ok_or_else(|| failed("the order is gone"))?;
    let showing = db::get_showing(db, &order.showing_id)
        .await
        .map_err(failed)?
        .ok_or_else(|| failed("the showing is gone"))?;
    let url = order_link(env, settings, order_id)?;
    Ok(OrderFacts {
        order,
        showing,
        url,
    })
}

fn view<'a>(facts: &'a OrderFacts) -> OrderView<'a> {
    OrderView {
        order_id: &facts.order.id,
        buyer_name: &facts.order.name,
        amount: facts.order.amount as u64,
        currency: &facts.order.currency,
        film: &facts.showing.title,
        starts_at_ms: facts.showing.starts_at_ms,
        order_url: &facts.url,
        paid_at_desk: matches!(facts.order.channel.as_str(), "cash" | "card_at_desk"),
        tax: None,
        discount: None,
    }
}

/// Tax as a message names it: none when there is none.
fn tax_view(name: &str, inclusive: bool, amount: u64) -> Option<TaxView<'_>> {
    (amount > 0).then_some(TaxView {
        name,
        inclusive,
        amount,
    })
}

/// A showing cancelled since the message was queued: its buyer gets the
/// cancellation instead of tickets.
fn showing_still_on(facts: &OrderFacts) -> Result<(), Failure> {
    if facts.showing.cancelled_at_ms.is_some() {
        return Err(Failure {
            code: Some("SHOWING_CANCELLED".into()),
            message: "the showing was cancelled".into(),
        });
    }
    Ok(())
}

/// A ticket's signed door code and the address of its page, opened with
/// the order's key.
fn code_and_page(
    keys: &ticket_code::TicketKeys,
    settings: &MailSettings,
    facts: &OrderFacts,
    ticket_id: &str,
    seat: &str,
) -> (String, String) {
    let code = ticket_code::sign(
        keys,
        &ticket_code::TicketRef {
            showing_id: facts.order.showing_id.clone(),
            ticket_id: ticket_id.to_string(),
            seat: seat.to_string(),
        },
    );
    let key = facts.url.rsplit_once("key=").map_or("", |(_, k)| k);
    let page = format!("{}/tickets/{ticket_id}?key={key}", settings.public_url);
    (code, page)
}

/// Money as D1 reads it back (a JSON number), 0 when unknown.
fn whole(amount: Option<f64>) -> u64 {
    amount.map_or(0, |a| a as u64)
}

/// A ticket's price as its mail shows it: the category's name and the
/// amount it was sold at, when it has them.
fn price_of(name: Option<&str>, amount: Option<f64>) -> Option<(&str, u64)> {
    name.zip(amount.map(|a| a as u64))
}

async fn tickets_message(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    row: &MailRow,
    now_ms: u64,
) -> Result<Message, Failure> {
    let facts = order_facts(env, db, settings, row).await?;
    showing_still_on(&facts)?;
    let all = order_rows::tickets_of(db, &facts.order.id)
        .await
        .map_err(failed)?;
    let tax = facts.order.tax_line(&all);
    let discount = facts.order.discount(&all);
    let live: Vec<order_rows::TicketRow> =
        all.into_iter().filter(|t| t.status == "valid").collect();
    let (tax_name, inclusive) = (facts.order.tax_name.as_str(), facts.order.tax_inclusive);
    if live.is_empty() {
        return Err(Failure {
            code: Some("NO_LIVE_TICKETS".into()),
            message: "the order has no valid ticket to send".into(),
        });
    }
    let keys = crate::auth::signing_keys(env).map_err(|e| failed(e.detail))?;
    let codes: Vec<(String, String)> = live
        .iter()
        .map(|t| code_and_page(&keys, settings, &facts, &t.id, &t.seat))
        .collect();
    let tickets: Vec<TicketView> = live
        .iter()
        .zip(&codes)
        .map(|(t, (code, page))| TicketView {
            id: &t.id,
            seat: &t.seat,
            code,
            page_url: page,
            price: price_of(t.price_name.as_deref(), t.price_amount),
            tax: tax_view(tax_name, inclusive, whole(t.price_tax)),
        })
        .collect();
    let order = OrderView {
        tax: tax_view(tax_name, inclusive, tax.amount),
        discount,
        ..view(&facts)
    };
    compose::tickets(&settings.venue, &order, &tickets, now_ms as i64).map_err(failed)
}

/// A ticket staff moved: its replacement, while it still admits.
async fn moved_message(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    row: &MailRow,
) -> Result<Message, Failure> {
    let facts = order_facts(env, db, settings, row).await?;
    showing_still_on(&facts)?;
    let ticket_id = row
        .ticket_id
        .as_deref()
        .ok_or_else(|| failed("no ticket"))?;
    let ticket = crate::db::moves::replacement(db, ticket_id)
        .await
        .map_err(failed)?
        .ok_or_else(|| failed("the ticket is gone"))?;
    if ticket.status != "valid" {
        // Refunded or moved again since: that change tells the buyer.
        return Err(Failure {
            code: Some("NO_LIVE_TICKETS".into()),
            message: "the new ticket no longer admits".into(),
        });
    }
    let keys = crate::auth::signing_keys(env).map_err(|e| failed(e.detail))?;
    let (code, page) = code_and_page(&keys, settings, &facts, &ticket.id, &ticket.seat);
    let view_of_ticket = TicketView {
        id: &ticket.id,
        seat: &ticket.seat,
        code: &code,
        page_url: &page,
        price: price_of(ticket.price_name.as_deref(), ticket.price_amount),
        tax: tax_view(
            &facts.order.tax_name,
            facts.order.tax_inclusive,
            whole(ticket.price_tax),
        ),
    };
    let from = ticket.from_seat.as_deref().unwrap_or_default();
    compose::moved(&settings.venue, &view(&facts), from, &view_of_ticket).map_err(failed)
}

async fn refund_message(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    row: &MailRow,
) -> Result<Message, Failure> {
    let facts = order_facts(env, db, settings, row).await?;
    let (amount, seats) = refund_of(db, row, &facts).await?;
    Ok(compose::refund(
        &settings.venue,
        &view(&facts),
        amount,
        &seats,
    ))
}

/// The amount of the row's refund and the seats of the tickets it covers.
async fn refund_of(
    db: &D1Database,
    row: &MailRow,
    facts: &OrderFacts,
) -> Result<(u64, Vec<String>), Failure> {
    let refund_id = row
        .refund_id
        .as_deref()
        .ok_or_else(|| failed("no refund"))?;
    let refund = refund_rows::by_id(db, refund_id)
        .await
        .map_err(failed)?
        .ok_or_else(|| failed("the refund is gone"))?;
    let covered = refund.tickets().unwrap_or_default();
    let seats: Vec<String> = order_rows::tickets_of(db, &facts.order.id)
        .await
        .map_err(failed)?
        .into_iter()
        .filter(|t| covered.contains(&t.id))
        .map(|t| t.seat)
        .collect();
    Ok((refund.amount as u64, seats))
}

/// An order that ended without tickets after its buyer was told to wait,
/// in the words of its recorded outcome; with the showing's page to try
/// again while the showing is still to come.
async fn unpaid_message(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    row: &MailRow,
    kind: Kind,
    now_ms: u64,
) -> Result<Message, Failure> {
    let facts = order_facts(env, db, settings, row).await?;
    let ended: Option<checkout::Outcome> = facts
        .order
        .status_detail
        .as_deref()
        .and_then(|detail| serde_json::from_str(detail).ok());
    let showing = &facts.showing;
    let again = (showing.cancelled_at_ms.is_none() && showing.starts_at_ms > now_ms as i64)
        .then(|| format!("{}/showings/{}", settings.public_url, showing.id));
    let (venue, order, again) = (&settings.venue, view(&facts), again.as_deref());
    Ok(match (kind, ended) {
        (Kind::SeatLost, Some(checkout::Outcome::SeatLost { seats })) => {
            unpaid::seat_lost(venue, &order, &seats, again)
        }
        (Kind::SeatLost, _) => unpaid::seat_lost(venue, &order, &[], again),
        (Kind::PaymentCancelled, ended) => {
            let why = match ended {
                Some(checkout::Outcome::Failed { code }) => match code.as_str() {
                    checkout::AUTHORIZATION_VOIDED => Cancellation::Lapsed,
                    checkout::PAYMENT_UNCERTAIN | checkout::PAYMENT_STILL_PENDING => {
                        Cancellation::Unconfirmed
                    }
                    _ => Cancellation::Refused,
                },
                _ => Cancellation::Refused,
            };
            unpaid::payment_cancelled(venue, &order, why, again)
        }
        _ => unpaid::declined(venue, &order, again),
    })
}

/// How far back a lookup reaches for orders whose showing has passed.
const LOOKUP_PAST_MS: u64 = 90 * 24 * 3600 * 1000;

async fn lookup_message(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    to: &str,
    now_ms: u64,
) -> Result<Message, Failure> {
    let orders =
        mail_rows::orders_of_address(db, to, now_ms.saturating_sub(LOOKUP_PAST_MS), now_ms)
            .await
            .map_err(failed)?;
    if orders.is_empty() {
        return Err(Failure {
            code: Some("NO_ORDERS".into()),
            message: "no order to send".into(),
        });
    }
    let urls = orders
        .iter()
        .map(|o| order_link(env, settings, &o.id))
        .collect::<Result<Vec<_>, _>>()?;
    let views: Vec<OrderView> = orders
        .iter()
        .zip(&urls)
        .map(|(o, url)| OrderView {
            order_id: &o.id,
            buyer_name: "",
            amount: o.amount as u64,
            currency: &o.currency,
            film: &o.title,
            starts_at_ms: o.starts_at_ms as i64,
            order_url: url,
            paid_at_desk: false,
            tax: None,
            discount: None,
        })
        .collect();
    Ok(compose::lookup(&settings.venue, &views))
}

async fn digest_message(
    env: &Env,
    db: &D1Database,
    settings: &MailSettings,
    now_ms: u64,
) -> Result<Message, Failure> {
    let after_ms = Settings::from_env(env).digest_after_ms;
    let items: Vec<compose::AttentionItem> = attention_items(env, db, now_ms)
        .await
        .map_err(failed)?
        .into_iter()
        .filter(|item| now_ms.saturating_sub(item.since_ms as u64) >= after_ms)
        .map(|item| compose::AttentionItem {
            what: item.describe(),
            since_ms: item.since_ms,
            link: match &item.showing_id {
                Some(sid) => format!(
                    "{}/admin/showings/{sid}?order={}",
                    settings.public_url, item.order_id
                ),
                None => format!("{}/admin", settings.public_url),
            },
        })
        .collect();
    if items.is_empty() {
        return Err(Failure {
            code: Some("NOTHING_WAITING".into()),
            message: "nothing has waited an hour any more".into(),
        });
    }
    Ok(compose::digest(&settings.venue, &items, now_ms as i64))
}

/// One item of the attention list, as the digest needs it.
pub struct Waiting {
    pub kind: String,
    pub order_id: String,
    pub showing_id: Option<String>,
    pub since_ms: i64,
}

impl Waiting {
    fn describe(&self) -> String {
        let what = match self.kind.as_str() {
            "payment_unknown" => "payment outcome unknown",
            "needs_attention" => "order needs attention",
            "paid_without_tickets" => "paid, but no ticket issued",
            "partial_refund" => "Dashboard refund: choose its tickets",
            "seat_lost" => "seat lost after payment",
            "mail_failed" => "a message could not be sent",
            "refund_failed" => "a refund did not happen",
            "reconciliation" => return format!("before the showing: {}", self.order_id),
            other => other,
        };
        format!("{what}: order {}", self.order_id)
    }
}

/// The attention list as the admin page shows it (payments still unknown
/// after the sweep's minimum age count).
pub async fn attention_items(
    env: &Env,
    db: &D1Database,
    now_ms: u64,
) -> worker::Result<Vec<Waiting>> {
    let stale_ms = Settings::from_env(env).sweep_min_age_ms;
    let rows = db::admin::attention(db, now_ms, stale_ms).await?;
    Ok(rows
        .into_iter()
        .map(|r| Waiting {
            kind: r["kind"].as_str().unwrap_or_default().to_string(),
            order_id: r["order_id"].as_str().unwrap_or_default().to_string(),
            showing_id: r["showing_id"].as_str().map(str::to_string),
            since_ms: r["since_ms"].as_f64().unwrap_or_default() as i64,
        })
        .collect())
}

/// Queues the staff digest when something has waited over an hour
/// (`DIGEST_AFTER_MS`); the row is keyed by the hour, so at most one goes
/// out an hour.
pub async fn queue_digest(env: &Env, now_ms: u64) -> worker::Result<bool> {
    let Some(staff) = var(env, "STAFF_EMAIL") else {
        return Ok(false);
    };
    let db = db::database(env)?;
    let after_ms = Settings::from_env(env).digest_after_ms;
    let waiting = attention_items(env, &db, now_ms).await?;
    if !waiting
        .iter()
        .any(|w| now_ms.saturating_sub(w.since_ms as u64) >= after_ms)
    {
        return Ok(false);
    }
    let hour = now_ms / DIGEST_EVERY_MS;
    mail_rows::queue_to(
        &db,
        &format!("digest:{hour}"),
        Kind::Digest,
        &staff,
        None,
        now_ms,
    )
    .await
}

/// Hands one message to the binding. The platform's error code, when its
/// error carries one, decides whether a retry can help.
async fn send(
    env: &Env,
    settings: &MailSettings,
    to: &str,
    message: &Message,
) -> Result<String, Failure> {
    let binding = env.send_email("EMAIL").map_err(failed)?;
    let from = EmailAddress::new(&settings.venue.name, &settings.from);
    let attachments: Vec<EmailAttachment> = message
        .attachments
        .iter()
        .map(|a| {
            let bytes = Uint8Array::from(a.content.as_slice());
            match &a.content_id {
                Some(cid) => EmailAttachment::new_inline_with_typed_array(
                    cid,
                    &a.filename,
                    a.content_type,
                    &bytes,
                ),
                None => EmailAttachment::new_attachment_with_typed_array(
                    &a.filename,
                    a.content_type,
                    &bytes,
                ),
            }
        })
        .collect();
    let mut builder =
        SendEmailBuilder::builder_with_email_address_and_str(&from, to, &message.subject)
            .text(&message.text)
            .html(&message.html)
            .attachments(&attachments);
    if let Some(reply_to) = &settings.reply_to {
        builder = builder.reply_to(reply_to);
    }
    match binding.send_with_builder(&builder.build()).await {
        Ok(result) => Ok(result.message_id()),
        Err(error) => Err(platform_failure(error.into())),
    }
}

fn platform_failure(error: JsValue) -> Failure {
    let field = |name: &str| {
        Reflect::get(&error, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
    };
    Failure {
        code: field("code").filter(|c| !c.is_empty()),
        message: field("message").unwrap_or_else(|| format!("{error:?}")),
    }
}
