//! Refunds, asked for over the API or "from the Square Dashboard", and
//! their settlement.

use std::collections::HashMap;

use serde_json::{json, Value};

use super::{payment_not_found, Bank, Handled};
use crate::events::{Event, EventType};
use crate::guesses::Refusal;
use crate::idempotency::{fingerprint, Lookup, Scope, Stored};
use crate::payments::PaymentStatus;
use crate::refunds::{Refund, RefundNotPending, RefundStatus};
use crate::requests;
use crate::square_error::SquareError;

/// Why a refund could not be settled by the control API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettleError {
    UnknownRefund,
    NotPending(RefundStatus),
}

impl Bank {
    pub fn refund_payment(&mut self, body: &Value, now_ms: u64) -> Handled {
        let request = match requests::refund_payment(body, &self.settings.currency) {
            Ok(request) => request,
            Err(error) => return Handled::error(error),
        };
        let print = fingerprint(body);
        match self
            .keys
            .lookup(Scope::RefundPayment, &request.idempotency_key, &print)
        {
            Lookup::Replay(stored) => return Handled::replay(stored),
            Lookup::Reused => return Handled::error(SquareError::idempotency_key_reused()),
            Lookup::Fresh => {}
        }
        if let Err(full) = self.keys.has_room() {
            return Handled::error(SquareError::standin_full("idempotency keys", full.limit));
        }
        let handled = self.open_refund(&request.payment_id, request.amount, request.reason, now_ms);
        // Only a refund that was made is remembered under its key; a refusal
        // (say, the payment still needs completing) can be retried as is.
        if handled.reply.status == 200 {
            let stored = Stored {
                status: 200,
                body: handled.reply.body.clone(),
            };
            self.keys.record(
                Scope::RefundPayment,
                &request.idempotency_key,
                print,
                stored,
            );
        }
        handled
    }

    /// A refund the merchant starts in the Dashboard: no key, and by default
    /// everything that is left.
    pub fn dashboard_refund(
        &mut self,
        payment_id: &str,
        amount: Option<i64>,
        reason: Option<String>,
        now_ms: u64,
    ) -> Handled {
        let Some(payment) = self.payments.get(payment_id) else {
            return Handled::error(payment_not_found(payment_id));
        };
        let amount = amount.unwrap_or(payment.refundable_amount());
        if amount <= 0 {
            return Handled::error(SquareError::refund_amount_invalid());
        }
        self.open_refund(payment_id, amount, reason, now_ms)
    }

    fn open_refund(
        &mut self,
        payment_id: &str,
        amount: i64,
        reason: Option<String>,
        now_ms: u64,
    ) -> Handled {
        let limits = &self.settings.limits;
        if self.refunds.len() >= limits.refunds {
            return Handled::error(SquareError::standin_full("refunds", limits.refunds));
        }
        let Some(payment) = self.payments.get_mut(payment_id) else {
            return Handled::error(payment_not_found(payment_id));
        };
        match payment.status {
            PaymentStatus::Completed => {}
            PaymentStatus::Approved => {
                return Handled::error(SquareError::refund_needs_completion())
            }
            PaymentStatus::Canceled | PaymentStatus::Failed => {
                return Handled::error(SquareError::payment_not_refundable())
            }
        }
        // "If funds cannot be secured … the refund has a status of FAILED.
        // Future refunds to this payment are not allowed."
        // (<https://developer.squareup.com/reference/square/refunds-api>)
        let guesses = self.guesses;
        if guesses.refund_after_failed == Refusal::Refused
            && any_refund(&self.refunds, &payment.refund_ids, RefundStatus::Failed)
        {
            return Handled::error(SquareError::refund_after_failure());
        }
        if amount > payment.refundable_amount() {
            return Handled::error(SquareError::refund_amount_invalid());
        }
        // Square's ErrorCode reference: REFUND_ALREADY_PENDING, "the payment
        // already has a pending refund". When Square answers it is not
        // documented; the stand-in takes the strictest reading and refuses
        // every new refund while another of the payment is PENDING.
        if guesses.refund_while_pending == Refusal::Refused
            && any_refund(&self.refunds, &payment.refund_ids, RefundStatus::Pending)
        {
            return Handled::error(SquareError::refund_already_pending());
        }
        let most = guesses.refunds_per_payment;
        if payment.refund_ids.len() >= most {
            return Handled::error(SquareError::too_many_refunds(most));
        }
        let refund = Refund::pending(
            payment_id,
            amount,
            &payment.currency,
            reason,
            &payment.location_id,
            now_ms,
        );
        payment.refund_ids.push(refund.id.clone());
        payment.refunded_amount += amount;
        payment.touch(now_ms);
        let events = vec![
            Event::refund(EventType::RefundCreated, &refund),
            Event::payment(EventType::PaymentUpdated, payment),
        ];
        let mut handled = Handled::ok(json!({ "refund": refund.to_json() }), events);
        handled.pending_refund = Some(refund.id.clone());
        self.refund_order.push(refund.id.clone());
        self.refunds.insert(refund.id.clone(), refund);
        handled
    }

    /// COMPLETED or REJECTED: a rejected refund gives its amount back to
    /// what the payment can still refund.
    pub fn settle_refund(
        &mut self,
        id: &str,
        outcome: RefundStatus,
        now_ms: u64,
    ) -> Result<(Value, Vec<Event>), SettleError> {
        let refund = self.refunds.get_mut(id).ok_or(SettleError::UnknownRefund)?;
        refund
            .settle(outcome, now_ms)
            .map_err(|RefundNotPending { status }| SettleError::NotPending(status))?;
        let mut events = vec![Event::refund(EventType::RefundUpdated, refund)];
        // A refund that did not happen gives its amount back to refund.
        if matches!(outcome, RefundStatus::Rejected | RefundStatus::Failed) {
            let payment = self
                .payments
                .get_mut(&refund.payment_id)
                .expect("a refund's payment is stored until reset, which drops both");
            payment.refunded_amount -= refund.amount;
            payment.touch(now_ms);
            events.push(Event::payment(EventType::PaymentUpdated, payment));
        }
        Ok((json!({ "refund": refund.to_json() }), events))
    }
}

