//! The `WaitingRoom` Durable Object: one per showing with a waiting room,
//! named by the showing id, and apart from the showing's own object so a
//! rush of people joining the line takes nothing of the capacity holds
//! need. It is a shell around a [`queue::Line`], which decides every
//! place: each join is one row (who, when, their random draw), as is each
//! time the showing sold out or seats came back or staff changed its rate
//! or opening, and the line is rebuilt
//! by replaying them in order, which gives every session the same place
//! and the cursor the same position again.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::{wasm_bindgen, JsValue};
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, SqlStorageValue, State,
};

use crate::api_error::ApiError;

/// What the Worker asks: put `session` in line (or say where it stands).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Join {
    pub session: String,
    pub opens_at_ms: u64,
    pub admit_per_minute: u32,
    /// The showing has no free seat and no hold that could lapse: the line
    /// stands still until seats come back.
    pub sold_out: bool,
    /// A fresh random draw, used if the session joins before the opening;
    /// 48 bits of it count ([`DRAW_MASK`]), which storage keeps exactly.
    pub draw: u64,
    pub now_ms: u64,
}

/// The answer: where the session stands.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Joined {
    pub standing: queue::Standing,
    pub new: bool,
    pub sold_out: bool,
    /// The cursor as it stands, for the Worker to answer placed buyers
    /// from for a second.
    pub clock: queue::Clock,
}

/// The bits of a draw that count: rows come back from storage as JSON
/// numbers, exact up to 2^53.
pub const DRAW_MASK: u64 = (1 << 48) - 1;

#[durable_object]
pub struct WaitingRoom {
    state: State,
    /// `None` until the first request replays the joins.
    line: RefCell<Option<queue::Line>>,
}

impl DurableObject for WaitingRoom {
    fn new(state: State, _env: Env) -> Self {
        WaitingRoom {
            state,
            line: RefCell::new(None),
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
    /// Answers `Result<Joined, String>` as JSON text.
    pub async fn join(&self, request: String) -> std::result::Result<JsValue, JsValue> {
        let answer = serde_json::from_str::<Join>(&request)
            .map_err(|e| e.to_string())
            .and_then(|join| self.decide(join));
        serde_json::to_string(&answer)
            .map(JsValue::from)
            .map_err(|e| JsValue::from_str(&e.to_string()))
    }
}

impl WaitingRoom {
    fn decide(&self, join: Join) -> std::result::Result<Joined, String> {
        let sql = self.state.storage().sql();
        let mut line = self.line.borrow_mut();
        if line.is_none() {
            *line = Some(replay(&sql)?);
        }
        // The first join sets the line's opening and rate. Each join
        // passes the showing's as saved now, so a change staff make during
        // the rush is taken up (and kept as an event) on the next join.
        let line = line.as_mut().expect("loaded above");
        let mut changed = false;
        if line.is_empty() {
            *line = queue::Line::new(join.opens_at_ms, join.admit_per_minute)
                .map_err(|e| format!("{e:?}"))?;
        } else if line.config().1 != join.admit_per_minute
            || (line.config().0 != join.opens_at_ms && !line.has_opened(join.now_ms))
        {
            line.reconfigure(join.now_ms, join.opens_at_ms, join.admit_per_minute)
                .map_err(|e| format!("{e:?}"))?;
            changed = true;
        }
        let (opens_at_ms, rate) = line.config();
        let record = |kind: &str, session: Option<&str>, draw: Option<u64>| {
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
                    SqlStorageValue::Integer(join.now_ms as i64),
                    draw.map_or(SqlStorageValue::Null, |d| {
                        SqlStorageValue::Integer(d as i64)
                    }),
                    SqlStorageValue::Integer(opens_at_ms as i64),
                    SqlStorageValue::Integer(i64::from(rate)),
                ]),
            )
            .map(|_| ())
            .map_err(|e| e.to_string())
        };
        if changed {
            record(queue::store::CONFIG, None, None)?;
        }
        // Sold out (no free seat, no hold that could lapse): the line
        // stands still until seats come back. Kept as events, so a
        // restart rebuilds the same cursor.
        if join.sold_out && !line.is_paused() {
            line.pause(join.now_ms);
            record(queue::store::PAUSE, None, None)?;
        } else if !join.sold_out && line.is_paused() {
            line.resume(join.now_ms);
            record(queue::store::RESUME, None, None)?;
        }
        let draw = join.draw & DRAW_MASK;
        let joined = line
            .join(join.now_ms, &join.session, draw)
            .map_err(|e| format!("{e:?}"))?;
        if joined.new {
            record(queue::store::JOIN, Some(&join.session), Some(draw))?;
        }
        Ok(Joined {
            standing: joined.standing,
            new: joined.new,
            sold_out: line.is_paused(),
            clock: line.clock().clone(),
        })
    }
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
