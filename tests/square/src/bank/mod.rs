//! The stand-in's memory of Square: payments, refunds, card tokens and
//! idempotency keys, and every rule about them.
//!
//! Architecture Invariant: nothing here does I/O or reads the clock. Each
//! operation takes `now_ms`, returns the reply to send and the webhook
//! events it caused, and the HTTP shell does the sending.

mod charging;
mod listing;
mod ordering;
mod refunding;

pub use refunding::SettleError;

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::cards::Decline;
use crate::events::Event;
use crate::idempotency::{IdempotencyBook, Stored};
use crate::payments::Payment;
use crate::refunds::Refund;
use crate::square_error::SquareError;
use crate::tokens::TokenBook;

/// How much the stand-in keeps before it answers "full" (it never forgets
/// silently, so a long demo notices).
#[derive(Debug, Clone)]
pub struct BankLimits {
    pub payments: usize,
    pub refunds: usize,
    pub card_tokens: usize,
    pub idempotency_keys: usize,
}

impl Default for BankLimits {
    fn default() -> Self {
        BankLimits {
            payments: 10_000,
            refunds: 10_000,
            card_tokens: 10_000,
            idempotency_keys: 20_000,
        }
    }
}

#[derive(Debug, Clone)]
pub struct BankSettings {
    pub location_id: String,
    pub application_id: String,
    pub currency: String,
    /// HTTP status of a card decline: Square's is unconfirmed (400 or 402).
    pub decline_status: u16,
    pub limits: BankLimits,
}

/// An HTTP answer: status and JSON body.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

/// The result of one operation.
#[derive(Debug)]
pub struct Handled {
    pub reply: Reply,
    pub events: Vec<Event>,
    /// A refund that was just created PENDING and waits to be settled.
    pub pending_refund: Option<String>,
}

impl Handled {
    fn ok(body: Value, events: Vec<Event>) -> Self {
        Handled {
            reply: Reply { status: 200, body },
            events,
            pending_refund: None,
        }
    }

    fn error(error: SquareError) -> Self {
        Handled {
            reply: Reply {
                status: error.status,
                body: error.body(),
            },
            events: Vec::new(),
            pending_refund: None,
        }
    }

    fn replay(stored: Stored) -> Self {
        Handled {
            reply: Reply {
                status: stored.status,
                body: stored.body,
            },
            events: Vec::new(),
            pending_refund: None,
        }
    }
}

#[derive(Debug)]
pub struct Bank {
    settings: BankSettings,
    payments: HashMap<String, Payment>,
    /// Creation order, for listing.
    payment_order: Vec<String>,
    refunds: HashMap<String, Refund>,
    refund_order: Vec<String>,
    tokens: TokenBook,
    keys: IdempotencyBook,
    /// CreatePayment key → payment id, for cancel-by-key.
    payment_by_key: HashMap<String, String>,
    /// The next this many payments made read PENDING for so long.
    pending_plan: Option<PendingPlan>,
    /// SCA challenges the SDK stand-in is showing: id → the card.
    challenges: HashMap<String, crate::cards::AcceptedCard>,
    /// Orders made with CreateOrder, by id.
    orders: HashMap<String, crate::orders::Order>,
    /// Registered with RegisterDomain, oldest first.
    apple_pay_domains: Vec<String>,
    /// Where Square is read, not documented (`POST /_control/guesses`).
    pub guesses: crate::guesses::Guesses,
}

/// Most Apple Pay domains the stand-in keeps.
const MAX_APPLE_PAY_DOMAINS: usize = 100;

/// How the next payments read PENDING: see [`Bank::plan_pending`].
#[derive(Clone, Copy, Debug)]
pub struct PendingPlan {
    pub times: u32,
    pub settle_after_ms: u64,
    pub then_decline: Option<Decline>,
}

impl Bank {
    pub fn new(settings: BankSettings) -> Self {
        let tokens = TokenBook::new(settings.limits.card_tokens);
        let keys = IdempotencyBook::new(settings.limits.idempotency_keys);
        let decline_status = settings.decline_status;
        Bank {
            settings,
            payments: HashMap::new(),
            payment_order: Vec::new(),
            refunds: HashMap::new(),
            refund_order: Vec::new(),
            tokens,
            keys,
            payment_by_key: HashMap::new(),
            pending_plan: None,
            challenges: HashMap::new(),
            orders: HashMap::new(),
            apple_pay_domains: Vec::new(),
            guesses: crate::guesses::Guesses {
                decline_status,
                ..crate::guesses::Guesses::default()
            },
        }
    }

