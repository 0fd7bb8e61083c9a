//! Scans a door device made offline and sends later (`POST
//! /api/door/sync`): the batch, checked; the rows D1 records; and what
//! became of each scan once D1 took the batch. The earliest admission of
//! a ticket stands, online or offline; D1 makes it so with one
//! conditional write for the whole batch (`db::door`). Pure.

use serde::{Deserialize, Serialize};

use crate::ticket_code::TicketRef;

/// Most scans in one sync: a device offline through a full house sends
/// several, and each is small.
pub const MAX_SCANS: usize = 200;
/// Longest device name or scan id.
pub const MAX_ID_BYTES: usize = 64;
/// Scans the device dates more than this before the sync are not
/// recorded (each is answered `too_old`, and the rest of the batch is): a
/// device clock that far behind would let a late scan win.
pub const MAX_SCAN_AGE_MS: u64 = 48 * 3_600_000;

/// What the device told the door at the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeviceResult {
    Admitted,
    AlreadyScanned,
    Void,
    WrongShowing,
    /// Scanned after the showing's door closed.
    DoorClosed,
    /// The showing was cancelled.
    Cancelled,
    Invalid,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueuedScan {
    /// The device's own id of the scan, the same however often it is sent.
    pub id: String,
    pub code: String,
    pub at_ms: u64,
    pub result: DeviceResult,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncRequest {
    pub showing_id: String,
    pub device: String,
    pub scans: Vec<QueuedScan>,
}

/// Why `id` (a device name or a scan id, called `what`) is refused, if it
/// is: 1 to [`MAX_ID_BYTES`] letters, digits, '-', '_' or '.'.
pub fn id_problem(what: &str, id: &str) -> Option<String> {
    let ok = (1..=MAX_ID_BYTES).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    (!ok).then(|| {
        format!("{what} {id:?} is not 1 to {MAX_ID_BYTES} letters, digits, '-', '_' or '.'")
    })
}

impl SyncRequest {
    /// Why the batch is refused, if it is; nothing of it is recorded then.
    /// Only what the device's own page never sends is refused, so a page
    /// that keeps sending its oldest scans first is never stuck behind one.
    pub fn problem(&self) -> Option<String> {
        if self.scans.is_empty() || self.scans.len() > MAX_SCANS {
            return Some(format!("a sync sends 1 to {MAX_SCANS} scans"));
        }
        if let Some(problem) = id_problem("device", &self.device) {
            return Some(problem);
        }
        let mut ids: Vec<&str> = self.scans.iter().map(|s| s.id.as_str()).collect();
        if let Some(problem) = ids.iter().find_map(|id| id_problem("scan id", id)) {
            return Some(problem);
        }
        ids.sort_unstable();
        if ids.windows(2).any(|w| w[0] == w[1]) {
            return Some("a scan id is sent twice in one batch".into());
        }
        None
    }

    fn too_old(scan: &QueuedScan, received_ms: u64) -> bool {
        scan.at_ms < received_ms.saturating_sub(MAX_SCAN_AGE_MS)
    }

    /// The outcomes of the scans dated too long before the sync, which
    /// are not recorded: the device drops them and says to check its clock.
    pub fn too_old_outcomes(&self, received_ms: u64) -> Vec<Outcome> {
        self.scans
            .iter()
            .filter(|scan| Self::too_old(scan, received_ms))
            .map(|scan| Outcome {
                id: scan.id.clone(),
                outcome: "too_old",
                ticket_id: None,
                seat: None,
                admitted_by: None,
                admitted_at_ms: None,
            })
            .collect()
    }

    /// The rows D1 records, each scan's code checked here (the device's
    /// word is not taken for which ticket it names). A device clock ahead
    /// of the Worker's is brought back to when the batch arrived; scans
    /// dated too long before it are left out (see [`MAX_SCAN_AGE_MS`]).
    pub fn rows(
        &self,
        verify: impl Fn(&str) -> Option<TicketRef>,
        received_ms: u64,
    ) -> Vec<ScanRow> {
        self.scans
            .iter()
            .filter(|scan| !Self::too_old(scan, received_ms))
            .map(|scan| ScanRow {
                id: scan.id.clone(),
                ticket_id: verify(&scan.code)
                    .filter(|t| t.showing_id == self.showing_id)
                    .map(|t| t.ticket_id),
                at_ms: scan.at_ms.min(received_ms),
                result: scan.result,
            })
            .collect()
    }
}

/// One scan as D1 records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanRow {
    pub id: String,
    /// The ticket of this showing the code names, if it does.
    pub ticket_id: Option<String>,
    pub at_ms: u64,
    pub result: DeviceResult,
}

