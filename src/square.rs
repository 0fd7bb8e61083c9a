//! The Worker's Square client: the calls of `shared/square.md` over
//! `fetch`, each with a timeout, each answer sorted into what a caller can
//! act on. It decides nothing; the checkout machine does.

use std::time::Duration;

use futures_util::future::{select, Either};
use serde_json::{json, Value};
use worker::{AbortController, Delay, Env, Fetch, Headers, Method, Request, RequestInit};

/// The API version this client speaks; sent on every call.
const SQUARE_VERSION: &str = "2025-08-20";
/// Longest wait for one answer. Square answers in well under a second; a
/// call that takes longer is treated as unknown and found out later.
const CALL_TIMEOUT: Duration = Duration::from_secs(8);
/// Largest answer body read; Square's are a few kilobytes.
const MAX_ANSWER_BYTES: usize = 256 * 1024;

/// One answer from Square, sorted.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
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

#[derive(Clone)]
pub struct Square {
    base_url: String,
    access_token: String,
    pub location_id: String,
}

impl Square {
    /// From the settings: `SQUARE_BASE_URL`, `SQUARE_LOCATION_ID` (vars) and
    /// `SQUARE_ACCESS_TOKEN` (secret).
    pub fn from_env(env: &Env) -> Result<Square, String> {
        let var = |name: &str| {
            env.var(name)
                .map(|v| v.to_string())
                .or_else(|_| env.secret(name).map(|v| v.to_string()))
                .map_err(|_| format!("{name} is not configured"))
        };
        Ok(Square {
            base_url: var("SQUARE_BASE_URL")?.trim_end_matches('/').to_string(),
            access_token: var("SQUARE_ACCESS_TOKEN")?,
            location_id: var("SQUARE_LOCATION_ID")?,
        })
    }

    pub async fn create_payment(&self, body: &Value) -> Reply {
        self.call(Method::Post, "/v2/payments", Some(body)).await
    }

    pub async fn complete_payment(&self, payment_id: &str) -> Reply {
        let path = format!("/v2/payments/{}/complete", path_segment(payment_id));
        self.call(Method::Post, &path, Some(&json!({}))).await
    }

    pub async fn cancel_payment(&self, payment_id: &str) -> Reply {
        let path = format!("/v2/payments/{}/cancel", path_segment(payment_id));
        self.call(Method::Post, &path, Some(&json!({}))).await
    }

    pub async fn cancel_payment_by_key(&self, idempotency_key: &str) -> Reply {
        let body = json!({ "idempotency_key": idempotency_key });
        self.call(Method::Post, "/v2/payments/cancel", Some(&body))
            .await
    }

    pub async fn get_payment(&self, payment_id: &str) -> Reply {
        let path = format!("/v2/payments/{}", path_segment(payment_id));
        self.call(Method::Get, &path, None).await
    }

    pub async fn refund_payment(&self, body: &Value) -> Reply {
        self.call(Method::Post, "/v2/refunds", Some(body)).await
    }

    pub async fn get_refund(&self, refund_id: &str) -> Reply {
        let path = format!("/v2/refunds/{}", path_segment(refund_id));
        self.call(Method::Get, &path, None).await
    }

    async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Reply {
        let request = match self.request(method, path, body) {
            Ok(request) => request,
            Err(e) => return Reply::Unknown(format!("could not build the request: {e}")),
        };
        let controller = AbortController::default();
        let signal = controller.signal();
        let fetch = Fetch::Request(request);
        let sent = Box::pin(fetch.send_with_signal(&signal));
        let timeout = Box::pin(Delay::from(CALL_TIMEOUT));
        let mut resp = match select(sent, timeout).await {
            Either::Left((Ok(resp), _)) => resp,
            Either::Left((Err(e), _)) => return Reply::Unknown(format!("no answer: {e}")),
            Either::Right(_) => {
                controller.abort();
                return Reply::Unknown(format!("no answer within {CALL_TIMEOUT:?}"));
            }
        };
        let status = resp.status_code();
        let bytes = match resp.bytes().await {
            Ok(bytes) if bytes.len() <= MAX_ANSWER_BYTES => bytes,
            Ok(_) => return Reply::Unknown("answer too large".into()),
            Err(e) => return Reply::Unknown(format!("answer cut short: {e}")),
        };
        sort(status, &bytes)
    }

    fn request(&self, method: Method, path: &str, body: Option<&Value>) -> worker::Result<Request> {
        let headers = Headers::new();
        headers.set("authorization", &format!("Bearer {}", self.access_token))?;
        headers.set("square-version", SQUARE_VERSION)?;
        headers.set("content-type", "application/json")?;
        headers.set("accept", "application/json")?;
        let mut init = RequestInit::new();
        init.with_method(method).with_headers(headers);
        if let Some(body) = body {
            init.with_body(Some(body.to_string().into()));
        }
        Request::new_with_init(&format!("{}{path}", self.base_url), &init)
    }
}

/// Ids from Square are alphanumeric with `_` and `-`; anything else is
/// dropped so that an id can never change the path it is put in.
fn path_segment(id: &str) -> String {
    id.chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        .collect()
}

/// Sorts an HTTP answer. 5xx and 429 mean "try again with the same key";
/// other 4xx are Square's considered refusal.
pub fn sort(status: u16, body: &[u8]) -> Reply {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    match status {
        200..=299 => match parsed {
            Some(value) => Reply::Ok(value),
            None => Reply::Unknown(format!("{status} with a body that is not JSON")),
        },
        429 | 500..=599 => Reply::Unknown(format!("Square answered {status}")),
        _ => {
            let value = parsed.unwrap_or(Value::Null);
            let error = &value["errors"][0];
            let text = |field: &str| error[field].as_str().unwrap_or_default().to_string();
            Reply::Refused {
                status,
                category: text("category"),
                code: text("code"),
                detail: text("detail"),
                payment: value.get("payment").cloned(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_sorted_by_what_can_be_done_next() {
        assert_eq!(
            sort(200, b"{\"payment\":{}}"),
            Reply::Ok(json!({"payment": {}}))
        );
        assert!(matches!(sort(503, b"{}"), Reply::Unknown(_)));
        assert!(matches!(sort(429, b"{}"), Reply::Unknown(_)));
        assert!(matches!(sort(200, b"<html>"), Reply::Unknown(_)));
        let decline = br#"{"errors":[{"category":"PAYMENT_METHOD_ERROR","code":"GENERIC_DECLINE","detail":"no"}],"payment":{"id":"p1","status":"FAILED"}}"#;
        match sort(402, decline) {
            Reply::Refused { code, payment, .. } => {
                assert_eq!(code, "GENERIC_DECLINE");
                assert_eq!(payment.unwrap()["status"], "FAILED");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn ids_cannot_change_the_path() {
        assert_eq!(path_segment("abc_DEF-1"), "abc_DEF-1");
        assert_eq!(path_segment("../x?y"), "xy");
    }
}
