//! Door scans in D1: admissions, online and offline, and the conflicts
//! between them; and the door's tries per client network (PINs typed,
//! tickets looked up by e-mail). The first admission of a ticket recorded
//! is its check-in, set by one conditional write and never overwritten
//! (`tickets.checked_in_scan` names the scan), so an admission sent later,
//! whatever its date and whichever device sent it, is a conflict.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use super::num;
use crate::door_sync::{DeviceResult, ScanRow, TicketState};

/// Most conflicts listed: past this the list says it is cut.
pub const MAX_CONFLICTS: u32 = 500;

/// Records a device's synced scans (each once, however often it is sent,
/// online or in a batch) and lets their admissions take the check-in of
/// each ticket that has none yet (the earliest of the batch's admissions
/// of it), unless the showing is cancelled, in one transaction. Returns
/// the batch's scans as recorded: a scan whose id was recorded before
/// keeps what was recorded first.
pub async fn record_sync(
    db: &D1Database,
    showing_id: &str,
    device: &str,
    rows: &[ScanRow],
    received_ms: u64,
) -> Result<Vec<ScanRow>> {
    let rows = JsValue::from(serde_json::to_string(rows)?);
    // `WHERE true` lets SQLite read `ON CONFLICT` as the upsert clause.
    let record = db
        .prepare(
            "INSERT INTO door_scans (device, scan_id, showing_id, ticket_id, scanned_at_ms, \
             received_at_ms, device_result, offline) \
             SELECT ?1, json_extract(j.value, '$.id'), ?2, json_extract(j.value, '$.ticket_id'), \
             json_extract(j.value, '$.at_ms'), ?3, json_extract(j.value, '$.result'), 1 \
             FROM json_each(?4) AS j WHERE true ON CONFLICT (showing_id, device, scan_id) DO NOTHING",
        )
        .bind(&[
            device.into(),
            showing_id.into(),
            num(received_ms),
            rows.clone(),
        ])?;
    // The batch's scans as recorded, so a scan first recorded online (its
    // answer lost, then queued) admits at its online time, not again.
    const BATCH: &str = "FROM door_scans WHERE showing_id = ?2 AND device = ?1 \
        AND scan_id IN (SELECT json_extract(value, '$.id') FROM json_each(?3))";
    // SQLite takes a bare column of a `MIN()` query from the row that has
    // the minimum: the scan id is that of the earliest admission.
    let first = db
        .prepare(format!(
            "UPDATE tickets SET checked_in_at_ms = w.at_ms, checked_in_by = ?1, \
             checked_in_scan = w.scan_id \
             FROM (SELECT ticket_id, MIN(scanned_at_ms) AS at_ms, scan_id {BATCH} \
             AND device_result = 'admitted' AND ticket_id IS NOT NULL GROUP BY ticket_id) AS w \
             WHERE tickets.id = w.ticket_id AND tickets.showing_id = ?2 \
             AND tickets.status = 'valid' AND tickets.checked_in_at_ms IS NULL \
             AND NOT EXISTS (SELECT 1 FROM showings WHERE id = ?2 \
             AND cancelled_at_ms IS NOT NULL)"
        ))
        .bind(&[device.into(), showing_id.into(), rows.clone()])?;
    let recorded = db
        .prepare(format!(
            "SELECT scan_id AS id, ticket_id, scanned_at_ms AS at_ms, device_result AS result \
             {BATCH}"
        ))
        .bind(&[device.into(), showing_id.into(), rows])?;
    let results = db.batch(vec![record, first, recorded]).await?;
    #[derive(Deserialize)]
    struct Row {
        id: String,
        ticket_id: Option<String>,
        at_ms: f64,
        result: DeviceResult,
    }
    let recorded: Vec<Row> = match results.get(2) {
        Some(found) => found.results()?,
        None => Vec::new(),
    };
    Ok(recorded
        .into_iter()
        .map(|r| ScanRow {
            id: r.id,
            ticket_id: r.ticket_id,
            at_ms: r.at_ms as u64,
            result: r.result,
        })
        .collect())
}

