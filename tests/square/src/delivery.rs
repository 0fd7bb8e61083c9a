//! Posting webhooks to the Worker in the background: signed, retried with
//! backoff, and on request held back, duplicated or reordered.
//!
//! Architecture Invariant: an API answer never waits for a delivery; events
//! are handed over and sent from spawned tasks.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::clock::{now_ms, rfc3339};
use crate::events::Event;
use crate::ids;
use crate::lock::lock;
use crate::ring::Ring;
use crate::signature::sign;

#[derive(Debug, Clone)]
pub struct DeliverySettings {
    pub merchant_id: String,
    pub signature_key: String,
    pub retry_delays_ms: Vec<u64>,
    pub timeout_ms: u64,
    pub held_limit: usize,
    pub log_limit: usize,
    pub in_flight_limit: usize,
}

/// Where events go, and the URL signed into them.
#[derive(Debug, Clone, Serialize)]
pub struct Target {
    pub url: String,
    pub notification_url: String,
}

/// One event ready to send: its body is fixed so every copy and retry is
/// byte-identical.
#[derive(Debug, Clone)]
struct Outgoing {
    event_id: String,
    event_type: &'static str,
    body: Arc<str>,
}

/// One attempt to deliver one event, as `GET /_control/webhooks` lists it.
#[derive(Debug, Clone, Serialize)]
struct Attempt {
    event_id: String,
    event_type: &'static str,
    /// 1 for the first try; `square-retry-number` is this minus one.
    attempt: usize,
    /// The second copy sent in duplicate mode.
    copy: u8,
    at: String,
    status: Option<u16>,
    error: Option<String>,
    delivered: bool,
    /// How long the receiver took to answer (or to fail), so a test can
    /// hold it to Square's 10 seconds or to its own budget.
    elapsed_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReleaseOrder {
    #[default]
    AsIs,
    Reverse,
    Shuffle,
}

#[derive(Debug)]
struct State {
    target: Option<Target>,
    duplicate: bool,
    hold: bool,
    delay_ms: u64,
    held: VecDeque<Outgoing>,
    events: Ring<Value>,
    attempts: Ring<Attempt>,
}

pub struct Webhooks {
    settings: DeliverySettings,
    /// Starting target, restored by reset.
    initial_target: Option<Target>,
    state: Mutex<State>,
    client: reqwest::Client,
    /// Bounds concurrent posts; further deliveries wait their turn.
    in_flight: Arc<Semaphore>,
}

/// Changes `POST /_control/webhooks` can make; absent fields stay as they are.
/// Longest delay the `delay_ms` switch takes.
pub const MAX_DELIVERY_DELAY_MS: u64 = 60_000;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookSwitches {
    pub duplicate: Option<bool>,
    pub hold: Option<bool>,
    /// Each event waits this long before its first delivery: Square says
    /// events arrive "typically within 60 seconds", so at most 60000.
    pub delay_ms: Option<u64>,
    pub url: Option<String>,
    pub notification_url: Option<String>,
}

impl Webhooks {
    pub fn new(settings: DeliverySettings, target: Option<Target>) -> Self {
        let state = State::new(&settings, target.clone());
        Webhooks {
            in_flight: Arc::new(Semaphore::new(settings.in_flight_limit.max(1))),
            settings,
            initial_target: target,
            state: Mutex::new(state),
            // No proxy lookup: deliveries only ever go to loopback.
            client: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("a plain HTTP client builds"),
        }
    }

