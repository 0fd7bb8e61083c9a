//! Square, as the desk sees it: the request each checkout step sends
//! ([`SquareCall`]), how an HTTP answer is sorted ([`sort`]), and what
//! each sorted answer means for the step that asked ([`answer_for`]).
//! The shell only adds credentials, sends, and waits with a timeout.

use checkout::{Action, Answer, PaymentStatus};
use serde_json::{json, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
}

/// One request to Square's API: the path below the base URL and the body.
#[derive(Clone, Debug, PartialEq)]
pub struct SquareCall {
    pub method: Method,
    pub path: String,
    pub body: Option<Value>,
}

/// One answer from Square, sorted by what can be done next.
#[derive(Debug, Clone, PartialEq)]
pub enum SquareReply {
    /// 2xx with its JSON body.
    Ok(Value),
    /// 4xx with Square's first error, and the payment it carried (a decline
    /// comes with the FAILED payment).
    Refused {
        status: u16,
        category: String,
        code: String,
        detail: String,
        payment: Option<Value>,
    },
    /// No usable answer: a timeout, a dropped connection, a 5xx or a 429.
    /// The work may or may not have been done.
    Unknown(String),
}

/// Sorts an HTTP answer. 5xx and 429 mean "try again with the same key";
/// other 4xx are Square's considered refusal.
pub fn sort(status: u16, body: &[u8]) -> SquareReply {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    match status {
        200..=299 => match parsed {
            Some(value) => SquareReply::Ok(value),
            None => SquareReply::Unknown(format!("{status} with a body that is not JSON")),
        },
        429 | 500..=599 => SquareReply::Unknown(format!("Square answered {status}")),
        _ => {
            let value = parsed.unwrap_or(Value::Null);
            let error = &value["errors"][0];
            let text = |field: &str| error[field].as_str().unwrap_or_default().to_string();
            SquareReply::Refused {
                status,
                category: text("category"),
                code: text("code"),
                detail: text("detail"),
                payment: value.get("payment").cloned(),
            }
        }
    }
}

/// How long after it is made Square cancels an authorization that was
/// neither captured nor voided (`delay_duration` with `delay_action:
/// CANCEL`). Square's own default for a card-not-present payment is 7
/// days, which would hold a buyer's money a week if an order got stuck; 6
/// hours is far longer than any recovery here takes (the sweep runs every
/// five minutes) and short enough to release the money the same day.
/// <https://developer.squareup.com/docs/payments-api/take-payments/card-payments/delayed-capture>
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthorizationDelay {
    minutes: u32,
}

impl AuthorizationDelay {
    /// Square takes one minute to seven days.
    pub const MIN_MINUTES: u32 = 1;
    pub const MAX_MINUTES: u32 = 7 * 24 * 60;
    pub const DEFAULT_MINUTES: u32 = 6 * 60;

    /// `None` outside Square's range.
    pub fn minutes(minutes: u32) -> Option<AuthorizationDelay> {
        (Self::MIN_MINUTES..=Self::MAX_MINUTES)
            .contains(&minutes)
            .then_some(AuthorizationDelay { minutes })
    }

    pub fn ms(&self) -> u64 {
        u64::from(self.minutes) * 60_000
    }

    /// As an RFC 3339 duration: `PT6H`, `PT90M`.
    pub fn duration(&self) -> String {
        if self.minutes.is_multiple_of(60) {
            format!("PT{}H", self.minutes / 60)
        } else {
            format!("PT{}M", self.minutes)
        }
    }
}

impl Default for AuthorizationDelay {
    fn default() -> Self {
        AuthorizationDelay {
            minutes: Self::DEFAULT_MINUTES,
        }
    }
}

/// What every refund tells Square it is for: the one text of
/// `refunds::REFUND_REASON`, whoever asks.
pub use refunds::REFUND_REASON;

/// Ids from Square are alphanumeric with `_` and `-`; anything else is
/// dropped so that an id can never change the path it is put in.
pub fn path_segment(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .collect()
}

fn post(path: String, body: Value) -> SquareCall {
    SquareCall {
        method: Method::Post,
        path,
        body: Some(body),
    }
}

/// The refund a checkout's `RefundPayment` asks for: a typed request, so
/// the shell records it before sending it (`Effect::Refund`).
pub fn refund_for(action: &Action) -> Option<refunds::RefundRequest> {
    match action {
        Action::RefundPayment {
            payment_id,
            idempotency_key,
            amount_minor,
            currency,
            ..
        } => Some(refunds::RefundRequest {
            idempotency_key: idempotency_key.clone(),
            payment_id: payment_id.clone(),
            amount: *amount_minor,
            currency: currency.clone(),
            seats: Vec::new(),
        }),
        _ => None,
    }
}

/// `POST /v2/refunds` with the one body every refund is sent with.
pub fn refund_call(request: &refunds::RefundRequest) -> SquareCall {
    post("/v2/refunds".into(), request.body())
}

