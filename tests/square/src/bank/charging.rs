//! Taking card payments: create, capture, void, void-by-key, lapse.

use serde_json::{json, Value};

use super::{payment_not_found, Bank, Handled};
use crate::cards::TypedCard;
use crate::clock::year_month;
use crate::events::{Event, EventType};
use crate::idempotency::{fingerprint, Lookup, Scope, Stored};
use crate::payments::{Change, Merchant, Payment, PaymentStatus};
use crate::requests;
use crate::square_error::SquareError;
use crate::tokens::TokenError;

impl Bank {
    pub fn create_payment(&mut self, body: &Value, now_ms: u64) -> Handled {
        let request = match requests::create_payment(body, &self.settings.currency) {
            Ok(request) => request,
            Err(error) => return Handled::error(error),
        };
        if let Some(location_id) = request
            .location_id
            .as_deref()
            .filter(|id| *id != self.settings.location_id)
        {
            return Handled::error(SquareError::not_found(format!(
                "Location `{location_id}` not found."
            )));
        }
        let print = fingerprint(body);
        match self
            .keys
            .lookup(Scope::CreatePayment, &request.idempotency_key, &print)
        {
            Lookup::Replay(stored) => return Handled::replay(stored),
            Lookup::Reused => return Handled::error(SquareError::idempotency_key_reused()),
            Lookup::Fresh => {}
        }
        if let Err(full) = self.keys.has_room() {
            return Handled::error(SquareError::standin_full("idempotency keys", full.limit));
        }
        if self.payments.len() >= self.settings.limits.payments {
            return Handled::error(SquareError::standin_full(
                "payments",
                self.settings.limits.payments,
            ));
        }
        let (card, decline) = match self.tokens.redeem(&request.source_id) {
            Ok(charged) => charged,
            Err(TokenError::Unknown) => return Handled::error(SquareError::unknown_card_token()),
            Err(TokenError::Used) => return Handled::error(SquareError::card_token_used()),
        };
        let merchant = Merchant {
            location_id: &self.settings.location_id,
            application_id: &self.settings.application_id,
            currency: &self.settings.currency,
        };
        let mut payment = Payment::charge(&request, card, decline, &merchant, now_ms);
        if decline.is_none() {
            if let Some((times, after_ms)) = self.pending_plan {
                payment.pending_until_ms = Some(now_ms.saturating_add(after_ms));
                self.pending_plan = (times > 1).then_some((times - 1, after_ms));
            }
        }
        let stored = match decline {
            Some(decline) => {
                let error = SquareError::decline(
                    self.settings.decline_status,
                    decline.code(),
                    payment.to_json(),
                );
                Stored {
                    status: error.status,
                    body: error.body(),
                }
            }
            None => Stored {
                status: 200,
                body: json!({ "payment": payment.to_json() }),
            },
        };
        // A decline is stored too: retrying the same key replays it.
        self.keys.record(
            Scope::CreatePayment,
            &request.idempotency_key,
            print,
            stored.clone(),
        );
        self.payment_by_key
            .insert(request.idempotency_key, payment.id.clone());
        let events = vec![Event::payment(EventType::PaymentCreated, &payment)];
        self.payment_order.push(payment.id.clone());
        self.payments.insert(payment.id.clone(), payment);
        let mut handled = Handled::replay(stored);
        handled.events = events;
        handled
    }

    pub fn complete_payment(&mut self, id: &str, body: &Value, now_ms: u64) -> Handled {
        let version_token = match requests::version_token(body) {
            Ok(token) => token,
            Err(error) => return Handled::error(error),
        };
        let Some(payment) = self.payments.get_mut(id) else {
            return Handled::error(payment_not_found(id));
        };
        if version_token.is_some_and(|token| token != payment.version_token) {
            return Handled::error(SquareError::version_mismatch());
        }
        Self::answer_move(payment.complete(now_ms), payment)
    }

    pub fn cancel_payment(&mut self, id: &str, now_ms: u64) -> Handled {
        let Some(payment) = self.payments.get_mut(id) else {
            return Handled::error(payment_not_found(id));
        };
        Self::answer_move(payment.cancel(now_ms), payment)
    }

    /// Voids whatever the CreatePayment with this key made; when it made
    /// nothing (or its answer was a decline) there is nothing to void and
    /// the call still succeeds.
    pub fn cancel_by_key(&mut self, body: &Value, now_ms: u64) -> Handled {
        let key = match requests::cancel_by_key(body) {
            Ok(key) => key,
            Err(error) => return Handled::error(error),
        };
        let payment = self
            .payment_by_key
            .get(&key)
            .and_then(|id| self.payments.get_mut(id));
        let Some(payment) = payment.filter(|p| p.status != PaymentStatus::Failed) else {
            return Handled::ok(json!({}), Vec::new());
        };
        match payment.cancel(now_ms) {
            Ok(Change::Changed) => Handled::ok(
                json!({}),
                vec![Event::payment(EventType::PaymentUpdated, payment)],
            ),
            Ok(Change::Unchanged) => Handled::ok(json!({}), Vec::new()),
            Err(error) => Handled::error(error),
        }
    }

