//! Orders: create, retrieve, cancel (UpdateOrder), and what a payment for
//! one must match.
//!
//! An order's state follows its payments, as Square's does: OPEN while a
//! payment for it is only authorized or was cancelled, COMPLETED once one
//! is captured (it has no fulfilments), CANCELED only when UpdateOrder says
//! so (<https://developer.squareup.com/docs/orders-api/pay-for-orders>;
//! after a cancelled payment Square leaves the order OPEN, and sellers are
//! asked to cancel it: <https://developer.squareup.com/docs/app-marketplace/requirements/orders-api>).

use serde_json::{json, Value};

use super::{Bank, Handled};
use crate::idempotency::{fingerprint, Lookup, Scope, Stored};
use crate::ids;
use crate::orders::{self, Order, OrderState};
use crate::payments::PaymentStatus;
use crate::square_error::SquareError;

impl Bank {
    pub fn create_order(&mut self, body: &Value, now_ms: u64) -> Handled {
        let (key, mut order) = match orders::create_order(body, &self.settings.currency) {
            Ok(read) => read,
            Err(error) => return Handled::error(error),
        };
        if order.location_id != self.settings.location_id {
            return Handled::error(SquareError::not_found(format!(
                "Location `{}` not found.",
                order.location_id
            )));
        }
        let print = fingerprint(body);
        if let Some(key) = &key {
            match self.keys.lookup(Scope::CreateOrder, key, &print) {
                Lookup::Replay(stored) => return Handled::replay(stored),
                Lookup::Reused => return Handled::error(SquareError::idempotency_key_reused()),
                Lookup::Fresh => {}
            }
            if let Err(full) = self.keys.has_room() {
                return Handled::error(SquareError::standin_full("idempotency keys", full.limit));
            }
        }
        if self.orders.len() >= self.settings.limits.payments {
            return Handled::error(SquareError::standin_full(
                "orders",
                self.settings.limits.payments,
            ));
        }
        order.id = ids::order_id();
        order.created_at_ms = now_ms;
        order.updated_at_ms = now_ms;
        let stored = Stored {
            status: 200,
            body: json!({ "order": order.to_json() }),
        };
        if let Some(key) = key {
            self.keys
                .record(Scope::CreateOrder, &key, print, stored.clone());
        }
        self.orders.insert(order.id.clone(), order);
        Handled::replay(stored)
    }

    pub fn retrieve_order(&self, id: &str) -> Handled {
        match self.order_now(id) {
            Some(order) => Handled::ok(json!({ "order": order.to_json() }), Vec::new()),
            None => Handled::error(order_not_found(id)),
        }
    }

