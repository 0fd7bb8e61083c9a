//! Every refusal the API can answer with: one [`Code`] per distinct
//! outcome, each with its HTTP status in one table, and [`Refusal`], the
//! code with its sentence for a person and any extra fields of the body.
//!
//! The Worker and the object both refuse with these, so a code means one
//! thing and one status wherever it comes from, and the README's tables
//! are checked against [`Code::ALL`] by a test (`tests/readme.rs`). A
//! checkout that ended without tickets answers with one of these codes
//! too (`card_declined`, `seat_lost`, …), in the order's body.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

macro_rules! codes {
    ($($variant:ident = $status:literal $code:literal,)*) => {
        /// A refusal's `error` code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Code { $($variant,)* }

        impl Code {
            /// Every code, in the order of the table.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The `error` field of the body.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// The HTTP status it is answered with.
            pub fn status(self) -> u16 {
                match self { $(Code::$variant => $status,)* }
            }
        }
    };
}

codes! {
    BadJson = 400 "bad_json",
    InvalidDiscountCode = 400 "invalid_discount_code",
    InvalidRequest = 400 "invalid_request",
    NoSeats = 400 "no_seats",
    DuplicateSeats = 400 "duplicate_seats",
    UnknownSeats = 400 "unknown_seats",
    TooManySeats = 400 "too_many_seats",
    BadIdempotencyKey = 400 "bad_idempotency_key",
    InvalidBuyer = 400 "invalid_buyer",
    InvalidCheckout = 400 "invalid_checkout",
    InvalidSale = 400 "invalid_sale",
    InvalidAllocation = 400 "invalid_allocation",
    InvalidCatalog = 400 "invalid_catalog",
    InvalidShowing = 400 "invalid_showing",
    InvalidReason = 400 "invalid_reason",
    CurrencyMismatch = 400 "currency_mismatch",
    InvalidPin = 400 "invalid_pin",
    InvalidScans = 400 "invalid_scans",
    BadNote = 400 "bad_note",
    BadSearch = 400 "bad_search",
    UnknownTickets = 400 "unknown_tickets",
    UnknownPrice = 400 "unknown_price",
    UnknownZone = 400 "unknown_zone",
    NoWaitingRoom = 404 "no_waiting_room",
    MoreThanRefunded = 400 "more_than_refunded",
    Unauthorized = 401 "unauthorized",
    DoorSessionRequired = 401 "door_session_required",
    WrongAdminToken = 401 "wrong_admin_token",
    BadSignature = 401 "bad_signature",
    CrossSite = 403 "cross_site",
    CsrfFailed = 403 "csrf_failed",
    WrongDevice = 403 "wrong_device",
    TurnstileRequired = 403 "turnstile_required",
    TurnstileFailed = 403 "turnstile_failed",
    NotAdmitted = 403 "not_admitted",
    BadQueueToken = 403 "bad_queue_token",
    NotFound = 404 "not_found",
    HoldNotFound = 404 "hold_not_found",
    UnknownCode = 404 "unknown_code",
    MethodNotAllowed = 405 "method_not_allowed",
    SeatsUnavailable = 409 "seats_unavailable",
    LeavesSingleSeat = 409 "leaves_single_seat",
    NoAdjacentSeats = 409 "no_adjacent_seats",
    NotEnoughSeats = 409 "not_enough_seats",
    ZoneFull = 409 "zone_full",
    NotASeat = 409 "not_a_seat",
    NotInAllocation = 409 "not_in_allocation",
    TooManyAllocations = 409 "too_many_allocations",
    InvalidWaitlist = 400 "invalid_waitlist",
    SeatsAvailable = 409 "seats_available",
    WaitlistFull = 409 "waitlist_full",
    OfferEnded = 409 "offer_ended",
    AlreadyHolding = 409 "already_holding",
    IdempotencyKeyInUse = 409 "idempotency_key_in_use",
    ShowingExists = 409 "showing_exists",
    LayoutLocked = 409 "layout_locked",
    ShowingCancelled = 409 "showing_cancelled",
    DoorClosed = 409 "door_closed",
    DoorNotOpen = 409 "door_not_open",
    SalesNotOpen = 409 "sales_not_open",
    SalesClosed = 409 "sales_closed",
    BoxOfficeOnly = 409 "box_office_only",
    LimitsConflict = 409 "limits_conflict",
    CannotVoid = 409 "cannot_void",
    OrderNotPaid = 409 "order_not_paid",
    NothingToRefund = 409 "nothing_to_refund",
    PaymentUnsettled = 409 "payment_unsettled",
    AlreadyHandled = 409 "already_handled",
    NoTicketsToSend = 409 "no_tickets_to_send",
    RefundDecided = 409 "refund_decided",
    RefundRefused = 409 "refund_refused",
    RefundInProgress = 409 "refund_in_progress",
    RefundFailedBefore = 409 "refund_failed_before",
    MoreThanPaid = 409 "more_than_paid",
    CancelClosed = 409 "cancel_closed",
    NotCancellable = 409 "not_cancellable",
    ExchangeClosed = 409 "exchange_closed",
    NotExchangeable = 409 "not_exchangeable",
    SeatUnavailable = 409 "seat_unavailable",
    TicketVoid = 409 "ticket_void",
    TicketMoved = 409 "ticket_moved",
    TicketCheckedIn = 409 "ticket_checked_in",
    RefundPending = 409 "refund_pending",
    TooManyMoves = 409 "too_many_moves",
    CardDeclined = 402 "card_declined",
    PaymentFailed = 402 "payment_failed",
    SeatLost = 409 "seat_lost",
    OrderNotCompleted = 409 "order_not_completed",
    ApplePayDomainRefused = 409 "apple_pay_domain_refused",
    CodeExists = 409 "code_exists",
    CodeUsedUp = 409 "code_used_up",
    CodeNotValidHere = 409 "code_not_valid_here",
    CodeLimitPerBuyer = 409 "code_limit_per_buyer",
    HoldExpired = 410 "hold_expired",
    BodyTooLarge = 413 "body_too_large",
    IdempotencyKeyReused = 422 "idempotency_key_reused",
    UpgradeRequired = 426 "upgrade_required",
    RateLimited = 429 "rate_limited",
    TooManyHolds = 429 "too_many_holds",
    TooManyAttempts = 429 "too_many_attempts",
    TooManySeatsHeld = 429 "too_many_seats_held",
    TooManyFreeOrders = 429 "too_many_free_orders",
    TooManyLiveMaps = 429 "too_many_live_maps",
    DoorPinLocked = 429 "door_pin_locked",
    TooManyLookups = 429 "too_many_lookups",
    Internal = 500 "internal",
    TooManyWatchers = 503 "too_many_watchers",
    ShowingBusy = 503 "showing_busy",
    SquareUnavailable = 503 "square_unavailable",
    NotConfigured = 503 "not_configured",
    TurnstileUnavailable = 503 "turnstile_unavailable",
}

