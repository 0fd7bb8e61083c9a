//! The `WaitingRoom` Durable Object: one per showing with a waiting room,
//! named by the showing id, and apart from the showing's own object so a
//! rush of people joining the line takes nothing of the capacity holds
//! need. It is a shell around a [`queue::Line`], which decides every
//! place: a join after the opening waits in the object for its place
//! (a second, longer while joins reach it slowly: see
//! [`queue::Line::settle_ms`]) and is answered then. Each
//! placed join is one row (who, when, their random draw), as is each
//! time the showing sold out or seats came back or staff changed its rate
//! or opening, and the line is rebuilt
//! by replaying them in order, which gives every session the same place
//! and the cursor the same position again.

use std::cell::RefCell;
use std::collections::HashSet;
use std::time::Duration;

use futures_channel::oneshot;
use futures_util::future::select;
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::{wasm_bindgen, JsValue};
use worker::{
    durable_object, Delay, DurableObject, Env, Request, Response, Result, SqlStorageValue, State,
};

use crate::api_error::ApiError;
use crate::clock::now_ms;

/// What the Worker asks: put `session` in line (or say where it stands).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Join {
    pub session: String,
    pub opens_at_ms: u64,
    pub admit_per_minute: u32,
    /// The showing has no free seat and no hold that could lapse: the line
    /// stands still until seats come back, and says it is sold out.
    pub sold_out: bool,
    /// No free seat, but some held by buyers paying: the line stands still
    /// (admitting nobody to a map with nothing to choose) until a seat is
    /// free, without a sell-out.
    #[serde(default)]
    pub every_seat_held: bool,
    /// A fresh random draw, used if the session joins before the opening;
    /// 48 bits of it count ([`queue::line::DRAW_MASK`]), which storage keeps exactly.
    pub draw: u64,
    /// When the Worker received the join: the line places sessions in
    /// this order.
    pub now_ms: u64,
}

/// The answer: where the session stands.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Joined {
    pub standing: queue::Standing,
    pub new: bool,
    /// The cursor as it stands, for the Worker to answer placed buyers
    /// from for a second.
    pub clock: queue::Clock,
}

#[durable_object]
pub struct WaitingRoom {
    state: State,
    /// `None` until the first request replays the joins.
    line: RefCell<Option<queue::Line>>,
    /// Joins waiting to be placed, each woken by whichever request places
    /// it. Their own timers are the fallback of an idle line: under a
    /// rush's load the runtime fires timers late (measured: joins answered
    /// 8 s after they came, against 1 s alone), while every request that
    /// reaches the line places what is due.
    settling: RefCell<Vec<(String, oneshot::Sender<()>)>>,
}

impl DurableObject for WaitingRoom {
    fn new(state: State, _env: Env) -> Self {
        WaitingRoom {
            state,
            line: RefCell::new(None),
            settling: RefCell::new(Vec::new()),
        }
    }

    async fn fetch(&self, _req: Request) -> Result<Response> {
        ApiError::not_found("route").into_response()
    }
}

#[derive(Deserialize)]
struct EventRow {
    kind: String,
    session: Option<String>,
    at_ms: f64,
    draw: Option<f64>,
    opens_at_ms: f64,
    admit_per_minute: f64,
}

#[wasm_bindgen]
impl WaitingRoom {
    /// Answers `Result<Joined, String>` as JSON text. A join after the
    /// opening is answered once it is placed, [`queue::Line::settle_ms`]
    /// after the Worker received it.
    pub async fn join(&self, request: String) -> std::result::Result<JsValue, JsValue> {
        let answer = match serde_json::from_str::<Join>(&request) {
            Ok(join) => self.take(join).await,
            Err(e) => Err(e.to_string()),
        };
        serde_json::to_string(&answer)
            .map(JsValue::from)
            .map_err(|e| JsValue::from_str(&e.to_string()))
    }
}

impl WaitingRoom {
    async fn take(&self, join: Join) -> std::result::Result<Joined, String> {
        let new = self.arrive(&join)?;
        loop {
            let now = now_ms().max(0) as u64;
            match self.place_due(&join, now)? {
                queue::Answer::Stands(standing) => {
                    let line = self.line.borrow();
                    let line = line.as_ref().expect("loaded on arrival");
                    return Ok(Joined {
                        standing,
                        new,
                        clock: line.clock().clone(),
                    });
                }
                // Other joins are taken meanwhile: the line's one thread
                // waits on nothing here.
                queue::Answer::SettlesAt { due_ms } => {
                    let wait = due_ms.saturating_sub(now).max(1);
                    let (placed, woken) = oneshot::channel();
                    self.settling
                        .borrow_mut()
                        .push((join.session.clone(), placed));
                    let timer = Box::pin(Delay::from(Duration::from_millis(wait)));
                    let _ = select(timer, woken).await;
                }
                // The object restarted and replayed its kept joins, in
                // which a join still settling was not.
                queue::Answer::Absent => return Err("the join was lost; join again".into()),
            }
        }
    }

