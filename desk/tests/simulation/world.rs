//! One simulated showing: the shipped desk over a real SQLite store, a
//! simulated Square and D1, the shell that performs the desk's effects, and
//! the buyers. A case runs a random phase (faults, crashes, webhooks out of
//! order, time jumps) and then a quiet phase without faults until nothing
//! is left to do.

use crate::buyers::Buyer;
use crate::pages::{Page, Took};
use crate::rng::Rng;
use crate::square::{Square, Webhook};
use crate::store::Store;
use crate::support::Sqlite;
use desk::protocol::{Money, PaymentObserved, ShowingSetup, Units};
use desk::{Answer, Decision, Desk, Effect, Record, Request, Settings};

pub const SEATS: [&str; 5] = ["A1", "A2", "A3", "A4", "A5"];
pub const SHOWING_ID: &str = "5eed5eed5eed5eed";

/// One order a buyer started.
pub struct Run {
    pub buyer: usize,
    pub order_id: String,
    /// The card token, which must never be stored past the authorization.
    pub token: String,
}

/// An effect the desk handed out, not yet performed.
pub struct InFlight {
    pub incarnation: u32,
    pub effect: Effect,
}

/// A performed effect whose answer comes later.
pub struct DelayedAnswer {
    pub incarnation: u32,
    pub order_id: String,
    pub step: checkout::StepTag,
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
    pub answers_after_crash: u64,
    pub steps: u64,
    pub watches: u64,
    pub pushes_taken: u64,
    pub refetches: u64,
}

/// How many maps, newest last, a page may have read just before it opened
/// its socket.
const MAPS_KEPT: usize = 8;

pub struct World {
    pub rng: Rng,
    pub now_ms: u64,
    pub desk: Desk,
    pub db: Sqlite,
    pub settings: Settings,
    pub square: Square,
    pub store: Store,
    pub buyers: Vec<Buyer>,
    pub runs: Vec<Run>,
    pub in_flight: Vec<InFlight>,
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
    /// Browsers watching the map, their sockets open across crashes as
    /// hibernated ones are.
    pub pages: Vec<Page>,
    /// The map after each of the last decisions, newest last.
    pub maps: Vec<(u64, String)>,
}

impl World {
    pub fn new(seed: u64, trace: bool) -> World {
        let mut rng = Rng::new(seed);
        let seat_count = rng.between(4, 5) as usize;
        let mut square = Square::default();
        square.lapse_after_ms = rng.chance(30).then(|| rng.between(30_000, 600_000));
        let settings = Settings {
            checkout: checkout::Config {
                max_authorization_attempts: rng.between(1, 5) as u32,
                retry_base_ms: 1_000,
                retry_max_ms: rng.between(2_000, 60_000),
                answer_timeout_ms: rng.between(5_000, 30_000),
                square_orders: rng.chance(50),
            },
            location_id: "LSIM".into(),
            ..Settings::default()
        };
        let buyers = (0..rng.between(2, 4))
            .map(|_| Buyer::random(&mut rng, seat_count))
            .collect();
        let setup = ShowingSetup {
            showing_id: SHOWING_ID.into(),
            units: Units {
                names: SEATS[..seat_count].iter().map(|s| s.to_string()).collect(),
                blocked: vec![],
                desk_only: vec![],
                // One row, cut by an aisle or not, keeping the single-seat
                // rule or not.
                seating: Some(ledger::Seating {
                    rows: vec![ledger::SeatRow {
                        seats: seat_count as u32,
                        aisles_after: match seat_count > 2 && rng.chance(50) {
                            true => vec![rng.between(1, seat_count as u64 - 1) as u32],
                            false => vec![],
                        },
                    }],
                    allow_single_seats: rng.chance(30),
                    ..Default::default()
                }),
            },
            price: Money {
                amount: 1_200,
                currency: "USD".into(),
            },
            max_seats_per_hold: 3,
            hold_ttl_ms: 60_000,
            payment_cap_ms: 120_000,
            sales: Default::default(),
            categories: Vec::new(),
            waiting_room: false,
        };
        let (db, desk) = crate::support::showing(settings.clone(), setup);
        let ledger = desk.ledger().expect("the showing is set up");
        let first_map = (ledger.version(), ledger.availability().codes());
        World {
            now_ms: 1_000_000,
            desk,
            db,
            settings,
            square,
            store: Store::default(),
            buyers,
            runs: Vec::new(),
            in_flight: Vec::new(),
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
            pages: Vec::new(),
            maps: vec![first_map],
            rng,
        }
    }

