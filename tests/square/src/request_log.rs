//! The log of API calls received, for tests to assert on ("one
//! authorization and one capture, each key at most 45 characters").
//! API bodies carry card tokens, never card numbers, so they are kept whole.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Serialize)]
pub struct ApiCall {
    pub at: String,
    pub method: String,
    pub path: String,
    pub idempotency_key: Option<String>,
    /// The parsed JSON body; `None` when there was none or it was not JSON.
    pub body: Option<Value>,
    /// The status answered, or that would have been answered when the
    /// answer was dropped.
    pub status: u16,
    /// `delay`, `drop` or `status` when a fault was applied.
    pub fault: Option<&'static str>,
}
