//! Orders, tickets and the audit trail in D1. The writes here are the
//! checkout machine's D1 steps; each is safe to repeat, because a step whose
//! answer was lost is sent again.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use worker::{D1Database, D1PreparedStatement, Result};

/// Most orders one listing returns.
const LIST_LIMIT: u32 = 200;

use super::num;

/// The ticket ids of an order: deterministic, so a repeated write adds
/// nothing.
pub fn ticket_id(order_id: &str, index: usize) -> String {
    format!("{order_id}-{}", index + 1)
}

/// What a repeated or racing WriteOrder found.
#[derive(Debug, PartialEq)]
pub enum Written {
    Written,
    /// These seats have a live ticket of another order.
    Conflict(Vec<String>),
}

/// The order as first recorded: before any money moves, so that staff can
/// see a checkout whose payment outcome is not yet known.
pub struct NewOrder<'a> {
    pub id: &'a str,
    pub showing_id: &'a str,
    pub email: &'a str,
    pub name: &'a str,
    pub amount: u64,
    pub currency: &'a str,
    /// `online`, `cash`, `card_at_desk` or `comp`.
    pub channel: &'a str,
    pub comp_reason: Option<&'a str>,
    /// What the exchanged order's payment pays of `amount` (0 for none).
    pub credit: u64,
    /// The order whose tickets this one was exchanged for.
    pub exchanged_from: Option<&'a str>,
    /// The discount code its hold had.
    pub discount_code: Option<&'a str>,
}

pub async fn insert_pending(db: &D1Database, order: &NewOrder<'_>, now_ms: u64) -> Result<()> {
    db.prepare(
        "INSERT INTO orders (id, showing_id, email, name, amount, currency, status, \
         created_at_ms, updated_at_ms, channel, comp_reason, credit, exchanged_from, discount_code) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?7, ?8, ?9, ?10, ?11, ?12) \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(&[
        order.id.into(),
        order.showing_id.into(),
        order.email.into(),
        order.name.into(),
        num(order.amount),
        order.currency.into(),
        num(now_ms),
        order.channel.into(),
        order
            .comp_reason
            .map(JsValue::from)
            .unwrap_or(JsValue::NULL),
        num(order.credit),
        order
            .exchanged_from
            .map(JsValue::from)
            .unwrap_or(JsValue::NULL),
        order
            .discount_code
            .map(JsValue::from)
            .unwrap_or(JsValue::NULL),
    ])?
    .run()
    .await?;
    Ok(())
}

#[derive(Deserialize)]
struct LiveTicket {
    seat: String,
    order_id: String,
}

async fn live_tickets(
    db: &D1Database,
    showing_id: &str,
    seats: &[String],
) -> Result<Vec<LiveTicket>> {
    let marks = vec!["?"; seats.len()].join(", ");
    let mut args: Vec<JsValue> = vec![showing_id.into()];
    args.extend(seats.iter().map(|s| JsValue::from(s.as_str())));
    db.prepare(format!(
        "SELECT seat, order_id FROM tickets WHERE showing_id = ? AND status <> 'void' \
         AND seat IN ({marks})"
    ))
    .bind(&args)?
    .all()
    .await?
    .results()
}

/// An order as WriteOrder writes it: its payment, its exchange's credit,
/// and the seats it gets tickets for.
pub struct OrderTickets<'a> {
    pub order_id: &'a str,
    pub showing_id: &'a str,
    pub seats: &'a [String],
    pub prices: &'a [checkout::SeatPrice],
    /// "" for an order with nothing charged through Square.
    pub payment_id: &'a str,
    /// Written again here, so the order row has them even if the pending
    /// row's record was lost.
    pub credit: u64,
    pub exchanged_from: Option<&'a str>,
    pub tax_name: &'a str,
    pub tax_inclusive: bool,
}