    pub fn note(&mut self, line: impl FnOnce() -> String) {
        if let Some(trace) = &mut self.trace {
            trace.push(format!("{:>9} {}", self.now_ms, line()));
        }
    }

    pub fn ledger(&self) -> &ledger::Ledger {
        self.desk.ledger().expect("the showing is set up")
    }

    /// The map as the ledger has it now.
    pub fn map_now(&self) -> (u64, String) {
        let ledger = self.ledger();
        (ledger.version(), ledger.availability().codes())
    }

    /// What the shell does with a decision: write its rows, send its
    /// pushes to the pages watching (counting them, as the shell counts
    /// its sockets), then queue its effects. Audit rows are checked for
    /// card tokens on the way.
    pub fn decided(&mut self, decision: Decision) -> Result<Decision, String> {
        self.db.apply(&decision.writes);
        let now = self.map_now();
        if self.maps.last() != Some(&now) {
            self.maps.push(now.clone());
            if self.maps.len() > MAPS_KEPT {
                self.maps.remove(0);
            }
        }
        for effect in &decision.effects {
            if let Effect::Push { message, .. } = effect {
                let watching = self.pages.len();
                self.note(|| format!("push {message} to {watching} pages"));
                self.desk.set_watchers(watching);
                for page in &mut self.pages {
                    match page.take(message, (now.0, &now.1))? {
                        Took::Refetched => self.stats.refetches += 1,
                        Took::Applied => self.stats.pushes_taken += 1,
                        Took::Ignored => {}
                    }
                }
            }
        }
        for effect in &decision.effects {
            match effect {
                Effect::Square { .. } | Effect::Refund { .. } | Effect::Store { .. } => {
                    self.in_flight.push(InFlight {
                        incarnation: self.incarnation,
                        effect: effect.clone(),
                    })
                }
                Effect::Record(Record::Audit {
                    order_id, detail, ..
                }) => {
                    let leaked = self.runs.iter().any(|r| detail.contains(&r.token));
                    if leaked {
                        return Err(format!("{order_id}: card token in an audit row"));
                    }
                }
                Effect::Crash { reason } => return Err(format!("an unasked-for crash: {reason}")),
                Effect::ExchangeSettled { order_id, .. } => {
                    return Err(format!("{order_id}: settled an exchange no buyer made"))
                }
                Effect::OfferMail { entry_id, .. } => {
                    return Err(format!(
                        "{entry_id}: an offer to a waiting list nobody joined"
                    ))
                }
                Effect::CodeUse(desk::CodeSent { code, .. }) => {
                    return Err(format!("{code}: a discount code nobody applied"))
                }
                Effect::Record(_) | Effect::Push { .. } => {}
            }
        }
        Ok(decision)
    }

    pub fn request(&mut self, request: Request) -> Result<Decision, String> {
        let decision = self.desk.handle_request(self.now_ms, request);
        self.decided(decision)
    }

    /// One random event of the random phase.
    pub fn random_step(&mut self) -> Result<(), String> {
        self.stats.steps += 1;
        match self.rng.below(100) {
            0..=32 => self.perform_some(),
            33 => self.watch(),
            34 => self.stop_watching(),
            35..=44 => self.deliver_some_answer(),
            45..=54 => self.deliver_some_webhook(),
            55..=69 => self.advance_time(),
            70..=79 => self.alarm(),
            80..=91 => self.buyers_act(),
            92..=94 => self.crash_if_allowed(),
            95 => self.insert_out_of_band_ticket(),
            96 => self.capture_by_hand(),
            _ => {
                self.request(Request::Summary)?;
                Ok(())
            }
        }
    }

