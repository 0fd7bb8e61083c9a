//! What the admin pages read from D1: showings with their sales, the order
//! behind each seat, order search, the attention list and the ticket export.
//! Rows come back as JSON objects, because the pages only display them.
//! And what staff change there: a showing's edit, and its cancellation.

use serde_json::Value;
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use crate::showing::NewShowing;

/// Most rows one admin listing returns.
const LIST_LIMIT: u32 = 500;
/// Most tickets one CSV export holds: the largest venue's seats, with room
/// for refunded and re-sold ones.
pub const EXPORT_LIMIT: u32 = 100_000;

use super::num;

async fn all(db: &D1Database, sql: &str, params: &[JsValue]) -> Result<Vec<Value>> {
    db.prepare(sql).bind(params)?.all().await?.results()
}

/// Every showing with its sales so far: those yet to start first, soonest
/// first, then those that have started, latest first. `revenue` is what
/// was taken (online and at the box office, and credited from exchanged
/// tickets) less what was refunded or exchanged away, in the showing's
/// currency's minor units.
pub async fn showings(db: &D1Database, now_ms: u64) -> Result<Vec<Value>> {
    all(
        db,
        &format!(
            "SELECT s.id, s.title, s.starts_at_ms, s.price_amount, s.currency, s.seat_count, \
               s.max_seats_per_hold, s.hold_ttl_ms, s.door_pin_hash IS NOT NULL AS has_door_pin, \
               s.cancelled_at_ms, \
               (SELECT COUNT(*) FROM tickets t WHERE t.showing_id = s.id AND t.status = 'valid') AS sold, \
               (SELECT COUNT(*) FROM tickets t WHERE t.showing_id = s.id AND t.status = 'valid' \
                  AND t.checked_in_at_ms IS NOT NULL) AS admitted, \
               (SELECT COALESCE(SUM(o.amount), 0) FROM orders o WHERE o.showing_id = s.id \
                  AND o.status IN ('paid', 'refunded', 'needs_attention', 'exchanged') \
                  AND (o.payment_id IS NOT NULL OR o.credit > 0 \
                       OR o.channel IN ('cash', 'card_at_desk'))) \
               - (SELECT COALESCE(SUM(r.amount), 0) FROM refunds r JOIN orders o ON o.id = r.order_id \
                  WHERE o.showing_id = s.id AND r.status = 'COMPLETED') AS revenue \
             FROM showings s \
             ORDER BY s.starts_at_ms < ?1, \
               CASE WHEN s.starts_at_ms >= ?1 THEN s.starts_at_ms ELSE -s.starts_at_ms END, s.id \
             LIMIT {LIST_LIMIT}"
        ),
        &[num(now_ms)],
    )
    .await
}

/// The live (paying or valid) ticket on each seat, with its order.
pub async fn seat_owners(db: &D1Database, showing_id: &str) -> Result<Vec<Value>> {
    all(
        db,
        "SELECT t.seat, t.id AS ticket_id, t.status, t.checked_in_at_ms, o.id AS order_id, \
           o.email, o.name, o.status AS order_status \
         FROM tickets t JOIN orders o ON o.id = t.order_id \
         WHERE t.showing_id = ?1 AND t.status <> 'void'",
        &[showing_id.into()],
    )
    .await
}

