//! Where a refund stands. Square's four statuses and the three of our own
//! are one typed state here; the stored words are kept as they always were
//! (`requested`, `waiting`, `PENDING`, …) so rows written before this
//! crate read the same.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    /// Stored and asked of Square (or about to be); Square's answer is not
    /// known yet. The sweep asks again under the same key.
    Asked,
    /// Not asked yet, because another refund of the payment may still be
    /// pending at Square, which allows one at a time.
    Waiting,
    /// Square took it and has not finished it.
    Pending,
    /// The money is on its way back.
    Completed,
    /// Square (or the card's bank) turned it down; the payment may be
    /// refunded again.
    Rejected,
    /// Square could not make it and allows no other refund of the payment.
    Failed,
    /// Square refused the request itself, with a code and a detail.
    Refused,
    /// A waiting refund that a later request (or nothing) took over.
    Superseded,
}

impl Status {
    pub const ALL: [Status; 8] = [
        Status::Asked,
        Status::Waiting,
        Status::Pending,
        Status::Completed,
        Status::Rejected,
        Status::Failed,
        Status::Refused,
        Status::Superseded,
    ];

    /// The word stored in `refunds.status` and shown to staff.
    pub fn stored(self) -> &'static str {
        match self {
            Status::Asked => "requested",
            Status::Waiting => "waiting",
            Status::Pending => "PENDING",
            Status::Completed => "COMPLETED",
            Status::Rejected => "REJECTED",
            Status::Failed => "FAILED",
            Status::Refused => "refused",
            Status::Superseded => "superseded",
        }
    }

    pub fn from_stored(word: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.stored() == word)
    }

    /// A status Square gives a refund (`PENDING`, `COMPLETED`, `REJECTED`,
    /// `FAILED`); anything else is not Square's.
    pub fn from_square(word: &str) -> Option<Status> {
        match word {
            "PENDING" => Some(Status::Pending),
            "COMPLETED" => Some(Status::Completed),
            "REJECTED" => Some(Status::Rejected),
            "FAILED" => Some(Status::Failed),
            _ => None,
        }
    }

    /// Nothing more will happen to it.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            Status::Completed
                | Status::Rejected
                | Status::Failed
                | Status::Refused
                | Status::Superseded
        )
    }

    /// It may be pending at Square, so no other refund of the payment may
    /// be asked for.
    pub fn in_flight(self) -> bool {
        matches!(self, Status::Asked | Status::Pending)
    }

    /// It ended without money moving: its tickets may be refunded again.
    pub fn did_not_happen(self) -> bool {
        matches!(
            self,
            Status::Rejected | Status::Failed | Status::Refused | Status::Superseded
        )
    }

    /// Whether a refund may go from `self` to `next`. Statuses only move
    /// forward, so a late or repeated webhook never undoes a later one; the
    /// one step back, asked to waiting, is Square saying another refund of
    /// the payment is pending, so this one was not taken. Asked to
    /// superseded is an exchange whose new order failed (a refund asked of
    /// Square never goes there: Square has it, or refused it).
    pub fn may_become(self, next: Status) -> bool {
        match self {
            Status::Waiting => matches!(next, Status::Superseded),
            Status::Asked => !matches!(next, Status::Asked),
            Status::Pending => {
                matches!(next, Status::Completed | Status::Rejected | Status::Failed)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_from_its_stored_word() {
        for status in Status::ALL {
            assert_eq!(Status::from_stored(status.stored()), Some(status));
        }
        assert_eq!(Status::from_stored("COMPLETE"), None);
    }

    #[test]
    fn a_final_status_never_changes() {
        for from in Status::ALL.into_iter().filter(|s| s.is_final()) {
            for to in Status::ALL {
                assert!(!from.may_become(to), "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn a_late_pending_never_undoes_an_answer() {
        assert!(Status::Asked.may_become(Status::Pending));
        assert!(!Status::Completed.may_become(Status::Pending));
        assert!(!Status::Pending.may_become(Status::Asked));
    }
}
