//! The benchmark's floors (`npm run bench`): `POST
//! /api/bench/showings/{id}/noop` and `…/write` reach the showing's object
//! the way a hold does, so the hold path can be compared with them in the
//! same run; `…/hold-worker` is a hold's Worker half (the router sends it
//! to `showings::bench_hold_worker_half` once [`enabled`] lets it). Off
//! unless the `SHOWTIME_BENCH` var is "1"; otherwise they are unknown
//! routes.

use worker::RouteContext;

use crate::api_error::{ApiError, Handled};
use crate::request::showing_id;
use crate::showtime::client::ShowtimeClient;

pub async fn noop(ctx: RouteContext<()>) -> Handled {
    floor(ctx, false).await
}

pub async fn write(ctx: RouteContext<()>) -> Handled {
    floor(ctx, true).await
}

/// A request the Worker answers alone, without any object: what a request
/// costs the runtime before the product does anything.
pub async fn worker(ctx: RouteContext<()>) -> Handled {
    enabled(&ctx)?;
    Ok(worker::Response::from_json(
        &serde_json::json!({ "ok": true }),
    )?)
}

/// Refuses as an unknown route unless `SHOWTIME_BENCH` is "1".
pub(super) fn enabled(ctx: &RouteContext<()>) -> Result<(), ApiError> {
    let on = ctx
        .env
        .var("SHOWTIME_BENCH")
        .is_ok_and(|v| v.to_string() == "1");
    if on {
        Ok(())
    } else {
        Err(ApiError::not_found("route"))
    }
}

async fn floor(ctx: RouteContext<()>, write: bool) -> Handled {
    enabled(&ctx)?;
    let sid = showing_id(&ctx)?;
    ShowtimeClient::new(&ctx.env, sid)?.bench(write).await?;
    Ok(worker::Response::from_json(
        &serde_json::json!({ "ok": true }),
    )?)
}