/// Money and tickets of one showing: taken and refunded online (through
/// Square) and at the box office (cash, the cinema's card terminal), what
/// exchanges credited to it from other showings and moved out of it to
/// others, comps given, tickets issued for other channels from their
/// allocations (and what they were worth at the showing's prices, taken by
/// the channel, not here), tickets sold and admitted.
pub async fn totals(db: &D1Database, showing_id: &str) -> Result<Value> {
    let row = db
        .prepare(
            "SELECT \
               (SELECT COALESCE(SUM(amount - credit), 0) FROM orders WHERE showing_id = ?1 \
                  AND payment_id IS NOT NULL \
                  AND status IN ('paid', 'refunded', 'needs_attention', 'exchanged')) AS taken, \
               (SELECT COALESCE(SUM(r.amount), 0) FROM refunds r JOIN orders o ON o.id = r.order_id \
                  WHERE o.showing_id = ?1 AND r.status = 'COMPLETED' AND r.exchange_to IS NULL \
                  AND o.channel = 'online') AS refunded, \
               (SELECT COALESCE(SUM(credit), 0) FROM orders WHERE showing_id = ?1 \
                  AND status IN ('paid', 'refunded', 'needs_attention', 'exchanged')) AS exchanged_in, \
               (SELECT COALESCE(SUM(r.amount), 0) FROM refunds r JOIN orders o ON o.id = r.order_id \
                  WHERE o.showing_id = ?1 AND r.status = 'COMPLETED' \
                  AND r.exchange_to IS NOT NULL) AS exchanged_out, \
               (SELECT COALESCE(SUM(amount), 0) FROM orders WHERE showing_id = ?1 \
                  AND channel = 'cash' AND status IN ('paid', 'refunded')) AS desk_cash, \
               (SELECT COALESCE(SUM(amount), 0) FROM orders WHERE showing_id = ?1 \
                  AND channel = 'card_at_desk' AND status IN ('paid', 'refunded')) AS desk_card, \
               (SELECT COALESCE(SUM(r.amount), 0) FROM refunds r JOIN orders o ON o.id = r.order_id \
                  WHERE o.showing_id = ?1 AND r.status = 'COMPLETED' \
                  AND o.channel IN ('cash', 'card_at_desk')) AS desk_refunded, \
               (SELECT COUNT(*) FROM tickets t JOIN orders o ON o.id = t.order_id \
                  WHERE t.showing_id = ?1 AND t.status = 'valid' AND o.channel = 'online') AS sold_online, \
               (SELECT COUNT(*) FROM tickets t JOIN orders o ON o.id = t.order_id \
                  WHERE t.showing_id = ?1 AND t.status = 'valid' \
                  AND o.channel IN ('cash', 'card_at_desk')) AS sold_at_desk, \
               (SELECT COUNT(*) FROM tickets t JOIN orders o ON o.id = t.order_id \
                  WHERE t.showing_id = ?1 AND t.status = 'valid' AND o.channel = 'comp') AS comps, \
               (SELECT COUNT(*) FROM tickets t JOIN orders o ON o.id = t.order_id \
                  WHERE t.showing_id = ?1 AND t.status = 'valid' AND o.channel = 'channel') \
                  AS sold_by_channels, \
               (SELECT COALESCE(SUM(amount), 0) FROM orders WHERE showing_id = ?1 \
                  AND channel = 'channel' AND status IN ('paid', 'refunded')) AS channel_value, \
               (SELECT COUNT(*) FROM tickets WHERE showing_id = ?1 AND status = 'valid') AS sold, \
               (SELECT COUNT(*) FROM tickets WHERE showing_id = ?1 AND status = 'void' \
                  AND moved_to IS NULL) AS voided, \
               (SELECT COUNT(*) FROM tickets WHERE showing_id = ?1 AND status = 'valid' \
                  AND checked_in_at_ms IS NOT NULL) AS admitted, \
               (SELECT COUNT(*) FROM orders WHERE showing_id = ?1 AND status = 'paid') AS paid_orders",
        )
        .bind(&[showing_id.into()])?
        .first::<Value>(None)
        .await?;
    Ok(row.unwrap_or(Value::Null))
}

/// An order as the admin lists it, with its live seats.
const ORDER_COLUMNS: &str = "o.id, o.showing_id, o.email, o.name, o.amount, o.currency, o.status, \
     o.status_detail, o.created_at_ms, o.updated_at_ms, \
     (SELECT group_concat(seat, ' ') FROM (SELECT seat FROM tickets t \
        WHERE t.order_id = o.id AND t.status <> 'void' ORDER BY t.id)) AS seats";

