//! A card payment and the moves Square allows it: authorize (APPROVED),
//! capture (COMPLETED), void (CANCELED), or fail at the start (FAILED).

use serde_json::{json, Value};

use crate::cards::{Card, Decline};
use crate::clock::rfc3339;
use crate::ids;
use crate::requests::{CreatePayment, DelayAction};
use crate::square_error::SquareError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentStatus {
    Approved,
    Completed,
    Canceled,
    Failed,
}

impl PaymentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            PaymentStatus::Approved => "APPROVED",
            PaymentStatus::Completed => "COMPLETED",
            PaymentStatus::Canceled => "CANCELED",
            PaymentStatus::Failed => "FAILED",
        }
    }

    /// `card_details.status` that goes with each payment status.
    fn card_status(self) -> &'static str {
        match self {
            PaymentStatus::Approved => "AUTHORIZED",
            PaymentStatus::Completed => "CAPTURED",
            PaymentStatus::Canceled => "VOIDED",
            PaymentStatus::Failed => "FAILED",
        }
    }
}

/// Whether a move changed the payment; an unchanged payment sends no webhook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Changed,
    Unchanged,
}

#[derive(Debug, Clone)]
pub struct Payment {
    pub id: String,
    pub status: PaymentStatus,
    pub amount: i64,
    pub currency: String,
    pub card: Card,
    pub decline: Option<Decline>,
    pub location_id: String,
    pub application_id: String,
    pub reference_id: Option<String>,
    /// The order it pays for, when it was made with one.
    pub order_id: Option<String>,
    pub note: Option<String>,
    pub buyer_email_address: Option<String>,
    pub delay_duration: String,
    pub delay_action: DelayAction,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
    pub delayed_until_ms: u64,
    pub captured_at_ms: Option<u64>,
    pub voided_at_ms: Option<u64>,
    pub version_token: String,
    pub refund_ids: Vec<String>,
    /// Sum of the refunds that are PENDING or COMPLETED: what can no longer
    /// be refunded.
    pub refunded_amount: i64,
    /// Until then the payment reads PENDING and cannot be completed or
    /// voided; then it is what it was made (APPROVED or COMPLETED).
    pub pending_until_ms: Option<u64>,
    /// Settles FAILED with this decline instead of as it was made.
    pub pending_then: Option<Decline>,
}

/// Where the payment is taken, from the stand-in's configuration.
pub struct Merchant<'a> {
    pub location_id: &'a str,
    pub application_id: &'a str,
    pub currency: &'a str,
}

impl Payment {
    pub fn charge(
        request: &CreatePayment,
        card: Card,
        decline: Option<Decline>,
        merchant: &Merchant,
        now_ms: u64,
    ) -> Self {
        let status = match (decline, request.autocomplete) {
            (Some(_), _) => PaymentStatus::Failed,
            (None, true) => PaymentStatus::Completed,
            (None, false) => PaymentStatus::Approved,
        };
        Payment {
            id: ids::payment_id(),
            status,
            amount: request.amount,
            currency: merchant.currency.to_owned(),
            card,
            decline,
            location_id: merchant.location_id.to_owned(),
            application_id: merchant.application_id.to_owned(),
            reference_id: request.reference_id.clone(),
            order_id: request.order_id.clone(),
            note: request.note.clone(),
            buyer_email_address: request.buyer_email_address.clone(),
            delay_duration: request.delay_duration.clone(),
            delay_action: request.delay_action,
            created_at_ms: now_ms,
            updated_at_ms: now_ms,
            delayed_until_ms: now_ms.saturating_add(request.delay_ms),
            captured_at_ms: (status == PaymentStatus::Completed).then_some(now_ms),
            voided_at_ms: None,
            version_token: ids::version_token(),
            refund_ids: Vec::new(),
            refunded_amount: 0,
            pending_until_ms: None,
            pending_then: None,
        }
    }