/// The request a checkout's Square action sends; `None` for the actions
/// that are not Square's, and for a refund (see [`refund_for`]).
/// A repeated CreatePayment must carry the same body as the first (Square
/// refuses a key reused with other values), so the location and the delay
/// come from settings that only a deploy changes.
pub fn call_for(action: &Action, settings: &crate::Settings) -> Option<SquareCall> {
    let payment = |id: &str, verb: &str| format!("/v2/payments/{}{verb}", path_segment(id));
    Some(match action {
        Action::CreatePayment {
            idempotency_key,
            source_id,
            amount_minor,
            currency,
            reference_id,
            buyer_email,
            autocomplete,
            square_order_id,
            verification_token,
            ..
        } => post("/v2/payments".into(), {
            let mut body = json!({
                "idempotency_key": idempotency_key,
                "source_id": source_id,
                "amount_money": {"amount": amount_minor, "currency": currency},
                "autocomplete": autocomplete,
                "delay_action": "CANCEL",
                "delay_duration": settings.authorization_delay.duration(),
                "location_id": settings.location_id,
                "reference_id": reference_id,
                "buyer_email_address": buyer_email,
            });
            if let Some(order_id) = square_order_id {
                body["order_id"] = json!(order_id);
            }
            // Square's CreatePayment takes the SDK's `verifyBuyer()` token
            // for a card (a wallet's) that was not verified as tokenized.
            if let Some(token) = verification_token {
                body["verification_token"] = json!(token);
            }
            body
        }),
        Action::CreateOrder {
            idempotency_key,
            reference_id,
            item_name,
            currency,
            prices,
            discount_code,
            ..
        } => post(
            "/v2/orders".into(),
            json!({
                "idempotency_key": idempotency_key,
                "order": crate::square_order::order_body(
                    &settings.location_id,
                    reference_id,
                    &crate::square_order::Lines {
                        item_name,
                        currency,
                        prices,
                        discount_code: discount_code.as_deref(),
                    },
                    &settings.tax,
                ),
            }),
        ),
        Action::GetOrder { order_id, .. } => SquareCall {
            method: Method::Get,
            path: format!("/v2/orders/{}", path_segment(order_id)),
            body: None,
        },
        Action::CancelOrder {
            order_id,
            version,
            idempotency_key,
            ..
        } => SquareCall {
            method: Method::Put,
            path: format!("/v2/orders/{}", path_segment(order_id)),
            body: Some(json!({
                "idempotency_key": idempotency_key,
                "order": {"version": version, "state": "CANCELED"},
            })),
        },
        Action::GetPayment { payment_id, .. } => SquareCall {
            method: Method::Get,
            path: payment(payment_id, ""),
            body: None,
        },
        Action::CompletePayment { payment_id, .. } => {
            post(payment(payment_id, "/complete"), json!({}))
        }
        Action::CancelPayment { payment_id, .. } => post(payment(payment_id, "/cancel"), json!({})),
        Action::CancelPaymentByKey {
            idempotency_key, ..
        } => post(
            "/v2/payments/cancel".into(),
            json!({ "idempotency_key": idempotency_key }),
        ),
        _ => return None,
    })
}

/// What Square's reply to `action` means for the checkout.
pub fn answer_for(action: &Action, reply: SquareReply) -> Answer {
    match action {
        Action::CancelPaymentByKey { .. } => match reply {
            SquareReply::Ok(_) => Answer::CanceledByKey,
            SquareReply::Unknown(_) => Answer::OutcomeUnknown,
            SquareReply::Refused { code, .. } => Answer::Rejected { code },
        },
        Action::CreateOrder { .. } => match reply {
            SquareReply::Ok(body) => {
                crate::square_order::created(&body).unwrap_or(Answer::OutcomeUnknown)
            }
            SquareReply::Unknown(_) => Answer::OutcomeUnknown,
            SquareReply::Refused { code, .. } => Answer::Rejected { code },
        },
        Action::GetOrder { .. } | Action::CancelOrder { .. } => match reply {
            SquareReply::Ok(body) => {
                crate::square_order::seen(&body).unwrap_or(Answer::OutcomeUnknown)
            }
            SquareReply::Unknown(_) => Answer::OutcomeUnknown,
            SquareReply::Refused { code, .. } => Answer::Rejected { code },
        },
        Action::RefundPayment { .. } => match reply {
            SquareReply::Ok(body) => match body["refund"]["id"].as_str() {
                Some(id) => Answer::RefundAccepted {
                    refund_id: id.to_string(),
                },
                None => Answer::OutcomeUnknown,
            },
            SquareReply::Unknown(_) => Answer::OutcomeUnknown,
            SquareReply::Refused { code, .. } => Answer::Rejected { code },
        },
        Action::CreatePayment { .. } => match reply {
            // Nothing is looked up by CreatePayment, so a 404 is no missing
            // payment: the request went to the wrong place (a sandbox token
            // against production). A refusal; retrying cannot help.
            SquareReply::Refused {
                status: 404, code, ..
            } => Answer::Rejected {
                code: if code.is_empty() {
                    "NOT_FOUND".into()
                } else {
                    code
                },
            },
            other => payment_answer(other),
        },
        _ => payment_answer(reply),
    }
}

