//! One simulated showing: a real ledger, a simulated Square and D1, the
//! Durable Object that drives a checkout per order, and the buyers. A case
//! runs a random phase (faults, crashes, webhooks out of order, time jumps)
//! and then a quiet phase without faults until nothing is left to do.

use crate::buyers::Buyer;
use crate::rng::Rng;
use crate::square::{Square, Webhook};
use crate::store::Store;
use checkout::{Action, Answer, Checkout, Event, PublicStatus, StepTag};
use ledger::{Ledger, OrderId};
use std::collections::VecDeque;

pub const SEATS: [&str; 5] = ["A1", "A2", "A3", "A4", "A5"];

/// One order's checkout inside the Durable Object.
pub struct Run {
    pub buyer: usize,
    pub order_id: String,
    pub token: String,
    /// In memory; lost in a crash.
    pub live: Checkout,
    /// What storage holds: written before any action is performed.
    pub persisted: Checkout,
    /// Actions returned and persisted but not performed yet.
    pub outbox: VecDeque<Action>,
    pub seen_final: Option<PublicStatus>,
}

pub struct DelayedAnswer {
    pub run: usize,
    pub incarnation: u32,
    pub step: StepTag,
    pub answer: Answer,
}

/// What a case exercised, added up over all cases.
#[derive(Default, Debug)]
pub struct Stats {
    pub cases: u64,
    pub orders: u64,
    pub outcomes: std::collections::BTreeMap<String, u64>,
    pub crashes: u64,
    pub faults: u64,
    pub webhooks: u64,
    pub lapses: u64,
    pub captures_by_hand: u64,
    pub out_of_band_tickets: u64,
    pub refunds: u64,
    pub stale_actions_skipped: u64,
    pub steps: u64,
}

pub struct World {
    pub rng: Rng,
    pub now_ms: u64,
    pub ledger: Ledger,
    pub square: Square,
    pub store: Store,
    pub config: checkout::Config,
    pub buyers: Vec<Buyer>,
    pub runs: Vec<Run>,
    pub answers: Vec<DelayedAnswer>,
    pub webhooks: Vec<Webhook>,
    pub webhooks_seen: usize,
    pub incarnation: u32,
    pub faults_left: u32,
    pub quiet: bool,
    pub captures_by_hand_allowed: bool,
    pub out_of_band_allowed: bool,
    pub trace: Option<Vec<String>>,
    pub stats: Stats,
}

impl World {
    pub fn new(seed: u64, trace: bool) -> World {
        let mut rng = Rng::new(seed);
        let ledger_config = ledger::Config {
            max_seats_per_hold: 3,
            hold_ttl_ms: 60_000,
            payment_cap_ms: 120_000,
            ..ledger::Config::default()
        };
        let seat_count = rng.between(4, 5) as usize;
        let ledger = Ledger::new(ledger_config, &SEATS[..seat_count], &[] as &[&str])
            .expect("a valid showing");
        let mut square = Square::default();
        square.lapse_after_ms = rng.chance(30).then(|| rng.between(30_000, 600_000));
        let config = checkout::Config {
            max_authorization_attempts: rng.between(1, 5) as u32,
            retry_base_ms: 1_000,
            retry_max_ms: rng.between(2_000, 60_000),
            answer_timeout_ms: rng.between(5_000, 30_000),
        };
        let buyers = (0..rng.between(2, 4))
            .map(|_| Buyer::random(&mut rng, seat_count))
            .collect();
        World {
            now_ms: 1_000_000,
            ledger,
            square,
            store: Store::default(),
            config,
            buyers,
            runs: Vec::new(),
            answers: Vec::new(),
            webhooks: Vec::new(),
            webhooks_seen: 0,
            incarnation: 0,
            faults_left: rng.between(0, 40) as u32,
            quiet: false,
            captures_by_hand_allowed: rng.chance(20),
            out_of_band_allowed: rng.chance(15),
            trace: trace.then(Vec::new),
            stats: Stats::default(),
            rng,
        }
    }

    pub fn note(&mut self, line: impl FnOnce() -> String) {
        if let Some(trace) = &mut self.trace {
            trace.push(format!("{:>9} {}", self.now_ms, line()));
        }
    }

    /// One random event of the random phase.
    pub fn random_step(&mut self) -> Result<(), String> {
        self.stats.steps += 1;
        match self.rng.below(100) {
            0..=34 => self.perform_some(),
            35..=44 => self.deliver_some_answer(),
            45..=54 => self.deliver_some_webhook(),
            55..=69 => self.advance_time(),
            70..=79 => self.fire_timeouts(),
            80..=91 => self.buyers_act(),
            92..=94 => self.crash_if_allowed(),
            95 => self.insert_out_of_band_ticket(),
            96 => self.capture_by_hand(),
            _ => {
                let changes = self.ledger.sweep(self.now_ms);
                self.note(|| format!("ledger sweep: {} units", changes.units.len()));
                Ok(())
            }
        }
    }