/// The tickets the rows name, as they stand.
pub async fn tickets_named(
    db: &D1Database,
    showing_id: &str,
    rows: &[ScanRow],
) -> Result<Vec<TicketState>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
        seat: String,
        status: String,
        checked_in_at_ms: Option<f64>,
        checked_in_by: Option<String>,
        checked_in_scan: Option<String>,
    }
    let ids: Vec<&str> = rows.iter().filter_map(|r| r.ticket_id.as_deref()).collect();
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids = serde_json::to_string(&ids)?;
    let found: Vec<Row> = db
        .prepare(
            "SELECT id, seat, status, checked_in_at_ms, checked_in_by, checked_in_scan FROM tickets \
             WHERE showing_id = ?1 AND id IN (SELECT value FROM json_each(?2))",
        )
        .bind(&[showing_id.into(), ids.into()])?
        .all()
        .await?
        .results()?;
    Ok(found
        .into_iter()
        .map(|r| TicketState {
            id: r.id,
            seat: r.seat,
            status: r.status,
            checked_in_at_ms: r.checked_in_at_ms.map(|at| at as u64),
            checked_in_by: r.checked_in_by,
            checked_in_scan: r.checked_in_scan,
        })
        .collect())
}

/// An admission that does not stand: the ticket's check-in is another
/// scan's (recorded before this one came, from whichever device), the
/// ticket is void (refunded while the device was offline), or the showing
/// was cancelled. A scan whose online answer was lost and which was then
/// queued is one scan, so not one of these.
#[derive(Debug, Serialize)]
pub struct Conflict {
    pub ticket_id: String,
    pub seat: String,
    /// valid | void
    pub status: String,
    /// The seat a ticket staff moved went to: that is why it is void.
    pub moved_to_seat: Option<String>,
    pub device: String,
    pub scanned_at_ms: u64,
    /// Whether the admission was made offline.
    pub offline: bool,
    /// Whether the showing was cancelled, so that nothing admits.
    pub cancelled: bool,
    /// The admission that stands, if the ticket is still valid.
    pub admitted_by: Option<String>,
    pub admitted_at_ms: Option<u64>,
}

/// A showing's conflicting admissions, oldest first, at most
/// [`MAX_CONFLICTS`].
pub async fn conflicts(db: &D1Database, showing_id: &str) -> Result<Vec<Conflict>> {
    // D1's numbers come as JavaScript's, so as f64.
    #[derive(Deserialize)]
    struct Row {
        ticket_id: String,
        seat: String,
        status: String,
        moved_to_seat: Option<String>,
        device: String,
        scanned_at_ms: f64,
        offline: f64,
        cancelled: f64,
        admitted_by: Option<String>,
        admitted_at_ms: Option<f64>,
    }
    let rows: Vec<Row> = db
        .prepare(format!(
            "SELECT s.ticket_id, t.seat, t.status, m.seat AS moved_to_seat, s.device, \
             s.scanned_at_ms, s.offline, \
             EXISTS (SELECT 1 FROM showings WHERE id = ?1 AND cancelled_at_ms IS NOT NULL) \
             AS cancelled, t.checked_in_by AS admitted_by, t.checked_in_at_ms AS admitted_at_ms \
             FROM door_scans s JOIN tickets t ON t.id = s.ticket_id \
             LEFT JOIN tickets m ON m.id = t.moved_to \
             WHERE s.showing_id = ?1 AND s.device_result = 'admitted' \
             AND (t.status <> 'valid' OR t.checked_in_by IS NOT s.device \
             OR t.checked_in_scan IS NOT s.scan_id) \
             ORDER BY s.scanned_at_ms LIMIT {MAX_CONFLICTS}"
        ))
        .bind(&[showing_id.into()])?
        .all()
        .await?
        .results()?;
    Ok(rows
        .into_iter()
        .map(|r| Conflict {
            ticket_id: r.ticket_id,
            seat: r.seat,
            status: r.status,
            moved_to_seat: r.moved_to_seat,
            device: r.device,
            scanned_at_ms: r.scanned_at_ms as u64,
            offline: r.offline != 0.0,
            cancelled: r.cancelled != 0.0,
            admitted_by: r.admitted_by,
            admitted_at_ms: r.admitted_at_ms.map(|at| at as u64),
        })
        .collect())
}

