//! The Square stand-in, run in-process on its own thread and runtime so a
//! test's own runtime (or none) does not matter, and stopped on drop.

use std::sync::mpsc;
use std::thread::JoinHandle;

use tokio::sync::oneshot;

/// The URL Square signs webhooks with: the Worker's `SQUARE_WEBHOOK_URL`.
/// It only has to match byte for byte; deliveries go to the real address.
pub const NOTIFICATION_URL: &str = "https://showtime.test/webhooks/square";
pub const ACCESS_TOKEN: &str = "standin-access-token";
pub const SIGNATURE_KEY: &str = "standin-signature-key";
pub const LOCATION_ID: &str = "LSTANDIN0001";
pub const APPLICATION_ID: &str = "sandbox-sq0idb-standin";

pub struct SquareStandin {
    pub base_url: String,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl SquareStandin {
    pub fn start() -> SquareStandin {
        SquareStandin::start_in("USD")
    }

    /// A stand-in whose location takes `currency`.
    pub fn start_in(currency: &str) -> SquareStandin {
        let currency = currency.to_string();
        let (url_tx, url_rx) = mpsc::channel();
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("stand-in runtime");
            runtime.block_on(async move {
                let config = square_standin::Config {
                    access_token: ACCESS_TOKEN.into(),
                    signature_key: SIGNATURE_KEY.into(),
                    notification_url: Some(NOTIFICATION_URL.into()),
                    location_id: LOCATION_ID.into(),
                    application_id: APPLICATION_ID.into(),
                    currency,
                    ..square_standin::Config::default()
                };
                let handle = square_standin::start(config)
                    .await
                    .expect("start the Square stand-in");
                url_tx
                    .send(handle.base_url())
                    .expect("report the stand-in's address");
                let _ = stop_rx.await;
                handle.shutdown().await;
            });
        });
        let base_url = url_rx.recv().expect("the stand-in started");
        SquareStandin {
            base_url,
            stop: Some(stop_tx),
            thread: Some(thread),
        }
    }

    /// The Worker settings that point it at this stand-in.
    pub fn worker_vars(&self) -> Vec<(String, String)> {
        [
            ("SQUARE_BASE_URL", self.base_url.clone()),
            ("SQUARE_ACCESS_TOKEN", ACCESS_TOKEN.into()),
            ("SQUARE_LOCATION_ID", LOCATION_ID.into()),
            ("SQUARE_APPLICATION_ID", APPLICATION_ID.into()),
            ("SQUARE_SDK_URL", format!("{}/v1/square.js", self.base_url)),
            ("SQUARE_WEBHOOK_URL", NOTIFICATION_URL.into()),
            ("SQUARE_WEBHOOK_SIGNATURE_KEY", SIGNATURE_KEY.into()),
            // Turnstile's siteverify stand-in, used when a test turns it on.
            (
                "TURNSTILE_VERIFY_URL",
                format!("{}/turnstile/v0/siteverify", self.base_url),
            ),
            (
                "TURNSTILE_SCRIPT_URL",
                format!("{}/turnstile/v0/api.js", self.base_url),
            ),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_string(), value))
        .collect()
    }
}

impl SquareStandin {
    /// `POST` to the stand-in's control API (faults, webhooks, Dashboard
    /// refunds); the answer must be a success.
    pub async fn control(&self, path: &str, body: serde_json::Value) -> serde_json::Value {
        let resp = reqwest::Client::new()
            .post(format!("{}{path}", self.base_url))
            .json(&body)
            .send()
            .await
            .expect("the stand-in answers");
        assert!(resp.status().is_success(), "{path}: {}", resp.status());
        resp.json().await.unwrap_or(serde_json::Value::Null)
    }

    /// Holds Square's webhooks back until [`SquareStandin::release_webhooks`];
    /// when `duplicate`, each is then sent twice.
    pub async fn hold_webhooks(&self, duplicate: bool) {
        let switches = if duplicate {
            serde_json::json!({"hold": true, "duplicate": true})
        } else {
            serde_json::json!({"hold": true})
        };
        self.control("/_control/webhooks", switches).await;
    }

    /// Sends the webhooks held back, in `order` (`as_is`, `reverse`), and
    /// every later one as it comes.
    pub async fn release_webhooks(&self, order: &str) {
        self.control("/_control/webhooks", serde_json::json!({"hold": false}))
            .await;
        self.control(
            "/_control/webhooks/release",
            serde_json::json!({"order": order}),
        )
        .await;
    }

    /// The next CreatePayment makes the payment, then drops the connection:
    /// its answer is lost, and the Worker learns of it from the webhook.
    pub async fn lose_the_next_authorizations_answer(&self) {
        self.control(
            "/_control/faults",
            serde_json::json!({"endpoint": "create_payment", "fault": "drop", "times": 1}),
        )
        .await;
    }

    /// The next CompletePayment captures the payment, then drops the
    /// connection: the capture's answer is lost.
    pub async fn lose_the_next_captures_answer(&self) {
        self.control(
            "/_control/faults",
            serde_json::json!({"endpoint": "complete_payment", "fault": "drop"}),
        )
        .await;
    }

    /// `GET` from the stand-in's control API (its request log, payments).
    pub async fn get(&self, path: &str) -> serde_json::Value {
        reqwest::get(format!("{}{path}", self.base_url))
            .await
            .expect("the stand-in answers")
            .json()
            .await
            .expect("JSON")
    }
}

impl SquareStandin {
    /// `GET` from the stand-in's Square API, as the Worker is authorized.
    pub async fn api_get(&self, path: &str) -> serde_json::Value {
        reqwest::Client::new()
            .get(format!("{}{path}", self.base_url))
            .bearer_auth(ACCESS_TOKEN)
            .send()
            .await
            .expect("the stand-in answers")
            .json()
            .await
            .expect("JSON")
    }

    /// The Square order the last payment paid, as Square keeps it.
    pub async fn last_paid_order(&self) -> serde_json::Value {
        let requests = self.get("/_control/requests").await;
        let order_id = requests["requests"]
            .as_array()
            .expect("the request log")
            .iter()
            .rev()
            .find(|r| r["method"] == "POST" && r["path"] == "/v2/payments")
            .and_then(|r| r["body"]["order_id"].as_str())
            .expect("a payment naming its order")
            .to_string();
        self.api_get(&format!("/v2/orders/{order_id}")).await["order"].clone()
    }

    /// The API calls the stand-in saw, in order, as (method, path).
    pub async fn calls(&self) -> Vec<(String, String)> {
        let requests = self.get("/_control/requests").await;
        requests["requests"]
            .as_array()
            .expect("the request log")
            .iter()
            .map(|r| {
                let text = |field: &str| r[field].as_str().unwrap_or_default().to_string();
                (text("method"), text("path"))
            })
            .collect()
    }
}

impl Drop for SquareStandin {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
