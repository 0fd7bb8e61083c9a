//! Starting a stand-in, calling it, and a tiny webhook receiver.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use square_standin::{Config, Handle};
use tokio::net::TcpListener;

pub const ACCESS_TOKEN: &str = "test-access-token";
pub const SIGNATURE_KEY: &str = "test-signature-key";
pub const NOTIFICATION_URL: &str = "https://cinema.example/webhooks/square";

pub struct Standin {
    pub handle: Handle,
    pub client: reqwest::Client,
}

/// Quick timers so tests do not wait on Square-like pauses.
pub fn test_config() -> Config {
    Config {
        access_token: ACCESS_TOKEN.to_owned(),
        signature_key: SIGNATURE_KEY.to_owned(),
        refund_settle_after_ms: Some(100),
        webhook_retry_delays_ms: vec![50, 100, 200],
        webhook_timeout_ms: 2_000,
        ..Config::default()
    }
}

pub async fn standin() -> Standin {
    standin_with(test_config()).await
}

pub async fn standin_with(config: Config) -> Standin {
    let handle = square_standin::start(config)
        .await
        .expect("the stand-in starts");
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client builds");
    Standin { handle, client }
}

async fn answer(response: reqwest::Response) -> (u16, Value) {
    let status = response.status().as_u16();
    let text = response.text().await.expect("body arrives");
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).expect("the answer is JSON")
    };
    (status, body)
}

impl Standin {
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.handle.base_url())
    }

    /// An authorized Square API call.
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .client
            .post(self.url(path))
            .bearer_auth(ACCESS_TOKEN)
            .json(&body)
            .send()
            .await;
        answer(response.expect("the stand-in answers")).await
    }

    pub async fn put(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self
            .client
            .put(self.url(path))
            .bearer_auth(ACCESS_TOKEN)
            .json(&body)
            .send()
            .await;
        answer(response.expect("the stand-in answers")).await
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let response = self
            .client
            .get(self.url(path))
            .bearer_auth(ACCESS_TOKEN)
            .send()
            .await;
        answer(response.expect("the stand-in answers")).await
    }

    pub async fn control(&self, path: &str, body: Value) -> (u16, Value) {
        let response = self.client.post(self.url(path)).json(&body).send().await;
        answer(response.expect("the stand-in answers")).await
    }

    pub async fn inspect(&self, path: &str) -> Value {
        let response = self
            .client
            .get(self.url(path))
            .send()
            .await
            .expect("the stand-in answers");
        answer(response).await.1
    }

    pub async fn pay(
        &self,
        key: &str,
        token: &str,
        amount: i64,
        autocomplete: bool,
    ) -> (u16, Value) {
        let body = json!({
            "idempotency_key": key,
            "source_id": token,
            "amount_money": {"amount": amount, "currency": "USD"},
            "autocomplete": autocomplete,
            "reference_id": "order-42",
            "buyer_email_address": "viewer@example.com",
        });
        self.post("/v2/payments", body).await
    }

    /// A completed payment's id.
    pub async fn paid(&self, key: &str, amount: i64) -> String {
        let (status, body) = self.pay(key, "cnon:card-nonce-ok", amount, true).await;
        assert_eq!(status, 200, "{body}");
        body["payment"]["id"]
            .as_str()
            .expect("payment id")
            .to_owned()
    }

    pub async fn tokenize(&self, number: &str, expiry: &str, cvv: &str, postal: &str) -> Value {
        let body = json!({
            "application_id": "sandbox-sq0idb-standin",
            "location_id": "LSTANDIN0001",
            "card_number": number,
            "expiration": expiry,
            "cvv": cvv,
            "postal_code": postal,
        });
        let response = self
            .client
            .post(self.url("/_sdk/tokenize"))
            .json(&body)
            .send()
            .await;
        answer(response.expect("the stand-in answers")).await.1
    }

    pub async fn payment_count(&self) -> usize {
        self.inspect("/_control/payments").await["payments"]
            .as_array()
            .expect("payments")
            .len()
    }
}

pub fn error_code(body: &Value) -> &str {
    body["errors"][0]["code"].as_str().unwrap_or("<no error>")
}

#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: String,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("webhook body is JSON")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// Records every webhook; answers 500 to the first `fail_first` and waits
/// `answer_after` before each answer.
pub struct Receiver {
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    _server: tokio::task::JoinHandle<()>,
}

pub async fn receiver(fail_first: usize, answer_after: Duration) -> Receiver {
    let received = Arc::new(Mutex::new(Vec::new()));
    let failures_left = Arc::new(AtomicUsize::new(fail_first));
    let log = Arc::clone(&received);
    let app = Router::new().route(
        "/webhooks/square",
        post(move |headers: HeaderMap, body: String| {
            let (log, failures_left) = (Arc::clone(&log), Arc::clone(&failures_left));
            async move {
                log.lock().unwrap().push(Received { headers, body });
                tokio::time::sleep(answer_after).await;
                let fail = failures_left
                    .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                        left.checked_sub(1)
                    })
                    .is_ok();
                if fail {
                    StatusCode::INTERNAL_SERVER_ERROR
                } else {
                    StatusCode::OK
                }
            }
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("receiver binds");
    let url = format!("http://{}/webhooks/square", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.expect("receiver serves");
    });
    Receiver {
        url,
        received,
        _server: server,
    }
}

impl Receiver {
    /// Waits until at least `count` webhooks arrived (or 5 s passed).
    pub async fn wait_for(&self, count: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let received = self.received.lock().unwrap().clone();
            if received.len() >= count || Instant::now() > deadline {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// A stand-in that posts webhooks to `receiver`, signing them for
/// [`NOTIFICATION_URL`].
pub async fn standin_posting_to(receiver: &Receiver) -> Standin {
    standin_with(Config {
        webhook_url: Some(receiver.url.clone()),
        notification_url: Some(NOTIFICATION_URL.to_owned()),
        ..test_config()
    })
    .await
}

/// Polls `GET path` until `done` holds (or 5 s passed).
pub async fn eventually(standin: &Standin, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let (_, body) = standin.get(path).await;
        if done(&body) || Instant::now() > deadline {
            return body;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
