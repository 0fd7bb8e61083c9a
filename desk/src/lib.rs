//! Every decision of one showing's `Showtime` Durable Object, made in
//! memory with the time passed in: holds and their replays, the checkout of
//! each order, the per-address hold rate and the seat maps. The object
//! around it only loads the desk from storage, passes each request in,
//! writes the rows a [`Decision`] names, performs its effects and feeds
//! their answers back, and sets its alarm to [`Desk::poll_timeout`].
//!
//! Like `ledger` and `checkout` (which it drives), this crate does no I/O,
//! reads no clock and draws no randomness, and it never names the Workers
//! platform (`tests/no_platform.rs` checks its dependencies).
//!
//! # Code map
//! - `protocol`: [`Request`] and [`Reply`], the Worker↔object protocol.
//! - `bounds`: what a request for seats may name, checked on both sides.
//! - `refusal`: [`Refusal`] and every [`Code`] with its HTTP status.
//! - `decision`: [`Decision`], [`Effect`] and the effects' [`Answer`]s.
//! - `storage`: the object's tables, [`Write`] (every row kind), loading.
//! - `showing`: setting up and editing a showing, seat maps, stats, voids.
//! - `holds`: holding, reading and releasing seats; idempotent replays.
//! - `owners`: who made each hold, indexed by buyer and network.
//! - `replays`: the first answer to each `Idempotency-Key`, bounded.
//! - `driver`: starting each order's checkout, its status, webhooks, answers.
//! - `box_office`: staff selling or giving seats at the desk.
//! - `codes`: discount codes on holds, and what their objects are told.
//! - `moves`: staff moving a sold ticket to another seat, kept by ticket.
//! - `outbox`: what each checkout asks for, one Square or D1 step at a time.
//! - `square`: the requests checkout steps send and what answers mean.
//! - `rate`: the per-network token buckets for holds and card payments.
//! - `window`: when a showing sells and when its door admits.
//! - `waitlist`: the waiting list of a sold-out showing and its offers.

pub mod allocations;
pub mod bounds;
mod box_office;
mod codes;
mod decision;
mod driver;
mod holds;
mod live;
mod moves;
mod outbox;
mod owners;
pub mod protocol;
mod rate;
pub mod reconcile;
mod refusal;
mod replays;
mod restore;
mod showing;
pub mod square;
mod square_order;
pub mod storage;
pub mod waitlist;
pub mod window;

pub use decision::{Answer, CodeSent, Decision, Effect, OrderWrite, Record, StoreOutcome};
pub use holds::hold_id_of;
pub use live::{admit_watcher, PushPeriod, MAX_WATCHERS_PER_NETWORK};
pub use moves::{check_move, MAX_MOVES};
pub use outbox::MAX_UNPAID_CHECKOUTS;
pub use owners::{use_key, CodeAnswer, CODE_RETRY_MS, MAX_ENDED_OWNERS};
pub use protocol::{Reply, Request};
pub use rate::{client_key, guesser_key, CardLimit, RateLimit, MAX_CARDS_PER_HOLD, MAX_CLIENTS};
pub use refusal::{Code, Refusal};
pub use replays::{MAX_REPLAYS, MAX_REPLAY_BODY_BYTES, MAX_REPLAY_BYTES};
pub use showing::STANDARD_PRICE;
pub use storage::Write;

use outbox::Checkouts;
use owners::Owners;
use replays::Replays;
use showing::Showing;

/// The settings a desk decides with, read once from the environment by the
/// shell.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub hold_rate: RateLimit,
    /// Card payments tried per address and per buyer.
    pub card_limit: rate::CardLimit,
    pub checkout: checkout::Config,
    /// The Square location payments are made at.
    pub location_id: String,
    /// When Square cancels an authorization nobody captured or voided.
    pub authorization_delay: square::AuthorizationDelay,
    /// Test-only: crash once right after a capture is answered.
    pub failpoint_after_capture: bool,
    /// How often watchers may be sent the map.
    pub map_push: PushPeriod,
    /// How long a waiting list offer holds its seats.
    pub waitlist_offer_ms: u64,
    /// The tax on every seat sold.
    pub tax: checkout::Tax,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            hold_rate: RateLimit::default(),
            card_limit: rate::CardLimit::default(),
            checkout: checkout::Config::default(),
            location_id: String::new(),
            authorization_delay: square::AuthorizationDelay::default(),
            failpoint_after_capture: false,
            map_push: PushPeriod::default(),
            waitlist_offer_ms: waitlist::DEFAULT_OFFER_MS,
            tax: checkout::Tax::default(),
        }
    }
}

