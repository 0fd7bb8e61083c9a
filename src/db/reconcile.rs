//! What a showing's reconciliation reads of D1 (its live tickets and its
//! orders), the ticket it writes back, and the runs and findings it keeps.

use desk::reconcile::{Finding, LiveTicket, OrderRecord};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use super::{num, optional_text, rows};

/// Most orders and tickets one showing's reconciliation reads: far above
/// any room, and a showing past it is reconciled in part, saying so.
pub const ROW_LIMIT: usize = 5_000;

#[derive(Deserialize)]
struct TicketRow {
    id: String,
    order_id: String,
    seat: String,
    status: String,
}

#[derive(Deserialize)]
struct OrderRow {
    id: String,
    status: String,
    payment_id: Option<String>,
    amount: f64,
    tickets_amount: f64,
}

pub async fn live_tickets(db: &D1Database, showing_id: &str) -> Result<Vec<LiveTicket>> {
    let sql = format!(
        "SELECT id, order_id, seat, status FROM tickets \
         WHERE showing_id = ?1 AND status IN ('valid', 'pending') ORDER BY id LIMIT {ROW_LIMIT}"
    );
    let found: Vec<TicketRow> = rows(db, &sql, &[showing_id.into()]).await?;
    Ok(found
        .into_iter()
        .map(|r| LiveTicket {
            id: r.id,
            order_id: r.order_id,
            seat: r.seat,
            status: r.status,
        })
        .collect())
}

pub async fn orders(db: &D1Database, showing_id: &str) -> Result<Vec<OrderRecord>> {
    let sql = format!(
        "SELECT o.id, o.status, o.payment_id, o.amount, \
           COALESCE((SELECT SUM(t.price_amount) FROM tickets t WHERE t.order_id = o.id), 0) \
             AS tickets_amount \
         FROM orders o WHERE o.showing_id = ?1 ORDER BY o.id LIMIT {ROW_LIMIT}"
    );
    let found: Vec<OrderRow> = rows(db, &sql, &[showing_id.into()]).await?;
    Ok(found
        .into_iter()
        .map(|r| OrderRecord {
            id: r.id,
            status: r.status,
            payment_id: r.payment_id,
            amount: r.amount as u64,
            tickets_amount: r.tickets_amount as u64,
        })
        .collect())
}

/// A ticket written back: the order's ticket of that place, valid. The
/// unique index on live seats refuses it if another live ticket holds the
/// seat, and a ticket row that exists (void, say) is left as it is.
pub struct Restored<'a> {
    pub ticket_id: &'a str,
    pub order_id: &'a str,
    pub showing_id: &'a str,
    pub seat: &'a str,
    pub price: Option<&'a checkout::SeatPrice>,
    pub amount: Option<u64>,
}

/// True if the ticket was written.
pub async fn restore_ticket(db: &D1Database, t: &Restored<'_>, now_ms: u64) -> Result<bool> {
    let text = |f: fn(&checkout::SeatPrice) -> &str| {
        t.price
            .map(|p| JsValue::from(f(p)))
            .unwrap_or(JsValue::NULL)
    };
    let amount = t.price.map(|p| p.amount_minor).or(t.amount);
    let result = db
        .prepare(
            "INSERT INTO tickets (id, order_id, showing_id, seat, status, created_at_ms, \
             price_category, price_name, price_amount, price_tax, price_tax_rate_bps) \
             VALUES (?1, ?2, ?3, ?4, 'valid', ?5, ?6, ?7, ?8, ?9, ?10) \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(&[
            t.ticket_id.into(),
            t.order_id.into(),
            t.showing_id.into(),
            t.seat.into(),
            num(now_ms),
            text(|p| &p.category),
            text(|p| &p.name),
            amount.map(num).unwrap_or(JsValue::NULL),
            t.price.map(|p| num(p.tax_minor)).unwrap_or(JsValue::NULL),
            t.price
                .map(|p| num(u64::from(p.tax_rate_bps)))
                .unwrap_or(JsValue::NULL),
        ])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) > 0)
}