/// The order's payment and one pending ticket per seat, in one batch. The
/// unique index on live tickets refuses a seat that has one already; that
/// is reported as a conflict naming the seats, not as an error.
pub async fn write_order(
    db: &D1Database,
    order: &OrderTickets<'_>,
    now_ms: u64,
) -> Result<Written> {
    let OrderTickets {
        order_id,
        showing_id,
        seats,
        prices,
        payment_id,
        credit,
        exchanged_from,
        tax_name,
        tax_inclusive,
    } = *order;
    let classify = |found: Vec<LiveTicket>| {
        let others: Vec<String> = found
            .into_iter()
            .filter(|t| t.order_id != order_id)
            .map(|t| t.seat)
            .collect();
        if others.is_empty() {
            None
        } else {
            Some(Written::Conflict(others))
        }
    };
    if let Some(conflict) = classify(live_tickets(db, showing_id, seats).await?) {
        return Ok(conflict);
    }
    let mut batch: Vec<D1PreparedStatement> = vec![db
        .prepare(
            "UPDATE orders SET payment_id = NULLIF(?1, ''), updated_at_ms = ?2, \
             credit = ?4, exchanged_from = ?5, tax_name = ?6, tax_inclusive = ?7 \
             WHERE id = ?3 AND status = 'pending'",
        )
        .bind(&[
            payment_id.into(),
            num(now_ms),
            order_id.into(),
            num(credit),
            exchanged_from.map(JsValue::from).unwrap_or(JsValue::NULL),
            tax_name.into(),
            num(u64::from(tax_inclusive)),
        ])?];
    for (index, seat) in seats.iter().enumerate() {
        // What the seat was sold at (unknown for an order made before
        // seats had prices: it then cost an equal share).
        let price = prices.iter().find(|p| &p.seat == seat);
        let text = |f: fn(&checkout::SeatPrice) -> &str| {
            price.map(|p| JsValue::from(f(p))).unwrap_or(JsValue::NULL)
        };
        // A ticket id already present (this write repeated, or the order
        // voided since) is left as it is: the order's tickets never come back.
        batch.push(
            db.prepare(
                "INSERT INTO tickets (id, order_id, showing_id, seat, status, created_at_ms, \
                 price_category, price_name, price_amount, price_tax, price_tax_rate_bps, \
                 price_discount) \
                 VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8, ?9, ?10, ?11) \
                 ON CONFLICT (id) DO NOTHING",
            )
            .bind(&[
                ticket_id(order_id, index).into(),
                order_id.into(),
                showing_id.into(),
                seat.as_str().into(),
                num(now_ms),
                text(|p| &p.category),
                text(|p| &p.name),
                price.map(|p| num(p.amount_minor)).unwrap_or(JsValue::NULL),
                price.map(|p| num(p.tax_minor)).unwrap_or(JsValue::NULL),
                price
                    .map(|p| num(u64::from(p.tax_rate_bps)))
                    .unwrap_or(JsValue::NULL),
                price
                    .map(|p| num(p.discount_minor))
                    .unwrap_or(JsValue::NULL),
            ])?,
        );
    }
    match db.batch(batch).await {
        Ok(_) => Ok(Written::Written),
        Err(e) if e.to_string().contains("UNIQUE constraint failed") => {
            // Another order's ticket landed between the check and the batch.
            let found = live_tickets(db, showing_id, seats).await?;
            Ok(classify(found).unwrap_or(Written::Conflict(seats.to_vec())))
        }
        Err(e) => Err(e),
    }
}

/// A free order has no payment: its `payment_id` ("") is stored as NULL.
pub async fn mark_paid(
    db: &D1Database,
    order_id: &str,
    payment_id: &str,
    now_ms: u64,
) -> Result<()> {
    db.batch(vec![
        db.prepare(
            "UPDATE orders SET status = 'paid', payment_id = NULLIF(?1, ''), status_detail = NULL, \
             updated_at_ms = ?2 WHERE id = ?3",
        )
        .bind(&[payment_id.into(), num(now_ms), order_id.into()])?,
        db.prepare(
            "UPDATE tickets SET status = 'valid' WHERE order_id = ?1 AND status = 'pending'",
        )
        .bind(&[order_id.into()])?,
        // The buyer's tickets mail, queued with the paid order itself.
        super::mail::queue_tickets(db, order_id, now_ms)?,
    ])
    .await?;
    Ok(())
}

pub async fn void_tickets(db: &D1Database, order_id: &str, now_ms: u64) -> Result<()> {
    db.prepare(
        "UPDATE tickets SET status = 'void', voided_at_ms = ?1 WHERE order_id = ?2 AND status <> 'void'",
    )
    .bind(&[num(now_ms), order_id.into()])?
    .run()
    .await?;
    Ok(())
}