fn payment_answer(reply: SquareReply) -> Answer {
    match reply {
        SquareReply::Ok(body) => payment_of(&body).unwrap_or(Answer::OutcomeUnknown),
        SquareReply::Unknown(_) => Answer::OutcomeUnknown,
        SquareReply::Refused { status: 404, .. } => Answer::PaymentNotFound,
        SquareReply::Refused {
            category,
            code,
            payment,
            ..
        } => {
            let failed = payment
                .map(|p| json!({ "payment": p }))
                .and_then(|p| payment_of(&p));
            let declined = category == "PAYMENT_METHOD_ERROR";
            match failed {
                Some(Answer::Payment {
                    payment_id,
                    status: PaymentStatus::Failed | PaymentStatus::Canceled,
                }) if declined => Answer::Declined {
                    code,
                    payment_id: Some(payment_id),
                },
                _ if declined => Answer::Declined {
                    code,
                    payment_id: None,
                },
                Some(answer) => answer,
                None => Answer::Rejected { code },
            }
        }
    }
}

fn payment_of(body: &Value) -> Option<Answer> {
    let payment = &body["payment"];
    let payment_id = payment["id"].as_str()?.to_string();
    let status = PaymentStatus::from_square(payment["status"].as_str()?)?;
    Some(Answer::Payment { payment_id, status })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_sorted_by_what_can_be_done_next() {
        assert_eq!(
            sort(200, b"{\"payment\":{}}"),
            SquareReply::Ok(json!({"payment": {}}))
        );
        assert!(matches!(sort(503, b"{}"), SquareReply::Unknown(_)));
        assert!(matches!(sort(429, b"{}"), SquareReply::Unknown(_)));
        assert!(matches!(sort(200, b"<html>"), SquareReply::Unknown(_)));
        let decline = br#"{"errors":[{"category":"PAYMENT_METHOD_ERROR","code":"GENERIC_DECLINE","detail":"no"}],"payment":{"id":"p1","status":"FAILED"}}"#;
        let create = Action::CreatePayment {
            step: checkout::StepTag(1),
            idempotency_key: "k".into(),
            source_id: "s".into(),
            amount_minor: 100,
            currency: "USD".into(),
            reference_id: "r".into(),
            buyer_email: "a@b.c".into(),
            autocomplete: false,
            square_order_id: None,
            verification_token: None,
        };
        assert_eq!(
            answer_for(&create, sort(402, decline)),
            Answer::Declined {
                code: "GENERIC_DECLINE".into(),
                payment_id: Some("p1".into())
            }
        );
        let missing = sort(
            404,
            br#"{"errors":[{"category":"INVALID_REQUEST_ERROR","code":"NOT_FOUND"}]}"#,
        );
        // CreatePayment finds nothing: a 404 there is a misconfiguration,
        // refused; the same answer to a lookup is a payment not found.
        assert_eq!(
            answer_for(&create, missing.clone()),
            Answer::Rejected {
                code: "NOT_FOUND".into()
            }
        );
        let get = Action::GetPayment {
            step: checkout::StepTag(2),
            payment_id: "p1".into(),
        };
        assert_eq!(answer_for(&get, missing), Answer::PaymentNotFound);
    }

    #[test]
    fn ids_cannot_change_the_path() {
        assert_eq!(path_segment("abc_DEF-1"), "abc_DEF-1");
        assert_eq!(path_segment("../x?y"), "xy");
        let get = Action::GetPayment {
            step: checkout::StepTag(2),
            payment_id: "../admin".into(),
        };
        let settings = crate::Settings::default();
        assert_eq!(
            call_for(&get, &settings).unwrap().path,
            "/v2/payments/admin"
        );
    }

    #[test]
    fn authorizations_lapse_after_six_hours_unless_set_otherwise() {
        assert_eq!(AuthorizationDelay::default().duration(), "PT6H");
        assert_eq!(AuthorizationDelay::minutes(90).unwrap().duration(), "PT90M");
        assert_eq!(AuthorizationDelay::minutes(0), None);
        assert_eq!(AuthorizationDelay::minutes(7 * 24 * 60 + 1), None);
        let create = Action::CreatePayment {
            step: checkout::StepTag(1),
            idempotency_key: "k".into(),
            source_id: "cnon:ok".into(),
            amount_minor: 1200,
            currency: "USD".into(),
            reference_id: "o".into(),
            buyer_email: "a@example.com".into(),
            autocomplete: false,
            square_order_id: None,
            verification_token: None,
        };
        let body = call_for(&create, &crate::Settings::default())
            .unwrap()
            .body
            .unwrap();
        assert_eq!(body["delay_action"], "CANCEL");
        assert_eq!(body["delay_duration"], "PT6H");
        assert!(body.get("verification_token").is_none());
        let mut verified = create;
        if let Action::CreatePayment {
            verification_token, ..
        } = &mut verified
        {
            *verification_token = Some("verf:1".into());
        }
        let body = call_for(&verified, &crate::Settings::default())
            .unwrap()
            .body
            .unwrap();
        assert_eq!(body["verification_token"], "verf:1");
    }
}
