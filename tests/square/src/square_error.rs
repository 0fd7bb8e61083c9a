//! Square's error answer: `{"errors":[{category, code, detail, field}]}`,
//! plus the `payment` a card decline carries beside its errors.
//!
//! Each constructor names one outcome so a handler reads like the rule it
//! enforces; the codes and categories are Square's own spellings.

use serde_json::{json, Value};

/// Square's error categories (the subset this stand-in answers with).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Api,
    Authentication,
    InvalidRequest,
    PaymentMethod,
    RateLimit,
    Refund,
}

impl Category {
    fn as_str(self) -> &'static str {
        match self {
            Category::Api => "API_ERROR",
            Category::Authentication => "AUTHENTICATION_ERROR",
            Category::InvalidRequest => "INVALID_REQUEST_ERROR",
            Category::PaymentMethod => "PAYMENT_METHOD_ERROR",
            Category::RateLimit => "RATE_LIMIT_ERROR",
            Category::Refund => "REFUND_ERROR",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SquareError {
    pub status: u16,
    pub category: Category,
    pub code: &'static str,
    pub detail: String,
    pub field: Option<String>,
    /// Only a card decline fills this: the FAILED payment Square answers
    /// with next to the error.
    pub payment: Option<Box<Value>>,
}

impl SquareError {
    fn new(status: u16, category: Category, code: &'static str, detail: impl Into<String>) -> Self {
        SquareError {
            status,
            category,
            code,
            detail: detail.into(),
            field: None,
            payment: None,
        }
    }

    fn on(mut self, field: &str) -> Self {
        self.field = Some(field.to_owned());
        self
    }

    pub fn missing(field: &str) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "MISSING_REQUIRED_PARAMETER",
            format!("Missing required parameter: `{field}`."),
        )
        .on(field)
    }