    fn answer_move(outcome: Result<Change, SquareError>, payment: &Payment) -> Handled {
        let events = match outcome {
            Err(error) => return Handled::error(error),
            Ok(Change::Changed) => vec![Event::payment(EventType::PaymentUpdated, payment)],
            Ok(Change::Unchanged) => Vec::new(),
        };
        Handled::ok(json!({ "payment": payment.to_json() }), events)
    }

    /// Settles PENDING payments whose time came, and applies `delay_action`
    /// to every authorization whose `delayed_until` has passed.
    pub fn lapse_due(&mut self, now_ms: u64) -> Vec<Event> {
        let mut events = Vec::new();
        for id in &self.payment_order {
            let payment = self
                .payments
                .get_mut(id)
                .expect("payment_order lists stored payments");
            if payment.settle_pending(now_ms) == Change::Changed {
                events.push(Event::payment(EventType::PaymentUpdated, payment));
            }
            if payment.delayed_until_ms <= now_ms && payment.lapse(now_ms) == Change::Changed {
                events.push(Event::payment(EventType::PaymentUpdated, payment));
            }
        }
        events
    }

    /// Lapses one authorization now, as if its delay had run out.
    pub fn lapse_now(&mut self, id: &str, now_ms: u64) -> Handled {
        let Some(payment) = self.payments.get_mut(id) else {
            return Handled::error(payment_not_found(id));
        };
        let events = match payment.lapse(now_ms) {
            Change::Changed => vec![Event::payment(EventType::PaymentUpdated, payment)],
            Change::Unchanged => Vec::new(),
        };
        Handled::ok(json!({ "payment": payment.to_json() }), events)
    }

    /// The SDK stand-in's tokenize: the Web Payments SDK's result shape.
    pub fn tokenize(&mut self, typed: &TypedCard, now_ms: u64) -> Value {
        let accepted = match crate::cards::accept(typed, year_month(now_ms)) {
            Ok(accepted) => accepted,
            Err(errors) => {
                let errors: Vec<Value> = errors
                    .iter()
                    .map(|e| json!({ "type": "VALIDATION_ERROR", "field": e.field, "message": e.message }))
                    .collect();
                return json!({ "status": "Invalid", "errors": errors });
            }
        };
        let card = accepted.card.clone();
        match self.tokens.mint(accepted) {
            Ok(token) => json!({
                "status": "OK",
                "token": token,
                "details": {
                    "method": "Card",
                    "card": {
                        "brand": card.brand,
                        "last4": card.last_4,
                        "expMonth": card.exp_month,
                        "expYear": card.exp_year,
                    },
                },
            }),
            Err(full) => json!({
                "status": "Error",
                "errors": [{ "type": "UNKNOWN", "message": format!("The stand-in holds at most {} card tokens.", full.limit) }],
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_bank;
    use serde_json::json;

    fn create(key: &str, token: &str, autocomplete: bool) -> serde_json::Value {
        json!({
            "idempotency_key": key,
            "source_id": token,
            "amount_money": {"amount": 2400, "currency": "USD"},
            "autocomplete": autocomplete,
        })
    }

    #[test]
    fn replays_a_decline_and_refuses_a_changed_request() {
        let mut bank = test_bank();
        let first = bank.create_payment(&create("k", "cnon:card-nonce-declined", true), 1);
        assert_eq!(first.reply.status, 402);
        assert_eq!(first.reply.body["errors"][0]["code"], "GENERIC_DECLINE");
        assert_eq!(first.reply.body["payment"]["status"], "FAILED");
        let again = bank.create_payment(&create("k", "cnon:card-nonce-declined", true), 2);
        assert_eq!(again.reply, first.reply);
        assert!(again.events.is_empty());
        let changed = bank.create_payment(&create("k", "cnon:card-nonce-ok", true), 3);
        assert_eq!(
            changed.reply.body["errors"][0]["code"],
            "IDEMPOTENCY_KEY_REUSED"
        );
    }

    #[test]
    fn cancel_by_key_voids_the_authorization_and_tolerates_unknown_keys() {
        let mut bank = test_bank();
        let created = bank.create_payment(&create("k", "cnon:card-nonce-ok", false), 1);
        let id = created.reply.body["payment"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let canceled = bank.cancel_by_key(&json!({"idempotency_key": "k"}), 2);
        assert_eq!((canceled.reply.status, canceled.events.len()), (200, 1));
        assert_eq!(
            bank.get_payment(&id).reply.body["payment"]["status"],
            "CANCELED"
        );
        assert_eq!(
            bank.cancel_by_key(&json!({"idempotency_key": "none"}), 3)
                .reply
                .status,
            200
        );
    }

    #[test]
    fn lapse_due_only_touches_expired_authorizations() {
        let mut bank = test_bank();
        let created = bank.create_payment(&create("k", "cnon:card-nonce-ok", false), 0);
        let until = created.reply.body["payment"]["delayed_until"].clone();
        assert!(until.is_string());
        assert!(bank.lapse_due(1_000).is_empty());
        assert_eq!(bank.lapse_due(7 * 24 * 3_600_000).len(), 1);
    }
}
