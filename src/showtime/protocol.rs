//! The requests the Worker sends to a showing's object. The Worker has
//! already parsed and bounded the buyer's input; the object decides.

use serde::{Deserialize, Serialize};

use crate::showing::{Money, Units};

/// Sets up a new showing's object.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InitShowing {
    pub showing_id: String,
    pub units: Units,
    pub price: Money,
    pub max_seats_per_hold: u32,
    pub hold_ttl_ms: u64,
    pub payment_cap_ms: u64,
}

/// Who is asking: the buyer's session id and the client's address.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Caller {
    pub buyer: String,
    pub client: String,
}

/// `Idempotency-Key` and a fingerprint (SHA-256) of the request body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Idempotency {
    pub key: String,
    pub fingerprint: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewHold {
    pub caller: Caller,
    pub seats: Vec<String>,
    pub idempotency: Option<Idempotency>,
}

/// Names an existing hold: its secret token and the buyer asking.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HoldRef {
    pub buyer: String,
    pub token: String,
}

/// The object answers with this header when the answer belongs to another
/// buyer session than the caller's (a replayed idempotent request made
/// before the client had its cookie), so the Worker can hand it back.
pub const BUYER_HEADER: &str = "x-showtime-buyer";

/// Pay for a hold: the card token from the browser and the buyer's details.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckoutRequest {
    pub hold: HoldRef,
    pub source_id: String,
    pub email: String,
    pub name: String,
}

/// A payment status Square reported by webhook for one of this showing's
/// orders (its `reference_id`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PaymentObserved {
    pub order_id: String,
    pub payment_id: String,
    pub status: String,
}

/// A completed refund's seats, to go back on sale.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VoidSeats {
    pub order_id: String,
    pub seats: Vec<String>,
}

/// A door PIN tried for the showing, and whether it was right.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DoorAttempt {
    pub matched: bool,
}