/// One showing's decisions. Everything in it is either loaded from the
/// object's storage or said to be memory only where it is declared.
pub struct Desk {
    settings: Settings,
    /// `None` until the showing is set up.
    showing: Option<Showing>,
    /// Who made each hold (by hold id), kept an hour after it ended so
    /// its buyer can still be told how it ended.
    owners: Owners,
    replays: Replays,
    checkouts: Checkouts,
    /// Every ticket staff moved, by ticket.
    moves: moves::Moves,
    /// Who waits for seats of the sold-out showing, and their offers.
    waitlist: waitlist::Waitlist,
    rate: rate::HoldRate,
    last_alarm_ms: Option<u64>,
    failpoint_fired: bool,
    /// Memory only: the browsers watching the map, and what they were sent.
    live: live::Live,
    /// Memory only: seat maps built by this instance, for staff stats.
    seat_maps_built: u64,
    /// Memory only: listing summaries answered by this instance, for staff
    /// stats (the Worker keeps a copy, so a listing view seldom asks).
    summaries_answered: u64,
    /// Memory only: this instance made the benchmark's table.
    bench_table_made: bool,
}

impl Desk {
    /// A desk for an object that was never set up.
    pub fn new(settings: Settings) -> Desk {
        Desk {
            settings,
            showing: None,
            owners: Owners::default(),
            replays: Replays::default(),
            checkouts: Checkouts::default(),
            moves: moves::Moves::default(),
            waitlist: waitlist::Waitlist::default(),
            rate: rate::HoldRate::default(),
            last_alarm_ms: None,
            failpoint_fired: false,
            live: live::Live::default(),
            seat_maps_built: 0,
            summaries_answered: 0,
            bench_table_made: false,
        }
    }

    /// Decides one request from the Worker.
    pub fn handle_request(&mut self, now_ms: u64, request: Request) -> Decision {
        let mut d = Decision::default();
        let reply = self.request(now_ms, request, &mut d);
        d.reply = Some(reply);
        self.fill_waitlist(now_ms, &mut d);
        self.announce(now_ms, &mut d);
        d
    }

    fn request(
        &mut self,
        now_ms: u64,
        request: Request,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        match request {
            Request::Init(setup) => self.init(setup, d),
            Request::Configure(setup) => self.configure(setup, d),
            Request::Cancel => self.cancel(now_ms, d),
            Request::Seats => self.seat_map(now_ms, d, false),
            Request::SeatCodes => self.seat_map(now_ms, d, true),
            Request::Summary => self.summary(now_ms, d),
            Request::Stats => self.stats(),
            Request::Sales => self.sales(now_ms, d),
            Request::Hold(new) => self.hold(now_ms, new, d),
            Request::GetHold(hold) => self.get_hold(now_ms, &hold, d),
            Request::ReleaseHold(hold) => self.release(now_ms, &hold, d),
            Request::BestSeats(best) => self.best_at_counter(now_ms, best),
            Request::Allocate(new) => self.allocate(now_ms, new, d),
            Request::Allocations => {
                self.showing()?;
                let allocations = self.live_allocations(now_ms);
                Ok(Reply::Allocations { allocations })
            }
            Request::ReleaseAllocation { id } => self.release_allocation(now_ms, &id, d),
            Request::JoinWaitlist(join) => self.join_waitlist(now_ms, join, d),
            Request::Waitlist => self.waitlist_view(),
            Request::ClaimOffer(claim) => self.claim_offer(now_ms, claim, d),
            Request::ApplyCode(apply) => self.apply_code(now_ms, apply, d),
            Request::Checkout(req) => self.start_checkout(now_ms, req, d),
            Request::BoxOffice(sale) => self.box_office(now_ms, sale, d),
            Request::OrderStatus { order_id } => self.order_status(&order_id),
            Request::PaymentObserved(seen) => self.payment_observed(now_ms, seen, d),
            Request::Recover => {
                self.showing_mut()?;
                self.resume(now_ms, d);
                Ok(Reply::Done)
            }
            Request::VoidSeats(void) => self.void(now_ms, &void, d),
            Request::MoveTicket(request) => self.move_ticket(now_ms, request, d),
            Request::Watch { watchers } => self.watch(now_ms, watchers, d),
            Request::BenchNoop => Ok(Reply::Done),
            Request::BenchWrite => {
                // The floor is one statement a request; the table it counts
                // in is made once an instance, and only in objects the
                // benchmark uses.
                if !self.bench_table_made {
                    self.bench_table_made = true;
                    d.writes.push(Write::BenchTable);
                }
                d.writes.push(Write::BenchCounter);
                Ok(Reply::Done)
            }
        }
    }