    /// The status as Square shows it now.
    fn shown_status(&self) -> &'static str {
        match self.pending_until_ms {
            Some(_) => "PENDING",
            None => self.status.as_str(),
        }
    }

    /// A PENDING payment whose time came settles; answers whether it did.
    pub fn settle_pending(&mut self, now_ms: u64) -> Change {
        match self.pending_until_ms {
            Some(until) if until <= now_ms => {
                self.settle_now();
                self.touch(now_ms);
                Change::Changed
            }
            _ => Change::Unchanged,
        }
    }

    /// Ends PENDING now, as made or FAILED as planned.
    pub fn settle_now(&mut self) {
        self.pending_until_ms = None;
        if let Some(decline) = self.pending_then.take() {
            self.status = PaymentStatus::Failed;
            self.decline = Some(decline);
        }
    }

    fn refuse_while_pending(&self) -> Result<(), SquareError> {
        match self.pending_until_ms {
            Some(_) => Err(SquareError::payment_pending()),
            None => Ok(()),
        }
    }

    /// CompletePayment: only an APPROVED payment can be captured; capturing
    /// a COMPLETED one again answers it unchanged.
    pub fn complete(&mut self, now_ms: u64) -> Result<Change, SquareError> {
        self.refuse_while_pending()?;
        match self.status {
            PaymentStatus::Approved => {
                self.status = PaymentStatus::Completed;
                self.captured_at_ms = Some(now_ms);
                self.touch(now_ms);
                Ok(Change::Changed)
            }
            PaymentStatus::Completed => Ok(Change::Unchanged),
            PaymentStatus::Canceled => Err(SquareError::already_canceled()),
            PaymentStatus::Failed => Err(SquareError::already_failed()),
        }
    }

    /// CancelPayment: only an APPROVED payment can be voided; voiding a
    /// CANCELED one again answers it unchanged.
    pub fn cancel(&mut self, now_ms: u64) -> Result<Change, SquareError> {
        self.refuse_while_pending()?;
        match self.status {
            PaymentStatus::Approved => {
                self.status = PaymentStatus::Canceled;
                self.voided_at_ms = Some(now_ms);
                self.touch(now_ms);
                Ok(Change::Changed)
            }
            PaymentStatus::Canceled => Ok(Change::Unchanged),
            PaymentStatus::Completed => Err(SquareError::already_captured()),
            PaymentStatus::Failed => Err(SquareError::already_failed()),
        }
    }

    /// Applies `delay_action` to an authorization nobody captured or voided
    /// in time.
    pub fn lapse(&mut self, now_ms: u64) -> Change {
        if self.status != PaymentStatus::Approved || self.pending_until_ms.is_some() {
            return Change::Unchanged;
        }
        let outcome = match self.delay_action {
            DelayAction::Cancel => self.cancel(now_ms),
            DelayAction::Complete => self.complete(now_ms),
        };
        // An APPROVED payment accepts both moves.
        outcome.expect("an approved payment can be completed or canceled")
    }

    pub fn refundable_amount(&self) -> i64 {
        self.amount - self.refunded_amount
    }

    pub fn touch(&mut self, now_ms: u64) {
        self.updated_at_ms = now_ms;
        self.version_token = ids::version_token();
    }

    fn money(&self, amount: i64) -> Value {
        json!({ "amount": amount, "currency": self.currency })
    }

    pub fn to_json(&self) -> Value {
        let approved = if self.status == PaymentStatus::Failed {
            0
        } else {
            self.amount
        };
        let mut timeline = json!({});
        if self.status != PaymentStatus::Failed {
            timeline["authorized_at"] = json!(rfc3339(self.created_at_ms));
        }
        if let Some(at) = self.captured_at_ms {
            timeline["captured_at"] = json!(rfc3339(at));
        }
        if let Some(at) = self.voided_at_ms {
            timeline["voided_at"] = json!(rfc3339(at));
        }
        let mut card_details = json!({
            "status": self.status.card_status(),
            "card": {
                "card_brand": self.card.brand,
                "last_4": self.card.last_4,
                "exp_month": self.card.exp_month,
                "exp_year": self.card.exp_year,
                "card_type": "CREDIT",
                "prepaid_type": "NOT_PREPAID",
            },
            "entry_method": "KEYED",
            "cvv_status": self.decline.map_or("CVV_ACCEPTED", Decline::cvv_status),
            "avs_status": self.decline.map_or("AVS_ACCEPTED", Decline::avs_status),
            "statement_description": "SQ *SHOWTIME",
            "card_payment_timeline": timeline,
        });
        if let Some(decline) = self.decline {
            card_details["errors"] = json!([{
                "category": "PAYMENT_METHOD_ERROR",
                "code": decline.code(),
                "detail": format!("Authorization error: '{}'", decline.code()),
            }]);
        }
        let mut payment = json!({
            "id": self.id,
            "created_at": rfc3339(self.created_at_ms),
            "updated_at": rfc3339(self.updated_at_ms),
            "amount_money": self.money(self.amount),
            "approved_money": self.money(approved),
            "total_money": self.money(self.amount),
            "status": self.shown_status(),
            "delay_duration": self.delay_duration,
            "delay_action": self.delay_action.as_str(),
            "delayed_until": rfc3339(self.delayed_until_ms),
            "source_type": "CARD",
            "card_details": card_details,
            "location_id": self.location_id,
            "receipt_number": self.id.get(..4).unwrap_or(&self.id),
            "application_details": {
                "square_product": "ECOMMERCE_API",
                "application_id": self.application_id,
            },
            "version_token": self.version_token,
        });
        let optional = [
            ("reference_id", &self.reference_id),
            ("order_id", &self.order_id),
            ("note", &self.note),
            ("buyer_email_address", &self.buyer_email_address),
        ];
        for (name, value) in optional {
            if let Some(value) = value {
                payment[name] = json!(value);
            }
        }
        if !self.refund_ids.is_empty() {
            payment["refund_ids"] = json!(self.refund_ids);
            payment["refunded_money"] = self.money(self.refunded_amount);
        }
        payment
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::requests;

    fn payment(autocomplete: bool, decline: Option<Decline>) -> Payment {
        let body = json!({
            "idempotency_key": "k",
            "source_id": "cnon:card-nonce-ok",
            "amount_money": {"amount": 1500, "currency": "USD"},
            "autocomplete": autocomplete,
            "reference_id": "order-7",
        });
        let request = requests::create_payment(&body, "USD").unwrap();
        let merchant = Merchant {
            location_id: "L1",
            application_id: "A1",
            currency: "USD",
        };
        Payment::charge(&request, Card::sandbox_visa(), decline, &merchant, 1_000)
    }

    #[test]
    fn autocomplete_false_authorizes_then_captures_once() {
        let mut p = payment(false, None);
        assert_eq!(p.to_json()["card_details"]["status"], "AUTHORIZED");
        let token = p.version_token.clone();
        assert_eq!(p.complete(2_000), Ok(Change::Changed));
        assert_ne!(p.version_token, token);
        assert_eq!(p.to_json()["card_details"]["status"], "CAPTURED");
        assert_eq!(p.complete(3_000), Ok(Change::Unchanged));
        assert_eq!(
            p.cancel(3_000).unwrap_err().code,
            "DELAYED_TRANSACTION_CAPTURED"
        );
    }

    #[test]
    fn a_void_cannot_be_captured() {
        let mut p = payment(false, None);
        assert_eq!(p.cancel(2_000), Ok(Change::Changed));
        let json = p.to_json();
        assert_eq!(
            (
                json["status"].as_str(),
                json["card_details"]["status"].as_str()
            ),
            (Some("CANCELED"), Some("VOIDED"))
        );
        assert_eq!(
            p.complete(3_000).unwrap_err().code,
            "DELAYED_TRANSACTION_CANCELED"
        );
    }

    #[test]
    fn a_declined_charge_is_failed_with_its_error() {
        let p = payment(true, Some(Decline::Cvv));
        let json = p.to_json();
        assert_eq!(json["status"], "FAILED");
        assert_eq!(json["card_details"]["status"], "FAILED");
        assert_eq!(json["card_details"]["cvv_status"], "CVV_REJECTED");
        assert_eq!(json["approved_money"]["amount"], 0);
        assert_eq!(json["reference_id"], "order-7");
    }

    #[test]
    fn a_lapsed_authorization_follows_its_delay_action() {
        let mut p = payment(false, None);
        assert_eq!(p.lapse(p.delayed_until_ms), Change::Changed);
        assert_eq!(p.status, PaymentStatus::Canceled);
    }
}