/// The batch's rows in its order, each as D1 recorded it (`recorded`): a
/// scan recorded before, online or in an earlier batch, is what it was
/// then.
pub fn as_recorded(rows: Vec<ScanRow>, mut recorded: Vec<ScanRow>) -> Vec<ScanRow> {
    rows.into_iter()
        .map(|row| match recorded.iter().position(|r| r.id == row.id) {
            Some(at) => recorded.swap_remove(at),
            None => row,
        })
        .collect()
}

/// A ticket as it stands after the batch was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketState {
    pub id: String,
    pub seat: String,
    /// valid | void | pending
    pub status: String,
    pub checked_in_at_ms: Option<u64>,
    pub checked_in_by: Option<String>,
}

/// What became of one scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub id: String,
    /// `admitted`: this scan is the ticket's admission; `duplicate`: the
    /// device admitted it, but an earlier admission stands (`admitted_by`
    /// and `admitted_at_ms` say whose); `void`: the ticket is void (a
    /// refund the device did not know of, when it admitted); `invalid`:
    /// the code names no ticket of this showing; `recorded`: the device
    /// turned it away, and it is kept as it was; `too_old`: dated more
    /// than [`MAX_SCAN_AGE_MS`] before the sync, and not recorded.
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ticket_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admitted_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admitted_at_ms: Option<u64>,
}