/// Keeps a run and its findings: a finding seen before keeps its first
/// sighting and what became of it.
pub async fn record(
    db: &D1Database,
    run_id: &str,
    showing_id: &str,
    trigger: &str,
    findings: &[(Finding, Option<u64>, Option<String>)],
    now_ms: u64,
) -> Result<()> {
    let fixed = findings.iter().filter(|(_, at, _)| at.is_some()).count() as u64;
    let mut batch = vec![db
        .prepare(
            "INSERT INTO reconciliations (id, showing_id, trigger, at_ms, findings, fixed) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .bind(&[
            run_id.into(),
            showing_id.into(),
            trigger.into(),
            num(now_ms),
            num(findings.len() as u64),
            num(fixed),
        ])?];
    for (finding, fixed_at, error) in findings {
        let fix = finding
            .fix
            .as_ref()
            .map(|f| serde_json::to_string(f).unwrap_or_default());
        batch.push(
            db.prepare(
                "INSERT INTO reconciliation_findings (showing_id, kind, subject, order_id, \
                 payment_id, object_says, d1_says, square_says, fix, fixed_at_ms, fix_error, \
                 found_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) \
                 ON CONFLICT (showing_id, kind, subject) DO NOTHING",
            )
            .bind(&[
                showing_id.into(),
                finding.kind.as_str().into(),
                finding.subject.as_str().into(),
                optional_text(&finding.order_id),
                optional_text(&finding.payment_id),
                finding.object.as_str().into(),
                finding.d1.as_str().into(),
                finding.square.as_str().into(),
                optional_text(&fix),
                fixed_at.map(num).unwrap_or(JsValue::NULL),
                optional_text(error),
                num(now_ms),
            ])?,
        );
    }
    db.batch(batch).await?;
    Ok(())
}

/// Staff dealt with a finding the reconciliation could not repair; false
/// if there is none such still open.
pub async fn mark_handled(
    db: &D1Database,
    showing_id: &str,
    kind: &str,
    subject: &str,
    note: &str,
    now_ms: u64,
) -> Result<bool> {
    let result = db
        .prepare(
            "UPDATE reconciliation_findings SET handled_at_ms = ?1, handled_note = ?2 \
             WHERE showing_id = ?3 AND kind = ?4 AND subject = ?5 \
               AND handled_at_ms IS NULL AND fixed_at_ms IS NULL",
        )
        .bind(&[
            num(now_ms),
            note.into(),
            showing_id.into(),
            kind.into(),
            subject.into(),
        ])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) > 0)
}

/// The showing's findings, newest first.
pub async fn findings(db: &D1Database, showing_id: &str) -> Result<Vec<Value>> {
    db.prepare(format!(
        "SELECT kind, subject, order_id, payment_id, object_says, d1_says, square_says, fix, \
           fixed_at_ms, fix_error, found_at_ms, handled_at_ms, handled_note \
         FROM reconciliation_findings WHERE showing_id = ?1 \
         ORDER BY found_at_ms DESC, kind, subject LIMIT {ROW_LIMIT}"
    ))
    .bind(&[showing_id.into()])?
    .all()
    .await?
    .results()
}

/// Showings starting by `until_ms` (and not yet started) that the cron
/// has not reconciled: each is reconciled once, from 2 h 15 min before.
pub async fn due(db: &D1Database, now_ms: u64, until_ms: u64, limit: u32) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Id {
        id: String,
    }
    let sql = format!(
        "SELECT s.id FROM showings s WHERE s.starts_at_ms > ?1 AND s.starts_at_ms <= ?2 \
           AND s.cancelled_at_ms IS NULL AND NOT EXISTS (SELECT 1 FROM reconciliations r \
             WHERE r.showing_id = s.id AND r.trigger = 'cron') \
         ORDER BY s.starts_at_ms LIMIT {limit}"
    );
    let found: Vec<Id> = rows(db, &sql, &[num(now_ms), num(until_ms)]).await?;
    Ok(found.into_iter().map(|r| r.id).collect())
}
