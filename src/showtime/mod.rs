//! The `Showtime` Durable Object: one per showing, named by the showing id.
//! Every request about that showing's seats passes through it one at a time.
//!
//! Each request runs in two halves. The first is synchronous: load the
//! ledger if needed, let it decide (it releases expired holds first), and
//! write the rows that changed. No `await` happens in this half, so no other
//! request can slip between a check and its claim, and the writes commit
//! together. The second half awaits only the alarm: it is set to the next
//! hold expiry when that moved, so expired holds are released even when no
//! request comes.
//!
//! - [`client`]: how the Worker reaches an object.
//! - [`protocol`]: the requests the Worker sends.
//! - [`holds`]: holding, reading and releasing seats.
//! - [`pay`]: driving each order's checkout machine.
//! - [`store`]: the object's SQLite tables.
//! - [`rate`]: the per-client limit on new holds.
//! - [`bench`]: the benchmark's floors (only reached with `SHOWTIME_BENCH`).

mod bench;
pub mod client;
mod holds;
mod pay;
pub mod protocol;
mod rate;
mod store;

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use ledger::{Ledger, PublicState};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use worker::{
    durable_object, DurableObject, Env, Method, Request, Response, Result, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::api_error::ApiError;
pub use protocol::InitShowing;
use store::{HoldEnd, ShowingMeta};

/// The showing as held in memory: a cache of storage, rebuilt from it
/// whenever the object starts.
struct Loaded {
    ledger: Ledger,
    meta: ShowingMeta,
}

#[durable_object]
pub struct Showtime {
    state: State,
    env: Env,
    /// `None` until the first request loads the showing (or when this object
    /// was never set up).
    loaded: RefCell<Option<Loaded>>,
    /// The alarm time this instance last set: `None` means not known since
    /// start, so the next request sets or clears it whatever it is.
    alarm_at_ms: Cell<Option<Option<u64>>>,
    rate: RefCell<rate::HoldRate>,
    /// Storage rows the last request that changed anything wrote; staff
    /// stats show it, and tests check it stays small in a large venue.
    last_rows_written: Cell<u64>,
    /// Orders a request or the alarm is driving right now, so that no
    /// order is driven twice at once while one awaits Square.
    driving: RefCell<HashSet<String>>,
    /// Actions produced for an order while another caller drives it (a
    /// webhook arriving mid-checkout); that driver performs them next.
    queued: RefCell<HashMap<String, Vec<checkout::Action>>>,
    /// The seat map version last announced to watching browsers.
    announced_version: Cell<u64>,
    /// When the next stored checkout is due, as last read (`None`: read it
    /// again). Only storing a checkout ([`Scope::put_checkout`]) changes
    /// it, so holds skip the read.
    next_checkout_ms: Cell<Option<Option<u64>>>,
    /// The per-client hold limit, read from the settings once.
    hold_limit: rate::RateLimit,
    /// Seat maps this instance built, for staff stats: it shows how much
    /// of the pages' polling the Worker's copy keeps from the object.
    seat_maps_built: Cell<u64>,
    /// When wrong door PINs were tried lately (see [`Showtime::door_attempt`]).
    door_failures: RefCell<std::collections::VecDeque<u64>>,
}

/// Wrong door PINs allowed per showing within [`DOOR_WINDOW_MS`]; then every
/// PIN, right or wrong, is refused until the oldest failure ages out, so
/// guessing a 4-digit PIN takes weeks instead of minutes.
const DOOR_FAILURES_ALLOWED: usize = 10;
const DOOR_WINDOW_MS: u64 = 10 * 60 * 1000;

/// Most browsers watching one showing's map live; more fall back to polling.
const MAX_WATCHERS: usize = 2_000;

type Handled = std::result::Result<Response, ApiError>;

fn now_ms() -> u64 {
    worker::Date::now().as_millis()
}

impl DurableObject for Showtime {
    fn new(state: State, env: Env) -> Self {
        Showtime {
            state,
            loaded: RefCell::new(None),
            alarm_at_ms: Cell::new(None),
            rate: RefCell::new(rate::HoldRate::default()),
            last_rows_written: Cell::new(0),
            driving: RefCell::new(HashSet::new()),
            queued: RefCell::new(HashMap::new()),
            announced_version: Cell::new(0),
            next_checkout_ms: Cell::new(None),
            hold_limit: rate::RateLimit::from_env(&env),
            seat_maps_built: Cell::new(0),
            door_failures: RefCell::new(std::collections::VecDeque::new()),
            env,
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        store::take_rows_written();
        let handled = match (req.method(), req.path().as_str()) {
            (Method::Post, "/init") => match body(&mut req).await {
                Ok(init) => self.init(init),
                Err(e) => Err(e),
            },
            (Method::Post, "/configure") => match body(&mut req).await {
                Ok(config) => self.configure(config),
                Err(e) => Err(e),
            },
            (Method::Get, "/seats") => self.seats(false),
            (Method::Get, "/seats/codes") => self.seats(true),
            (Method::Get, "/live") => self.watch(),
            (Method::Get, "/summary") => self.summary(),
            (Method::Get, "/stats") => self.stats().await,
            (Method::Post, "/hold") => match body(&mut req).await {
                Ok(new) => self.decide(|s, now| holds::create(s, &new, now)),
                Err(e) => Err(e),
            },
            (Method::Post, "/hold/get") => match body(&mut req).await {
                Ok(hold) => self.decide(|s, now| holds::get(s, &hold, now)),
                Err(e) => Err(e),
            },
            (Method::Post, "/hold/release") => match body(&mut req).await {
                Ok(hold) => self.decide(|s, now| holds::release(s, &hold, now)),
                Err(e) => Err(e),
            },
            (Method::Post, "/checkout") => match body(&mut req).await {
                Ok(checkout) => self.checkout(checkout).await,
                Err(e) => Err(e),
            },
            (Method::Post, "/payment") => match body(&mut req).await {
                Ok(seen) => self.payment_observed(seen).await,
                Err(e) => Err(e),
            },
            (Method::Post, "/recover") => self.recover().await,
            (Method::Post, "/door/attempt") => {
                match body::<protocol::DoorAttempt>(&mut req).await {
                    Ok(attempt) => self.door_attempt(attempt.matched),
                    Err(e) => Err(e),
                }
            }
            (Method::Post, "/void") => match body::<protocol::VoidSeats>(&mut req).await {
                Ok(void) => self.decide(|s, now| void_seats(s, &void, now)),
                Err(e) => Err(e),
            },
            (Method::Post, path) if path.starts_with("/bench/") => bench::answer(&self.sql(), path),
            _ => Err(ApiError::not_found("route")),
        };
        let resp = handled.or_else(ApiError::into_response)?;
        let written = store::take_rows_written();
        if written > 0 {
            self.last_rows_written.set(written);
        }
        self.announce();
        self.arm_alarm().await?;
        Ok(resp)
    }

    /// Releases expired holds and sets the next alarm. Alarms are retried
    /// by the platform when this fails, and every request sweeps too, so a
    /// late or lost alarm only delays a release.
    async fn alarm(&self) -> Result<Response> {
        // The alarm that woke us is spent.
        self.alarm_at_ms.set(Some(None));
        let swept = self.decide(|s, now| {
            s.sweep(now)?;
            store::purge_owners(&s.sql, now)?;
            store::set_meta(&s.sql, "last_alarm_ms", &now.to_string())?;
            Ok(Response::empty()?)
        });
        if let Err(e) = swept {
            worker::console_error!("alarm: {}", e.detail);
        }
        if let Err(e) = self.resume_due().await {
            worker::console_error!("alarm: resuming orders: {}", e.detail);
        }
        self.announce();
        self.arm_alarm().await?;
        Response::empty()
    }

    /// Watchers only listen; anything they send is ignored.
    async fn websocket_message(
        &self,
        _ws: WebSocket,
        _message: WebSocketIncomingMessage,
    ) -> Result<()> {
        Ok(())
    }

    async fn websocket_close(
        &self,
        ws: WebSocket,
        code: usize,
        reason: String,
        _clean: bool,
    ) -> Result<()> {
        // 1005 and 1006 are reserved codes that may not be sent back.
        let code = if code == 1005 || code == 1006 {
            1000
        } else {
            code as u16
        };
        let _ = ws.close(Some(code), Some(reason));
        Ok(())
    }

    async fn websocket_error(&self, _ws: WebSocket, _error: worker::Error) -> Result<()> {
        Ok(())
    }
}

/// A completed refund: the order's seats go from sold back to available.
/// Voiding seats already voided changes nothing.
fn void_seats(scope: &mut Scope, void: &protocol::VoidSeats, now_ms: u64) -> Handled {
    let order =
        ledger::OrderId::new(void.order_id.as_str()).map_err(|_| ApiError::not_found("order"))?;
    let outcome = scope.ledger.void(now_ms, &order, &void.seats);
    scope.persist(&outcome.changes, None, now_ms)?;
    match outcome.result {
        Ok(_) => Ok(Response::empty()?.with_status(204)),
        Err(e) => Err(ApiError::new(409, "cannot_void", format!("{e:?}"))),
    }
}

async fn body<T: DeserializeOwned>(req: &mut Request) -> std::result::Result<T, ApiError> {
    req.json()
        .await
        .map_err(|e| ApiError::bad_json(format!("internal request: {e}")))
}

/// What a synchronous decision gets: the loaded showing, its storage and
/// the object's per-client rate limiter.
pub(crate) struct Scope<'a> {
    pub ledger: &'a mut Ledger,
    pub meta: &'a ShowingMeta,
    pub sql: worker::SqlStorage,
    pub rate: &'a mut rate::HoldRate,
    pub hold_limit: rate::RateLimit,
    pub env: &'a Env,
    next_checkout_ms: &'a Cell<Option<Option<u64>>>,
}

impl Scope<'_> {
    /// Stores a checkout; its due time may have moved, so the object reads
    /// the next one again before setting the alarm.
    pub fn put_checkout(&self, machine: &checkout::Checkout) -> std::result::Result<(), ApiError> {
        store::put_checkout(&self.sql, machine)?;
        self.next_checkout_ms.set(None);
        Ok(())
    }

    /// Persists what a ledger call changed. Holds that disappeared ended as
    /// `end` says when they are the one the call was about, else they expired.
    pub fn persist(
        &self,
        changes: &ledger::Changes,
        subject: Option<(&ledger::HoldId, HoldEnd)>,
        now_ms: u64,
    ) -> std::result::Result<(), ApiError> {
        let ended = |id: &ledger::HoldId| match subject {
            Some((hold, end)) if hold == id => end,
            _ => HoldEnd::Expired,
        };
        store::persist(&self.sql, self.ledger, changes, &ended, now_ms)
    }

    /// Releases expired holds now and saves that.
    pub fn sweep(&mut self, now_ms: u64) -> std::result::Result<(), ApiError> {
        let changes = self.ledger.sweep(now_ms);
        self.persist(&changes, None, now_ms)
    }

    /// `{"version": n, "seats": {"A1": "available" | "held" | "sold", ...}}`.
    pub fn availability(&self) -> Value {
        let availability = self.ledger.availability();
        let seats = availability
            .units
            .iter()
            .enumerate()
            .map(|(idx, state)| {
                let name = self.ledger.unit_name(ledger::UnitId(idx as u32));
                let state = match state {
                    PublicState::Available => "available",
                    PublicState::Held => "held",
                    PublicState::Sold => "sold",
                };
                (name.unwrap_or_default().to_string(), Value::from(state))
            })
            .collect();
        json!({ "version": availability.version, "seats": Value::Object(seats) })
    }

    /// The seat map as one letter per seat in layout order (`a` available,
    /// `h` held, `s` sold or not for sale): a twentieth of the size of
    /// [`Scope::availability`], for pages and refusals.
    pub fn compact(&self) -> Value {
        let availability = self.ledger.availability();
        json!({ "version": availability.version, "codes": availability.codes() })
    }
}

