//! What changed, as Square's webhook event types name it. The bank returns
//! these; `delivery` wraps, signs and sends them.

use serde_json::{json, Value};

use crate::payments::Payment;
use crate::refunds::Refund;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    PaymentCreated,
    PaymentUpdated,
    RefundCreated,
    RefundUpdated,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::PaymentCreated => "payment.created",
            EventType::PaymentUpdated => "payment.updated",
            EventType::RefundCreated => "refund.created",
            EventType::RefundUpdated => "refund.updated",
        }
    }

    /// `data.type` in the envelope.
    pub fn object_type(self) -> &'static str {
        match self {
            EventType::PaymentCreated | EventType::PaymentUpdated => "payment",
            EventType::RefundCreated | EventType::RefundUpdated => "refund",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub event_type: EventType,
    pub object_id: String,
    /// `data.object`: `{"payment": …}` or `{"refund": …}` as it is now.
    pub object: Value,
}

impl Event {
    pub fn payment(event_type: EventType, payment: &Payment) -> Event {
        Event {
            event_type,
            object_id: payment.id.clone(),
            object: json!({ "payment": payment.to_json() }),
        }
    }

    pub fn refund(event_type: EventType, refund: &Refund) -> Event {
        Event {
            event_type,
            object_id: refund.id.clone(),
            object: json!({ "refund": refund.to_json() }),
        }
    }
}

impl Event {
    /// The webhook body Square posts: the event wrapped with its id and time.
    pub fn envelope(&self, merchant_id: &str, event_id: &str, created_at_ms: u64) -> String {
        json!({
            "merchant_id": merchant_id,
            "type": self.event_type.as_str(),
            "event_id": event_id,
            "created_at": crate::clock::rfc3339(created_at_ms),
            "data": {
                "type": self.event_type.object_type(),
                "id": self.object_id,
                "object": self.object,
            },
        })
        .to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_matches_square_shape() {
        let event = Event {
            event_type: EventType::RefundUpdated,
            object_id: "P_R".into(),
            object: json!({"refund": {"id": "P_R", "status": "COMPLETED"}}),
        };
        let body: Value = serde_json::from_str(&event.envelope("M1", "e-1", 0)).unwrap();
        assert_eq!(body["type"], "refund.updated");
        assert_eq!(body["event_id"], "e-1");
        assert_eq!(body["merchant_id"], "M1");
        assert_eq!(body["created_at"], "1970-01-01T00:00:00.000Z");
        assert_eq!(body["data"]["type"], "refund");
        assert_eq!(body["data"]["id"], "P_R");
        assert_eq!(body["data"]["object"]["refund"]["status"], "COMPLETED");
    }
}