/// What staff search orders by.
#[derive(Debug, Default)]
pub struct Search {
    /// One showing's orders, or every showing's.
    pub showing: Option<String>,
    /// Part of the buyer's e-mail address, in any case.
    pub email: Option<String>,
    /// Part of the buyer's address or name, in any case, or their order
    /// number as the receipt shows it ("35E61-BEF24") or any part of it.
    pub text: Option<String>,
}

/// What [`Search`] matches, on ?2 (e-mail), ?3 (text) and ?4 (order
/// digits). instr() rather than LIKE: an address may contain `_` or `%`.
const ORDER_MATCH: &str = "(?2 IS NULL OR instr(lower(o.email), lower(?2)) > 0) \
     AND (?3 IS NULL OR instr(lower(o.email), lower(?3)) > 0 \
          OR instr(lower(o.name), lower(?3)) > 0 \
          OR (?4 IS NOT NULL AND instr(o.id, ?4) > 0))";

/// Fewest hex digits a search must hold to be read as part of an order
/// number too: a shorter one, such as the name "Abbe", would match the
/// numbers of unrelated orders by chance.
const MIN_ORDER_DIGITS: usize = 5;

impl Search {
    /// The search text as part of an order id, if it can be one: an order
    /// number is hex digits, which receipts show upper-case in groups.
    fn order_digits(&self) -> Option<String> {
        let text = self.text.as_deref()?;
        let digits: String = text
            .chars()
            .filter(|c| !matches!(c, '-' | ' '))
            .collect::<String>()
            .to_ascii_lowercase();
        (digits.len() >= MIN_ORDER_DIGITS && digits.bytes().all(|b| b.is_ascii_hexdigit()))
            .then_some(digits)
    }
}

/// Orders, newest first, that match `search`, each with its seats. A
/// showing's orders are read through its index. Searching every showing
/// reads every order: it runs when staff search, never on a page's poll.
pub async fn orders(db: &D1Database, search: &Search) -> Result<Vec<Value>> {
    let bind = |v: Option<&str>| v.map(JsValue::from).unwrap_or(JsValue::NULL);
    let digits = search.order_digits();
    // ?1 is the showing, left unread when every showing is searched: one
    // numbering serves both queries.
    let params = [
        bind(search.showing.as_deref()),
        bind(search.email.as_deref()),
        bind(search.text.as_deref()),
        bind(digits.as_deref()),
    ];
    let sql = if search.showing.is_some() {
        format!(
            "SELECT {ORDER_COLUMNS} FROM orders o WHERE o.showing_id = ?1 AND {ORDER_MATCH} \
             ORDER BY o.created_at_ms DESC LIMIT {LIST_LIMIT}"
        )
    } else {
        format!(
            "SELECT {ORDER_COLUMNS} FROM orders o \
             /* whole read: staff searching every order */ \
             WHERE {ORDER_MATCH} ORDER BY o.created_at_ms DESC LIMIT {LIST_LIMIT}"
        )
    };
    all(db, &sql, &params).await
}

/// An order's tickets (void ones too), its audit trail and its refunds.
pub async fn order_detail(
    db: &D1Database,
    order_id: &str,
) -> Result<(Vec<Value>, Vec<Value>, Vec<Value>)> {
    let tickets = all(
        db,
        "SELECT t.id, t.seat, t.status, t.checked_in_at_ms, t.voided_at_ms, t.price_name, \
         t.price_amount, (SELECT n.seat FROM tickets n WHERE n.id = t.moved_to) AS moved_to_seat, \
         (SELECT p.seat FROM tickets p WHERE p.id = t.moved_from) AS moved_from_seat \
         FROM tickets t WHERE t.order_id = ?1 ORDER BY t.id",
        &[order_id.into()],
    )
    .await?;
    let events = all(
        db,
        "SELECT at_ms, from_state, to_state, detail FROM order_events WHERE order_id = ?1 ORDER BY id",
        &[order_id.into()],
    )
    .await?;
    let refunds = all(
        db,
        "SELECT id, square_refund_id, ticket_ids, amount, status, applied_at_ms, created_at_ms, \
         payment_id, exchange_to FROM refunds WHERE order_id = ?1 ORDER BY created_at_ms",
        &[order_id.into()],
    )
    .await?;
    Ok((tickets, events, refunds))
}