impl Showtime {
    fn sql(&self) -> worker::SqlStorage {
        self.state.storage().sql()
    }

    /// Loads the showing from storage once per object lifetime.
    fn ensure_loaded(&self) -> std::result::Result<(), ApiError> {
        if self.loaded.borrow().is_some() {
            return Ok(());
        }
        if let Some((ledger, meta)) = store::load(&self.sql())? {
            *self.loaded.borrow_mut() = Some(Loaded { ledger, meta });
        }
        Ok(())
    }

    /// Runs one synchronous decision on the loaded showing. The closure
    /// cannot await, so the check and the claim it makes are one step.
    fn decide(&self, f: impl FnOnce(&mut Scope, u64) -> Handled) -> Handled {
        self.decide_with(f)
    }

    fn decide_with<T>(
        &self,
        f: impl FnOnce(&mut Scope, u64) -> std::result::Result<T, ApiError>,
    ) -> std::result::Result<T, ApiError> {
        self.ensure_loaded()?;
        let mut loaded = self.loaded.borrow_mut();
        let loaded = loaded
            .as_mut()
            .ok_or_else(|| ApiError::not_found("showing"))?;
        let mut rate = self.rate.borrow_mut();
        let mut scope = Scope {
            ledger: &mut loaded.ledger,
            meta: &loaded.meta,
            sql: self.sql(),
            rate: &mut rate,
            hold_limit: self.hold_limit,
            env: &self.env,
            next_checkout_ms: &self.next_checkout_ms,
        };
        f(&mut scope, now_ms())
    }

