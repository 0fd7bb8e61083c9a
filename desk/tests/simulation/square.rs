//! A simulated Square with the semantics the checkout relies on: payments
//! by idempotency key (the first answer replayed), APPROVED → COMPLETED or
//! CANCELED only from APPROVED, void by key, refunds, authorizations that
//! lapse, captures made by hand in the dashboard, and a webhook for every
//! change of status. The desk's requests reach it as Square's HTTP API
//! (method, path, JSON body) and it answers as Square's HTTP answers, so
//! the desk's own reading of Square is part of what is simulated.

use checkout::{Answer, PaymentStatus};
use desk::square::{Method, SquareCall, SquareReply};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};

pub struct Payment {
    pub id: String,
    pub reference_id: String,
    pub amount_minor: u64,
    pub status: PaymentStatus,
    pub created_at_ms: u64,
    pub refunded_minor: u64,
}

/// A `payment.updated` notification, routed by the order id.
#[derive(Clone, Debug)]
pub struct Webhook {
    pub reference_id: String,
    pub payment_id: String,
    pub status: PaymentStatus,
}

/// What a CreatePayment request is, for comparing a repeated key.
#[derive(PartialEq)]
struct Fingerprint {
    source_id: String,
    amount_minor: u64,
    reference_id: String,
    autocomplete: bool,
}

/// A Square order: what its payment must come to, and its state.
pub struct Order {
    pub id: String,
    pub total_minor: u64,
    pub version: u64,
    pub canceled: bool,
}

#[derive(Default)]
pub struct Square {
    pub payments: Vec<Payment>,
    pub orders: Vec<Order>,
    orders_by_key: HashMap<String, usize>,
    /// The order each payment pays, by payment index.
    paying: HashMap<usize, usize>,
    by_key: HashMap<String, (Fingerprint, Answer, Option<usize>)>,
    used_tokens: HashSet<String>,
    refunds: HashMap<String, Answer>,
    /// An APPROVED payment this old is canceled by Square; `None`: never.
    pub lapse_after_ms: Option<u64>,
    /// Every change of status, in order; the world delivers them.
    pub webhooks: Vec<Webhook>,
}

/// The decline code a test token asks for: `cnon:decline-CODE-n`.
pub fn decline_code(source_id: &str) -> Option<String> {
    let rest = source_id.strip_prefix("cnon:decline-")?;
    Some(
        rest.rsplit_once('-')
            .map_or(rest, |(code, _)| code)
            .to_owned(),
    )
}

impl Square {
    /// Carries out one request of the desk's, as Square's API would.
    pub fn http(&mut self, now_ms: u64, call: &SquareCall) -> SquareReply {
        let body = call.body.clone().unwrap_or(Value::Null);
        let text = |field: &str| body[field].as_str().unwrap_or_default().to_owned();
        let path: Vec<&str> = call.path.trim_start_matches('/').split('/').collect();
        match (call.method, path.as_slice()) {
            (Method::Post, ["v2", "orders"]) => return self.create_order(&body),
            (Method::Get, ["v2", "orders", id]) => return self.order_reply(id),
            (Method::Put, ["v2", "orders", id]) => return self.cancel_order(id, &body),
            _ => {}
        }
        let order = body["order_id"].as_str().map(str::to_owned);
        if let Some(refused) = order
            .as_deref()
            .and_then(|id| self.refuse_payment(id, &body))
        {
            return refused;
        }
        let answer = match (call.method, path.as_slice()) {
            (Method::Post, ["v2", "payments"]) => self.create(
                now_ms,
                &text("idempotency_key"),
                &text("source_id"),
                body["amount_money"]["amount"].as_u64().unwrap_or(0),
                &text("reference_id"),
                body["autocomplete"].as_bool().unwrap_or(true),
            ),
            (Method::Post, ["v2", "payments", "cancel"]) => {
                self.cancel_by_key(&text("idempotency_key"))
            }
            (Method::Get, ["v2", "payments", id]) => self.get(id),
            (Method::Post, ["v2", "payments", id, "complete"]) => self.complete(id),
            (Method::Post, ["v2", "payments", id, "cancel"]) => self.cancel(id),
            (Method::Post, ["v2", "refunds"]) => self.refund(
                &text("idempotency_key"),
                &text("payment_id"),
                body["amount_money"]["amount"].as_u64().unwrap_or(0),
            ),
            _ => panic!("the desk sent a request Square does not have: {call:?}"),
        };
        if let (Some(id), Answer::Payment { payment_id, .. }) = (&order, &answer) {
            let payment = self.find(payment_id).expect("just made");
            let index = self
                .orders
                .iter()
                .position(|o| &o.id == id)
                .expect("checked");
            self.paying.insert(payment, index);
        }
        http_reply(answer)
    }