    /// UpdateOrder: the stand-in takes a change of state to CANCELED at the
    /// order's current version, which is what a seller does with an order
    /// nobody paid. A stale version is Square's `VERSION_MISMATCH`; a
    /// missing one `BAD_REQUEST` on `order.version`
    /// (forum, "Update order created via payment link").
    pub fn update_order(&mut self, id: &str, body: &Value, now_ms: u64) -> Handled {
        let Some(current) = self.order_now(id) else {
            return Handled::error(order_not_found(id));
        };
        let Some(fields) = body.as_object() else {
            return Handled::error(SquareError::malformed_json());
        };
        if let Some(key) = fields
            .keys()
            .find(|k| !["order", "idempotency_key"].contains(&k.as_str()))
        {
            return Handled::error(SquareError::unknown_parameter(key));
        }
        let key = fields
            .get("idempotency_key")
            .and_then(Value::as_str)
            .map(str::to_string);
        let print = fingerprint(body);
        if let Some(key) = &key {
            // A key sent again answers 200 with the order as it is now, and
            // changes nothing (update-orders guide).
            if self.keys.lookup(Scope::UpdateOrder, key, &print) != Lookup::Fresh {
                return Handled::ok(json!({ "order": current.to_json() }), Vec::new());
            }
        }
        let change = fields.get("order").and_then(Value::as_object);
        let Some(change) = change else {
            return Handled::error(SquareError::missing("order"));
        };
        if let Some(key) = change
            .keys()
            .find(|k| !["version", "state"].contains(&k.as_str()))
        {
            return Handled::error(SquareError::invalid_value(
                &format!("order.{key}"),
                "Not supported by the stand-in: it updates an order's state only.",
            ));
        }
        let Some(version) = change.get("version").and_then(Value::as_i64) else {
            return Handled::error(SquareError::bad_request(
                "order.version",
                "Missing required parameter.",
            ));
        };
        if version != current.version {
            return Handled::error(SquareError::order_version_mismatch(
                version,
                current.version,
                id,
            ));
        }
        if current.state != OrderState::Open {
            return Handled::error(SquareError::bad_request(
                "order.state",
                &format!(
                    "An order in the {} state cannot be updated.",
                    current.state.as_str()
                ),
            ));
        }
        match change.get("state").and_then(Value::as_str) {
            Some("CANCELED") => {}
            Some("OPEN") | None => {}
            Some(_) => {
                return Handled::error(SquareError::invalid_value(
                    "order.state",
                    "Not supported by the stand-in: OPEN or CANCELED.",
                ))
            }
        }
        if self.order_has_live_payment(id)
            && change.get("state").and_then(Value::as_str) == Some("CANCELED")
        {
            return Handled::error(SquareError::bad_request(
                "order.state",
                "An order with an approved payment cannot be canceled; cancel the payment first.",
            ));
        }
        let order = self.orders.get_mut(id).expect("found above");
        if change.get("state").and_then(Value::as_str) == Some("CANCELED") {
            order.state = OrderState::Canceled;
            order.closed_at_ms = Some(now_ms);
        }
        order.version += 1;
        order.updated_at_ms = now_ms;
        let answer = json!({ "order": self.order_now(id).expect("stored").to_json() });
        if let Some(key) = key {
            let stored = Stored {
                status: 200,
                body: answer.clone(),
            };
            self.keys.record(Scope::UpdateOrder, &key, print, stored);
        }
        Handled::ok(answer, Vec::new())
    }

    /// What a CreatePayment naming `order_id` for `amount` must meet: the
    /// order is this location's, OPEN, not already being paid, and the
    /// amount is its whole total ("The total of the requested payments
    /// does not match the total of the sale order", forum threads on
    /// rounding; the code Square gives it is not documented, so the
    /// stand-in answers `BAD_REQUEST`).
    pub(super) fn check_order_payment(
        &self,
        order_id: &str,
        amount: i64,
    ) -> Result<(), SquareError> {
        let order = self
            .order_now(order_id)
            .ok_or_else(|| order_not_found(order_id))?;
        if order.state != OrderState::Open {
            return Err(SquareError::bad_request(
                "order_id",
                &format!("The order is {} and cannot be paid.", order.state.as_str()),
            ));
        }
        if self.order_has_live_payment(order_id) {
            return Err(SquareError::bad_request(
                "order_id",
                "The order already has an approved payment.",
            ));
        }
        if amount != order.total {
            return Err(SquareError::bad_request(
                "amount_money",
                "The total of the requested payments does not match the total of the sale order.",
            ));
        }
        Ok(())
    }

    fn order_has_live_payment(&self, order_id: &str) -> bool {
        self.payments.values().any(|p| {
            p.order_id.as_deref() == Some(order_id)
                && matches!(p.status, PaymentStatus::Approved | PaymentStatus::Completed)
        })
    }

    /// The order with what its payments made of it: its tenders, and
    /// COMPLETED (a version on) once one was captured.
    fn order_now(&self, id: &str) -> Option<Order> {
        let mut order = self.orders.get(id)?.clone();
        let paying: Vec<&crate::payments::Payment> = self
            .payment_order
            .iter()
            .map(|p| &self.payments[p])
            .filter(|p| p.order_id.as_deref() == Some(id))
            .filter(|p| matches!(p.status, PaymentStatus::Approved | PaymentStatus::Completed))
            .collect();
        order.tenders = paying.iter().map(|p| p.id.clone()).collect();
        if let Some(captured_at) = paying.iter().find_map(|p| p.captured_at_ms) {
            order.state = OrderState::Completed;
            order.version += 1;
            order.closed_at_ms = Some(captured_at);
            order.updated_at_ms = order.updated_at_ms.max(captured_at);
        }
        Some(order)
    }
}

fn order_not_found(id: &str) -> SquareError {
    SquareError::not_found(format!("Could not find order with id `{id}`."))
}