    /// Sets the alarm to the next hold expiry, or clears it, when that
    /// differs from what is set. Setting an alarm costs a storage write, so
    /// it is skipped when nothing moved.
    async fn arm_alarm(&self) -> Result<()> {
        let next_expiry = match self.loaded.borrow().as_ref() {
            Some(l) => l.ledger.next_expiry(),
            None => return Ok(()),
        };
        let next_checkout = match self.next_checkout_ms.get() {
            Some(known) => known,
            None => {
                let read = store::next_checkout_due(&self.sql()).unwrap_or(None);
                self.next_checkout_ms.set(Some(read));
                read
            }
        };
        let wanted = [next_expiry, next_checkout]
            .into_iter()
            .flatten()
            .min()
            // A time in the past means a backlog: fire again at once (an
            // alarm set to exactly now can be dropped, hence the +1).
            .map(|t| t.max(now_ms() + 1));
        // An alarm already due no later than wanted is left alone: it fires
        // first, finds nothing or little to do, and sets the next one. So
        // holds that end early (released, paid) never move the alarm, and
        // only an earlier expiry costs an alarm write: a quarter of a
        // storage-bound request's throughput when done every time.
        match (self.alarm_at_ms.get(), wanted) {
            (Some(set), wanted) if set == wanted => return Ok(()),
            (Some(Some(set)), Some(wanted)) if set <= wanted => return Ok(()),
            (Some(Some(_)), None) => return Ok(()),
            _ => {}
        }
        let storage = self.state.storage();
        match wanted {
            // An i64 would be read as an offset from now; a Date is a time.
            Some(at_ms) => {
                let at = worker::js_sys::Date::new(&(at_ms as f64).into());
                storage.set_alarm(worker::ScheduledTime::new(at)).await?
            }
            None => storage.delete_alarm().await?,
        }
        self.alarm_at_ms.set(Some(wanted));
        Ok(())
    }

