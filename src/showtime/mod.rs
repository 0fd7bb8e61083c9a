//! The `Showtime` Durable Object: one per showing, named by the showing id.
//! It is a shell around the showing's [`desk::Desk`], which makes every
//! decision. For each request, alarm and effect answer the object:
//!
//! 1. hands it to the desk, synchronously;
//! 2. writes the rows the decision names, with no `await` before, between
//!    or after them, so no other request slips between a check and its
//!    claim and the writes commit together;
//! 3. sets the alarm to [`desk::Desk::poll_timeout`] when that moved;
//! 4. performs the effects (Square, D1, watchers) and feeds their answers
//!    back, which are decisions of their own.
//!
//! - [`client`]: how the Worker reaches an object: one typed call a request.
//! - [`storage`]: the desk's rows on the object's SQLite; the alarm is
//!   set here (`arm_alarm`).
//! - [`effects`]: performing effects and feeding their answers back.

pub mod client;
mod effects;
mod storage;

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use desk::{Decision, Desk, Refusal, Reply, Request as DeskRequest};
use wasm_bindgen::prelude::{wasm_bindgen, JsValue};
use worker::{
    durable_object, DurableObject, Env, Method, Request, Response, Result, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair,
};

use crate::settings::Settings;

/// The object's one HTTP path: a browser's WebSocket upgrade. Every other
/// request of the Worker's is an RPC call of [`Showtime::desk`].
pub const LIVE_PATH: &str = "/live";

/// What a watching page sends to check its socket, and the answer.
const PING: &str = "ping";
const PONG: &str = "pong";

/// How long a checkout request waits for its order's step in flight (one
/// performed for another request, or a webhook) before answering with the
/// order as it stands (pending).
const WAIT_FOR_STEP_MS: u64 = 20_000;

#[durable_object]
pub struct Showtime {
    state: State,
    env: Env,
    settings: Settings,
    /// `None` until the first request loads it from storage; dropped
    /// when storage refused a write, so the next request reloads.
    desk: RefCell<Option<Desk>>,
    /// The alarm time this instance last set: `None` means not known since
    /// start, so the next decision sets or clears it whatever it is.
    alarm_at_ms: Cell<Option<Option<u64>>>,
    /// Storage rows the last decision that changed anything wrote; staff
    /// stats show it, and tests check it stays small in a large venue.
    last_rows_written: Cell<u64>,
    /// Orders a buyer's request is carrying forward here: performing a
    /// step, or waiting for one to settle. One request an order does;
    /// any other asking meanwhile is answered at once with the order as
    /// it stands (`202 pending`), so repeated checkouts cannot pile
    /// waiting requests onto the object's one thread.
    attended: RefCell<HashSet<String>>,
}

/// An order taken into [`Showtime::attended`], given back when dropped.
struct Attending<'a> {
    attended: &'a RefCell<HashSet<String>>,
    orders: Vec<String>,
}

impl<'a> Attending<'a> {
    /// Takes the orders nobody attends yet.
    fn take(attended: &'a RefCell<HashSet<String>>, orders: Vec<String>) -> Attending<'a> {
        let mut set = attended.borrow_mut();
        let orders = orders
            .into_iter()
            .filter(|o| set.insert(o.clone()))
            .collect();
        Attending { attended, orders }
    }
}

impl Drop for Attending<'_> {
    fn drop(&mut self) {
        let mut set = self.attended.borrow_mut();
        for order in &self.orders {
            set.remove(order);
        }
    }
}

fn now_ms() -> u64 {
    worker::Date::now().as_millis()
}

impl DurableObject for Showtime {
    fn new(state: State, env: Env) -> Self {
        // A page checks its socket is alive with "ping" every so often; the
        // runtime answers "pong" itself, without waking the object.
        if let Ok(pair) = worker::worker_sys::WebSocketRequestResponsePair::new(PING, PONG) {
            state.set_websocket_auto_response(&pair);
        }
        Showtime {
            settings: Settings::from_env(&env),
            state,
            env,
            desk: RefCell::new(None),
            alarm_at_ms: Cell::new(None),
            last_rows_written: Cell::new(0),
            attended: RefCell::new(HashSet::new()),
        }
    }

    async fn fetch(&self, req: Request) -> Result<Response> {
        match (req.method(), req.path().as_str()) {
            (Method::Get, LIVE_PATH) => self.watch(&req).await,
            _ => crate::api_error::ApiError::from(Refusal::not_found("route")).into_response(),
        }
    }

    /// Releases expired holds, resumes due checkouts and sends a held-back
    /// map push. When this fails (storage refused its write, and the desk
    /// was dropped) the error goes back to the platform, which runs the
    /// alarm again later; every request sweeps too, so a late or lost
    /// alarm only delays a release.
    async fn alarm(&self) -> Result<Response> {
        // The alarm that woke us is spent.
        self.alarm_at_ms.set(Some(None));
        if let Err(e) = self.decide(|desk, now| desk.handle_timeout(now)).await {
            worker::console_error!("alarm: {}", e.detail);
            return Err(worker::Error::RustError(format!("alarm: {}", e.detail)));
        }
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
        self.watcher_left();
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
        self.watcher_left();
        Ok(())
    }
}