    pub fn too_long(field: &str, max_chars: usize) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "VALUE_TOO_LONG",
            format!("Field must not be greater than {max_chars} length"),
        )
        .on(field)
    }

    pub fn too_short(field: &str) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "VALUE_TOO_SHORT",
            "Field must not be less than 1 length",
        )
        .on(field)
    }

    pub fn too_low(field: &str) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "VALUE_TOO_LOW",
            "Field must be greater than 0",
        )
        .on(field)
    }

    pub fn expected(field: &str, kind: ExpectedKind) -> Self {
        let (code, noun) = match kind {
            ExpectedKind::Integer => ("EXPECTED_INTEGER", "an integer"),
            ExpectedKind::String => ("EXPECTED_STRING", "a string"),
            ExpectedKind::Boolean => ("EXPECTED_BOOLEAN", "a boolean"),
            ExpectedKind::Object => ("EXPECTED_OBJECT", "an object"),
            ExpectedKind::Array => ("EXPECTED_ARRAY", "an array"),
        };
        Self::new(
            400,
            Category::InvalidRequest,
            code,
            format!("Expected {noun}."),
        )
        .on(field)
    }

    /// A blank id: "Field must not be blank" (forum, "Assigning individual
    /// tax ids to the line items in the Orders API").
    pub fn value_empty(field: &str) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "VALUE_EMPTY",
            "Field must not be blank",
        )
        .on(field)
    }

    pub fn unknown_parameter(field: &str) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "UNKNOWN_BODY_PARAMETER",
            format!("Unknown body parameter `{field}`."),
        )
        .on(field)
    }

    pub fn array_too_long(field: &str, max: usize) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "ARRAY_LENGTH_TOO_LONG",
            format!("Array must not be longer than {max} items."),
        )
        .on(field)
    }

    pub fn invalid_value(field: &str, detail: impl Into<String>) -> Self {
        Self::new(400, Category::InvalidRequest, "INVALID_VALUE", detail).on(field)
    }

    pub fn invalid_email(field: &str) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "INVALID_EMAIL_ADDRESS",
            "The provided email address is invalid.",
        )
        .on(field)
    }

    pub fn malformed_json() -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "BAD_REQUEST",
            "The request body is not a JSON object.",
        )
    }

    pub fn not_found(detail: impl Into<String>) -> Self {
        Self::new(404, Category::InvalidRequest, "NOT_FOUND", detail)
    }

    /// Moving a payment Square still shows PENDING. Square's exact answer
    /// is a guess (see the README): a refusal, since the payment is not
    /// APPROVED.
    pub fn payment_pending() -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "BAD_REQUEST",
            "The payment is PENDING; it cannot be completed or canceled yet.",
        )
    }

    pub fn method_not_allowed() -> Self {
        Self::new(
            405,
            Category::InvalidRequest,
            "METHOD_NOT_ALLOWED",
            "Method not allowed for this endpoint.",
        )
    }

    pub fn unauthorized() -> Self {
        Self::new(
            401,
            Category::Authentication,
            "UNAUTHORIZED",
            "This request could not be authorized.",
        )
    }

    pub fn body_too_large(limit_bytes: usize) -> Self {
        Self::new(
            413,
            Category::InvalidRequest,
            "REQUEST_ENTITY_TOO_LARGE",
            format!("The request body exceeds {limit_bytes} bytes."),
        )
    }

    pub fn idempotency_key_reused() -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "IDEMPOTENCY_KEY_REUSED",
            "The idempotency key can only be retried with the same request data.",
        )
        .on("idempotency_key")
    }

    pub fn card_token_used() -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "CARD_TOKEN_USED",
            "Card nonce already used; please use new nonce.",
        )
        .on("source_id")
    }

    pub fn unknown_card_token() -> Self {
        Self::new(
            404,
            Category::InvalidRequest,
            "NOT_FOUND",
            "Card nonce not found in this `sandbox` application environment.",
        )
        .on("source_id")
    }

    /// A card decline: `status` is configurable because Square's HTTP status
    /// for a decline is unconfirmed (400 or 402).
    pub fn decline(status: u16, code: &'static str, payment: Value) -> Self {
        let mut error = Self::new(
            status,
            Category::PaymentMethod,
            code,
            format!("Authorization error: '{code}'"),
        );
        error.payment = Some(Box::new(payment));
        error
    }

    /// Square's answer to a request it reads but will not do, with the
    /// field at fault.
    pub fn bad_request(field: &str, detail: &str) -> Self {
        Self::new(400, Category::InvalidRequest, "BAD_REQUEST", detail).on(field)
    }

    /// UpdateOrder at a stale version (forum, "Update order created via
    /// payment link"); its HTTP status is not documented: 400, as for the
    /// category.
    pub fn order_version_mismatch(sent: i64, current: i64, order_id: &str) -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "VERSION_MISMATCH",
            format!("Supplied version {sent} does not match the current version {current} of order {order_id}."),
        )
        .on("order.version")
    }

    pub fn version_mismatch() -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "VERSION_MISMATCH",
            "The payment has changed since this version_token was read.",
        )
        .on("version_token")
    }

    pub fn already_canceled() -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "DELAYED_TRANSACTION_CANCELED",
            "The payment was already canceled.",
        )
    }

    pub fn already_captured() -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "DELAYED_TRANSACTION_CAPTURED",
            "The payment was already completed.",
        )
    }

    pub fn already_failed() -> Self {
        Self::new(
            400,
            Category::InvalidRequest,
            "DELAYED_TRANSACTION_FAILED",
            "The payment failed.",
        )
    }

    pub fn refund_needs_completion() -> Self {
        Self::new(
            400,
            Category::Refund,
            "REFUND_ERROR_PAYMENT_NEEDS_COMPLETION",
            "The payment is approved and must be completed before it can be refunded.",
        )
        .on("payment_id")
    }

    /// A payment one of whose refunds FAILED: Square allows no further
    /// refund of it. The code is a guess (see the README).
    pub fn refund_after_failure() -> Self {
        Self::new(
            400,
            Category::Refund,
            "PAYMENT_NOT_REFUNDABLE",
            "A refund of this payment failed; it cannot be refunded again.",
        )
        .on("payment_id")
    }

    /// The payment has had as many refunds as Square allows one payment.
    /// The code is a guess (see the README).
    pub fn too_many_refunds(limit: usize) -> Self {
        Self::new(
            400,
            Category::Refund,
            "PAYMENT_NOT_REFUNDABLE",
            format!("A payment can be refunded at most {limit} times."),
        )
        .on("payment_id")
    }

    /// Another refund of the payment is still PENDING.
    pub fn refund_already_pending() -> Self {
        Self::new(
            400,
            Category::Refund,
            "REFUND_ALREADY_PENDING",
            "The payment already has a pending refund.",
        )
        .on("payment_id")
    }

    pub fn payment_not_refundable() -> Self {
        Self::new(
            400,
            Category::Refund,
            "PAYMENT_NOT_REFUNDABLE",
            "The payment is not refundable.",
        )
        .on("payment_id")
    }

    pub fn refund_amount_invalid() -> Self {
        Self::new(
            400,
            Category::Refund,
            "REFUND_AMOUNT_INVALID",
            "The requested refund amount exceeds the amount available to refund.",
        )
        .on("amount_money.amount")
    }

    pub fn internal() -> Self {
        Self::new(
            500,
            Category::Api,
            "INTERNAL_SERVER_ERROR",
            "An internal error has occurred.",
        )
    }

    pub fn unavailable() -> Self {
        Self::new(
            503,
            Category::Api,
            "SERVICE_UNAVAILABLE",
            "Service Unavailable - a general error occurred.",
        )
    }

    pub fn gateway_timeout() -> Self {
        Self::new(
            504,
            Category::Api,
            "GATEWAY_TIMEOUT",
            "Gateway Timeout - a general error occurred.",
        )
    }

    pub fn rate_limited() -> Self {
        Self::new(429, Category::RateLimit, "RATE_LIMITED", "Rate limited.")
    }

    /// The stand-in keeps everything in memory under fixed limits; when one
    /// is reached it says so rather than silently forgetting old data.
    pub fn standin_full(what: &str, limit: usize) -> Self {
        Self::new(
            500,
            Category::Api,
            "INTERNAL_SERVER_ERROR",
            format!(
                "The stand-in holds at most {limit} {what}; POST /_control/reset to start over."
            ),
        )
    }

    pub fn body(&self) -> Value {
        let mut error = json!({
            "category": self.category.as_str(),
            "code": self.code,
            "detail": self.detail,
        });
        if let Some(field) = &self.field {
            error["field"] = json!(field);
        }
        let mut body = json!({ "errors": [error] });
        if let Some(payment) = &self.payment {
            body["payment"] = (**payment).clone();
        }
        body
    }
}

#[derive(Debug, Clone, Copy)]
pub enum ExpectedKind {
    Integer,
    String,
    Boolean,
    Object,
    Array,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_body_has_square_shape() {
        let body = SquareError::too_long("idempotency_key", 45).body();
        assert_eq!(body["errors"][0]["category"], "INVALID_REQUEST_ERROR");
        assert_eq!(body["errors"][0]["code"], "VALUE_TOO_LONG");
        assert_eq!(body["errors"][0]["field"], "idempotency_key");
        assert!(body.get("payment").is_none());
    }

    #[test]
    fn decline_carries_the_failed_payment() {
        let body = SquareError::decline(402, "GENERIC_DECLINE", json!({"status": "FAILED"})).body();
        assert_eq!(body["errors"][0]["category"], "PAYMENT_METHOD_ERROR");
        assert_eq!(body["payment"]["status"], "FAILED");
    }
}
