//! The outbox's decisions: what a row's status means to staff, when a
//! failed send is tried again, and when it is given up and shown on the
//! attention list. A failure here never touches an order.

/// Past this age a message still failing is given up and listed for staff.
pub const GIVE_UP_AFTER_MS: u64 = 24 * 3600 * 1000;
/// The longest wait between two tries.
pub const MAX_BACKOFF_MS: u64 = 3600 * 1000;
/// A claimed row comes due again after this long; if it is still claimed
/// then, its sender stopped mid-send and whether it went out is unknown.
pub const CLAIM_LEASE_MS: u64 = 10 * 60 * 1000;
/// The longest error text kept on a row.
pub const MAX_ERROR_BYTES: usize = 300;
/// Rows one drain sends at most: a Worker invocation has a bounded number
/// of subrequests, and the cron sweep takes the rest.
pub const DRAIN_LIMIT: u32 = 20;

/// Our own codes for a row with nothing left to say: an order with no
/// valid ticket, an address with no order, a digest with nothing waiting.
/// Like the platform's permanent refusals, they are not retried.
pub const NOTHING_TO_SEND: [&str; 4] = [
    "NO_LIVE_TICKETS",
    "NO_ORDERS",
    "NOTHING_WAITING",
    "SHOWING_CANCELLED",
];

/// What a message is about; each kind has its own composer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An order's tickets, on paid and when staff resend them.
    Tickets,
    /// A refund applied to an order.
    Refund,
    /// A buyer's order links, asked for on the find-my-order page.
    Lookup,
    /// The hourly list for staff of what waits on the attention list.
    Digest,
    /// The order's showing was cancelled; its refund follows.
    Cancelled,
    /// The card was declined after its buyer was told to wait.
    Declined,
    /// The hold ran out and a seat went to another buyer after payment
    /// began; nothing was charged.
    SeatLost,
    /// The payment was cancelled before it was taken (voided, lapsed, or
    /// never confirmed); nothing was charged.
    PaymentCancelled,
    /// A refund Square ended `FAILED`: the money must go back another way.
    RefundFailed,
    /// A refund Square ended `REJECTED`.
    RefundRejected,
    /// Staff moved one of the order's tickets to another seat: the new
    /// ticket (the old one no longer admits).
    Moved,
    /// Seats came back for someone on a sold-out showing's waiting list:
    /// held for them behind the signed link this carries.
    Offer,
    /// For staff, at once: what a showing's reconciliation found and could
    /// not repair.
    Reconciliation,
}

impl Kind {
    pub const ALL: [Kind; 13] = [
        Kind::Tickets,
        Kind::Refund,
        Kind::Lookup,
        Kind::Digest,
        Kind::Cancelled,
        Kind::Declined,
        Kind::SeatLost,
        Kind::PaymentCancelled,
        Kind::RefundFailed,
        Kind::RefundRejected,
        Kind::Moved,
        Kind::Offer,
        Kind::Reconciliation,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Tickets => "tickets",
            Kind::Refund => "refund",
            Kind::Lookup => "lookup",
            Kind::Digest => "digest",
            Kind::Cancelled => "cancelled",
            Kind::Declined => "declined",
            Kind::SeatLost => "seat_lost",
            Kind::PaymentCancelled => "payment_cancelled",
            Kind::RefundFailed => "refund_failed",
            Kind::RefundRejected => "refund_rejected",
            Kind::Moved => "moved",
            Kind::Offer => "offer",
            Kind::Reconciliation => "reconciliation",
        }
    }

    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// The message an order's final status (as D1 spells it) sends its
    /// buyer, if any: an order that ends without tickets and took nothing.
    /// `needs_attention` sends none: staff settle it and write themselves.
    pub fn of_unpaid_order(status: &str) -> Option<Kind> {
        match status {
            "declined" => Some(Kind::Declined),
            "seat_lost" => Some(Kind::SeatLost),
            "failed" => Some(Kind::PaymentCancelled),
            _ => None,
        }
    }

    /// The message of a refund that ended without the money going back,
    /// by Square's refund status (`FAILED`, `REJECTED`).
    pub fn of_refund_not_made(status: &str) -> Option<Kind> {
        match status {
            "FAILED" => Some(Kind::RefundFailed),
            "REJECTED" => Some(Kind::RefundRejected),
            _ => None,
        }
    }
}

/// A row's status as stored. Staff see `queued` for both of the first two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Queued,
    /// Claimed by one sender; no other sends it.
    Sending,
    Sent,
    /// Given up: after a day of failures, a refusal that will not change, or
    /// a send whose outcome is unknown (not retried, so it never arrives
    /// twice). Listed for staff, who can resend.
    Failed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Sending => "sending",
            Status::Sent => "sent",
            Status::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Status> {
        [
            Status::Queued,
            Status::Sending,
            Status::Sent,
            Status::Failed,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    /// What the API and the admin pages show: `queued`, `sent` or `failed`.
    pub fn public(self) -> &'static str {
        match self {
            Status::Queued | Status::Sending => "queued",
            Status::Sent => "sent",
            Status::Failed => "failed",
        }
    }
}