    /// The next `plan.times` payments (not declines) are answered PENDING
    /// and settle `settle_after_ms` later, as made or FAILED with
    /// `then_decline`, with a `payment.updated` webhook.
    pub fn plan_pending(&mut self, plan: PendingPlan) {
        self.pending_plan = (plan.times > 0).then_some(plan);
    }

    pub fn get_payment(&self, id: &str) -> Handled {
        match self.payments.get(id) {
            Some(payment) => Handled::ok(json!({ "payment": payment.to_json() }), Vec::new()),
            None => Handled::error(payment_not_found(id)),
        }
    }

    /// `POST /v2/apple-pay/domains` (RegisterDomain): `domain_name` a bare
    /// host name (no scheme, path or port), answered `VERIFIED` and kept.
    /// Square then fetches the domain's association file and may answer
    /// `PENDING`; the stand-in fetches nothing.
    /// <https://developer.squareup.com/reference/square/apple-pay-api/register-domain>
    pub fn register_domain(&mut self, body: &Value) -> Handled {
        let domain = body["domain_name"].as_str().unwrap_or_default();
        let label_ok = |l: &str| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        };
        let host_ok =
            domain.len() <= 253 && domain.contains('.') && domain.split('.').all(label_ok);
        if !host_ok {
            return Handled::error(SquareError::invalid_value(
                "domain_name",
                "Must be a domain name, as tickets.cinema.example, without scheme, path or port.",
            ));
        }
        if self.apple_pay_domains.len() >= MAX_APPLE_PAY_DOMAINS
            && !self.apple_pay_domains.iter().any(|d| d == domain)
        {
            return Handled::error(SquareError::standin_full(
                "Apple Pay domains",
                MAX_APPLE_PAY_DOMAINS,
            ));
        }
        if !self.apple_pay_domains.iter().any(|d| d == domain) {
            self.apple_pay_domains.push(domain.to_owned());
        }
        Handled::ok(
            json!({ "status": self.guesses.register_domain }),
            Vec::new(),
        )
    }

    /// The domains registered for Apple Pay, for the control API.
    pub fn apple_pay_domains(&self) -> Value {
        json!({ "domains": self.apple_pay_domains })
    }

    /// `GET /v2/locations/{id}`: the one location this seller has, with its
    /// currency; any other id is not found, as Square answers.
    /// <https://developer.squareup.com/reference/square/locations-api/retrieve-location>
    pub fn get_location(&self, id: &str) -> Handled {
        if id != self.settings.location_id {
            return Handled::error(SquareError::not_found(format!(
                "Location with id `{id}` not found."
            )));
        }
        let location = json!({
            "id": id,
            "name": "Stand-in location",
            "status": "ACTIVE",
            "currency": self.settings.currency,
            // The country a seller of that currency would be in (for the
            // euro, Ireland): this stand-in's choice.
            "country": match self.settings.currency.as_str() {
                "GBP" => "GB",
                "JPY" => "JP",
                "CAD" => "CA",
                "AUD" => "AU",
                "EUR" => "IE",
                _ => "US",
            },
            "capabilities": ["CREDIT_CARD_PROCESSING"],
        });
        Handled::ok(json!({ "location": location }), Vec::new())
    }

    pub fn get_refund(&self, id: &str) -> Handled {
        match self.refunds.get(id) {
            Some(refund) => Handled::ok(json!({ "refund": refund.to_json() }), Vec::new()),
            None => Handled::error(SquareError::not_found(format!(
                "Could not find refund with id `{id}`."
            ))),
        }
    }

    pub fn payments_json(&self) -> Value {
        let payments: Vec<Value> = self
            .payment_order
            .iter()
            .map(|id| self.payments[id].to_json())
            .collect();
        json!({ "payments": payments })
    }

    pub fn refunds_json(&self) -> Value {
        let refunds: Vec<Value> = self
            .refund_order
            .iter()
            .map(|id| self.refunds[id].to_json())
            .collect();
        json!({ "refunds": refunds })
    }
}

fn payment_not_found(id: &str) -> SquareError {
    SquareError::not_found(format!("Could not find payment with id: {id}"))
}

#[cfg(test)]
pub(crate) fn test_settings() -> BankSettings {
    BankSettings {
        location_id: "L1".into(),
        application_id: "A1".into(),
        currency: "USD".into(),
        decline_status: 402,
        limits: BankLimits::default(),
    }
}

#[cfg(test)]
pub(crate) fn test_bank() -> Bank {
    Bank::new(test_settings())
}