/// The order's final status. An order that ends without tickets after its
/// buyer was answered pending gets its buyer's message in the same batch.
pub async fn record_final(
    db: &D1Database,
    order_id: &str,
    status: &str,
    detail: Option<&str>,
    payment_id: Option<&str>,
    now_ms: u64,
) -> Result<()> {
    db.batch(vec![
        db.prepare(
            "UPDATE orders SET status = ?1, status_detail = ?2, \
             payment_id = COALESCE(?3, payment_id), updated_at_ms = ?4 WHERE id = ?5",
        )
        .bind(&[
            status.into(),
            detail.map(JsValue::from).unwrap_or(JsValue::NULL),
            payment_id.map(JsValue::from).unwrap_or(JsValue::NULL),
            num(now_ms),
            order_id.into(),
        ])?,
        super::mail::queue_unpaid_outcome(db, order_id, now_ms)?,
    ])
    .await?;
    Ok(())
}

/// Notes that the buyer's checkout was answered pending: they were told
/// to wait and may leave, so an outcome without tickets is mailed to them.
/// If the outcome was recorded meanwhile, its message is queued here
/// instead. Answers whether a message was queued (to send it now).
pub async fn answered_pending(db: &D1Database, order_id: &str, now_ms: u64) -> Result<bool> {
    let results = db
        .batch(vec![
            db.prepare(
                "UPDATE orders SET answered_pending_at_ms = COALESCE(answered_pending_at_ms, ?1) \
                 WHERE id = ?2",
            )
            .bind(&[num(now_ms), order_id.into()])?,
            super::mail::queue_unpaid_outcome(db, order_id, now_ms)?,
        ])
        .await?;
    let queued = results
        .last()
        .map(|r| r.meta().ok().flatten().and_then(|m| m.changes).unwrap_or(0))
        .unwrap_or(0);
    Ok(queued == 1)
}

pub async fn audit(
    db: &D1Database,
    order_id: &str,
    at_ms: u64,
    from: &str,
    to: &str,
    detail: &str,
) -> Result<()> {
    db.prepare(
        "INSERT INTO order_events (order_id, at_ms, from_state, to_state, detail) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )
    .bind(&[
        order_id.into(),
        num(at_ms),
        from.into(),
        to.into(),
        detail.into(),
    ])?
    .run()
    .await?;
    Ok(())
}

/// An order as its buyer (with its link) or staff see it.
#[derive(Debug, Serialize, Deserialize)]
pub struct OrderRow {
    pub id: String,
    pub showing_id: String,
    pub email: String,
    pub name: String,
    pub amount: f64,
    pub currency: String,
    pub status: String,
    pub status_detail: Option<String>,
    pub payment_id: Option<String>,
    pub created_at_ms: f64,
    pub updated_at_ms: f64,
    /// `online`, or how the box office took it.
    pub channel: String,
    /// The card's brand and last four digits, once its webhook came.
    pub card_brand: Option<String>,
    pub card_last4: Option<String>,
    /// What the order it was exchanged from paid of `amount`.
    #[serde(default)]
    pub credit: f64,
    /// What its receipt calls the tax, and whether its prices include it
    /// (D1 answers 0 or 1).
    #[serde(default)]
    pub tax_name: String,
    #[serde(default = "yes", deserialize_with = "flag")]
    pub tax_inclusive: bool,
    /// The discount code its hold had, if any.
    #[serde(default)]
    pub discount_code: Option<String>,
}

fn yes() -> bool {
    true
}

impl OrderRow {
    /// Its tax as recorded: over the tickets it sold, not the copies
    /// staff made moving one to another seat.
    pub fn tax_line(&self, tickets: &[TicketRow]) -> checkout::TaxLine {
        let whole = |n: Option<f64>| n.map_or(0, |n| n as u64);
        let sold = tickets.iter().filter(|t| t.moved_from.is_none());
        let seats = sold.map(|t| (whole(t.price_tax_rate_bps) as u32, whole(t.price_tax)));
        checkout::TaxLine::of(&self.tax_name, self.tax_inclusive, seats)
    }

    /// What its discount code took off the tickets it sold, if it had one.
    pub fn discount(&self, tickets: &[TicketRow]) -> Option<(&str, u64)> {
        let code = self.discount_code.as_deref()?;
        let sold = tickets.iter().filter(|t| t.moved_from.is_none());
        let amount = sold.map(|t| t.price_discount.map_or(0, |n| n as u64)).sum();
        Some((code, amount))
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub struct TicketRow {
    pub id: String,
    pub seat: String,
    pub status: String,
    pub checked_in_at_ms: Option<f64>,
    /// The price category's name and amount it was sold at (`None` for a
    /// ticket sold before tickets had their own prices).
    pub price_name: Option<String>,
    #[serde(serialize_with = "whole_number")]
    pub price_amount: Option<f64>,
    /// The tax within `price_amount` and its rate (`None` for a ticket sold
    /// before tax).
    #[serde(
        rename(serialize = "tax", deserialize = "price_tax"),
        default,
        serialize_with = "whole_number"
    )]
    pub price_tax: Option<f64>,
    #[serde(
        rename(serialize = "tax_rate_bps", deserialize = "price_tax_rate_bps"),
        default,
        serialize_with = "whole_number"
    )]
    pub price_tax_rate_bps: Option<f64>,
    /// What a discount code took off its listed price, before tax.
    #[serde(
        rename(serialize = "discount", deserialize = "price_discount"),
        default,
        serialize_with = "whole_number",
        skip_serializing_if = "Option::is_none"
    )]
    pub price_discount: Option<f64>,
    /// The ticket it replaced, for one staff moved here: its price is the
    /// first one's, not a second sale.
    #[serde(default, skip_serializing)]
    pub moved_from: Option<String>,
    /// For a ticket staff moved (void since), the seat of its replacement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to_seat: Option<String>,
    /// Void because it was exchanged for a ticket of another showing
    /// (D1 answers 0 or 1).
    #[serde(default, deserialize_with = "flag", skip_serializing_if = "is_false")]
    pub exchanged: bool,
}