    /// The quiet phase: no faults, every queue drained, time moved to the
    /// next deadline. Ends when nothing is left to do.
    pub fn settle(&mut self) -> Result<(), String> {
        self.quiet = true;
        for _ in 0..50_000 {
            self.stats.steps += 1;
            if let Some(run) = self.runs.iter().position(|r| !r.outbox.is_empty()) {
                self.perform(run)?;
            } else if !self.answers.is_empty() {
                let delayed = self.answers.remove(0);
                self.feed_answer(delayed.run, delayed.step, delayed.answer)?;
            } else if self.webhooks_seen < self.square.webhooks.len() || !self.webhooks.is_empty() {
                self.collect_webhooks();
                let webhook = self.webhooks.remove(0);
                self.deliver_webhook(webhook)?;
            } else if let Some(due) = self.runs.iter().filter_map(|r| r.live.poll_timeout()).min() {
                self.now_ms = self.now_ms.max(due);
                self.stats.lapses += self.square.lapse_due(self.now_ms) as u64;
                self.fire_timeouts()?;
            } else {
                self.ledger.sweep(self.now_ms.saturating_add(1_000_000));
                return Ok(());
            }
            crate::checks::after_step(self)?;
        }
        Err("no quiescence after 50,000 quiet steps".to_owned())
    }

    fn perform_some(&mut self) -> Result<(), String> {
        let busy: Vec<usize> = (0..self.runs.len())
            .filter(|&i| !self.runs[i].outbox.is_empty())
            .collect();
        if busy.is_empty() {
            return Ok(());
        }
        let run = busy[self.rng.index(busy.len())];
        self.perform(run)
    }

    fn deliver_some_answer(&mut self) -> Result<(), String> {
        if self.answers.is_empty() {
            return Ok(());
        }
        let delayed = self.answers.swap_remove(self.rng.index(self.answers.len()));
        self.feed_answer(delayed.run, delayed.step, delayed.answer)
    }

    fn collect_webhooks(&mut self) {
        let fresh = self.square.webhooks[self.webhooks_seen..].to_vec();
        self.webhooks_seen = self.square.webhooks.len();
        self.webhooks.extend(fresh);
    }

    /// A random webhook, perhaps again later (Square retries), perhaps
    /// held back until the quiet phase (an endpoint that was down).
    fn deliver_some_webhook(&mut self) -> Result<(), String> {
        self.collect_webhooks();
        if self.webhooks.is_empty() {
            return Ok(());
        }
        let i = self.rng.index(self.webhooks.len());
        if self.rng.chance(15) {
            return Ok(());
        }
        let webhook = if self.rng.chance(25) {
            self.webhooks[i].clone()
        } else {
            self.webhooks.swap_remove(i)
        };
        self.deliver_webhook(webhook)
    }

    fn deliver_webhook(&mut self, webhook: Webhook) -> Result<(), String> {
        self.stats.webhooks += 1;
        let run = self
            .runs
            .iter()
            .position(|r| r.order_id == webhook.reference_id)
            .ok_or_else(|| format!("a webhook for unknown order {}", webhook.reference_id))?;
        self.note(|| format!("webhook {webhook:?}"));
        let event = Event::PaymentObserved {
            payment_id: webhook.payment_id,
            status: webhook.status,
        };
        let actions = self.runs[run].live.handle_event(event, self.now_ms);
        self.feed(run, actions)
    }

    fn advance_time(&mut self) -> Result<(), String> {
        let step_ms = if self.rng.chance(75) {
            self.rng.between(100, 5_000)
        } else {
            self.rng.between(10_000, 150_000)
        };
        self.now_ms += step_ms;
        let lapsed = self.square.lapse_due(self.now_ms);
        self.stats.lapses += lapsed as u64;
        self.note(|| format!("time +{step_ms} ms; {lapsed} authorizations lapsed"));
        Ok(())
    }

    /// The object's alarm: every checkout whose deadline has come.
    pub fn fire_timeouts(&mut self) -> Result<(), String> {
        for run in 0..self.runs.len() {
            let due = self.runs[run].live.poll_timeout();
            if due.is_some_and(|due| due <= self.now_ms) {
                let actions = self.runs[run].live.handle_timeout(self.now_ms);
                self.feed(run, actions)?;
            }
        }
        Ok(())
    }

    fn insert_out_of_band_ticket(&mut self) -> Result<(), String> {
        if !self.out_of_band_allowed || !self.take_fault() {
            return Ok(());
        }
        let seat = SEATS[self.rng.index(self.ledger.unit_count())];
        let inserted = self.store.insert_out_of_band(seat);
        self.stats.out_of_band_tickets += u64::from(inserted);
        self.note(|| format!("ticket for {seat} written by other means: {inserted}"));
        Ok(())
    }

    fn capture_by_hand(&mut self) -> Result<(), String> {
        if !self.captures_by_hand_allowed || !self.take_fault() {
            return Ok(());
        }
        let pick = self.rng.index(usize::MAX);
        let captured = self.square.capture_by_hand(pick);
        self.stats.captures_by_hand += u64::from(captured);
        self.note(|| format!("a payment captured by hand: {captured}"));
        Ok(())
    }

    pub fn take_fault(&mut self) -> bool {
        if self.quiet || self.faults_left == 0 {
            return false;
        }
        self.faults_left -= 1;
        self.stats.faults += 1;
        true
    }
}

pub fn order(order_id: &str) -> OrderId {
    OrderId::new(order_id).expect("sim order ids are valid")
}