/// A send the platform refused or that threw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The platform's error code (`E_RATE_LIMIT_EXCEEDED`, …), when it gave one.
    pub code: Option<String>,
    pub message: String,
}

impl Failure {
    /// The text kept on the row: code first, bounded.
    pub fn summary(&self) -> String {
        let full = match &self.code {
            Some(code) => format!("{code}: {}", self.message),
            None => self.message.clone(),
        };
        let mut end = full.len().min(MAX_ERROR_BYTES);
        while !full.is_char_boundary(end) {
            end -= 1;
        }
        full[..end].to_string()
    }

    /// Refusals that the same message will always get: retrying cannot
    /// help, staff must act (a suppressed address, a message too large).
    /// Sender and binding set-up errors are not among them: the cinema can
    /// fix those, and the retries then succeed.
    pub fn is_permanent(&self) -> bool {
        let code = self.code.as_deref().unwrap_or_default();
        NOTHING_TO_SEND.contains(&code)
            || matches!(
                self.code.as_deref(),
                Some(
                    "E_VALIDATION_ERROR"
                        | "E_FIELD_MISSING"
                        | "E_TOO_MANY_RECIPIENTS"
                        | "E_RECIPIENT_SUPPRESSED"
                        | "E_CONTENT_TOO_LARGE"
                        | "E_HEADER_NOT_ALLOWED"
                        | "E_HEADER_USE_API_FIELD"
                        | "E_HEADER_VALUE_INVALID"
                        | "E_HEADER_VALUE_TOO_LONG"
                        | "E_HEADER_NAME_INVALID"
                        | "E_HEADERS_TOO_LARGE"
                        | "E_HEADERS_TOO_MANY"
                )
            )
    }
}

/// What to do with a row after a failed try.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    RetryAt { at_ms: u64 },
    GiveUp,
}

/// After the `tries`-th failed try of a row queued at `queued_at_ms`: wait
/// `base_ms`, doubling each try up to an hour, until a day has passed.
pub fn after_failure(
    failure: &Failure,
    tries: u32,
    queued_at_ms: u64,
    now_ms: u64,
    base_ms: u64,
) -> Next {
    if failure.is_permanent() || now_ms.saturating_sub(queued_at_ms) >= GIVE_UP_AFTER_MS {
        return Next::GiveUp;
    }
    let doubling = 1u64 << tries.saturating_sub(1).min(20);
    let wait_ms = base_ms.saturating_mul(doubling).min(MAX_BACKOFF_MS);
    Next::RetryAt {
        at_ms: now_ms + wait_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: Option<&str>) -> Failure {
        Failure {
            code: code.map(str::to_string),
            message: "refused".into(),
        }
    }

    #[test]
    fn failures_back_off_doubling_to_an_hour_then_give_up_after_a_day() {
        let f = failure(Some("E_RATE_LIMIT_EXCEEDED"));
        let at = |tries, now| after_failure(&f, tries, 0, now, 60_000);
        assert_eq!(at(1, 1_000), Next::RetryAt { at_ms: 61_000 });
        assert_eq!(at(2, 1_000), Next::RetryAt { at_ms: 121_000 });
        assert_eq!(
            at(30, 1_000),
            Next::RetryAt {
                at_ms: 1_000 + MAX_BACKOFF_MS
            }
        );
        assert_eq!(at(40, GIVE_UP_AFTER_MS), Next::GiveUp);
    }

    #[test]
    fn refusals_that_cannot_change_give_up_at_once_and_set_up_errors_retry() {
        let now = 5_000;
        assert_eq!(
            after_failure(&failure(Some("E_RECIPIENT_SUPPRESSED")), 1, 0, now, 1),
            Next::GiveUp
        );
        for code in [
            Some("E_SENDER_NOT_VERIFIED"),
            Some("E_INTERNAL_SERVER_ERROR"),
            None,
        ] {
            assert!(matches!(
                after_failure(&failure(code), 1, 0, now, 1),
                Next::RetryAt { .. }
            ));
        }
    }

    #[test]
    fn error_text_is_bounded_on_a_character_boundary() {
        let long = Failure {
            code: Some("E_X".into()),
            message: "é".repeat(400),
        };
        let s = long.summary();
        assert!(s.len() <= MAX_ERROR_BYTES && s.starts_with("E_X: é"));
    }

    #[test]
    fn statuses_and_kinds_round_trip_and_staff_see_three() {
        for k in Kind::ALL {
            assert_eq!(Kind::parse(k.as_str()), Some(k));
        }
        assert_eq!(Status::Sending.public(), "queued");
        assert_eq!(Kind::of_unpaid_order("declined"), Some(Kind::Declined));
        assert_eq!(
            Kind::of_unpaid_order("failed"),
            Some(Kind::PaymentCancelled)
        );
        assert_eq!(Kind::of_unpaid_order("needs_attention"), None);
        assert_eq!(Kind::of_refund_not_made("FAILED"), Some(Kind::RefundFailed));
        assert_eq!(Kind::of_refund_not_made("COMPLETED"), None);
        assert_eq!(Status::parse("failed").map(Status::public), Some("failed"));
    }
}
