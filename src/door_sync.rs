//! Scans a door device made offline and sends later (`POST
//! /api/door/sync`): the batch, checked; the rows D1 records, each dated
//! within its session's life and the door's window; and what became of
//! each scan once D1 took the batch. A ticket's first recorded admission
//! stands, online or offline, and is never overwritten; D1 makes it so
//! with one conditional write for the whole batch (`db::door`). Pure.

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
    /// Staff had moved the ticket to another seat.
    Moved,
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
    /// The device the scans are from, if named: it must be the one its
    /// door session names, which is the one they are recorded under.
    #[serde(default)]
    pub device: Option<String>,
    pub scans: Vec<QueuedScan>,
}

/// When a scan may be dated: from when its session was given (or the
/// door list opened, if later) to when the batch arrived (or the door
/// closed, if earlier). A device cannot date a scan before it signed in,
/// nor after the door closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dating {
    pub session_from_ms: u64,
    pub received_ms: u64,
    pub door_open_ms: u64,
    pub door_close_ms: u64,
}

impl Dating {
    /// `at_ms` brought within the session's life and the door's window
    /// (the close wins when the two do not meet: a session given after
    /// the close dates its scans at the close), and never after the batch
    /// came (a door list that opens later dates its scans on arrival).
    pub fn clamp(&self, at_ms: u64) -> u64 {
        let from = self.session_from_ms.max(self.door_open_ms);
        at_ms
            .max(from)
            .min(self.door_close_ms)
            .min(self.received_ms)
    }
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
        if let Some(problem) = self.device.as_deref().and_then(|d| id_problem("device", d)) {
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
    /// word is not taken for which ticket it names) and its time brought
    /// within `dating` (a device clock ahead of the Worker's comes back to
    /// when the batch arrived); scans dated too long before the batch are
    /// left out (see [`MAX_SCAN_AGE_MS`]).
    pub fn rows(&self, verify: impl Fn(&str) -> Option<TicketRef>, dating: Dating) -> Vec<ScanRow> {
        self.scans
            .iter()
            .filter(|scan| !Self::too_old(scan, dating.received_ms))
            .map(|scan| ScanRow {
                id: scan.id.clone(),
                ticket_id: verify(&scan.code)
                    .filter(|t| t.showing_id == self.showing_id)
                    .map(|t| t.ticket_id),
                at_ms: dating.clamp(scan.at_ms),
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
    /// The scan (its device's id of it) whose admission stands.
    pub checked_in_scan: Option<String>,
}

/// What became of one scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub id: String,
    /// `admitted`: this scan is the ticket's admission; `duplicate`: the
    /// device admitted it, but an admission recorded before stands
    /// (`admitted_by` and `admitted_at_ms` say whose); `void`: the ticket
    /// is void (a refund the device did not know of, when it admitted);
    /// `cancelled`: the showing was cancelled, so nothing admits; `invalid`:
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

/// Each scan's outcome, given the tickets as they stand and whether the
/// showing is cancelled.
pub fn outcomes(
    device: &str,
    rows: &[ScanRow],
    tickets: &[TicketState],
    cancelled: bool,
) -> Vec<Outcome> {
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
                ("valid", DeviceResult::Admitted) if cancelled => "cancelled",
                ("valid", DeviceResult::Admitted) => {
                    let stands = ticket.checked_in_by.as_deref() == Some(device)
                        && ticket.checked_in_scan.as_deref() == Some(row.id.as_str());
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
            device: Some("door-2".into()),
            scans,
        }
    }

    /// A session given at 0, a door open from 0 and closing far ahead:
    /// only the batch's arrival bounds a scan's time.
    fn received(received_ms: u64) -> Dating {
        Dating {
            session_from_ms: 0,
            received_ms,
            door_open_ms: 0,
            door_close_ms: u64::MAX,
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

    /// A ticket, admitted (`by`: the device, the time and the scan's id)
    /// or not.
    fn ticket(id: &str, status: &str, by: Option<(&str, u64, &str)>) -> TicketState {
        TicketState {
            id: id.into(),
            seat: format!("seat of {id}"),
            status: status.into(),
            checked_in_at_ms: by.map(|(_, at, _)| at),
            checked_in_by: by.map(|(d, _, _)| d.to_string()),
            checked_in_scan: by.map(|(_, _, scan)| scan.to_string()),
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
        bad_device.device = Some("<door>".into());
        assert!(bad_device.problem().is_some());
        bad_device.device = None;
        assert_eq!(bad_device.problem(), None, "the session names the device");
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
        let rows = sent.rows(verify, received(now));
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
        let rows = sent.rows(verify, received(now));
        assert_eq!(rows[0].ticket_id.as_deref(), Some("t1"));
        assert_eq!(
            rows[1].ticket_id, None,
            "another showing's ticket is not this one's"
        );
        assert_eq!(rows[2].ticket_id, None);
        assert_eq!(rows[2].at_ms, now, "a device clock ahead is not believed");
    }

    /// A scan is dated no earlier than its session was given or the door
    /// list opened, and no later than the door closed or the batch came.
    #[test]
    fn a_scans_time_is_kept_within_its_sessions_life_and_the_doors_window() {
        let dating = Dating {
            session_from_ms: 2_000,
            received_ms: 9_000,
            door_open_ms: 1_000,
            door_close_ms: 8_000,
        };
        let clamped: Vec<u64> = [0, 1_500, 3_000, 8_500, 20_000]
            .into_iter()
            .map(|at| dating.clamp(at))
            .collect();
        assert_eq!(clamped, [2_000, 2_000, 3_000, 8_000, 8_000]);
        let after_close = Dating {
            session_from_ms: 8_500,
            ..dating
        };
        assert_eq!(after_close.clamp(3_000), 8_000, "the door's close wins");
        let opens_later = Dating {
            door_open_ms: 4_000,
            ..dating
        };
        assert_eq!(opens_later.clamp(2_500), 4_000);
        let not_open_yet = Dating {
            door_open_ms: 9_500,
            ..dating
        };
        assert_eq!(not_open_yet.clamp(2_500), 8_000, "never in the future");
    }

    #[test]
    fn the_admission_recorded_first_stands_and_the_others_are_duplicates() {
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
            scan("f", &format!("{SID}/t4"), 3_000, DeviceResult::Admitted),
        ])
        .rows(verify, received(10_000));
        let tickets = [
            ticket("t1", "valid", Some(("door-2", 4_000, "a"))),
            ticket("t2", "valid", Some(("door-1", 3_900, "x"))),
            ticket("t3", "void", None),
            // Admitted later, by this very device under another scan: the
            // earlier scan does not take it back.
            ticket("t4", "valid", Some(("door-2", 3_500, "g"))),
        ];
        let all = outcomes("door-2", &rows, &tickets, false);
        let said: Vec<(&str, &str)> = all.iter().map(|o| (o.id.as_str(), o.outcome)).collect();
        assert_eq!(
            said,
            [
                ("a", "admitted"),
                ("b", "duplicate"),
                ("c", "recorded"),
                ("d", "void"),
                ("e", "invalid"),
                ("f", "duplicate"),
            ]
        );
        let dup = &all[1];
        assert_eq!(
            (dup.admitted_by.as_deref(), dup.admitted_at_ms),
            (Some("door-1"), Some(3_900))
        );
    }

    #[test]
    fn a_cancelled_showing_admits_nothing_a_device_sends() {
        let rows = batch(vec![
            scan("a", &format!("{SID}/t1"), 4_000, DeviceResult::Admitted),
            scan("b", &format!("{SID}/t2"), 4_100, DeviceResult::Cancelled),
        ])
        .rows(verify, received(10_000));
        let tickets = [ticket("t1", "valid", None), ticket("t2", "valid", None)];
        let said: Vec<&str> = outcomes("door-2", &rows, &tickets, true)
            .iter()
            .map(|o| o.outcome)
            .collect();
        assert_eq!(said, ["cancelled", "recorded"]);
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
        .rows(verify, received(10_000));
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
            ticket("t1", "valid", Some(("door-2", 5_000, "lost"))),
            ticket("t2", "valid", Some(("door-2", 9_100, "new"))),
        ];
        let said: Vec<&str> = outcomes("door-2", &rows, &tickets, false)
            .iter()
            .map(|o| o.outcome)
            .collect();
        assert_eq!(said, ["admitted", "admitted"]);
    }
}