fn flag<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
    Ok(f64::deserialize(d)? != 0.0)
}

fn is_false(b: &bool) -> bool {
    !b
}

/// Money read back from D1 (a JSON number, so f64) is written out as the
/// integer it is: `800`, never `800.0`.
pub(super) fn whole_number<S: serde::Serializer>(
    value: &Option<f64>,
    out: S,
) -> std::result::Result<S::Ok, S::Error> {
    match value {
        Some(n) => out.serialize_u64(*n as u64),
        None => out.serialize_none(),
    }
}

/// Records the card an order was paid with, from its payment's webhook. An
/// order whose payment is known to be another is left alone.
pub async fn note_card(
    db: &D1Database,
    order_id: &str,
    payment_id: &str,
    card: &crate::webhook::CardShown,
) -> Result<()> {
    db.prepare(
        "UPDATE orders SET card_brand = ?3, card_last4 = ?4 \
         WHERE id = ?1 AND (payment_id IS NULL OR payment_id = ?2)",
    )
    .bind(&[
        order_id.into(),
        payment_id.into(),
        card.brand.as_str().into(),
        card.last4.as_str().into(),
    ])?
    .run()
    .await?;
    Ok(())
}

pub async fn get_order(db: &D1Database, order_id: &str) -> Result<Option<OrderRow>> {
    db.prepare(
        "SELECT id, showing_id, email, name, amount, currency, status, status_detail, \
         payment_id, created_at_ms, updated_at_ms, channel, card_brand, card_last4, credit, \
         tax_name, tax_inclusive, discount_code FROM orders WHERE id = ?1",
    )
    .bind(&[order_id.into()])?
    .first(None)
    .await
}

pub async fn tickets_of(db: &D1Database, order_id: &str) -> Result<Vec<TicketRow>> {
    db.prepare(
        "SELECT t.id, t.seat, t.status, t.checked_in_at_ms, t.price_name, t.price_amount, \
         t.price_tax, t.price_tax_rate_bps, t.price_discount, t.moved_from, (SELECT n.seat FROM tickets n WHERE n.id = t.moved_to) AS moved_to_seat, \
         EXISTS (SELECT 1 FROM refunds r, json_each(r.ticket_ids) j WHERE r.order_id = t.order_id \
           AND r.exchange_to IS NOT NULL AND r.status = 'COMPLETED' AND j.value = t.id) \
           AS exchanged \
         FROM tickets t WHERE t.order_id = ?1 ORDER BY t.id",
    )
    .bind(&[order_id.into()])?
    .all()
    .await?
    .results()
}