/// The Worker's call: an RPC method (the class in src/entry.mjs passes it
/// through), so neither side builds a `Request` or a `Response`, or reads a
/// body as a stream, for it. The request and the answer are the desk
/// protocol's JSON, parsed and written in Wasm.
#[wasm_bindgen]
impl Showtime {
    /// Answers `Result<Reply, Refusal>` as JSON text.
    pub async fn desk(&self, request: String) -> std::result::Result<JsValue, JsValue> {
        let answer = match serde_json::from_str::<DeskRequest>(&request) {
            Ok(request) => self.answer(request).await,
            Err(e) => Err(Refusal::new(
                desk::Code::BadJson,
                format!("internal request: {e}"),
            )),
        };
        serde_json::to_string(&answer)
            .map(JsValue::from)
            .map_err(|e| JsValue::from_str(&e.to_string()))
    }
}

impl Showtime {
    /// One request: decided, written, effects performed. A checkout then
    /// waits while its order's step is performed elsewhere.
    async fn answer(&self, request: DeskRequest) -> std::result::Result<Reply, Refusal> {
        let stats = matches!(request, DeskRequest::Stats);
        let attend = matches!(request, DeskRequest::Checkout(_));
        let reply = self
            .decide_with(attend, |desk, now| desk.handle_request(now, request))
            .await?;
        let reply = reply.unwrap_or(Err(Refusal::internal("the decision had no reply")))?;
        match reply {
            Reply::Order(order) if order.settling => self.wait_for_order(order.order_id).await,
            Reply::Stats(mut stats_body) if stats => {
                stats_body["rows_written_by_last_change"] = self.last_rows_written.get().into();
                let alarm = self.state.storage().get_alarm().await.ok().flatten();
                stats_body["alarm_at_ms"] = alarm.into();
                Ok(Reply::Stats(stats_body))
            }
            other => Ok(other),
        }
    }

    /// Waits while the order's step is performed elsewhere, if no other
    /// request attends it; otherwise answers the order as it stands.
    async fn wait_for_order(&self, order_id: String) -> std::result::Result<Reply, Refusal> {
        let deadline = now_ms() + WAIT_FOR_STEP_MS;
        let mut waiting: Option<Attending<'_>> = None;
        loop {
            let ask = DeskRequest::OrderStatus {
                order_id: order_id.clone(),
            };
            let reply = self
                .decide(|desk, now| desk.handle_request(now, ask))
                .await?;
            match reply.unwrap_or(Err(Refusal::internal("no reply")))? {
                Reply::Order(order) if order.settling && now_ms() < deadline => {
                    if waiting.is_none() {
                        let taken = Attending::take(&self.attended, vec![order_id.clone()]);
                        if taken.orders.is_empty() {
                            return Ok(Reply::Order(order));
                        }
                        waiting = Some(taken);
                    }
                    worker::Delay::from(std::time::Duration::from_millis(50)).await;
                }
                other => return Ok(other),
            }
        }
    }

    /// Runs one decision on the loaded desk, writes it, sets the alarm and
    /// performs its effects; answers with its reply.
    async fn decide(
        &self,
        f: impl FnOnce(&mut Desk, u64) -> Decision,
    ) -> std::result::Result<Option<std::result::Result<Reply, Refusal>>, Refusal> {
        self.decide_with(false, f).await
    }

    /// [`Self::decide`]; with `attend`, the orders whose steps it performs
    /// are attended meanwhile (a buyer's checkout carries them forward).
    async fn decide_with(
        &self,
        attend: bool,
        f: impl FnOnce(&mut Desk, u64) -> Decision,
    ) -> std::result::Result<Option<std::result::Result<Reply, Refusal>>, Refusal> {
        let decision = {
            let mut slot = self.loaded()?;
            let desk = slot.as_mut().ok_or_else(|| Refusal::internal("no desk"))?;
            f(desk, now_ms())
        };
        let reply = decision.reply.clone();
        self.write(&decision.writes)?;
        self.arm_alarm().await;
        let stepped = decision.effects.iter().filter_map(|effect| match effect {
            desk::Effect::Square { order_id, .. }
            | desk::Effect::Refund { order_id, .. }
            | desk::Effect::Store { order_id, .. } => Some(order_id.clone()),
            _ => None,
        });
        let _attending = attend.then(|| Attending::take(&self.attended, stepped.collect()));
        self.perform(decision.effects).await;
        Ok(reply)
    }