/// Whether one of these refunds has this status.
fn any_refund(refunds: &HashMap<String, Refund>, ids: &[String], status: RefundStatus) -> bool {
    ids.iter()
        .any(|id| refunds.get(id).is_some_and(|r| r.status == status))
}

#[cfg(test)]
mod tests {
    use super::super::test_bank;
    use super::*;

    fn paid(bank: &mut Bank, autocomplete: bool) -> String {
        let body = json!({
            "idempotency_key": format!("pay-{autocomplete}"),
            "source_id": "cnon:card-nonce-ok",
            "amount_money": {"amount": 3000, "currency": "USD"},
            "autocomplete": autocomplete,
        });
        let created = bank.create_payment(&body, 1);
        created.reply.body["payment"]["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// The id of the refund an answer made.
    fn made_id(handled: &Handled) -> String {
        handled.reply.body["refund"]["id"]
            .as_str()
            .expect("a refund")
            .to_string()
    }

    fn refund(payment_id: &str, key: &str, amount: i64) -> Value {
        json!({
            "idempotency_key": key,
            "payment_id": payment_id,
            "amount_money": {"amount": amount, "currency": "USD"},
        })
    }

    #[test]
    fn refunds_stop_at_what_was_paid() {
        let mut bank = test_bank();
        let id = paid(&mut bank, true);
        let first = bank.refund_payment(&refund(&id, "r1", 2000), 2);
        assert_eq!(first.reply.body["refund"]["status"], "PENDING");
        assert_eq!(first.events.len(), 2);
        let refund_id = first.reply.body["refund"]["id"].as_str().unwrap();
        bank.settle_refund(refund_id, RefundStatus::Completed, 3)
            .unwrap();
        let too_much = bank.refund_payment(&refund(&id, "r2", 1001), 3);
        assert_eq!(
            too_much.reply.body["errors"][0]["code"],
            "REFUND_AMOUNT_INVALID"
        );
        let replay = bank.refund_payment(&refund(&id, "r1", 2000), 4);
        assert_eq!(replay.reply, first.reply);
        let payment = bank.get_payment(&id).reply.body;
        assert_eq!(payment["payment"]["refunded_money"]["amount"], 2000);
    }

    #[test]
    fn an_authorization_must_be_completed_first() {
        let mut bank = test_bank();
        let id = paid(&mut bank, false);
        let refused = bank.refund_payment(&refund(&id, "r1", 100), 2);
        assert_eq!(
            refused.reply.body["errors"][0]["code"],
            "REFUND_ERROR_PAYMENT_NEEDS_COMPLETION"
        );
    }

    #[test]
    fn a_rejected_refund_frees_its_amount() {
        let mut bank = test_bank();
        let id = paid(&mut bank, true);
        let opened = bank.dashboard_refund(&id, None, Some("film cancelled".into()), 2);
        let refund_id = opened.pending_refund.unwrap();
        let (body, events) = bank
            .settle_refund(&refund_id, RefundStatus::Rejected, 3)
            .unwrap();
        assert_eq!(body["refund"]["status"], "REJECTED");
        assert_eq!(events.len(), 2);
        assert_eq!(
            bank.settle_refund(&refund_id, RefundStatus::Completed, 4),
            Err(SettleError::NotPending(RefundStatus::Rejected))
        );
        assert_eq!(bank.dashboard_refund(&id, None, None, 5).reply.status, 200);
    }

    #[test]
    fn a_second_refund_waits_until_the_first_is_no_longer_pending() {
        let mut bank = test_bank();
        let id = paid(&mut bank, true);
        let first = bank.refund_payment(&refund(&id, "r1", 500), 2);
        let refund_id = made_id(&first);
        let second = bank.refund_payment(&refund(&id, "r2", 500), 3);
        assert_eq!(
            second.reply.body["errors"][0]["code"],
            "REFUND_ALREADY_PENDING"
        );
        let from_dashboard = bank.dashboard_refund(&id, Some(500), None, 3);
        assert_eq!(
            from_dashboard.reply.body["errors"][0]["code"],
            "REFUND_ALREADY_PENDING"
        );
        // The first one's key still answers it, as made.
        assert_eq!(
            bank.refund_payment(&refund(&id, "r1", 500), 4).reply,
            first.reply
        );
        bank.settle_refund(&refund_id, RefundStatus::Completed, 5)
            .unwrap();
        // The refused key was not spent: the same request now succeeds.
        let again = bank.refund_payment(&refund(&id, "r2", 500), 6);
        assert_eq!(again.reply.body["refund"]["status"], "PENDING");
    }

    #[test]
    fn after_a_failed_refund_the_payment_cannot_be_refunded() {
        let mut bank = test_bank();
        let id = paid(&mut bank, true);
        let first = bank.refund_payment(&refund(&id, "r1", 500), 2);
        let refund_id = made_id(&first);
        bank.settle_refund(&refund_id, RefundStatus::Failed, 3)
            .unwrap();
        let again = bank.refund_payment(&refund(&id, "r2", 500), 4);
        assert_eq!(
            again.reply.body["errors"][0]["code"],
            "PAYMENT_NOT_REFUNDABLE"
        );
    }
}