/// What needs a person, oldest first, with the time each began. `stale_ms`:
/// a payment still pending after this long has an unknown outcome.
pub async fn attention(db: &D1Database, now_ms: u64, stale_ms: u64) -> Result<Vec<Value>> {
    let recent_ms = 14 * 24 * 3600 * 1000;
    let orders = all(
        db,
        &format!(
            "SELECT 'payment_unknown' AS kind, o.id AS order_id, o.showing_id, o.email, o.amount, \
               o.currency, o.status_detail AS detail, o.updated_at_ms AS since_ms, NULL AS refund_id \
             FROM orders o WHERE o.status = 'pending' AND o.updated_at_ms < ?1 \
             UNION ALL \
             SELECT 'needs_attention', o.id, o.showing_id, o.email, o.amount, o.currency, \
               o.status_detail, o.updated_at_ms, NULL \
             FROM orders o WHERE o.status = 'needs_attention' AND o.handled_at_ms IS NULL \
             UNION ALL \
             SELECT 'paid_without_tickets', o.id, o.showing_id, o.email, o.amount, o.currency, \
               'paid, but no ticket was issued', o.updated_at_ms, NULL \
             FROM orders o WHERE o.status = 'paid' AND o.handled_at_ms IS NULL AND NOT EXISTS \
               (SELECT 1 FROM tickets t WHERE t.order_id = o.id AND t.status IN ('valid', 'void')) \
             UNION ALL \
             SELECT 'partial_refund', o.id, o.showing_id, o.email, r.amount, o.currency, \
               'a refund from the Square Dashboard: choose the tickets it covers', \
               r.created_at_ms, r.id \
             FROM refunds r JOIN orders o ON o.id = r.order_id WHERE r.ticket_ids IS NULL \
             UNION ALL \
             SELECT 'seat_lost', o.id, o.showing_id, o.email, o.amount, o.currency, \
               o.status_detail, o.updated_at_ms, NULL \
             FROM orders o WHERE o.status = 'seat_lost' AND o.updated_at_ms >= ?2 \
               AND o.handled_at_ms IS NULL \
             ORDER BY since_ms LIMIT {LIST_LIMIT}"
        ),
        &[
            num(now_ms.saturating_sub(stale_ms)),
            num(now_ms.saturating_sub(recent_ms)),
        ],
    )
    .await?;
    // D1 allows five terms in a compound SELECT, so messages that could not
    // be sent and refunds that did not happen are read on their own and
    // merged in by age. A failed refund leaves the list once a later refund
    // of its order goes through.
    let mail = all(
        db,
        &format!(
            "SELECT 'mail_failed' AS kind, o.id AS order_id, o.showing_id, m.to_addr AS email, \
               o.amount, o.currency, \
               m.kind || ' message: ' || COALESCE(m.last_error, 'not sent') AS detail, \
               m.updated_at_ms AS since_ms, NULL AS refund_id \
             FROM mail_outbox m JOIN orders o ON o.id = m.order_id \
             WHERE m.status = 'failed' AND m.handled_at_ms IS NULL \
             UNION ALL \
             SELECT 'refund_failed', o.id, o.showing_id, o.email, r.amount, o.currency, \
               COALESCE(r.failure, 'Square did not make the refund'), r.updated_at_ms, r.id \
             FROM refunds r JOIN orders o ON o.id = r.order_id \
             WHERE r.status IN ('refused', 'REJECTED', 'FAILED') AND r.handled_at_ms IS NULL \
               AND NOT EXISTS (SELECT 1 FROM refunds later WHERE later.order_id = r.order_id \
                 AND later.created_at_ms > r.created_at_ms \
                 AND later.status NOT IN ('refused', 'REJECTED', 'FAILED', 'superseded')) \
             ORDER BY since_ms LIMIT {LIST_LIMIT}"
        ),
        &[],
    )
    .await?;
    // What a showing's reconciliation found and could not repair.
    let differences = all(
        db,
        &format!(
            "SELECT 'reconciliation' AS kind, COALESCE(f.order_id, '') AS order_id, f.showing_id, \
               NULL AS email, NULL AS amount, NULL AS currency, \
               f.kind || ' ' || f.subject || '. Seats: ' || f.object_says || '; D1: ' || \
                 f.d1_says || '; Square: ' || f.square_says AS detail, \
               f.found_at_ms AS since_ms, NULL AS refund_id, f.kind AS finding_kind, \
               f.subject AS finding_subject \
             FROM reconciliation_findings f WHERE f.fixed_at_ms IS NULL AND f.handled_at_ms IS NULL \
             ORDER BY since_ms LIMIT {LIST_LIMIT}"
        ),
        &[],
    )
    .await?;
    let mut items = orders;
    items.extend(mail);
    items.extend(differences);
    items.sort_by(|a, b| {
        let since = |v: &Value| v["since_ms"].as_f64().unwrap_or_default();
        since(a).total_cmp(&since(b))
    });
    items.truncate(LIST_LIMIT as usize);
    Ok(items)
}