    fn init(&self, init: InitShowing) -> Handled {
        self.ensure_loaded()?;
        if let Some(existing) = self.loaded.borrow().as_ref() {
            // Creating the same showing twice is harmless; a different
            // layout under the same id is a caller's bug.
            let same = existing.ledger.unit_count() == init.units.names.len()
                && existing.meta.showing_id == init.showing_id;
            return if same {
                Ok(Response::empty()?.with_status(200))
            } else {
                Err(ApiError::new(
                    409,
                    "showing_exists",
                    "this showing already exists",
                ))
            };
        }
        let config = ledger::Config {
            max_seats_per_hold: init.max_seats_per_hold,
            hold_ttl_ms: init.hold_ttl_ms,
            payment_cap_ms: init.payment_cap_ms,
            ..ledger::Config::default()
        };
        let ledger = Ledger::new(config.clone(), &init.units.names, &init.units.blocked)
            .map_err(|e| ApiError::new(400, "invalid_showing", format!("{e:?}")))?;
        let meta = ShowingMeta {
            showing_id: init.showing_id,
            price: init.price,
            config,
        };
        store::create(&self.sql(), &ledger, &meta)?;
        *self.loaded.borrow_mut() = Some(Loaded { ledger, meta });
        Ok(Response::empty()?.with_status(201))
    }