/// Showings with orders still pending since before `before_ms`: where the
/// recovery sweep should look.
pub async fn showings_with_stale_orders(db: &D1Database, before_ms: u64) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Row {
        showing_id: String,
    }
    let rows: Vec<Row> = db
        .prepare(format!(
            "SELECT DISTINCT showing_id FROM orders WHERE status = 'pending' \
             AND updated_at_ms < ?1 LIMIT {LIST_LIMIT}"
        ))
        .bind(&[num(before_ms)])?
        .all()
        .await?
        .results()?;
    Ok(rows.into_iter().map(|r| r.showing_id).collect())
}

/// Stores a verified webhook delivery in the inbox. Answers `true` the
/// first time its event id is seen; a repeat changes nothing.
pub async fn webhook_received(
    db: &D1Database,
    event_id: &str,
    kind: &str,
    body: &str,
    now_ms: u64,
) -> Result<bool> {
    let result = db
        .prepare(
            "INSERT INTO webhook_events (event_id, type, received_at_ms, body) \
             VALUES (?1, ?2, ?3, ?4) ON CONFLICT (event_id) DO NOTHING",
        )
        .bind(&[event_id.into(), kind.into(), num(now_ms), body.into()])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) == 1)
}

/// A stored webhook event not yet handled: its body.
pub async fn webhook_unhandled_body(db: &D1Database, event_id: &str) -> Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        body: Option<String>,
    }
    let row: Option<Row> = db
        .prepare("SELECT body FROM webhook_events WHERE event_id = ?1 AND handled_at_ms IS NULL")
        .bind(&[event_id.into()])?
        .first(None)
        .await?;
    Ok(row.and_then(|r| r.body))
}

/// The event was handled: it leaves the inbox, and its body is dropped.
pub async fn webhook_handled(db: &D1Database, event_id: &str, now_ms: u64) -> Result<()> {
    db.prepare(
        "UPDATE webhook_events SET handled_at_ms = ?1, body = NULL, last_error = NULL \
         WHERE event_id = ?2",
    )
    .bind(&[num(now_ms), event_id.into()])?
    .run()
    .await?;
    Ok(())
}

/// Handling the event failed this time; the sweep tries again.
pub async fn webhook_failed(db: &D1Database, event_id: &str, error: &str) -> Result<()> {
    let error: String = error.chars().take(300).collect();
    db.prepare("UPDATE webhook_events SET tries = tries + 1, last_error = ?1 WHERE event_id = ?2")
        .bind(&[error.into(), event_id.into()])?
        .run()
        .await?;
    Ok(())
}

/// Events received before `before_ms` and still not handled, oldest first.
pub async fn webhooks_unhandled(
    db: &D1Database,
    before_ms: u64,
    limit: u32,
) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Row {
        event_id: String,
    }
    let rows: Vec<Row> = db
        .prepare(
            "SELECT event_id FROM webhook_events WHERE handled_at_ms IS NULL \
             AND received_at_ms < ?1 ORDER BY received_at_ms LIMIT ?2",
        )
        .bind(&[num(before_ms), limit.into()])?
        .all()
        .await?
        .results()?;
    Ok(rows.into_iter().map(|r| r.event_id).collect())
}

/// What a door scan found.
#[derive(Debug, PartialEq)]
pub enum CheckIn {
    Admitted {
        at_ms: u64,
    },
    AlreadyCheckedIn {
        at_ms: u64,
    },
    Void,
    /// Staff moved the ticket to another seat: its replacement's.
    Moved {
        seat: String,
    },
    /// No such ticket for this showing, or not paid for.
    Unknown,
    /// This scan was already recorded from the device's queue, judged there
    /// (its online answer came too late), and that judgement stands.
    JudgedOnDevice,
}

