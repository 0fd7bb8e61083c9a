//! The benchmark's two floors, answered by the object itself so that they
//! take the same path as a hold (Worker, stub, object): a request that does
//! nothing, and one that makes a single storage write. The Worker only
//! forwards them when `SHOWTIME_BENCH` is "1"; `npm run bench` compares the
//! hold path with them.

use serde_json::json;
use worker::{Response, SqlStorage};

use super::store;
use super::Handled;
use crate::api_error::ApiError;

pub fn answer(sql: &SqlStorage, path: &str) -> Handled {
    match path {
        "/bench/noop" => Ok(Response::from_json(&json!({ "ok": true }))?),
        "/bench/write" => {
            store::bench_write(sql)?;
            Ok(Response::from_json(&json!({ "ok": true }))?)
        }
        _ => Err(ApiError::not_found("route")),
    }
}
