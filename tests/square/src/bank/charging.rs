//! Taking card payments: create, capture, void, void-by-key, lapse.

use serde_json::{json, Value};

use super::{payment_not_found, Bank, Handled, PendingPlan};
use crate::cards::{AcceptedCard, Sca, TypedCard, CHALLENGE_CODE};
use crate::clock::year_month;
use crate::events::{Event, EventType};
use crate::guesses::{Refusal, RepeatedMove, UnknownSource};
use crate::idempotency::{fingerprint, Lookup, Scope, Stored};
use crate::ids;
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
        if let Some(order_id) = &request.order_id {
            if let Err(error) = self.check_order_payment(order_id, request.amount) {
                return Handled::error(error);
            }
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
        let verification = request.verification_token.as_deref();
        let mismatched = verification
            .is_some_and(|token| self.tokens.verification_of(&request.source_id) != Some(token));
        if mismatched && self.guesses.verification_mismatch == Refusal::Refused {
            return Handled::error(SquareError::invalid_value(
                "verification_token",
                "The verification token does not match the source.",
            ));
        }
        let (card, decline) = match self.tokens.redeem(&request.source_id, verification) {
            Ok(charged) => charged,
            Err(TokenError::Unknown) => {
                return Handled::error(match self.guesses.unknown_source {
                    UnknownSource::NotFound => SquareError::unknown_card_token(),
                    UnknownSource::Invalid => {
                        SquareError::invalid_value("source_id", "Invalid source_id.")
                    }
                })
            }
            Err(TokenError::Used) => return Handled::error(SquareError::card_token_used()),
        };
        let merchant = Merchant {
            location_id: &self.settings.location_id,
            application_id: &self.settings.application_id,
            currency: &self.settings.currency,
        };
        let mut payment = Payment::charge(&request, card, decline, &merchant, now_ms);
        if decline.is_none() {
            if let Some(plan) = self.pending_plan {
                payment.pending_until_ms = Some(now_ms.saturating_add(plan.settle_after_ms));
                payment.pending_then = plan.then_decline;
                self.pending_plan = (plan.times > 1).then_some(PendingPlan {
                    times: plan.times - 1,
                    ..plan
                });
            }
        }
        let stored = match decline {
            Some(decline) => {
                let error = SquareError::decline(
                    self.guesses.decline_status,
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
        let events = match (decline, self.guesses.declined_webhook) {
            (Some(_), false) => Vec::new(),
            _ => vec![Event::payment(EventType::PaymentCreated, &payment)],
        };
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
        let guesses = self.guesses;
        let outcome = move_again(&guesses, payment, PaymentStatus::Completed)
            .unwrap_or_else(|| payment.complete(now_ms));
        Self::answer_move(outcome, payment)
    }

    pub fn cancel_payment(&mut self, id: &str, now_ms: u64) -> Handled {
        let guesses = self.guesses;
        let Some(payment) = self.payments.get_mut(id) else {
            return Handled::error(payment_not_found(id));
        };
        let outcome = move_again(&guesses, payment, PaymentStatus::Canceled)
            .unwrap_or_else(|| payment.cancel(now_ms));
        Self::answer_move(outcome, payment)
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
        let captured =
            payment.status == PaymentStatus::Completed && payment.pending_until_ms.is_none();
        if captured && self.guesses.cancel_by_key_after_capture == Refusal::Accepted {
            return Handled::ok(json!({}), Vec::new());
        }
        if self.guesses.pending_moves == Refusal::Accepted {
            payment.settle_now();
        }
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
    /// Tokenizes a typed card. With `verification` (the page's verification
    /// details) a card that needs SCA is verified: at once, or after a
    /// challenge the SDK shows (answered `{"status": "CHALLENGE",
    /// "challenge_id"}`, finished by [`Bank::verify`]). Without, its token is
    /// made unverified, and charging it is declined.
    ///
    /// A wallet's card (`wallet`) takes no details: at a GBP or EUR
    /// location it must be verified with `verifyBuyer()` instead
    /// ([`Bank::verify_buyer`]), or charging it is declined.
    pub fn tokenize(
        &mut self,
        typed: &TypedCard,
        verification: Option<&Value>,
        wallet: bool,
        now_ms: u64,
    ) -> Value {
        let mut accepted = match crate::cards::accept(typed, year_month(now_ms)) {
            Ok(accepted) => accepted,
            Err(errors) => {
                let errors: Vec<Value> = errors
                    .iter()
                    .map(|e| json!({ "type": "VALIDATION_ERROR", "field": e.field, "message": e.message }))
                    .collect();
                return json!({ "status": "Invalid", "errors": errors });
            }
        };
        if wallet {
            accepted.wallet_needs_verification = self
                .guesses
                .wallet_needs_verification(&self.settings.currency);
            return self.mint(accepted);
        }
        if let Some(details) = verification {
            if let Err(message) = verification_details(details, &self.settings.currency) {
                return json!({
                    "status": "Error",
                    "errors": [{ "type": "INVALID_VERIFICATION_DETAILS", "message": message }],
                });
            }
            match accepted.sca {
                Sca::NotNeeded => {}
                Sca::NoChallenge => accepted.verified = true,
                Sca::Challenge => {
                    if self.challenges.len() >= self.settings.limits.card_tokens {
                        self.challenges.clear();
                    }
                    let id = ids::card_token().replace("cnon:", "chl:");
                    self.challenges.insert(id.clone(), accepted);
                    return json!({ "status": "CHALLENGE", "challenge_id": id });
                }
            }
        }
        self.mint(accepted)
    }

    /// The buyer answered a challenge: the right code makes a verified
    /// token; a wrong one fails verification. Either way the challenge is
    /// over.
    pub fn verify(&mut self, challenge_id: &str, code: &str) -> Value {
        let Some(mut accepted) = self.challenges.remove(challenge_id) else {
            return json!({
                "status": "Error",
                "errors": [{ "type": "UNKNOWN", "message": "No such verification." }],
            });
        };
        if code.trim() != CHALLENGE_CODE {
            return json!({
                "status": "Error",
                "errors": [{ "type": "VERIFICATION_FAILED", "message": "The card holder could not be verified." }],
            });
        }
        accepted.verified = true;
        self.mint(accepted)
    }

    /// The SDK stand-in's `verifyBuyer(token, details)`, which Square's
    /// digital wallets guide asks for on every customer-initiated wallet
    /// payment (<https://developer.squareup.com/docs/web-payments/digital-wallets>):
    /// the details checked as for `tokenize()`, intent CHARGE, then a
    /// verification token for CreatePayment's `verification_token`. A
    /// card whose issuer challenges is verified through `tokenize()` only.
    pub fn verify_buyer(&mut self, source_id: &str, details: &Value) -> Value {
        let refused = |kind: &str, message: String| json!({ "status": "Error", "errors": [{ "type": kind, "message": message }] });
        if let Err(message) = verification_details(details, &self.settings.currency) {
            return refused("INVALID_VERIFICATION_DETAILS", message);
        }
        if details["intent"] != "CHARGE" {
            return refused(
                "INVALID_VERIFICATION_DETAILS",
                "intent must be CHARGE to pay".into(),
            );
        }
        if self.tokens.sca_of(source_id) == Some(Sca::Challenge) {
            return refused(
                "UNSUPPORTED",
                "this stand-in challenges a card only through tokenize(verificationDetails)".into(),
            );
        }
        match self.tokens.verify_buyer(source_id) {
            Ok(token) => json!({ "status": "OK", "token": token, "userChallenged": false }),
            Err(TokenError::Used) => refused(
                "INVALID_TOKEN",
                "This payment token was already used.".into(),
            ),
            Err(TokenError::Unknown) => refused("INVALID_TOKEN", "No such payment token.".into()),
        }
    }

    fn mint(&mut self, accepted: AcceptedCard) -> Value {
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

/// Completing or cancelling as the guesses read Square: a PENDING payment
/// settles first if moves on it are accepted; a move to where the payment
/// already is may be refused. `None` leaves the move to the payment.
fn move_again(
    guesses: &crate::guesses::Guesses,
    payment: &mut Payment,
    target: PaymentStatus,
) -> Option<Result<Change, SquareError>> {
    if payment.pending_until_ms.is_some() {
        if guesses.pending_moves == Refusal::Accepted {
            payment.settle_now();
        }
        return None;
    }
    let again = payment.status == target && guesses.repeated_move == RepeatedMove::Refused;
    again.then(|| {
        Err(SquareError::bad_request(
            "payment_id",
            &format!("The payment is already {}.", target.as_str()),
        ))
    })
}

/// The verification details the Web Payments SDK takes with `tokenize()`
/// for SCA, checked as strictly as the SDK documents them
/// (<https://developer.squareup.com/docs/web-payments/sca>): the amount as a
/// decimal string in major units, the location's currency, an intent, and a
/// billing contact.
fn verification_details(details: &Value, currency: &str) -> Result<(), String> {
    let amount = details["amount"].as_str().unwrap_or_default();
    let digits = match currency {
        "JPY" => 0,
        _ => 2,
    };
    let amount_ok = match amount.split_once('.') {
        Some((major, minor)) => {
            digits > 0
                && !major.is_empty()
                && major.bytes().all(|b| b.is_ascii_digit())
                && minor.len() == digits
                && minor.bytes().all(|b| b.is_ascii_digit())
        }
        None => digits == 0 && !amount.is_empty() && amount.bytes().all(|b| b.is_ascii_digit()),
    };
    if !amount_ok {
        return Err(format!(
            "amount must be a decimal string with {digits} decimals in {currency}, not {amount:?}"
        ));
    }
    if details["currencyCode"].as_str() != Some(currency) {
        return Err(format!(
            "currencyCode must be the location's currency, {currency}"
        ));
    }
    if !matches!(
        details["intent"].as_str(),
        Some("CHARGE" | "STORE" | "CHARGE_AND_STORE")
    ) {
        return Err("intent must be CHARGE, STORE or CHARGE_AND_STORE".into());
    }
    let contact = &details["billingContact"];
    if !contact.is_object() {
        return Err("billingContact is required".into());
    }
    let country_ok = match &contact["countryCode"] {
        Value::Null => true,
        Value::String(code) => code.len() == 2 && code.bytes().all(|b| b.is_ascii_uppercase()),
        _ => false,
    };
    if !country_ok {
        return Err(
            "billingContact.countryCode must be an ISO 3166-1 alpha-2 code, e.g. GB".into(),
        );
    }
    Ok(())
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

    fn typed(number: &str) -> crate::cards::TypedCard {
        serde_json::from_value(json!({
            "card_number": number, "expiration": "12/40", "cvv": "111", "postal_code": "94103"
        }))
        .unwrap()
    }

    fn details(amount: &str) -> serde_json::Value {
        json!({
            "amount": amount, "currencyCode": "USD", "intent": "CHARGE",
            "billingContact": {"givenName": "Ana", "email": "ana@example.com"}
        })
    }

    #[test]
    fn an_sca_card_is_charged_only_with_a_verified_token() {
        let mut bank = test_bank();
        // Made without verification details: declined as Square does.
        let plain = bank.tokenize(&typed("4800 0000 0000 0004"), None, false, 1);
        let token = plain["token"].as_str().unwrap();
        let declined = bank.create_payment(&create("k1", token, false), 2);
        assert_eq!(
            declined.reply.body["errors"][0]["code"],
            "CARD_DECLINED_VERIFICATION_REQUIRED"
        );
        // With them, this card needs no challenge.
        let verified = bank.tokenize(
            &typed("4800 0000 0000 0004"),
            Some(&details("24.00")),
            false,
            3,
        );
        let token = verified["token"].as_str().unwrap();
        let paid = bank.create_payment(&create("k2", token, false), 4);
        assert_eq!(paid.reply.body["payment"]["status"], "APPROVED");
        // Details the SDK would refuse.
        let bad = bank.tokenize(
            &typed("4800 0000 0000 0004"),
            Some(&details("24")),
            false,
            5,
        );
        assert_eq!(bad["errors"][0]["type"], "INVALID_VERIFICATION_DETAILS");
    }

    #[test]
    fn a_wallet_payment_at_a_pound_location_is_declined_unless_verify_buyer_verified_it() {
        let mut bank = super::super::Bank::new(super::super::BankSettings {
            currency: "GBP".into(),
            ..super::super::test_settings()
        });
        let pounds = |key: &str, token: &str, verification: Option<&str>| {
            let mut body = create(key, token, false);
            body["amount_money"] = json!({"amount": 2400, "currency": "GBP"});
            if let Some(verification) = verification {
                body["verification_token"] = json!(verification);
            }
            body
        };
        let gbp_details = || {
            let mut details = details("24.00");
            details["currencyCode"] = json!("GBP");
            details["billingContact"]["countryCode"] = json!("GB");
            details
        };
        let wallet = |bank: &mut super::super::Bank, at| {
            let made = bank.tokenize(&typed("4111 1111 1111 1111"), None, true, at);
            made["token"].as_str().unwrap().to_owned()
        };
        let unverified = wallet(&mut bank, 1);
        let declined = bank.create_payment(&pounds("k1", &unverified, None), 2);
        assert_eq!(
            declined.reply.body["errors"][0]["code"],
            "CARD_DECLINED_VERIFICATION_REQUIRED"
        );
        // A verification token made for another source verifies nothing.
        let token = wallet(&mut bank, 3);
        let other = wallet(&mut bank, 4);
        let others = bank.verify_buyer(&other, &gbp_details());
        let stolen = others["token"].as_str().unwrap();
        let declined = bank.create_payment(&pounds("k2", &token, Some(stolen)), 5);
        assert_eq!(
            declined.reply.body["errors"][0]["code"],
            "CARD_DECLINED_VERIFICATION_REQUIRED"
        );
        let mut wrong = gbp_details();
        wrong["intent"] = json!("STORE");
        assert_eq!(
            bank.verify_buyer(&other, &wrong)["errors"][0]["type"],
            "INVALID_VERIFICATION_DETAILS"
        );
        let paid = bank.create_payment(&pounds("k3", &other, Some(stolen)), 6);
        assert_eq!(paid.reply.body["payment"]["status"], "APPROVED");
        // A dollar location asks no verification of a wallet.
        let mut dollars = test_bank();
        let token = wallet(&mut dollars, 7);
        let paid = dollars.create_payment(&create("k4", &token, false), 8);
        assert_eq!(paid.reply.body["payment"]["status"], "APPROVED");
    }

    #[test]
    fn a_challenge_card_is_verified_by_its_code_only() {
        let mut bank = test_bank();
        let challenge = bank.tokenize(
            &typed("5248 4800 0021 0026"),
            Some(&details("24.00")),
            false,
            1,
        );
        assert_eq!(challenge["status"], "CHALLENGE");
        let id = challenge["challenge_id"].as_str().unwrap();
        let wrong = bank.verify(id, "000000");
        assert_eq!(wrong["errors"][0]["type"], "VERIFICATION_FAILED");
        assert_eq!(
            bank.verify(id, "123456")["errors"][0]["type"],
            "UNKNOWN",
            "one answer a challenge"
        );
        let again = bank.tokenize(
            &typed("5248 4800 0021 0026"),
            Some(&details("24.00")),
            false,
            2,
        );
        let id = again["challenge_id"].as_str().unwrap();
        let verified = bank.verify(id, "123456");
        let token = verified["token"].as_str().unwrap();
        let paid = bank.create_payment(&create("k3", token, false), 3);
        assert_eq!(paid.reply.body["payment"]["status"], "APPROVED");
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
    fn a_pending_payment_refuses_every_move_then_settles_as_planned() {
        let mut bank = test_bank();
        bank.plan_pending(super::PendingPlan {
            times: 2,
            settle_after_ms: 100,
            then_decline: Some(crate::cards::Decline::Generic),
        });
        let created = bank.create_payment(&create("k", "cnon:card-nonce-ok", false), 0);
        assert_eq!(created.reply.body["payment"]["status"], "PENDING");
        let id = created.reply.body["payment"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let by_key = bank.cancel_by_key(&json!({"idempotency_key": "k"}), 1);
        assert_eq!(by_key.reply.status, 400);
        assert_eq!(bank.cancel_payment(&id, 2).reply.status, 400);
        assert_eq!(bank.lapse_due(100).len(), 1);
        let failed = &bank.get_payment(&id).reply.body["payment"];
        assert_eq!(failed["status"], "FAILED");
        assert_eq!(
            failed["card_details"]["errors"][0]["code"],
            "GENERIC_DECLINE"
        );
    }

    #[test]
    fn each_switched_guess_answers_the_other_reading() {
        use crate::guesses::{
            DomainStatus, Guesses, Refusal, RepeatedMove, UnknownSource, WalletVerification,
        };
        let mut bank = test_bank();
        bank.guesses = Guesses {
            repeated_move: RepeatedMove::Refused,
            unknown_source: UnknownSource::Invalid,
            wallet_verification: WalletVerification::Always,
            pending_moves: Refusal::Accepted,
            register_domain: DomainStatus::Pending,
            declined_webhook: false,
            ..Guesses::default()
        };
        let unknown = bank.create_payment(&create("k1", "cnon:nope", false), 1);
        assert_eq!(unknown.reply.body["errors"][0]["code"], "INVALID_VALUE");
        let wallet = bank.tokenize(&typed("4111 1111 1111 1111"), None, true, 2);
        let token = wallet["token"].as_str().unwrap();
        let declined = bank.create_payment(&create("k2", token, false), 3);
        assert_eq!(
            declined.reply.body["errors"][0]["code"],
            "CARD_DECLINED_VERIFICATION_REQUIRED"
        );
        assert!(declined.events.is_empty(), "no webhook for a decline");
        let paid = bank.create_payment(&create("k3", "cnon:card-nonce-ok", false), 4);
        let id = paid.reply.body["payment"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        assert_eq!(bank.cancel_payment(&id, 5).reply.status, 200);
        let again = bank.cancel_payment(&id, 6);
        assert_eq!(again.reply.body["errors"][0]["code"], "BAD_REQUEST");
        bank.plan_pending(super::PendingPlan {
            times: 1,
            settle_after_ms: 60_000,
            then_decline: None,
        });
        let pending = bank.create_payment(&create("k4", "cnon:card-nonce-ok", false), 7);
        let id = pending.reply.body["payment"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let canceled = bank.cancel_payment(&id, 8);
        assert_eq!(canceled.reply.body["payment"]["status"], "CANCELED");
        let domain = bank.register_domain(&json!({"domain_name": "tickets.cinema.example"}));
        assert_eq!(domain.reply.body["status"], "PENDING");
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
