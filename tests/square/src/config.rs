//! Everything the stand-in can be told at start, with defaults that suit the
//! test suite.

use std::net::{Ipv4Addr, SocketAddr};

use crate::bank::BankLimits;

#[derive(Debug, Clone)]
pub struct Config {
    /// Must be a loopback address; port 0 picks a free port.
    pub listen: SocketAddr,
    /// The only bearer token `/v2` accepts.
    pub access_token: String,
    /// Where webhooks are posted (the Worker's `/webhooks/square`); none
    /// means events are only recorded.
    pub webhook_url: Option<String>,
    /// The URL string signed into each webhook: the subscribed URL the
    /// Worker is configured with. Defaults to `webhook_url`.
    pub notification_url: Option<String>,
    pub signature_key: String,
    pub location_id: String,
    pub application_id: String,
    pub merchant_id: String,
    pub currency: String,
    /// HTTP status of a card decline (400 or 402): Square's is unconfirmed.
    pub decline_status: u16,
    /// How long a refund stays PENDING before it completes by itself; `None`
    /// holds it until the control API completes or rejects it.
    pub refund_settle_after_ms: Option<u64>,
    /// Pauses between webhook attempts; one attempt more than pauses.
    pub webhook_retry_delays_ms: Vec<u64>,
    /// Square gives a receiver 10 s to answer.
    pub webhook_timeout_ms: u64,
    /// How often expired authorizations are looked for.
    pub lapse_check_interval_ms: u64,
    pub limits: Limits,
}

#[derive(Debug, Clone)]
pub struct Limits {
    pub bank: BankLimits,
    pub body_bytes: usize,
    pub logged_requests: usize,
    pub logged_webhooks: usize,
    pub held_webhooks: usize,
    pub open_connections: usize,
    pub webhooks_in_flight: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            bank: BankLimits::default(),
            body_bytes: 64 * 1024,
            logged_requests: 2_000,
            logged_webhooks: 2_000,
            held_webhooks: 1_000,
            open_connections: 256,
            webhooks_in_flight: 32,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            listen: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            access_token: "standin-access-token".to_owned(),
            webhook_url: None,
            notification_url: None,
            signature_key: "standin-signature-key".to_owned(),
            location_id: "LSTANDIN0001".to_owned(),
            application_id: "sandbox-sq0idb-standin".to_owned(),
            merchant_id: "MSTANDIN0001".to_owned(),
            currency: "USD".to_owned(),
            decline_status: 400,
            refund_settle_after_ms: Some(200),
            webhook_retry_delays_ms: vec![1_000, 2_000, 4_000, 8_000],
            webhook_timeout_ms: 10_000,
            lapse_check_interval_ms: 1_000,
            limits: Limits::default(),
        }
    }
}

pub const MAX_WEBHOOK_RETRIES: usize = 20;
pub const MAX_REFUND_SETTLE_MS: u64 = 600_000;

/// A setting the stand-in refuses to start with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    NotLoopback(SocketAddr),
    DeclineStatus(u16),
    TooManyWebhookRetries(usize),
    RefundSettleTooSlow(u64),
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::NotLoopback(addr) => write!(f, "{addr} is not a loopback address"),
            ConfigError::DeclineStatus(status) => {
                write!(f, "decline status {status} is neither 400 nor 402")
            }
            ConfigError::TooManyWebhookRetries(n) => {
                write!(f, "{n} webhook retries (at most {MAX_WEBHOOK_RETRIES})")
            }
            ConfigError::RefundSettleTooSlow(ms) => write!(
                f,
                "refunds settle after {ms} ms (at most {MAX_REFUND_SETTLE_MS})"
            ),
        }
    }
}

impl Config {
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.listen.ip().is_loopback() {
            return Err(ConfigError::NotLoopback(self.listen));
        }
        if !matches!(self.decline_status, 400 | 402) {
            return Err(ConfigError::DeclineStatus(self.decline_status));
        }
        if self.webhook_retry_delays_ms.len() > MAX_WEBHOOK_RETRIES {
            return Err(ConfigError::TooManyWebhookRetries(
                self.webhook_retry_delays_ms.len(),
            ));
        }
        if let Some(ms) = self
            .refund_settle_after_ms
            .filter(|ms| *ms > MAX_REFUND_SETTLE_MS)
        {
            return Err(ConfigError::RefundSettleTooSlow(ms));
        }
        Ok(())
    }

    /// The URL signed into webhooks.
    pub fn signed_url(&self) -> Option<String> {
        self.notification_url
            .clone()
            .or_else(|| self.webhook_url.clone())
    }
}