/// Every ticket of a showing with its order, in seat-then-time order.
pub async fn ticket_export(db: &D1Database, showing_id: &str) -> Result<Vec<Value>> {
    all(
        db,
        &format!(
            "SELECT t.id AS ticket_id, t.seat, t.price_name, t.price_amount, t.price_tax, \
               t.price_tax_rate_bps, o.currency, \
               CASE WHEN t.moved_to IS NULL THEN t.status ELSE 'moved' END AS status, \
               t.checked_in_at_ms, t.voided_at_ms, \
               o.id AS order_id, o.channel, o.comp_reason, o.name, o.email, o.status AS order_status, \
               o.created_at_ms \
             FROM tickets t JOIN orders o ON o.id = t.order_id \
             WHERE t.showing_id = ?1 ORDER BY t.seat, t.created_at_ms LIMIT {EXPORT_LIMIT}"
        ),
        &[showing_id.into()],
    )
    .await
}

/// Whether any order was ever made for the showing: its layout is then fixed.
pub async fn has_orders(db: &D1Database, showing_id: &str) -> Result<bool> {
    let row = db
        .prepare("SELECT 1 AS one FROM orders WHERE showing_id = ?1 LIMIT 1")
        .bind(&[showing_id.into()])?
        .first::<Value>(None)
        .await?;
    Ok(row.is_some())
}

/// Rewrites a showing's row after an edit.
pub async fn update_showing(
    db: &D1Database,
    id: &str,
    showing: &NewShowing,
    seat_count: usize,
) -> Result<bool> {
    let layout_json = serde_json::to_string(&showing.layout)?;
    let (keep_layout, version) = super::layout_row(db, &layout_json, crate::clock::now_ms())?;
    let update = db
        .prepare(
            "UPDATE showings SET title = ?1, starts_at_ms = ?2, price_amount = ?3, currency = ?4, \
             layout_json = ?5, seat_count = ?6, max_seats_per_hold = ?7, hold_ttl_ms = ?8, \
             sales_open_at_ms = ?10, sales_close_at_ms = ?11, door_close_at_ms = ?12, \
             prices_json = ?13, film_id = ?14, screen_id = ?15, windows_sent = 1, \
             layout_version = ?16, admit_per_minute = ?17 WHERE id = ?9",
        )
        .bind(&[
            showing.title.as_str().into(),
            JsValue::from(showing.starts_at_ms as f64),
            num(showing.price.amount),
            showing.price.currency.as_str().into(),
            layout_json.into(),
            num(seat_count as u64),
            num(u64::from(showing.max_seats_per_hold)),
            num(showing.hold_ttl_ms),
            id.into(),
            super::optional_ms(showing.windows.sales_open_at_ms),
            super::optional_ms(showing.windows.sales_close_at_ms),
            super::optional_ms(showing.windows.door_close_at_ms),
            serde_json::to_string(&showing.categories)?.into(),
            super::optional_text(&showing.film_id),
            super::optional_text(&showing.screen_id),
            version.into(),
            showing
                .admit_per_minute
                .map_or(JsValue::NULL, |n| JsValue::from(f64::from(n))),
        ])?;
    let results = db.batch(vec![keep_layout, update]).await?;
    let changed = results
        .get(1)
        .map(|r| r.meta())
        .transpose()?
        .flatten()
        .and_then(|m| m.changes);
    Ok(changed.unwrap_or(0) == 1)
}