    /// The quiet phase: no faults, every queue drained, time moved to the
    /// desk's next deadline. Ends when nothing is left to do.
    pub fn settle(&mut self) -> Result<(), String> {
        self.quiet = true;
        for _ in 0..50_000 {
            self.stats.steps += 1;
            if !self.in_flight.is_empty() {
                self.perform(0)?;
            } else if !self.answers.is_empty() {
                let delayed = self.answers.remove(0);
                self.feed_answer(delayed)?;
            } else if self.webhooks_seen < self.square.webhooks.len() || !self.webhooks.is_empty() {
                self.collect_webhooks();
                let webhook = self.webhooks.remove(0);
                self.deliver_webhook(webhook)?;
            } else if let Some(due) = self.desk.poll_timeout() {
                self.now_ms = self.now_ms.max(due);
                self.stats.lapses += self.square.lapse_due(self.now_ms) as u64;
                self.alarm()?;
            } else {
                return Ok(());
            }
            crate::checks::after_step(self)?;
        }
        Err("no quiescence after 50,000 quiet steps".to_owned())
    }

    fn perform_some(&mut self) -> Result<(), String> {
        if self.in_flight.is_empty() {
            return Ok(());
        }
        let i = self.rng.index(self.in_flight.len());
        self.perform(i)
    }

    fn deliver_some_answer(&mut self) -> Result<(), String> {
        if self.answers.is_empty() {
            return Ok(());
        }
        let delayed = self.answers.swap_remove(self.rng.index(self.answers.len()));
        self.feed_answer(delayed)
    }

    /// An answer reaches the desk, unless the instance that awaited it
    /// died: then nobody is there to read it.
    pub fn feed_answer(&mut self, delayed: DelayedAnswer) -> Result<(), String> {
        if delayed.incarnation != self.incarnation {
            self.stats.answers_after_crash += 1;
            return Ok(());
        }
        let DelayedAnswer {
            order_id,
            step,
            answer,
            ..
        } = delayed;
        self.note(|| format!("{order_id} step {} answered {answer:?}", step.0));
        let decision = self
            .desk
            .handle_answer(self.now_ms, &order_id, step, answer);
        self.decided(decision)?;
        Ok(())
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
        if self.webhooks.is_empty() || self.rng.chance(15) {
            return Ok(());
        }
        let i = self.rng.index(self.webhooks.len());
        let webhook = if self.rng.chance(25) {
            self.webhooks[i].clone()
        } else {
            self.webhooks.swap_remove(i)
        };
        self.deliver_webhook(webhook)
    }

    fn deliver_webhook(&mut self, webhook: Webhook) -> Result<(), String> {
        self.stats.webhooks += 1;
        self.note(|| format!("webhook {webhook:?}"));
        let seen = PaymentObserved {
            order_id: webhook.reference_id,
            payment_id: webhook.payment_id,
            status: webhook.status.as_str().to_owned(),
        };
        let decision = self.request(Request::PaymentObserved(seen))?;
        match decision.reply {
            Some(Ok(_)) => Ok(()),
            other => Err(format!("a webhook was refused: {other:?}")),
        }
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

    /// The object's alarm, when it is due.
    pub fn alarm(&mut self) -> Result<(), String> {
        if self
            .desk
            .poll_timeout()
            .is_some_and(|due| due <= self.now_ms)
        {
            let decision = self.desk.handle_timeout(self.now_ms);
            self.decided(decision)?;
        }
        Ok(())
    }

    /// A browser opens the map: it read the map a moment ago (one of the
    /// last few), then its socket's first message brings it up to date.
    fn watch(&mut self) -> Result<(), String> {
        let (version, codes) = self.maps[self.rng.index(self.maps.len())].clone();
        let watchers = self.pages.len();
        let decision = self.request(Request::Watch { watchers })?;
        self.stats.watches += 1;
        let Some(Ok(desk::Reply::Watch { map })) = decision.reply else {
            return Ok(());
        };
        let mut page = Page { version, codes };
        let now = self.map_now();
        page.take(&map, (now.0, &now.1))?;
        self.note(|| format!("a page watches from {version}, sent {map}"));
        self.pages.push(page);
        Ok(())
    }

    /// A browser closes the map; its socket's close reaches the object.
    fn stop_watching(&mut self) -> Result<(), String> {
        if self.pages.is_empty() {
            return Ok(());
        }
        self.pages.swap_remove(self.rng.index(self.pages.len()));
        if self.desk.watcher_left() == 0 {
            self.desk.set_watchers(self.pages.len());
        }
        self.note(|| "a page stops watching".to_owned());
        Ok(())
    }

    fn insert_out_of_band_ticket(&mut self) -> Result<(), String> {
        if !self.out_of_band_allowed || !self.take_fault() {
            return Ok(());
        }
        let seat = SEATS[self.rng.index(self.ledger().unit_count())];
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
