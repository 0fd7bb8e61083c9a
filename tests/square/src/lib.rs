//! A stand-in for the part of Square the cinema talks to, on loopback, for
//! tests and the local demo. It speaks the subset of Square the Worker uses
//! (payments, refunds, idempotency, declines, signed webhooks, the Web
//! Payments SDK) and can be made to fail the ways Square fails.
//!
//! Map of the crate:
//! - The pure core, no I/O and no clock (`now_ms` comes in as a value):
//!   `bank` holds the state and rules, built from `payments`, `orders`
//!   (CreateOrder's checks and Square's totals), `refunds`,
//!   `cards` (outcome table), `tokens`, `idempotency`, `requests` (field
//!   checks), `square_error`, `events`; plus `faults` and `signature`.
//! - The shell: `app` (shared state, timers), `delivery` (webhook sending),
//!   `http` (routes: `/v2`, `/v1/square.js` + `/_sdk`, `/_control`),
//!   `server` (listener, connections, the drop fault).
//!
//! [`start`] it with a [`Config`], point the Worker at its `base_url()`,
//! and `shutdown()` it when done, as `tests/e2e/src/square.rs` does for
//! every end-to-end test.

mod app;
mod bank;
pub mod cards;
mod clock;
mod config;
mod delivery;
mod events;
mod faults;
pub mod guesses;
mod http;
mod idempotency;
mod ids;
mod lock;
mod orders;
mod payments;
mod refunds;
mod request_log;
mod requests;
mod ring;
mod server;
pub mod signature;
mod square_error;
mod tokens;

pub use bank::BankLimits;
pub use config::{Config, ConfigError, Limits};
pub use server::{start, Handle, StartError};

/// The stand-in as a value: `Server::new(config).start().await`.
#[derive(Debug, Clone, Default)]
pub struct Server {
    pub config: Config,
}

impl Server {
    pub fn new(config: Config) -> Self {
        Server { config }
    }

    pub async fn start(self) -> Result<Handle, StartError> {
        start(self.config).await
    }
}
