//! The API's refusals. Every error answer is JSON of the shape
//! `{"error": "<code>", "detail": "<sentence for a person>", ...}` so that a
//! client can branch on `error` and show `detail`.

use desk::Code;
use serde_json::{json, Map, Value};
use worker::{Response, Result};

/// What a route answers: a response, or a refusal to turn into one.
pub type Handled = std::result::Result<Response, ApiError>;

#[derive(Debug)]
pub struct ApiError {
    pub status: u16,
    pub code: &'static str,
    pub detail: String,
    /// Extra fields merged into the body, e.g. the seats that were taken.
    /// Boxed: errors travel through every `Result`, so they stay small.
    pub extra: Box<Map<String, Value>>,
    /// Sent as `Retry-After` (seconds) with 429 answers.
    pub retry_after_s: Option<u64>,
}

impl ApiError {
    pub fn new(code: Code, detail: impl Into<String>) -> Self {
        ApiError {
            status: code.status(),
            code: code.as_str(),
            detail: detail.into(),
            extra: Box::default(),
            retry_after_s: None,
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    pub fn bad_json(detail: impl Into<String>) -> Self {
        Self::new(Code::BadJson, detail)
    }

    pub fn not_found(what: &str) -> Self {
        Self::new(Code::NotFound, format!("no such {what}"))
    }

    pub fn unauthorized() -> Self {
        Self::new(
            Code::Unauthorized,
            "missing or wrong credentials for this endpoint",
        )
    }

    pub fn body_too_large(limit_bytes: usize) -> Self {
        Self::new(
            Code::BodyTooLarge,
            format!("request body is larger than {limit_bytes} bytes"),
        )
    }

    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(Code::Internal, detail)
    }

    pub fn into_response(self) -> Result<Response> {
        // One line per refusal, its class named, for Workers Logs and
        // `wrangler tail` to filter and count: a flood of one code is the
        // first sign of a card tester or a hoarder. The detail may name a
        // buyer's input, so it is not logged.
        let line = json!({ "event": "refusal", "error": self.code, "status": self.status });
        if self.status >= 500 {
            worker::console_error!("{line}");
        } else {
            worker::console_log!("{line}");
        }
        let mut body = Map::new();
        body.insert("error".into(), json!(self.code));
        body.insert("detail".into(), json!(self.detail));
        body.extend(*self.extra);
        let resp = Response::from_json(&Value::Object(body))?.with_status(self.status);
        if let Some(seconds) = self.retry_after_s {
            resp.headers().set("retry-after", &seconds.to_string())?;
        }
        Ok(resp)
    }
}

impl From<worker::Error> for ApiError {
    fn from(err: worker::Error) -> Self {
        worker::console_error!("internal error: {err}");
        // Said without "nothing was changed": a decision may have been
        // saved before the failure, and retrying is always safe.
        ApiError::internal("the server could not finish this request; please try again")
    }
}

impl From<desk::Refusal> for ApiError {
    fn from(refusal: desk::Refusal) -> Self {
        ApiError {
            status: refusal.code.status(),
            code: refusal.code.as_str(),
            detail: refusal.detail,
            extra: refusal.extra,
            retry_after_s: refusal.retry_after_s,
        }
    }
}