    /// The desk, loaded from storage on first use.
    fn loaded(&self) -> std::result::Result<std::cell::RefMut<'_, Option<Desk>>, Refusal> {
        let mut slot = self.desk.borrow_mut();
        if slot.is_none() {
            let sql = self.state.storage().sql();
            let (mut desk, upgrade) = storage::load(&sql, self.settings.desk.clone(), now_ms())?;
            storage::apply(&sql, &upgrade)?;
            // Hibernated sockets outlive the instance that accepted them.
            desk.set_watchers(self.state.get_websockets().len());
            *slot = Some(desk);
        }
        Ok(slot)
    }

    /// Writes a decision's rows. If storage refuses one, memory may be
    /// ahead of storage: the desk is dropped and reloaded next time.
    fn write(&self, writes: &[desk::Write]) -> std::result::Result<(), Refusal> {
        match storage::apply(&self.state.storage().sql(), writes) {
            Ok(0) => Ok(()),
            Ok(rows) => {
                self.last_rows_written.set(rows);
                Ok(())
            }
            Err(e) => {
                self.desk.borrow_mut().take();
                Err(e)
            }
        }
    }

    /// Sets the alarm to the desk's next deadline when that is earlier than
    /// the alarm already set, or clears it when nothing is due. An alarm
    /// already due no later than wanted is left alone: it fires first,
    /// finds little to do, and sets the next one. So holds that end early
    /// never move the alarm, and only an earlier deadline costs an alarm
    /// write (a quarter of a storage-bound request's throughput).
    async fn arm_alarm(&self) {
        let wanted = match self.desk.borrow().as_ref() {
            // A time in the past means a backlog: fire again at once (an
            // alarm set to exactly now can be dropped, hence the +1).
            Some(desk) => desk.poll_timeout().map(|t| t.max(now_ms() + 1)),
            None => return,
        };
        match (self.alarm_at_ms.get(), wanted) {
            (Some(set), wanted) if set == wanted => return,
            (Some(Some(set)), Some(wanted)) if set <= wanted => return,
            (Some(Some(_)), None) => return,
            _ => {}
        }
        let storage = self.state.storage();
        let done = match wanted {
            // An i64 would be read as an offset from now; a Date is a time.
            Some(at_ms) => {
                let at = worker::js_sys::Date::new(&(at_ms as f64).into());
                storage.set_alarm(worker::ScheduledTime::new(at)).await
            }
            None => storage.delete_alarm().await,
        };
        match done {
            Ok(()) => self.alarm_at_ms.set(Some(wanted)),
            Err(e) => worker::console_error!("alarm not set: {e}"),
        }
    }

    /// `GET /live`: a browser watching the seat map. The socket uses the
    /// hibernation API, so idle watchers cost the object nothing. It is
    /// sent the whole map first, then the desk's pushes (`desk::live`).
    /// Each socket is tagged with its client's network, so the sockets
    /// open from one network are counted (hibernated ones too) and capped.
    async fn watch(&self, req: &Request) -> Result<Response> {
        // The Worker passes the browser's headers on, Cloudflare's
        // `cf-connecting-ip` among them.
        let address = req
            .headers()
            .get("cf-connecting-ip")?
            .unwrap_or_else(|| "unknown".to_string());
        let network = format!("net:{}", desk::client_key(&address));
        let open_here = || self.state.get_websockets_with_tag(&network).len();
        if let Err(refusal) = desk::admit_watcher(open_here()) {
            return crate::api_error::ApiError::from(refusal).into_response();
        }
        let watchers = self.state.get_websockets().len();
        let allowed = self
            .decide(|desk, now| desk.handle_request(now, DeskRequest::Watch { watchers }))
            .await;
        match allowed.map(|r| r.unwrap_or(Err(Refusal::internal("no reply")))) {
            Ok(Ok(Reply::Watch { map })) => {
                // Counted again with no `await` before the socket is
                // accepted: others from the network may have joined while
                // the decision was written.
                if let Err(refusal) = desk::admit_watcher(open_here()) {
                    self.watcher_left();
                    return crate::api_error::ApiError::from(refusal).into_response();
                }
                let pair = WebSocketPair::new()?;
                self.state
                    .accept_websocket_with_tags(&pair.server, &[network.as_str()]);
                pair.server.send_with_str(&map)?;
                Response::from_websocket(pair.client)
            }
            Ok(Ok(_)) => Err(worker::Error::RustError("not a watch reply".into())),
            Ok(Err(refusal)) | Err(refusal) => {
                crate::api_error::ApiError::from(refusal).into_response()
            }
        }
    }

    /// A watcher's socket ended (memory only: nothing to write).
    fn watcher_left(&self) {
        // Not loaded: loading counts the sockets open then.
        if let Ok(mut slot) = self.desk.try_borrow_mut() {
            if let Some(desk) = slot.as_mut() {
                // A socket may end with an error and a close both: counted
                // down to none, count them, so a watcher still there is
                // never left without pushes (one too many costs nothing).
                if desk.watcher_left() == 0 {
                    desk.set_watchers(self.state.get_websockets().len());
                }
            }
        }
    }
}