    /// Feeds the answer of an effect back: `order`'s step `step`.
    pub fn handle_answer(
        &mut self,
        now_ms: u64,
        order_id: &str,
        step: checkout::StepTag,
        answer: Answer,
    ) -> Decision {
        let mut d = Decision::default();
        self.answered(now_ms, order_id, step, answer, &mut d);
        self.fill_waitlist(now_ms, &mut d);
        self.announce(now_ms, &mut d);
        d
    }

    /// The alarm: releases expired holds, forgets what has aged out, and
    /// resumes every checkout whose step is due.
    pub fn handle_timeout(&mut self, now_ms: u64) -> Decision {
        let mut d = Decision::default();
        if self.showing.is_some() {
            self.resume(now_ms, &mut d);
            self.last_alarm_ms = Some(now_ms);
            d.writes.push(Write::Meta {
                key: storage::LAST_ALARM,
                value: now_ms.to_string(),
            });
        }
        self.fill_waitlist(now_ms, &mut d);
        self.announce(now_ms, &mut d);
        d
    }

    /// When the alarm should next fire: the earliest hold expiry, checkout
    /// step due, outbox action waiting to be sent (at once) or map push
    /// held back to the end of its period.
    pub fn poll_timeout(&self) -> Option<u64> {
        let expiry = self.showing.as_ref().and_then(|s| s.ledger.next_expiry());
        [
            expiry,
            self.checkouts.next_due(),
            self.live.due_ms(),
            self.owners.codes_due(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn resume(&mut self, now_ms: u64, d: &mut Decision) {
        // Before the sweep, so a message it makes goes out once.
        self.owners.resend_codes(now_ms, d);
        self.sweep(now_ms, d);
        self.forget_ended_owners(now_ms, d);
        self.replays
            .forget_stale(now_ms, replays::STALE_PER_ALARM, d);
        self.forget_finished_checkouts(now_ms, d);
        self.resume_checkouts(now_ms, d);
    }

    /// Pushes the map to its watchers when it changed and a push is due
    /// (see [`live`]).
    pub(crate) fn announce(&mut self, now_ms: u64, d: &mut Decision) {
        let Some(showing) = &self.showing else { return };
        let version = showing.ledger.version();
        let codes = || showing.ledger.availability().codes();
        let period = self.settings.map_push;
        if let Some(message) = self.live.changed(now_ms, period, version, codes) {
            d.effects.push(Effect::Push { version, message });
        }
    }

    /// How many sockets watch the map, as the shell counted them (when it
    /// loads the desk and when it pushes).
    pub fn set_watchers(&mut self, watchers: usize) {
        self.live.set_watchers(watchers);
    }

    /// A watcher's socket closed; answers how many are left by this count.
    pub fn watcher_left(&mut self) -> usize {
        self.live.watcher_left()
    }

    fn showing_mut(&mut self) -> Result<&mut Showing, Refusal> {
        self.showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))
    }

    fn showing(&self) -> Result<&Showing, Refusal> {
        self.showing
            .as_ref()
            .ok_or_else(|| Refusal::not_found("showing"))
    }
}
