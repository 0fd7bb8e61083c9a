//! The one `RefundPayment` request this project sends, and the keys that
//! make asking twice refund once.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The reason Square shows for every refund. The same words every time: a
/// retry under the same key must send the same body, or Square refuses it.
pub const REFUND_REASON: &str = "Refunded by the cinema";

/// Square's limit on a refund's `reason` (`RefundPaymentRequest`).
pub const MAX_REASON_CHARS: usize = 192;

/// Square's limit on an idempotency key.
pub const MAX_KEY_CHARS: usize = 45;

/// Most tries at refunding the same tickets.
pub const MAX_ATTEMPTS: u32 = 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefundRequest {
    pub idempotency_key: String,
    pub payment_id: String,
    pub amount: u64,
    pub currency: String,
    /// The seats it refunds: the uids of their line items in the order's
    /// Square order, named in the reason because Square's Refunds API
    /// returns an amount, not items. Empty for a whole order's refund.
    #[serde(default)]
    pub seats: Vec<String>,
}

impl RefundRequest {
    /// The body of `POST /v2/refunds`.
    pub fn body(&self) -> Value {
        json!({
            "idempotency_key": self.idempotency_key,
            "payment_id": self.payment_id,
            "amount_money": {"amount": self.amount, "currency": self.currency},
            "reason": self.reason(),
        })
    }

    /// "Refunded by the cinema: seats A6, A7", cut to Square's limit; the
    /// same words for the same refund, however often it is sent.
    pub fn reason(&self) -> String {
        if self.seats.is_empty() {
            return REFUND_REASON.to_string();
        }
        let noun = if self.seats.len() == 1 {
            "seat"
        } else {
            "seats"
        };
        let text = format!("{REFUND_REASON}: {noun} {}", self.seats.join(", "));
        match text.char_indices().nth(MAX_REASON_CHARS) {
            Some((end, _)) => text[..end].to_string(),
            None => text,
        }
    }
}

/// A refund's key: the order, exactly the tickets it covers, and which try
/// this is, so asking twice for the same tickets refunds once, and asking
/// again after a refund did not happen is a new request. The first try's
/// key is `rf-…`, as it always was.
pub fn refund_key(order_id: &str, ticket_ids: &[String], attempt: u32) -> String {
    let mut hash = Sha256::new();
    hash.update(order_id.as_bytes());
    for id in ticket_ids {
        hash.update([0u8]);
        hash.update(id.as_bytes());
    }
    if attempt <= 1 {
        return format!("rf-{}", &hex::encode(hash.finalize())[..42]);
    }
    hash.update([1u8]);
    hash.update(attempt.to_be_bytes());
    format!("rf{attempt}-{}", &hex::encode(hash.finalize())[..40])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_fits_square_and_each_try_is_new() {
        let tickets = vec!["t1".to_string(), "t2".to_string()];
        let keys: Vec<String> = (1..=MAX_ATTEMPTS)
            .map(|n| refund_key("order", &tickets, n))
            .collect();
        assert!(keys.iter().all(|k| k.len() <= MAX_KEY_CHARS));
        let mut unique = keys.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), keys.len());
        assert_ne!(refund_key("order", &tickets[..1], 1), keys[0]);
    }

    #[test]
    fn the_body_names_amount_and_currency_as_square_wants() {
        let request = RefundRequest {
            idempotency_key: "k".into(),
            payment_id: "p".into(),
            amount: 1250,
            currency: "GBP".into(),
            seats: Vec::new(),
        };
        let body = request.body();
        assert_eq!(body["amount_money"]["amount"], 1250);
        assert_eq!(body["amount_money"]["currency"], "GBP");
        assert_eq!(body["reason"], REFUND_REASON);
        let seats = RefundRequest {
            seats: vec!["A6".into(), "A7".into()],
            ..request.clone()
        };
        assert_eq!(
            seats.body()["reason"],
            "Refunded by the cinema: seats A6, A7"
        );
        let many = RefundRequest {
            seats: (0..100).map(|i| format!("seat-{i}")).collect(),
            ..request
        };
        assert_eq!(many.reason().chars().count(), MAX_REASON_CHARS);
    }
}
