//! Door scans in D1: admissions, online and offline, and the conflicts
//! between them. The earliest admission of a ticket is its check-in: a
//! sync lowers `tickets.checked_in_at_ms` with one conditional write, so
//! batches and online scans arriving in any order end with the same
//! admission standing.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use worker::{D1Database, Result};

use super::num;
use crate::door_sync::{DeviceResult, ScanRow, TicketState};

/// Most conflicts listed: past this the list says it is cut.
pub const MAX_CONFLICTS: u32 = 500;

/// Records a device's synced scans (each once, however often it is sent,
/// online or in a batch) and lets their admissions take each ticket's
/// check-in where they are earlier than the one standing, in one
/// transaction. Returns the batch's scans as recorded: a scan whose id was
/// recorded before keeps what was recorded first.
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
             FROM json_each(?4) AS j WHERE true ON CONFLICT (device, scan_id) DO NOTHING",
        )
        .bind(&[
            device.into(),
            showing_id.into(),
            num(received_ms),
            rows.clone(),
        ])?;
    // The batch's scans as recorded, so a scan first recorded online (its
    // answer lost, then queued) admits at its online time, not again.
    const BATCH: &str = "FROM door_scans WHERE device = ?1 AND showing_id = ?2 \
        AND scan_id IN (SELECT json_extract(value, '$.id') FROM json_each(?3))";
    let earliest = db
        .prepare(format!(
            "UPDATE tickets SET checked_in_at_ms = w.at_ms, checked_in_by = ?1 \
             FROM (SELECT ticket_id, MIN(scanned_at_ms) AS at_ms {BATCH} \
             AND device_result = 'admitted' AND ticket_id IS NOT NULL GROUP BY 1) AS w \
             WHERE tickets.id = w.ticket_id AND tickets.showing_id = ?2 \
             AND tickets.status = 'valid' \
             AND (tickets.checked_in_at_ms IS NULL OR tickets.checked_in_at_ms > w.at_ms)"
        ))
        .bind(&[device.into(), showing_id.into(), rows.clone()])?;
    let recorded = db
        .prepare(format!(
            "SELECT scan_id AS id, ticket_id, scanned_at_ms AS at_ms, device_result AS result \
             {BATCH}"
        ))
        .bind(&[device.into(), showing_id.into(), rows])?;
    let results = db.batch(vec![record, earliest, recorded]).await?;
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
    }
    let ids: Vec<&str> = rows.iter().filter_map(|r| r.ticket_id.as_deref()).collect();
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let ids = serde_json::to_string(&ids)?;
    let found: Vec<Row> = db
        .prepare(
            "SELECT id, seat, status, checked_in_at_ms, checked_in_by FROM tickets \
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
        })
        .collect())
}

/// An admission that does not stand: another device admitted the ticket
/// earlier, or the ticket is void (refunded while the device was offline).
/// A device's second admission of a ticket it admitted itself is not one:
/// that is a scan whose online answer was lost, judged again on the device
/// (which keeps every admission it makes and turns a copy away).
#[derive(Debug, Serialize)]
pub struct Conflict {
    pub ticket_id: String,
    pub seat: String,
    /// valid | void
    pub status: String,
    pub device: String,
    pub scanned_at_ms: u64,
    /// Whether the admission was made offline.
    pub offline: bool,
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
        device: String,
        scanned_at_ms: f64,
        offline: f64,
        admitted_by: Option<String>,
        admitted_at_ms: Option<f64>,
    }
    let rows: Vec<Row> = db
        .prepare(format!(
            "SELECT s.ticket_id, t.seat, t.status, s.device, s.scanned_at_ms, s.offline, \
             t.checked_in_by AS admitted_by, t.checked_in_at_ms AS admitted_at_ms \
             FROM door_scans s JOIN tickets t ON t.id = s.ticket_id \
             WHERE s.showing_id = ?1 AND s.device_result = 'admitted' \
             AND (t.status <> 'valid' OR t.checked_in_by IS NOT s.device) \
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
            device: r.device,
            scanned_at_ms: r.scanned_at_ms as u64,
            offline: r.offline != 0.0,
            admitted_by: r.admitted_by,
            admitted_at_ms: r.admitted_at_ms.map(|at| at as u64),
        })
        .collect())
}