/// Admits a ticket once: one conditional write, so two doors scanning the
/// same ticket at once admit it once. `scan_id` is the device's own id of
/// the scan: sent again (its answer lost), the scan that admitted the
/// ticket is answered `Admitted` again, and the same scan queued by the
/// device and synced later is recorded once.
pub async fn check_in(
    db: &D1Database,
    ticket_id: &str,
    showing_id: &str,
    device: &str,
    scan_id: Option<&str>,
    now_ms: u64,
) -> Result<CheckIn> {
    let args = [
        num(now_ms),
        device.into(),
        ticket_id.into(),
        showing_id.into(),
        scan_id.map_or(JsValue::NULL, JsValue::from),
    ];
    // A scan the device already sent in its queue (this request came late)
    // admits nothing more: the device's judgement of it stands, and an
    // admission here would have no row of its own.
    let admit = db
        .prepare(
            "UPDATE tickets SET checked_in_at_ms = ?1, checked_in_by = ?2, \
             checked_in_scan = COALESCE(?5, 'online-' || id) WHERE id = ?3 \
             AND showing_id = ?4 AND status = 'valid' AND checked_in_at_ms IS NULL \
             AND NOT EXISTS (SELECT 1 FROM door_scans WHERE showing_id = ?4 AND device = ?2 \
             AND scan_id = ?5)",
        )
        .bind(&args)?;
    // The admission is kept among the door's scans too (in the same
    // transaction, and only if it was made), so that should an offline
    // device's earlier admission of the ticket come in later, this one is
    // listed as the conflict.
    let record = db
        .prepare(
            "INSERT INTO door_scans (device, scan_id, showing_id, ticket_id, scanned_at_ms, \
             received_at_ms, device_result, offline) \
             SELECT ?2, COALESCE(?5, 'online-' || id), ?4, id, ?1, ?1, 'admitted', 0 \
             FROM tickets WHERE id = ?3 AND showing_id = ?4 AND checked_in_by = ?2 \
             AND checked_in_at_ms = ?1 ON CONFLICT (showing_id, device, scan_id) DO NOTHING",
        )
        .bind(&args)?;
    let results = db.batch(vec![admit, record]).await?;
    let changed = results
        .first()
        .and_then(|r| r.meta().ok().flatten())
        .and_then(|m| m.changes)
        .unwrap_or(0);
    if changed == 1 {
        return Ok(CheckIn::Admitted { at_ms: now_ms });
    }
    #[derive(Deserialize)]
    struct Row {
        status: String,
        checked_in_at_ms: Option<f64>,
        /// The seat of the ticket that replaced it, if staff moved it.
        moved_to_seat: Option<String>,
        /// When this very scan admitted the ticket, if it did and its
        /// admission stands.
        this_scan_at_ms: Option<f64>,
        /// Whether this scan is recorded at all (from the device's queue).
        this_scan_recorded: f64,
    }
    let row: Option<Row> = db
        .prepare(
            "SELECT t.status, t.checked_in_at_ms, \
             (SELECT n.seat FROM tickets n WHERE n.id = t.moved_to) AS moved_to_seat, \
             (SELECT s.scanned_at_ms FROM door_scans s WHERE s.showing_id = ?2 \
             AND s.device = ?3 AND s.scan_id = ?4 \
             AND s.ticket_id = t.id AND s.device_result = 'admitted' \
             AND t.checked_in_by = s.device AND t.checked_in_scan = s.scan_id) \
             AS this_scan_at_ms, \
             EXISTS (SELECT 1 FROM door_scans s WHERE s.showing_id = ?2 AND s.device = ?3 \
             AND s.scan_id = ?4) AS this_scan_recorded \
             FROM tickets t WHERE t.id = ?1 AND t.showing_id = ?2",
        )
        .bind(&[
            ticket_id.into(),
            showing_id.into(),
            device.into(),
            args[4].clone(),
        ])?
        .first(None)
        .await?;
    Ok(match row {
        Some(Row {
            moved_to_seat: Some(seat),
            ..
        }) => CheckIn::Moved { seat },
        Some(row) if row.status == "void" => CheckIn::Void,
        Some(Row {
            this_scan_at_ms: Some(at),
            ..
        }) => CheckIn::Admitted { at_ms: at as u64 },
        Some(row) if row.this_scan_recorded != 0.0 => CheckIn::JudgedOnDevice,
        Some(Row {
            checked_in_at_ms: Some(at),
            ..
        }) => CheckIn::AlreadyCheckedIn { at_ms: at as u64 },
        _ => CheckIn::Unknown,
    })
}