    /// Staff edited the showing. Price and limits may change at any time
    /// (a live hold larger than a new limit refuses it); the seats
    /// themselves only while none is held, paying or sold and no order was
    /// ever made, because tickets and orders name seats.
    fn configure(&self, edit: InitShowing) -> Handled {
        self.ensure_loaded()?;
        let mut loaded = self.loaded.borrow_mut();
        let loaded = loaded
            .as_mut()
            .ok_or_else(|| ApiError::not_found("showing"))?;
        let current = loaded.ledger.snapshot();
        let config = ledger::Config {
            max_seats_per_hold: edit.max_seats_per_hold,
            hold_ttl_ms: edit.hold_ttl_ms,
            payment_cap_ms: edit.payment_cap_ms,
            ..current.config.clone()
        };
        let names: Vec<&str> = current.units.iter().map(|u| u.name.as_str()).collect();
        let blocked: Vec<&str> = current
            .units
            .iter()
            .filter(|u| u.state == ledger::UnitState::Blocked)
            .map(|u| u.name.as_str())
            .collect();
        let relayout = names != edit.units.names || blocked != edit.units.blocked;
        let snapshot = if relayout {
            let counts = loaded.ledger.counts();
            if counts.held + counts.pending + counts.sold > 0 || !current.orders.is_empty() {
                return Err(ApiError::new(
                    409,
                    "layout_locked",
                    "the seats cannot change once any seat has been held or sold; \
                     title, time, price and limits still can",
                ));
            }
            let fresh = Ledger::new(config, &edit.units.names, &edit.units.blocked)
                .map_err(|e| ApiError::new(400, "invalid_showing", format!("{e:?}")))?;
            ledger::Snapshot {
                version: current.version + 1,
                latest_now_ms: current.latest_now_ms,
                ..fresh.snapshot()
            }
        } else {
            ledger::Snapshot { config, ..current }
        };
        let ledger = Ledger::restore(snapshot).map_err(|e| {
            ApiError::new(
                409,
                "limits_conflict",
                format!("the new limits conflict with a live hold or order ({e}); try again when it ends"),
            )
        })?;
        let meta = ShowingMeta {
            showing_id: loaded.meta.showing_id.clone(),
            price: edit.price,
            config: ledger.config().clone(),
        };
        store::reconfigure(&self.sql(), &ledger, &meta, relayout)?;
        *loaded = Loaded { ledger, meta };
        Ok(Response::from_json(&json!({ "relayout": relayout }))?)
    }

    /// A door PIN was tried for this showing. The object serialises the
    /// count, so parallel guesses cannot slip past the limit. Kept in
    /// memory: an object evicted while idle forgets old failures, which an
    /// attacker cannot arrange by guessing.
    fn door_attempt(&self, matched: bool) -> Handled {
        let now = now_ms();
        let mut failures = self.door_failures.borrow_mut();
        while failures
            .front()
            .is_some_and(|&at| at + DOOR_WINDOW_MS <= now)
        {
            failures.pop_front();
        }
        if failures.len() >= DOOR_FAILURES_ALLOWED {
            let wait_ms = failures.front().map_or(0, |&at| at + DOOR_WINDOW_MS - now);
            return Err(ApiError::new(
                429,
                "door_pin_locked",
                "too many wrong PINs for this showing; wait, or sign in with the staff door token",
            )
            .retry_after(wait_ms.div_ceil(1000)));
        }
        if matched {
            return Ok(Response::empty()?.with_status(204));
        }
        failures.push_back(now);
        Err(ApiError::unauthorized())
    }