/// What the door's tries are counted for (`door_tries.kind`).
#[derive(Debug, Clone, Copy)]
pub enum TryKind {
    /// A door PIN typed.
    Pin,
    /// A ticket looked up by its buyer's e-mail.
    Lookup,
}

impl TryKind {
    fn as_str(self) -> &'static str {
        match self {
            TryKind::Pin => "pin",
            TryKind::Lookup => "lookup",
        }
    }
}

/// A try taken (its row, to take back if it should not count), or the
/// milliseconds until the network's oldest try leaves the window.
pub type Taken = std::result::Result<f64, u64>;

/// Takes one of `client`'s `allowed` tries of `kind` within `window_ms`,
/// across every showing, in one transaction: parallel tries cannot get
/// past the limit, and a network at it adds no row, so it waits only
/// until its own oldest try is `window_ms` old. Rows out of every
/// network's window are deleted on the way.
pub async fn take_try(
    db: &D1Database,
    kind: TryKind,
    client: &str,
    now_ms: u64,
    window_ms: u64,
    allowed: u32,
) -> Result<Taken> {
    let since = num(now_ms.saturating_sub(window_ms));
    let args = [kind.as_str().into(), client.into(), since.clone()];
    let forget = db
        .prepare("DELETE FROM door_tries WHERE at_ms <= ?1")
        .bind(std::slice::from_ref(&since))?;
    let take = db
        .prepare(
            "INSERT INTO door_tries (kind, client, at_ms) SELECT ?1, ?2, ?4 \
             WHERE (SELECT COUNT(*) FROM door_tries WHERE kind = ?1 AND client = ?2 \
             AND at_ms > ?3) < ?5 RETURNING rowid AS id",
        )
        .bind(&[
            args[0].clone(),
            args[1].clone(),
            since,
            num(now_ms),
            allowed.into(),
        ])?;
    let oldest = db
        .prepare(
            "SELECT MIN(at_ms) AS at_ms FROM door_tries \
             WHERE kind = ?1 AND client = ?2 AND at_ms > ?3",
        )
        .bind(&args)?;
    let results = db.batch(vec![forget, take, oldest]).await?;
    #[derive(Deserialize)]
    struct Taken {
        id: f64,
    }
    #[derive(Deserialize)]
    struct Oldest {
        at_ms: Option<f64>,
    }
    let taken: Vec<Taken> = match results.get(1) {
        Some(found) => found.results()?,
        None => Vec::new(),
    };
    if let Some(row) = taken.first() {
        return Ok(Ok(row.id));
    }
    let oldest: Vec<Oldest> = match results.get(2) {
        Some(found) => found.results()?,
        None => Vec::new(),
    };
    let oldest_ms = oldest
        .first()
        .and_then(|r| r.at_ms)
        .unwrap_or(now_ms as f64) as u64;
    Ok(Err((oldest_ms + window_ms).saturating_sub(now_ms).max(1)))
}

/// Takes back a try that should not count (a right PIN).
pub async fn take_back_try(db: &D1Database, id: f64) -> Result<()> {
    db.prepare("DELETE FROM door_tries WHERE rowid = ?1")
        .bind(&[id.into()])?
        .run()
        .await?;
    Ok(())
}

/// Most tickets a lookup answers: one buyer's orders for one showing.
pub const MAX_FOUND: u32 = 50;

/// The paid or void tickets of `showing_id` bought with exactly `email`
/// (letter case aside), at most [`MAX_FOUND`].
pub async fn tickets_of_buyer(
    db: &D1Database,
    showing_id: &str,
    email: &str,
) -> Result<Vec<super::orders::DoorTicket>> {
    db.prepare(format!(
        "SELECT t.id, t.seat, t.status, t.price_name AS category, t.checked_in_at_ms, \
           t.checked_in_by, o.name, (SELECT n.seat FROM tickets n WHERE n.id = t.moved_to) \
           AS moved_to_seat \
         FROM orders o JOIN tickets t ON t.order_id = o.id \
         WHERE o.email = ?2 COLLATE NOCASE AND o.showing_id = ?1 \
           AND t.showing_id = ?1 AND t.status IN ('valid', 'void') \
         ORDER BY t.id LIMIT {MAX_FOUND}"
    ))
    .bind(&[showing_id.into(), email.into()])?
    .all()
    .await?
    .results()
}