    /// Sends (or holds) the events of one operation, in their order.
    pub fn publish(self: &Arc<Self>, events: Vec<Event>, epoch: &CancellationToken) {
        if events.is_empty() {
            return;
        }
        let now = now_ms();
        let mut state = lock(&self.state);
        let mut to_send = Vec::new();
        for event in events {
            let event_id = ids::event_id();
            let body: Arc<str> = event
                .envelope(&self.settings.merchant_id, &event_id, now)
                .into();
            state
                .events
                .push(serde_json::from_str(&body).expect("an envelope is JSON"));
            let outgoing = Outgoing {
                event_id,
                event_type: event.event_type.as_str(),
                body,
            };
            if state.hold && state.held.len() < self.settings.held_limit {
                state.held.push_back(outgoing);
            } else {
                to_send.push(outgoing);
            }
        }
        let duplicate = state.duplicate;
        let target = state.target.clone();
        let delay = Duration::from_millis(state.delay_ms);
        drop(state);
        self.spawn_sends(to_send, target, duplicate, delay, epoch);
    }

    pub fn switch(&self, switches: WebhookSwitches) {
        let mut state = lock(&self.state);
        if let Some(duplicate) = switches.duplicate {
            state.duplicate = duplicate;
        }
        if let Some(hold) = switches.hold {
            state.hold = hold;
        }
        if let Some(delay_ms) = switches.delay_ms {
            state.delay_ms = delay_ms.min(MAX_DELIVERY_DELAY_MS);
        }
        if let Some(url) = switches.url {
            let notification_url = switches
                .notification_url
                .clone()
                .unwrap_or_else(|| url.clone());
            state.target = Some(Target {
                url,
                notification_url,
            });
        } else if let (Some(notification_url), Some(target)) =
            (switches.notification_url, state.target.as_mut())
        {
            target.notification_url = notification_url;
        }
    }

    /// Sends every held event in the asked order; returns how many.
    pub fn release(
        self: &Arc<Self>,
        order: ReleaseOrder,
        seed: u64,
        epoch: &CancellationToken,
    ) -> usize {
        let mut state = lock(&self.state);
        let mut held: Vec<Outgoing> = state.held.drain(..).collect();
        match order {
            ReleaseOrder::AsIs => {}
            ReleaseOrder::Reverse => held.reverse(),
            ReleaseOrder::Shuffle => shuffle(&mut held, seed),
        }
        let (target, duplicate) = (state.target.clone(), state.duplicate);
        drop(state);
        let count = held.len();
        // Released by hand: sent now, whatever the delay.
        self.spawn_sends(held, target, duplicate, Duration::ZERO, epoch);
        count
    }

    pub fn report(&self) -> Value {
        let state = lock(&self.state);
        let held: Vec<Value> = state
            .held
            .iter()
            .map(|o| json!({ "event_id": o.event_id, "type": o.event_type }))
            .collect();
        json!({
            "target": state.target,
            "duplicate": state.duplicate,
            "hold": state.hold,
            "held": held,
            "events": state.events.items().collect::<Vec<_>>(),
            "events_forgotten": state.events.forgotten(),
            "deliveries": state.attempts.items().collect::<Vec<_>>(),
            "deliveries_forgotten": state.attempts.forgotten(),
        })
    }

    pub fn reset(&self) {
        *lock(&self.state) = State::new(&self.settings, self.initial_target.clone());
    }

