//! The API's refusals. Every error answer is JSON of the shape
//! `{"error": "<code>", "detail": "<sentence for a person>", ...}` so that a
//! client can branch on `error` and show `detail`.

use serde_json::{json, Map, Value};
use worker::{Response, Result};

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
    pub fn new(status: u16, code: &'static str, detail: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            detail: detail.into(),
            extra: Box::default(),
            retry_after_s: None,
        }
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    pub fn retry_after(mut self, seconds: u64) -> Self {
        self.retry_after_s = Some(seconds.max(1));
        self
    }

    pub fn bad_json(detail: impl Into<String>) -> Self {
        Self::new(400, "bad_json", detail)
    }

    pub fn not_found(what: &str) -> Self {
        Self::new(404, "not_found", format!("no such {what}"))
    }

    pub fn unauthorized() -> Self {
        Self::new(
            401,
            "unauthorized",
            "missing or wrong credentials for this endpoint",
        )
    }

    pub fn body_too_large(limit_bytes: usize) -> Self {
        Self::new(
            413,
            "body_too_large",
            format!("request body is larger than {limit_bytes} bytes"),
        )
    }

    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(500, "internal", detail)
    }

    pub fn into_response(self) -> Result<Response> {
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
        ApiError::internal("the server could not finish this request; nothing was changed")
    }
}
