//! The running stand-in's shared state and the glue between the pure bank
//! and the outside: publishing events, settling refunds on a timer, lapsing
//! old authorizations, resetting.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::bank::{Bank, BankSettings, Handled, Reply};
use crate::clock::now_ms;
use crate::config::Config;
use crate::delivery::{DeliverySettings, Target, Webhooks};
use crate::events::Event;
use crate::faults::Faults;
use crate::lock::lock;
use crate::refunds::RefundStatus;
use crate::request_log::ApiCall;
use crate::ring::Ring;

pub struct App {
    pub config: Config,
    pub bank: Mutex<Bank>,
    pub faults: Mutex<Faults>,
    pub calls: Mutex<Ring<ApiCall>>,
    pub webhooks: Arc<Webhooks>,
    /// Changed at run time by `POST /_control/refunds`.
    pub refund_settle_after_ms: Mutex<Option<u64>>,
    /// Cancelled when the server stops.
    shutdown: CancellationToken,
    /// A child of `shutdown` replaced at every reset, so timers and
    /// deliveries started before a reset do not leak into the next test.
    epoch: Mutex<CancellationToken>,
}

impl App {
    pub fn new(config: Config, shutdown: CancellationToken) -> Arc<App> {
        let target = config.webhook_url.clone().map(|url| Target {
            notification_url: config.signed_url().unwrap_or_else(|| url.clone()),
            url,
        });
        let delivery = DeliverySettings {
            merchant_id: config.merchant_id.clone(),
            signature_key: config.signature_key.clone(),
            retry_delays_ms: config.webhook_retry_delays_ms.clone(),
            timeout_ms: config.webhook_timeout_ms,
            held_limit: config.limits.held_webhooks,
            log_limit: config.limits.logged_webhooks,
            in_flight_limit: config.limits.webhooks_in_flight,
        };
        Arc::new(App {
            bank: Mutex::new(Bank::new(bank_settings(&config))),
            faults: Mutex::new(Faults::default()),
            calls: Mutex::new(Ring::new(config.limits.logged_requests)),
            webhooks: Arc::new(Webhooks::new(delivery, target)),
            refund_settle_after_ms: Mutex::new(config.refund_settle_after_ms),
            epoch: Mutex::new(shutdown.child_token()),
            shutdown,
            config,
        })
    }

    pub fn epoch(&self) -> CancellationToken {
        lock(&self.epoch).clone()
    }

    pub fn publish(&self, events: Vec<Event>) {
        self.webhooks.publish(events, &self.epoch());
    }

    /// Sends an operation's events and starts its refund timer, then gives
    /// back the reply: nothing here waits on the network.
    pub fn finish(self: &Arc<Self>, handled: Handled) -> Reply {
        self.publish(handled.events);
        if let Some(refund_id) = handled.pending_refund {
            self.schedule_settlement(refund_id);
        }
        handled.reply
    }

    fn schedule_settlement(self: &Arc<Self>, refund_id: String) {
        let Some(after_ms) = *lock(&self.refund_settle_after_ms) else {
            return;
        };
        let app = Arc::clone(self);
        let epoch = self.epoch();
        tokio::spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(after_ms)) => {}
                () = epoch.cancelled() => return,
            }
            let settled =
                lock(&app.bank).settle_refund(&refund_id, RefundStatus::Completed, now_ms());
            // The control API may have settled it first; then there is nothing to do.
            if let Ok((_, events)) = settled {
                app.publish(events);
            }
        });
    }

    /// Lapses expired authorizations until the server stops.
    pub fn spawn_lapse_sweeper(self: &Arc<Self>) {
        let app = Arc::clone(self);
        let every = Duration::from_millis(self.config.lapse_check_interval_ms.max(10));
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(every) => {}
                    () = app.shutdown.cancelled() => return,
                }
                let events = lock(&app.bank).lapse_due(now_ms());
                app.publish(events);
            }
        });
    }

    /// Forgets everything and restores the starting settings.
    pub fn reset(&self) {
        let mut epoch = lock(&self.epoch);
        epoch.cancel();
        *epoch = self.shutdown.child_token();
        drop(epoch);
        *lock(&self.bank) = Bank::new(bank_settings(&self.config));
        lock(&self.faults).clear();
        *lock(&self.calls) = Ring::new(self.config.limits.logged_requests);
        *lock(&self.refund_settle_after_ms) = self.config.refund_settle_after_ms;
        self.webhooks.reset();
    }
}

fn bank_settings(config: &Config) -> BankSettings {
    BankSettings {
        location_id: config.location_id.clone(),
        application_id: config.application_id.clone(),
        currency: config.currency.clone(),
        decline_status: config.decline_status,
        limits: config.limits.bank.clone(),
    }
}
