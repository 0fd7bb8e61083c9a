//! Idempotency keys for Square, derived so that a retry, a reload or a
//! second Durable Object instance always sends the same key for the same
//! intent.
//!
//! A key is `prefix` followed by the first hex digits of
//! `SHA-256(domain || 0x00 || for each part: its length as 4 bytes
//! big-endian || its bytes)`, cut so that the whole key is at most
//! [`MAX_IDEMPOTENCY_KEY_CHARS`] characters, Square's limit. The length
//! prefixes keep two different lists of parts from hashing the same bytes
//! ("ab" + "c" is not "a" + "bc"); the domain keeps an authorization key
//! from ever equalling a refund key.
//!
//! - [`authorization_key`]: `auth-` + 40 hex digits (160 bits) of the hold
//!   id and the card token. The same hold paid with the same card token can
//!   only ever authorize once, however often the request is retried; another
//!   card (a new token) gets a new key, as Square requires after a decline.
//! - [`refund_key`]: `refund-` + 38 hex digits (152 bits) of the order id:
//!   an order is refunded at most once, in full.
//! - [`order_key`]: `order-` + 39 hex digits of the order id: one Square
//!   order a checkout.
//! - `order_cancel_key`: `cancel-` + 38 hex digits of the Square order's id
//!   and the version it is cancelled at.

use sha2::{Digest, Sha256};

/// Square's limit on `idempotency_key`.
pub const MAX_IDEMPOTENCY_KEY_CHARS: usize = 45;

const AUTHORIZATION_DOMAIN: &str = "showtime checkout authorization v1";
const REFUND_DOMAIN: &str = "showtime checkout refund v1";
const ORDER_DOMAIN: &str = "showtime checkout square order v1";
const ORDER_CANCEL_DOMAIN: &str = "showtime checkout square order cancel v1";

/// The CreatePayment (and CancelPaymentByKey) key for paying this hold
/// with this card token. See the module documentation for the derivation.
pub fn authorization_key(hold_id: &str, source_id: &str) -> String {
    derive("auth-", AUTHORIZATION_DOMAIN, &[hold_id, source_id])
}

/// The RefundPayment key of this order's one refund.
pub fn refund_key(order_id: &str) -> String {
    derive("refund-", REFUND_DOMAIN, &[order_id])
}

/// The CreateOrder key of this checkout's Square order: one order a
/// checkout, however often it is asked for.
pub fn order_key(order_id: &str) -> String {
    derive("order-", ORDER_DOMAIN, &[order_id])
}

/// The UpdateOrder key that cancels this Square order at `version`.
pub(crate) fn order_cancel_key(square_order_id: &str, version: u64) -> String {
    derive(
        "cancel-",
        ORDER_CANCEL_DOMAIN,
        &[square_order_id, &version.to_string()],
    )
}

fn derive(prefix: &str, domain: &str, parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    hash.update(domain.as_bytes());
    hash.update([0u8]);
    for part in parts {
        // Parts are bounded far below 4 GiB by the order's limits.
        let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
        hash.update(len.to_be_bytes());
        hash.update(part.as_bytes());
    }
    let digits = hex::encode(hash.finalize());
    let take = MAX_IDEMPOTENCY_KEY_CHARS - prefix.len();
    format!("{prefix}{}", &digits[..take])
}