    /// One task per batch so a batch arrives in its order; separate batches
    /// race each other, as Square's deliveries do.
    fn spawn_sends(
        self: &Arc<Self>,
        batch: Vec<Outgoing>,
        target: Option<Target>,
        duplicate: bool,
        delay: Duration,
        epoch: &CancellationToken,
    ) {
        if batch.is_empty() {
            return;
        }
        let webhooks = Arc::clone(self);
        let epoch = epoch.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = tokio::time::sleep(delay) => {}
                () = epoch.cancelled() => return,
            }
            for outgoing in batch {
                let copies = if duplicate { 2 } else { 1 };
                for copy in 1..=copies {
                    let sent = webhooks.deliver(&outgoing, target.as_ref(), copy, &epoch);
                    tokio::select! {
                        () = sent => {}
                        () = epoch.cancelled() => return,
                    }
                }
            }
        });
    }

    /// Posts one event until it is accepted or the retries run out.
    async fn deliver(
        &self,
        outgoing: &Outgoing,
        target: Option<&Target>,
        copy: u8,
        epoch: &CancellationToken,
    ) {
        let Some(target) = target else {
            self.log(
                outgoing,
                (1, copy, None),
                None,
                Some("no webhook url configured".to_owned()),
            );
            return;
        };
        let signature = sign(
            &self.settings.signature_key,
            &target.notification_url,
            outgoing.body.as_bytes(),
        );
        let initial_delivery = rfc3339(now_ms());
        let mut retry_reason: Option<&'static str> = None;
        for attempt in 1..=self.settings.retry_delays_ms.len() + 1 {
            if attempt > 1 {
                let pause = Duration::from_millis(self.settings.retry_delays_ms[attempt - 2]);
                tokio::select! {
                    () = tokio::time::sleep(pause) => {}
                    () = epoch.cancelled() => return,
                }
            }
            let mut request = self
                .client
                .post(&target.url)
                .timeout(Duration::from_millis(self.settings.timeout_ms))
                .header("content-type", "application/json")
                .header("x-square-hmacsha256-signature", &signature)
                .header("square-environment", "Sandbox")
                .header("square-initial-delivery-timestamp", &initial_delivery);
            if let Some(reason) = retry_reason {
                request = request
                    .header("square-retry-number", (attempt - 1).to_string())
                    .header("square-retry-reason", reason);
            }
            // The semaphore is never closed, so acquiring only waits; the
            // permit is held for the post itself, not for the pause after.
            let permit = self
                .in_flight
                .acquire()
                .await
                .expect("the delivery semaphore stays open");
            let sent_at = std::time::Instant::now();
            let answer = request.body(outgoing.body.to_string()).send().await;
            let elapsed = Some(sent_at.elapsed().as_millis() as u64);
            drop(permit);
            match answer {
                Ok(answer) if answer.status().is_success() => {
                    self.log(
                        outgoing,
                        (attempt, copy, elapsed),
                        Some(answer.status().as_u16()),
                        None,
                    );
                    return;
                }
                Ok(answer) => {
                    self.log(
                        outgoing,
                        (attempt, copy, elapsed),
                        Some(answer.status().as_u16()),
                        None,
                    );
                    retry_reason = Some("http_error");
                }
                Err(error) => {
                    retry_reason = Some(if error.is_timeout() {
                        "http_timeout"
                    } else {
                        "connection_error"
                    });
                    self.log(
                        outgoing,
                        (attempt, copy, elapsed),
                        None,
                        Some(error.to_string()),
                    );
                }
            }
        }
    }

    /// `try_` is the attempt, the copy and how long it took.
    fn log(
        &self,
        outgoing: &Outgoing,
        try_: (usize, u8, Option<u64>),
        status: Option<u16>,
        error: Option<String>,
    ) {
        let (attempt, copy, elapsed_ms) = try_;
        let delivered = status.is_some_and(|s| (200..300).contains(&s));
        lock(&self.state).attempts.push(Attempt {
            event_id: outgoing.event_id.clone(),
            event_type: outgoing.event_type,
            attempt,
            copy,
            at: rfc3339(now_ms()),
            status,
            error,
            delivered,
            elapsed_ms,
        });
    }
}

impl State {
    fn new(settings: &DeliverySettings, target: Option<Target>) -> Self {
        State {
            target,
            duplicate: false,
            hold: false,
            delay_ms: 0,
            held: VecDeque::new(),
            events: Ring::new(settings.log_limit),
            attempts: Ring::new(settings.log_limit),
        }
    }
}

/// Fisher–Yates driven by splitmix64, so a seed names one order for good.
fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    for i in (1..items.len()).rev() {
        let j = usize::try_from(next() % (i as u64 + 1)).expect("an index below len fits usize");
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_names_one_order() {
        let mut a: Vec<u32> = (0..10).collect();
        let mut b = a.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        assert_eq!(a, b);
        let mut sorted = a.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
        assert_ne!(a, sorted);
    }
}