    /// `GET /live`: a browser watching the seat map. The socket uses the
    /// hibernation API, so idle watchers cost the object nothing; each
    /// change of the map sends `{"version": n}` and the page refetches it.
    fn watch(&self) -> Handled {
        self.ensure_loaded()?;
        if self.loaded.borrow().is_none() {
            return Err(ApiError::not_found("showing"));
        }
        if self.state.get_websockets().len() >= MAX_WATCHERS {
            return Err(ApiError::new(
                503,
                "too_many_watchers",
                "too many live maps; the page falls back to polling",
            ));
        }
        let pair = WebSocketPair::new()?;
        self.state.accept_web_socket(&pair.server);
        Ok(Response::from_websocket(pair.client)?)
    }

    /// Tells watching browsers that the seat map changed, once per version.
    fn announce(&self) {
        let version = match self.loaded.borrow().as_ref() {
            Some(loaded) => loaded.ledger.version(),
            None => return,
        };
        if version == self.announced_version.replace(version) {
            return;
        }
        let message = format!("{{\"version\":{version}}}");
        for ws in self.state.get_websockets() {
            let _ = ws.send_with_str(&message);
        }
    }

    /// The cron sweep's nudge: release expired holds and resume orders.
    async fn recover(&self) -> Handled {
        self.decide(|s, now| {
            s.sweep(now)?;
            store::purge_owners(&s.sql, now)?;
            Ok(Response::empty()?)
        })?;
        self.resume_due().await?;
        Ok(Response::empty()?.with_status(204))
    }

    fn seats(&self, compact: bool) -> Handled {
        self.seat_maps_built.set(self.seat_maps_built.get() + 1);
        self.decide(|s, now| {
            s.sweep(now)?;
            let map = if compact {
                s.compact()
            } else {
                s.availability()
            };
            Ok(Response::from_json(&map)?)
        })
    }

    /// Counts for listings: cheap, whatever the size of the venue.
    fn summary(&self) -> Handled {
        self.decide(|s, now| {
            s.sweep(now)?;
            let counts = s.ledger.counts();
            Ok(Response::from_json(&json!({
                "version": s.ledger.version(),
                "available": counts.available,
                "held": counts.held,
                "sold": counts.sold + counts.pending,
            }))?)
        })
    }

    /// What staff need to see what is tied up, as stored: this does not
    /// sweep, so it shows whether the alarm alone released expired holds.
    async fn stats(&self) -> Handled {
        let stats = {
            self.ensure_loaded()?;
            let loaded = self.loaded.borrow();
            let loaded = loaded
                .as_ref()
                .ok_or_else(|| ApiError::not_found("showing"))?;
            let last_alarm_ms =
                store::get_meta(&self.sql(), "last_alarm_ms")?.and_then(|v| v.parse::<u64>().ok());
            json!({
                "showing_id": loaded.meta.showing_id,
                "version": loaded.ledger.version(),
                "seats": loaded.ledger.counts(),
                "live_holds": loaded.ledger.hold_count(),
                "next_expiry_ms": loaded.ledger.next_expiry(),
                "price": loaded.meta.price,
                "payment_cap_ms": loaded.meta.config.payment_cap_ms,
                "last_alarm_ms": last_alarm_ms,
                "rows_written_by_last_change": self.last_rows_written.get(),
                "seat_maps_built": self.seat_maps_built.get(),
            })
        };
        let alarm_at_ms = self.state.storage().get_alarm().await?;
        let mut stats = stats;
        stats["alarm_at_ms"] = json!(alarm_at_ms);
        Ok(Response::from_json(&stats)?)
    }
}
