//! A refund: PENDING when asked for, then COMPLETED or REJECTED when the
//! card network answers (here: a timer or the control API).

use serde_json::{json, Value};

use crate::clock::rfc3339;
use crate::ids;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundStatus {
    Pending,
    Completed,
    Rejected,
    /// "An error occurred": Square gives no more than that.
    /// <https://developer.squareup.com/reference/square/objects/PaymentRefund>
    Failed,
}

impl RefundStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RefundStatus::Pending => "PENDING",
            RefundStatus::Completed => "COMPLETED",
            RefundStatus::Rejected => "REJECTED",
            RefundStatus::Failed => "FAILED",
        }
    }
}

/// The refund was already settled, so it cannot be settled again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefundNotPending {
    pub status: RefundStatus,
}

#[derive(Debug, Clone)]
pub struct Refund {
    pub id: String,
    pub payment_id: String,
    pub amount: i64,
    pub currency: String,
    pub status: RefundStatus,
    pub reason: Option<String>,
    pub location_id: String,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
}

impl Refund {
    pub fn pending(
        payment_id: &str,
        amount: i64,
        currency: &str,
        reason: Option<String>,
        location_id: &str,
        now_ms: u64,
    ) -> Self {
        Refund {
            id: ids::refund_id(payment_id),
            payment_id: payment_id.to_owned(),
            amount,
            currency: currency.to_owned(),
            status: RefundStatus::Pending,
            reason,
            location_id: location_id.to_owned(),
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
        }
    }

    /// Moves a PENDING refund to `outcome` (COMPLETED or REJECTED).
    pub fn settle(&mut self, outcome: RefundStatus, now_ms: u64) -> Result<(), RefundNotPending> {
        if self.status != RefundStatus::Pending {
            return Err(RefundNotPending {
                status: self.status,
            });
        }
        self.status = outcome;
        self.updated_at_ms = now_ms;
        Ok(())
    }

    pub fn to_json(&self) -> Value {
        let mut refund = json!({
            "id": self.id,
            "status": self.status.as_str(),
            "amount_money": { "amount": self.amount, "currency": self.currency },
            "payment_id": self.payment_id,
            "location_id": self.location_id,
            "created_at": rfc3339(self.created_at_ms),
            "updated_at": rfc3339(self.updated_at_ms),
        });
        if let Some(reason) = &self.reason {
            refund["reason"] = json!(reason);
        }
        refund
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settles_once() {
        let mut refund = Refund::pending("PAY", 500, "USD", None, "L1", 1);
        assert!(refund.id.starts_with("PAY_"));
        assert_eq!(refund.to_json()["status"], "PENDING");
        refund.settle(RefundStatus::Completed, 2).unwrap();
        assert_eq!(
            refund.settle(RefundStatus::Rejected, 3),
            Err(RefundNotPending {
                status: RefundStatus::Completed
            })
        );
    }
}
