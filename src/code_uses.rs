//! The `CodeUses` Durable Object: one per limited discount code, named by
//! the code, which decides every use of it (`uses::Uses`) the way a
//! showing's object decides its seats: one request at a time, each
//! change written before it is answered. A code is used across showings
//! and films, so its uses cannot live in any one showing's object; and a
//! rush on a code ("the first 50") then queues here, not on a showing.

use std::cell::RefCell;

use serde::Deserialize;
use wasm_bindgen::prelude::{wasm_bindgen, JsValue};
use worker::{
    durable_object, DurableObject, Env, Request, Response, Result, SqlStorageValue, State,
};

use crate::api_error::ApiError;
use crate::clock::now_ms;

#[durable_object]
pub struct CodeUses {
    state: State,
    /// `None` until the first request reads the rows.
    uses: RefCell<Option<uses::Uses>>,
}

impl DurableObject for CodeUses {
    fn new(state: State, _env: Env) -> Self {
        CodeUses {
            state,
            uses: RefCell::new(None),
        }
    }

    async fn fetch(&self, _req: Request) -> Result<Response> {
        ApiError::not_found("route").into_response()
    }
}

#[derive(Deserialize)]
struct UseRow {
    record: String,
}

#[wasm_bindgen]
impl CodeUses {
    /// Answers `Result<Result<uses::Reply, uses::Refused>, String>` as
    /// JSON text: the outer error is storage's.
    pub async fn uses(&self, request: String) -> std::result::Result<JsValue, JsValue> {
        let answer = match serde_json::from_str::<uses::Request>(&request) {
            Ok(request) => self.decide(request),
            Err(e) => Err(e.to_string()),
        };
        serde_json::to_string(&answer)
            .map(JsValue::from)
            .map_err(|e| JsValue::from_str(&e.to_string()))
    }
}

impl CodeUses {
    /// Decides and writes, with no `await` between: the next request sees
    /// this one's uses.
    fn decide(
        &self,
        request: uses::Request,
    ) -> std::result::Result<std::result::Result<uses::Reply, uses::Refused>, String> {
        let sql = self.state.storage().sql();
        let mut slot = self.uses.borrow_mut();
        if slot.is_none() {
            *slot = Some(load(&sql)?);
        }
        let uses = slot.as_mut().expect("loaded above");
        let (answer, changes) = uses.decide(now_ms().max(0) as u64, request);
        let written = changes.iter().try_for_each(|change| {
            let (statement, args) = match change {
                uses::Change::Put(u) => (
                    uses::store::PUT,
                    vec![
                        SqlStorageValue::String(u.key.clone()),
                        SqlStorageValue::String(
                            serde_json::to_string(u).map_err(|e| e.to_string())?,
                        ),
                    ],
                ),
                uses::Change::Gone { key } => (
                    uses::store::DELETE,
                    vec![SqlStorageValue::String(key.clone())],
                ),
            };
            sql.exec(statement, Some(args))
                .map(|_| ())
                .map_err(|e| e.to_string())
        });
        if let Err(e) = written {
            // Memory may be ahead of storage: read the rows again next time.
            slot.take();
            return Err(e);
        }
        Ok(answer)
    }
}

fn load(sql: &worker::SqlStorage) -> std::result::Result<uses::Uses, String> {
    sql.exec(uses::store::SCHEMA, None)
        .map_err(|e| e.to_string())?;
    let rows: Vec<UseRow> = sql
        .exec(uses::store::SELECT, None)
        .and_then(|cursor| cursor.to_array())
        .map_err(|e| e.to_string())?;
    let uses = rows
        .iter()
        .map(|row| serde_json::from_str::<uses::Use>(&row.record).map_err(|e| e.to_string()))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(uses::Uses::restore(uses))
}