    /// CreateOrder, replayed by key. The simulation prices seats without
    /// tax, so an order comes to its lines' base prices.
    fn create_order(&mut self, body: &Value) -> SquareReply {
        let key = body["idempotency_key"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let index = match self.orders_by_key.get(&key) {
            Some(&index) => index,
            None => {
                assert!(
                    body["order"]["taxes"].is_null(),
                    "the simulation has no tax"
                );
                let total_minor = body["order"]["line_items"]
                    .as_array()
                    .expect("line items")
                    .iter()
                    .map(|l| l["base_price_money"]["amount"].as_u64().expect("a price"))
                    .sum();
                self.orders.push(Order {
                    id: format!("sq-{}", self.orders.len() + 1),
                    total_minor,
                    version: 1,
                    canceled: false,
                });
                self.orders_by_key.insert(key, self.orders.len() - 1);
                self.orders.len() - 1
            }
        };
        let lines = body["order"]["line_items"].as_array().expect("line items");
        let lines: Vec<Value> = lines
            .iter()
            .map(|l| {
                json!({"uid": l["uid"], "total_money": l["base_price_money"],
                "total_tax_money": {"amount": 0, "currency": l["base_price_money"]["currency"]}})
            })
            .collect();
        let mut reply = self.order_json(index);
        reply["order"]["line_items"] = Value::Array(lines);
        SquareReply::Ok(reply)
    }

    fn order_json(&self, index: usize) -> Value {
        let order = &self.orders[index];
        let captured = self
            .paying
            .iter()
            .any(|(&p, &o)| o == index && self.payments[p].status == PaymentStatus::Completed);
        let (state, version) = match (order.canceled, captured) {
            (true, _) => ("CANCELED", order.version),
            (false, true) => ("COMPLETED", order.version + 1),
            (false, false) => ("OPEN", order.version),
        };
        json!({"order": {"id": order.id, "version": version, "state": state,
            "total_money": {"amount": order.total_minor, "currency": "USD"}}})
    }

    fn order_index(&self, id: &str) -> Option<usize> {
        self.orders.iter().position(|o| o.id == id)
    }

    fn order_reply(&self, id: &str) -> SquareReply {
        match self.order_index(id) {
            Some(index) => SquareReply::Ok(self.order_json(index)),
            None => http_reply(Answer::PaymentNotFound),
        }
    }

    /// UpdateOrder to CANCELED: at the current version, and only with no
    /// payment that may still be taken.
    fn cancel_order(&mut self, id: &str, body: &Value) -> SquareReply {
        let Some(index) = self.order_index(id) else {
            return http_reply(Answer::PaymentNotFound);
        };
        let current = self.order_json(index);
        if current["order"]["state"] != "OPEN" {
            return SquareReply::Ok(current);
        }
        if body["order"]["version"].as_u64() != Some(self.orders[index].version) {
            return http_reply(rejected("VERSION_MISMATCH"));
        }
        let live = self
            .paying
            .iter()
            .any(|(&p, &o)| o == index && self.payments[p].status == PaymentStatus::Approved);
        if live {
            return http_reply(rejected("BAD_REQUEST"));
        }
        let order = &mut self.orders[index];
        order.canceled = true;
        order.version += 1;
        SquareReply::Ok(self.order_json(index))
    }

    /// A payment for an order must come to its total while it is OPEN.
    fn refuse_payment(&self, order_id: &str, body: &Value) -> Option<SquareReply> {
        let Some(index) = self.order_index(order_id) else {
            return Some(http_reply(Answer::PaymentNotFound));
        };
        let replay = body["idempotency_key"]
            .as_str()
            .is_some_and(|k| self.by_key.contains_key(k));
        let amount = body["amount_money"]["amount"].as_u64();
        let order = &self.orders[index];
        (!replay && (order.canceled || amount != Some(order.total_minor)))
            .then(|| http_reply(rejected("BAD_REQUEST")))
    }

    pub fn create(
        &mut self,
        now_ms: u64,
        key: &str,
        source_id: &str,
        amount_minor: u64,
        reference_id: &str,
        autocomplete: bool,
    ) -> Answer {
        let print = Fingerprint {
            source_id: source_id.to_owned(),
            amount_minor,
            reference_id: reference_id.to_owned(),
            autocomplete,
        };
        if let Some((stored, answer, _)) = self.by_key.get(key) {
            if *stored == print {
                return answer.clone();
            }
            return rejected("IDEMPOTENCY_KEY_REUSED");
        }
        if !self.used_tokens.insert(source_id.to_owned()) {
            return rejected("CARD_TOKEN_USED");
        }
        let id = format!("pay-{}", self.payments.len() + 1);
        let decline = decline_code(source_id);
        let status = match (&decline, autocomplete) {
            (Some(_), _) => PaymentStatus::Failed,
            (None, true) => PaymentStatus::Completed,
            (None, false) => PaymentStatus::Approved,
        };
        let answer = match decline {
            Some(code) => Answer::Declined {
                code,
                payment_id: Some(id.clone()),
            },
            None => Answer::Payment {
                payment_id: id.clone(),
                status,
            },
        };
        self.payments.push(Payment {
            id,
            reference_id: reference_id.to_owned(),
            amount_minor,
            status,
            created_at_ms: now_ms,
            refunded_minor: 0,
        });
        let index = self.payments.len() - 1;
        self.notify(index);
        self.by_key
            .insert(key.to_owned(), (print, answer.clone(), Some(index)));
        answer
    }

    pub fn get(&self, id: &str) -> Answer {
        match self.find(id) {
            Some(i) => self.answer(i),
            None => Answer::PaymentNotFound,
        }
    }

    pub fn complete(&mut self, id: &str) -> Answer {
        let Some(i) = self.find(id) else {
            return Answer::PaymentNotFound;
        };
        match self.payments[i].status {
            PaymentStatus::Approved => self.move_to(i, PaymentStatus::Completed),
            PaymentStatus::Completed => {}
            PaymentStatus::Canceled => return rejected("DELAYED_TRANSACTION_CANCELED"),
            PaymentStatus::Failed | PaymentStatus::Pending => {
                return rejected("DELAYED_TRANSACTION_FAILED")
            }
        }
        self.answer(i)
    }

    pub fn cancel(&mut self, id: &str) -> Answer {
        let Some(i) = self.find(id) else {
            return Answer::PaymentNotFound;
        };
        match self.payments[i].status {
            PaymentStatus::Approved => self.move_to(i, PaymentStatus::Canceled),
            PaymentStatus::Canceled => {}
            PaymentStatus::Completed => return rejected("DELAYED_TRANSACTION_CAPTURED"),
            PaymentStatus::Failed | PaymentStatus::Pending => {
                return rejected("DELAYED_TRANSACTION_FAILED")
            }
        }
        self.answer(i)
    }

    /// Voids what the key made; a key that made nothing (or a decline) is
    /// fine too. A captured payment cannot be voided.
    pub fn cancel_by_key(&mut self, key: &str) -> Answer {
        let made = self.by_key.get(key).and_then(|(_, _, index)| *index);
        match made.map(|i| self.payments[i].status) {
            Some(PaymentStatus::Approved) => {
                self.move_to(made.unwrap_or_default(), PaymentStatus::Canceled)
            }
            Some(PaymentStatus::Completed) => return rejected("DELAYED_TRANSACTION_CAPTURED"),
            _ => {}
        }
        Answer::CanceledByKey
    }

    pub fn refund(&mut self, key: &str, payment_id: &str, amount_minor: u64) -> Answer {
        if let Some(answer) = self.refunds.get(key) {
            return answer.clone();
        }
        let Some(i) = self.find(payment_id) else {
            return Answer::PaymentNotFound;
        };
        let payment = &mut self.payments[i];
        if payment.status != PaymentStatus::Completed {
            return rejected("REFUND_ERROR_PAYMENT_NEEDS_COMPLETION");
        }
        if amount_minor > payment.amount_minor - payment.refunded_minor {
            return rejected("REFUND_AMOUNT_INVALID");
        }
        payment.refunded_minor += amount_minor;
        let answer = Answer::RefundAccepted {
            refund_id: format!("{payment_id}_r{}", self.refunds.len() + 1),
        };
        self.refunds.insert(key.to_owned(), answer.clone());
        answer
    }

    /// Cancels every APPROVED payment older than the lapse delay.
    pub fn lapse_due(&mut self, now_ms: u64) -> usize {
        let Some(after_ms) = self.lapse_after_ms else {
            return 0;
        };
        let due: Vec<usize> = (0..self.payments.len())
            .filter(|&i| {
                let p = &self.payments[i];
                p.status == PaymentStatus::Approved && p.created_at_ms + after_ms <= now_ms
            })
            .collect();
        for &i in &due {
            self.move_to(i, PaymentStatus::Canceled);
        }
        due.len()
    }

    /// Staff capture one APPROVED payment by hand; false if none is APPROVED.
    pub fn capture_by_hand(&mut self, pick: usize) -> bool {
        let approved: Vec<usize> = (0..self.payments.len())
            .filter(|&i| self.payments[i].status == PaymentStatus::Approved)
            .collect();
        if approved.is_empty() {
            return false;
        }
        let i = approved[pick % approved.len()];
        self.move_to(i, PaymentStatus::Completed);
        true
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.payments.iter().position(|p| p.id == id)
    }

    fn answer(&self, i: usize) -> Answer {
        Answer::Payment {
            payment_id: self.payments[i].id.clone(),
            status: self.payments[i].status,
        }
    }

    fn move_to(&mut self, i: usize, status: PaymentStatus) {
        self.payments[i].status = status;
        self.notify(i);
    }

    fn notify(&mut self, i: usize) {
        let p = &self.payments[i];
        self.webhooks.push(Webhook {
            reference_id: p.reference_id.clone(),
            payment_id: p.id.clone(),
            status: p.status,
        });
    }
}

fn rejected(code: &str) -> Answer {
    Answer::Rejected {
        code: code.to_owned(),
    }
}

/// An answer as Square's HTTP API gives it.
fn http_reply(answer: Answer) -> SquareReply {
    let refused =
        |status: u16, category: &str, code: String, payment: Option<Value>| SquareReply::Refused {
            status,
            category: category.to_owned(),
            code,
            detail: String::new(),
            payment,
        };
    match answer {
        Answer::Payment { payment_id, status } => {
            SquareReply::Ok(json!({"payment": {"id": payment_id, "status": status.as_str()}}))
        }
        Answer::Declined { code, payment_id } => refused(
            402,
            "PAYMENT_METHOD_ERROR",
            code,
            payment_id.map(|id| json!({"id": id, "status": "FAILED"})),
        ),
        Answer::Rejected { code } => refused(400, "INVALID_REQUEST_ERROR", code, None),
        Answer::PaymentNotFound => refused(404, "INVALID_REQUEST_ERROR", "NOT_FOUND".into(), None),
        Answer::CanceledByKey => SquareReply::Ok(json!({})),
        Answer::RefundAccepted { refund_id } => {
            SquareReply::Ok(json!({"refund": {"id": refund_id, "status": "PENDING"}}))
        }
        other => panic!("not a Square answer: {other:?}"),
    }
}