/// A refusal: `{"error": code, "detail": sentence, …extra}` with the
/// code's status, and `Retry-After` when it says when to try again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    pub code: Code,
    pub detail: String,
    /// Fields merged into the body, such as the seats that were taken.
    /// Boxed: refusals travel through every `Result`, so they stay small.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub extra: Box<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
}

impl Refusal {
    pub fn new(code: Code, detail: impl Into<String>) -> Refusal {
        Refusal {
            code,
            detail: detail.into(),
            extra: Box::default(),
            retry_after_s: None,
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Refusal {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// Seconds until trying again is worth it; at least one.
    pub fn retry_after(mut self, seconds: u64) -> Refusal {
        self.retry_after_s = Some(seconds.max(1));
        self
    }

    pub fn status(&self) -> u16 {
        self.code.status()
    }

    pub fn not_found(what: &str) -> Refusal {
        Refusal::new(Code::NotFound, format!("no such {what}"))
    }

    pub fn internal(detail: impl Into<String>) -> Refusal {
        Refusal::new(Code::Internal, detail)
    }

    /// The answer's body.
    pub fn body(&self) -> Value {
        let mut body = Map::new();
        body.insert("error".into(), Value::from(self.code.as_str()));
        body.insert("detail".into(), Value::from(self.detail.clone()));
        body.extend((*self.extra).clone());
        Value::Object(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_is_spelled_once_and_round_trips_through_serde() {
        let mut seen = std::collections::HashSet::new();
        for &code in Code::ALL {
            assert!(seen.insert(code.as_str()), "{} twice", code.as_str());
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json, code.as_str());
            assert!((400..600).contains(&code.status()));
        }
    }

    #[test]
    fn a_body_carries_code_detail_and_extra_fields() {
        let refusal = Refusal::new(Code::SeatsUnavailable, "taken").with("seats", vec!["A1"]);
        assert_eq!(
            refusal.body(),
            serde_json::json!({"error": "seats_unavailable", "detail": "taken", "seats": ["A1"]})
        );
        assert_eq!(refusal.status(), 409);
    }
}