/// After staff decided a partial refund, the order is back to paid unless
/// another refund still waits for a decision.
pub async fn settle_attention(db: &D1Database, order_id: &str, now_ms: u64) -> Result<()> {
    db.prepare(
        "UPDATE orders SET status = 'paid', status_detail = NULL, updated_at_ms = ?1 \
         WHERE id = ?2 AND status = 'needs_attention' AND status_detail LIKE 'partial refund %' \
         AND NOT EXISTS (SELECT 1 FROM refunds WHERE order_id = ?2 AND ticket_ids IS NULL)",
    )
    .bind(&[num(now_ms), order_id.into()])?
    .run()
    .await?;
    Ok(())
}

/// Marks an order handled by staff, once; answers whether it was marked now.
pub async fn mark_handled(
    db: &D1Database,
    order_id: &str,
    note: &str,
    now_ms: u64,
) -> Result<bool> {
    // Messages that could not be sent and refunds that did not happen
    // leave the list with their order.
    let results = db
        .batch(vec![
            db.prepare(
                "UPDATE orders SET handled_at_ms = ?1, handled_note = ?2 \
                 WHERE id = ?3 AND handled_at_ms IS NULL",
            )
            .bind(&[num(now_ms), note.into(), order_id.into()])?,
            db.prepare(
                "UPDATE mail_outbox SET handled_at_ms = ?1 WHERE order_id = ?2 \
                 AND status = 'failed' AND handled_at_ms IS NULL",
            )
            .bind(&[num(now_ms), order_id.into()])?,
            db.prepare(
                "UPDATE refunds SET handled_at_ms = ?1 WHERE order_id = ?2 \
                 AND status IN ('refused', 'REJECTED', 'FAILED') AND handled_at_ms IS NULL",
            )
            .bind(&[num(now_ms), order_id.into()])?,
        ])
        .await?;
    let mut changed = 0;
    for result in results {
        changed += result.meta()?.and_then(|m| m.changes).unwrap_or(0);
    }
    Ok(changed > 0)
}

/// Marks the showing cancelled (the first time only; a repeat keeps the
/// first time and reason) and, in the same batch, queues the cancellation
/// message of every order paid so far.
pub async fn cancel_showing(db: &D1Database, id: &str, reason: &str, now_ms: u64) -> Result<()> {
    let mark = db
        .prepare(
            "UPDATE showings SET cancelled_at_ms = COALESCE(cancelled_at_ms, ?1), \
             cancel_reason = COALESCE(cancel_reason, ?2) WHERE id = ?3",
        )
        .bind(&[JsValue::from(now_ms as f64), reason.into(), id.into()])?;
    let mails = super::mail::queue_cancelled_of_showing(db, id, now_ms)?;
    db.batch(vec![mark, mails]).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Search;

    fn digits(text: &str) -> Option<String> {
        Search {
            text: Some(text.into()),
            ..Search::default()
        }
        .order_digits()
    }

    #[test]
    fn an_order_number_is_read_as_receipts_show_it_or_in_part() {
        assert_eq!(digits("35E61-BEF24").as_deref(), Some("35e61bef24"));
        assert_eq!(digits("35e61 bef").as_deref(), Some("35e61bef"));
        assert_eq!(digits("beef1").as_deref(), Some("beef1"));
        // Too short to tell from a name, or not hex at all.
        assert_eq!(digits("Abbe"), None);
        assert_eq!(digits("Ana Lima"), None);
        assert_eq!(digits("ana@example.com"), None);
        assert_eq!(Search::default().order_digits(), None);
    }
}