/// A ticket as a door device keeps it, to check codes with no network.
#[derive(Deserialize, serde::Serialize)]
pub struct DoorTicket {
    pub id: String,
    pub seat: String,
    /// valid | void
    pub status: String,
    /// For a void ticket staff moved to another seat, that seat (the
    /// replacement is listed too): a device refuses the old code as moved,
    /// and a page from before moves refuses it as void.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved_to_seat: Option<String>,
    /// The price category's name, when the ticket has one.
    pub category: Option<String>,
    #[serde(serialize_with = "whole_number")]
    pub checked_in_at_ms: Option<f64>,
    /// The door device that admitted it.
    pub checked_in_by: Option<String>,
    /// The buyer's name, so that door staff can find the ticket of someone
    /// whose phone will not show it. Never the e-mail: a device keeps this
    /// list, and an address is found online only, asked exactly.
    pub name: Option<String>,
    /// The number printed under the ticket's QR code, so that a device
    /// finds a typed one without knowing how it is made. Not a column:
    /// the manifest fills it in.
    #[serde(default)]
    pub short_code: Option<String>,
}

/// A showing's paid and void tickets, at most `limit`, by id. Tickets of
/// orders still paying are left out: they admit no one yet.
pub async fn door_tickets(
    db: &D1Database,
    showing_id: &str,
    limit: u32,
) -> Result<Vec<DoorTicket>> {
    db.prepare(
        "SELECT t.id, t.seat, t.status, t.price_name AS category, t.checked_in_at_ms, \
           t.checked_in_by, o.name, (SELECT n.seat FROM tickets n WHERE n.id = t.moved_to) \
           AS moved_to_seat \
         FROM tickets t JOIN orders o ON o.id = t.order_id \
         WHERE t.showing_id = ?1 AND t.status IN ('valid', 'void') ORDER BY t.id LIMIT ?2",
    )
    .bind(&[showing_id.into(), limit.into()])?
    .all()
    .await?
    .results()
}

/// An order's refunds as its buyer sees them: amount, Square's state and
/// when, oldest first.
pub async fn buyer_refunds(db: &D1Database, order_id: &str) -> Result<Vec<serde_json::Value>> {
    db.prepare(
        "SELECT amount, status, created_at_ms, updated_at_ms FROM refunds \
         WHERE order_id = ?1 AND exchange_to IS NULL ORDER BY created_at_ms",
    )
    .bind(&[order_id.into()])?
    .all()
    .await?
    .results()
}

/// Most tickets a typed code's range is read for: more than a few means
/// the digits typed are shared far beyond chance, so none is picked.
const TYPED_CANDIDATES: u32 = 16;

/// The ids and seats of a showing's tickets from `from` up to (not
/// including) `to`: a range of the primary key, for a ticket number typed
/// at the door.
pub async fn tickets_in_range(
    db: &D1Database,
    showing_id: &str,
    from: &str,
    to: &str,
) -> Result<Vec<(String, String)>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
        seat: String,
    }
    let rows: Vec<Row> = db
        .prepare(
            "SELECT id, seat FROM tickets WHERE id >= ?1 AND id < ?2 AND showing_id = ?3 \
             ORDER BY id LIMIT ?4",
        )
        .bind(&[
            from.into(),
            to.into(),
            showing_id.into(),
            TYPED_CANDIDATES.into(),
        ])?
        .all()
        .await?
        .results()?;
    Ok(rows.into_iter().map(|r| (r.id, r.seat)).collect())
}

/// Admitted and sold tickets of a showing, for the door's running count.
pub async fn door_counts(db: &D1Database, showing_id: &str) -> Result<(u64, u64)> {
    #[derive(Deserialize)]
    struct Row {
        admitted: f64,
        sold: f64,
    }
    let row: Option<Row> = db
        .prepare(
            "SELECT COUNT(checked_in_at_ms) AS admitted, COUNT(*) AS sold FROM tickets \
             WHERE showing_id = ?1 AND status = 'valid'",
        )
        .bind(&[showing_id.into()])?
        .first(None)
        .await?;
    Ok(row
        .map(|r| (r.admitted as u64, r.sold as u64))
        .unwrap_or((0, 0)))
}
