//! A ticket staff moved to another seat, in D1: the ticket as the move
//! reads it, and the move's one batch (the old ticket marked moved, its
//! replacement issued, the buyer's mail queued, the order's history). The
//! batch is written after the showing's object decided the move, and is
//! safe to repeat: each statement does nothing the second time.

use serde::Deserialize;
use worker::{D1Database, Result};

use super::num;

/// A ticket as a move reads it.
#[derive(Debug, Deserialize)]
pub struct MovableTicket {
    pub id: String,
    pub order_id: String,
    pub showing_id: String,
    pub seat: String,
    /// pending | valid | void
    pub status: String,
    pub checked_in_at_ms: Option<f64>,
    /// The ticket that replaced it, if it was moved, and that one's seat
    /// and status.
    pub moved_to: Option<String>,
    pub moved_to_seat: Option<String>,
    pub moved_to_status: Option<String>,
}

pub async fn ticket(db: &D1Database, ticket_id: &str) -> Result<Option<MovableTicket>> {
    db.prepare(
        "SELECT t.id, t.order_id, t.showing_id, t.seat, t.status, t.checked_in_at_ms, t.moved_to, \
         n.seat AS moved_to_seat, n.status AS moved_to_status \
         FROM tickets t LEFT JOIN tickets n ON n.id = t.moved_to WHERE t.id = ?1",
    )
    .bind(&[ticket_id.into()])?
    .first(None)
    .await
}

/// A moved ticket's replacement, as its mail shows it, with the seat it
/// was moved from.
#[derive(Debug, Deserialize)]
pub struct Replacement {
    pub id: String,
    pub seat: String,
    pub status: String,
    pub price_name: Option<String>,
    pub price_amount: Option<f64>,
    #[serde(default)]
    pub price_tax: Option<f64>,
    pub from_seat: Option<String>,
}

pub async fn replacement(db: &D1Database, ticket_id: &str) -> Result<Option<Replacement>> {
    db.prepare(
        "SELECT n.id, n.seat, n.status, n.price_name, n.price_amount, n.price_tax, \
         o.seat AS from_seat \
         FROM tickets n LEFT JOIN tickets o ON o.id = n.moved_from WHERE n.id = ?1",
    )
    .bind(&[ticket_id.into()])?
    .first(None)
    .await
}

/// Whether a refund not yet applied (asked of Square, or waiting its turn)
/// covers the ticket: its seat would be reopened by the refund, so the
/// ticket must not move first.
pub async fn refund_pending(db: &D1Database, order_id: &str, ticket_id: &str) -> Result<bool> {
    #[derive(Deserialize)]
    struct Row {
        pending: f64,
    }
    let row: Option<Row> = db
        .prepare(
            "SELECT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = ?1 \
             AND r.applied_at_ms IS NULL \
             AND r.status NOT IN ('REJECTED', 'FAILED', 'refused', 'superseded') \
             AND EXISTS (SELECT 1 FROM json_each(r.ticket_ids) WHERE value = ?2)) AS pending",
        )
        .bind(&[order_id.into(), ticket_id.into()])?
        .first(None)
        .await?;
    Ok(row.is_some_and(|r| r.pending != 0.0))
}

/// One move, as the showing's object decided it.
pub struct Move<'a> {
    pub order_id: &'a str,
    pub ticket_id: &'a str,
    pub from: &'a str,
    pub new_ticket_id: &'a str,
    pub to: &'a str,
}

/// The move in one batch, in this order: the old ticket is voided and
/// points at its replacement, so it no longer holds its seat in the
/// index of one live ticket per seat; then the replacement is issued live
/// on the new seat at the old one's price; then the buyer's mail and the
/// order's history. A failure anywhere leaves the old ticket valid on its
/// seat and nothing else written; repeated, it writes nothing twice.
pub async fn record(db: &D1Database, moved: &Move<'_>, now_ms: u64) -> Result<()> {
    let detail = format!(
        "seat {} moved to {} by staff: ticket {} replaced by {}",
        moved.from, moved.to, moved.ticket_id, moved.new_ticket_id
    );
    let batch = vec![
        db.prepare(
            "UPDATE tickets SET status = 'void', voided_at_ms = ?1, moved_to = ?2 \
             WHERE id = ?3 AND status = 'valid'",
        )
        .bind(&[
            num(now_ms),
            moved.new_ticket_id.into(),
            moved.ticket_id.into(),
        ])?,
        db.prepare(
            "INSERT INTO tickets (id, order_id, showing_id, seat, status, created_at_ms, \
             price_category, price_name, price_amount, price_tax, price_tax_rate_bps, moved_from) \
             SELECT ?1, order_id, showing_id, ?2, 'valid', ?3, price_category, price_name, \
             price_amount, price_tax, price_tax_rate_bps, id FROM tickets \
             WHERE id = ?4 AND moved_to = ?1 \
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(&[
            moved.new_ticket_id.into(),
            moved.to.into(),
            num(now_ms),
            moved.ticket_id.into(),
        ])?,
        super::mail::queue_moved(db, moved.new_ticket_id, moved.order_id, now_ms)?,
        db.prepare(
            "INSERT INTO order_events (order_id, at_ms, from_state, to_state, detail) \
             SELECT ?1, ?2, 'paid', 'paid', ?3 WHERE NOT EXISTS (SELECT 1 FROM order_events \
             WHERE order_id = ?1 AND detail = ?3)",
        )
        .bind(&[moved.order_id.into(), num(now_ms), detail.into()])?,
    ];
    db.batch(batch).await?;
    Ok(())
}