    /// Takes the showing's rate, opening and sold-out state as the Worker
    /// passed them, and the join; answers whether the session is new.
    fn arrive(&self, join: &Join) -> std::result::Result<bool, String> {
        let sql = self.state.storage().sql();
        let mut line = self.line.borrow_mut();
        if line.is_none() {
            *line = Some(replay(&sql)?);
        }
        // The first join sets the line's opening and rate. Each join
        // passes the showing's as saved now, so a change staff make during
        // the rush is taken up (and kept as an event) on the next join.
        let line = line.as_mut().expect("loaded above");
        if line.is_empty() {
            *line = queue::Line::new(join.opens_at_ms, join.admit_per_minute)
                .map_err(|e| format!("{e:?}"))?;
        } else if line.config().1 != join.admit_per_minute
            || (line.config().0 != join.opens_at_ms && !line.has_opened(join.now_ms))
        {
            line.reconfigure(join.now_ms, join.opens_at_ms, join.admit_per_minute)
                .map_err(|e| format!("{e:?}"))?;
            record(&sql, line, queue::store::CONFIG, None, join.now_ms, None)?;
        }
        // No seat to choose (sold out, or every seat held by buyers
        // paying): the line stands still until a seat is free. Kept as
        // events, so a restart rebuilds the same cursor; whether it is a
        // sell-out comes with every join.
        let still = join.sold_out || join.every_seat_held;
        line.set_sold_out(join.sold_out);
        if still && !line.is_paused() {
            line.pause(join.now_ms);
            record(&sql, line, queue::store::PAUSE, None, join.now_ms, None)?;
        } else if !still && line.is_paused() {
            line.resume(join.now_ms);
            record(&sql, line, queue::store::RESUME, None, join.now_ms, None)?;
        }
        let draw = join.draw & queue::line::DRAW_MASK;
        let now = now_ms().max(0) as u64;
        let arrival = line
            .arrive(now, join.now_ms, &join.session, draw)
            .map_err(|e| format!("{e:?}"))?;
        if arrival == queue::Arrival::Early {
            record(
                &sql,
                line,
                queue::store::JOIN,
                Some(&join.session),
                join.now_ms,
                Some(draw),
            )?;
        }
        Ok(arrival != queue::Arrival::Known)
    }

    /// Places (and keeps) every join due by `now`, then answers where
    /// `join`'s session stands.
    fn place_due(&self, join: &Join, now: u64) -> std::result::Result<queue::Answer, String> {
        let sql = self.state.storage().sql();
        let mut line = self.line.borrow_mut();
        let line = line.as_mut().ok_or("the line was not loaded")?;
        let placed = line.place_due(now);
        for p in &placed {
            record(
                &sql,
                line,
                queue::store::JOIN,
                Some(&p.session),
                p.at_ms,
                None,
            )?;
        }
        if !placed.is_empty() {
            // The placed are woken; a waiter whose request ended (its
            // timer woke it) is let go in the same pass.
            let sessions: HashSet<&str> = placed.iter().map(|p| p.session.as_str()).collect();
            let mut settling = self.settling.borrow_mut();
            let done = settling.extract_if(.., |(s, waiter)| {
                sessions.contains(s.as_str()) || waiter.is_canceled()
            });
            for (_, waiter) in done {
                let _ = waiter.send(());
            }
        }
        Ok(line.answer(now, &join.session))
    }
}

/// Keeps one event, with the line's opening and rate as they are now.
fn record(
    sql: &worker::SqlStorage,
    line: &queue::Line,
    kind: &str,
    session: Option<&str>,
    at_ms: u64,
    draw: Option<u64>,
) -> std::result::Result<(), String> {
    let (opens_at_ms, rate) = line.config();
    let text = |t: Option<&str>| {
        t.map_or(SqlStorageValue::Null, |t| {
            SqlStorageValue::String(t.to_string())
        })
    };
    sql.exec(
        queue::store::INSERT_EVENT,
        Some(vec![
            SqlStorageValue::String(kind.to_string()),
            text(session),
            SqlStorageValue::Integer(at_ms as i64),
            draw.map_or(SqlStorageValue::Null, |d| {
                SqlStorageValue::Integer(d as i64)
            }),
            SqlStorageValue::Integer(opens_at_ms as i64),
            SqlStorageValue::Integer(i64::from(rate)),
        ]),
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// The line as its events made it.
fn replay(sql: &worker::SqlStorage) -> std::result::Result<queue::Line, String> {
    sql.exec(queue::store::SCHEMA, None)
        .map_err(|e| e.to_string())?;
    let rows: Vec<EventRow> = sql
        .exec(queue::store::SELECT_EVENTS, None)
        .and_then(|cursor| cursor.to_array())
        .map_err(|e| e.to_string())?;
    let Some(first) = rows.first() else {
        return queue::Line::new(0, 1).map_err(|e| format!("{e:?}"));
    };
    let mut line = queue::Line::new(first.opens_at_ms as u64, first.admit_per_minute as u32)
        .map_err(|e| format!("{e:?}"))?;
    for row in &rows {
        let at = row.at_ms as u64;
        match (row.kind.as_str(), &row.session) {
            (queue::store::PAUSE, _) => line.pause(at),
            (queue::store::RESUME, _) => line.resume(at),
            (queue::store::CONFIG, _) => line
                .reconfigure(at, row.opens_at_ms as u64, row.admit_per_minute as u32)
                .map_err(|e| format!("{e:?}"))?,
            (_, Some(session)) => {
                line.join(at, session, row.draw.unwrap_or(0.0) as u64)
                    .map_err(|e| format!("{e:?}"))?;
            }
            _ => {
                return Err(format!(
                    "a line event of kind {:?} without its session",
                    row.kind
                ))
            }
        }
    }
    Ok(line)
}