/// Each scan's outcome, given the tickets as they stand.
pub fn outcomes(device: &str, rows: &[ScanRow], tickets: &[TicketState]) -> Vec<Outcome> {
    rows.iter()
        .map(|row| {
            let ticket = row
                .ticket_id
                .as_ref()
                .and_then(|id| tickets.iter().find(|t| &t.id == id));
            let mut out = Outcome {
                id: row.id.clone(),
                outcome: "invalid",
                ticket_id: row.ticket_id.clone(),
                seat: ticket.map(|t| t.seat.clone()),
                admitted_by: None,
                admitted_at_ms: None,
            };
            let Some(ticket) = ticket else {
                return out;
            };
            out.outcome = match (ticket.status.as_str(), row.result) {
                ("void", _) => "void",
                ("valid", DeviceResult::Admitted) => {
                    let stands = ticket.checked_in_by.as_deref() == Some(device)
                        && ticket.checked_in_at_ms == Some(row.at_ms);
                    if !stands {
                        out.admitted_by = ticket.checked_in_by.clone();
                        out.admitted_at_ms = ticket.checked_in_at_ms;
                    }
                    if stands {
                        "admitted"
                    } else {
                        "duplicate"
                    }
                }
                ("valid", _) => "recorded",
                _ => "invalid",
            };
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SID: &str = "0123456789abcdef";

    fn scan(id: &str, code: &str, at_ms: u64, result: DeviceResult) -> QueuedScan {
        QueuedScan {
            id: id.into(),
            code: code.into(),
            at_ms,
            result,
        }
    }

    fn batch(scans: Vec<QueuedScan>) -> SyncRequest {
        SyncRequest {
            showing_id: SID.into(),
            device: "door-2".into(),
            scans,
        }
    }

    /// Codes here are `showing/ticket`, checked by a stand-in verifier.
    fn verify(code: &str) -> Option<TicketRef> {
        let (showing_id, ticket_id) = code.split_once('/')?;
        Some(TicketRef {
            showing_id: showing_id.into(),
            ticket_id: ticket_id.into(),
            seat: String::new(),
        })
    }

    fn ticket(id: &str, status: &str, by: Option<(&str, u64)>) -> TicketState {
        TicketState {
            id: id.into(),
            seat: format!("seat of {id}"),
            status: status.into(),
            checked_in_at_ms: by.map(|(_, at)| at),
            checked_in_by: by.map(|(d, _)| d.to_string()),
        }
    }

    #[test]
    fn a_batch_is_bounded_and_names_each_scan_once() {
        let now = 1_000_000_000;
        let ok = batch(vec![scan("s1", "x", now, DeviceResult::Admitted)]);
        assert_eq!(ok.problem(), None);
        assert!(batch(vec![]).problem().is_some());
        let many = (0..=MAX_SCANS)
            .map(|n| scan(&format!("s{n}"), "x", now, DeviceResult::Admitted))
            .collect();
        assert!(batch(many).problem().is_some());
        let twice = batch(vec![
            scan("s1", "x", now, DeviceResult::Admitted),
            scan("s1", "y", now, DeviceResult::Invalid),
        ]);
        assert!(twice.problem().unwrap().contains("twice"));
        let bad_id = batch(vec![scan("s 1", "x", now, DeviceResult::Admitted)]);
        assert!(bad_id.problem().is_some());
        let long_id = batch(vec![scan(
            &"s".repeat(65),
            "x",
            now,
            DeviceResult::Admitted,
        )]);
        assert!(long_id.problem().is_some());
        let mut bad_device = batch(vec![scan("s1", "x", now, DeviceResult::Admitted)]);
        bad_device.device = "<door>".into();
        assert!(bad_device.problem().is_some());
    }

    #[test]
    fn a_scan_dated_too_long_before_the_sync_is_answered_alone_and_not_recorded() {
        let now = 1_000_000_000;
        let sent = batch(vec![
            scan(
                "old",
                &format!("{SID}/t1"),
                now - MAX_SCAN_AGE_MS - 1,
                DeviceResult::Admitted,
            ),
            scan(
                "edge",
                &format!("{SID}/t2"),
                now - MAX_SCAN_AGE_MS,
                DeviceResult::Admitted,
            ),
        ]);
        assert_eq!(sent.problem(), None, "the rest of the batch is taken");
        let rows = sent.rows(verify, now);
        let kept: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(kept, ["edge"]);
        let old = sent.too_old_outcomes(now);
        let said: Vec<(&str, &str)> = old.iter().map(|o| (o.id.as_str(), o.outcome)).collect();
        assert_eq!(said, [("old", "too_old")]);
    }

    #[test]
    fn a_code_is_checked_here_and_a_clock_ahead_is_brought_back() {
        let now = 5_000;
        let sent = batch(vec![
            scan("a", &format!("{SID}/t1"), 4_000, DeviceResult::Admitted),
            scan("b", "ffffffffffffffff/t9", 4_100, DeviceResult::Admitted),
            scan("c", "forged", 9_999, DeviceResult::Invalid),
        ]);
        let rows = sent.rows(verify, now);
        assert_eq!(rows[0].ticket_id.as_deref(), Some("t1"));
        assert_eq!(
            rows[1].ticket_id, None,
            "another showing's ticket is not this one's"
        );
        assert_eq!(rows[2].ticket_id, None);
        assert_eq!(rows[2].at_ms, now, "a device clock ahead is not believed");
    }

    #[test]
    fn the_earliest_admission_stands_and_the_others_are_duplicates() {
        let rows = batch(vec![
            scan("a", &format!("{SID}/t1"), 4_000, DeviceResult::Admitted),
            scan("b", &format!("{SID}/t2"), 4_100, DeviceResult::Admitted),
            scan(
                "c",
                &format!("{SID}/t1"),
                4_200,
                DeviceResult::AlreadyScanned,
            ),
            scan("d", &format!("{SID}/t3"), 4_300, DeviceResult::Admitted),
            scan("e", "junk", 4_400, DeviceResult::Invalid),
        ])
        .rows(verify, 10_000);
        let tickets = [
            ticket("t1", "valid", Some(("door-2", 4_000))),
            ticket("t2", "valid", Some(("door-1", 3_900))),
            ticket("t3", "void", None),
        ];
        let all = outcomes("door-2", &rows, &tickets);
        let said: Vec<(&str, &str)> = all.iter().map(|o| (o.id.as_str(), o.outcome)).collect();
        assert_eq!(
            said,
            [
                ("a", "admitted"),
                ("b", "duplicate"),
                ("c", "recorded"),
                ("d", "void"),
                ("e", "invalid"),
            ]
        );
        let dup = &all[1];
        assert_eq!(
            (dup.admitted_by.as_deref(), dup.admitted_at_ms),
            (Some("door-1"), Some(3_900))
        );
    }

    /// A scan first recorded online (its answer lost, the scan then queued
    /// under the same id) is judged as recorded: it is the ticket's
    /// admission, not a second one.
    #[test]
    fn a_scan_recorded_before_is_judged_as_it_was_recorded() {
        let rows = batch(vec![
            scan("lost", &format!("{SID}/t1"), 9_000, DeviceResult::Admitted),
            scan("new", &format!("{SID}/t2"), 9_100, DeviceResult::Admitted),
        ])
        .rows(verify, 10_000);
        let online = ScanRow {
            id: "lost".into(),
            ticket_id: Some("t1".into()),
            at_ms: 5_000,
            result: DeviceResult::Admitted,
        };
        let recorded = vec![rows[1].clone(), online.clone()];
        let rows = as_recorded(rows, recorded);
        assert_eq!(rows[0], online);
        assert_eq!(rows[1].id, "new");
        let tickets = [
            ticket("t1", "valid", Some(("door-2", 5_000))),
            ticket("t2", "valid", Some(("door-2", 9_100))),
        ];
        let said: Vec<&str> = outcomes("door-2", &rows, &tickets)
            .iter()
            .map(|o| o.outcome)
            .collect();
        assert_eq!(said, ["admitted", "admitted"]);
    }
}
