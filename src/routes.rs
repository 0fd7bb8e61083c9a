//! The public HTTP API. Each handler parses and checks its input, then asks
//! D1 or the showing's object; every refusal is an [`ApiError`] body.

use serde::de::DeserializeOwned;
use serde_json::json;
use worker::{Date, Env, Method, Request, Response, Result, RouteContext, Router};

use crate::api_error::ApiError;
use crate::showing::{NewShowing, NewShowingRequest};
use crate::showtime::{client, InitShowing};
use crate::{auth, db, ids};

/// Request bodies larger than this are refused before parsing: nothing the
/// API accepts comes close (the largest is a 20,000-seat layout).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

type Handled = std::result::Result<Response, ApiError>;

pub async fn handle(req: Request, env: Env) -> Result<Response> {
    let resp = Router::new()
        .get_async("/api/health", |_, ctx| respond(health(ctx)))
        .get_async("/api/showings", |_, ctx| respond(list_showings(ctx)))
        .get_async("/api/showings/:sid", |_, ctx| respond(get_showing(ctx)))
        .get_async("/api/showings/:sid/seats", |_, ctx| respond(get_seats(ctx)))
        .post_async("/api/admin/showings", |req, ctx| {
            respond(create_showing(req, ctx))
        })
        .or_else_any_method_async("/*path", |_, _| async {
            ApiError::not_found("route").into_response()
        })
        .run(req, env)
        .await?;
    // The router answers a known path with the wrong method in plain text;
    // keep every error in the API's JSON shape.
    if resp.status_code() == 405 {
        return ApiError::new(405, "method_not_allowed", "this path does not take that method")
            .into_response();
    }
    Ok(resp)
}

async fn respond(handled: impl std::future::Future<Output = Handled>) -> Result<Response> {
    handled.await.or_else(ApiError::into_response)
}

fn now_ms() -> i64 {
    Date::now().as_millis() as i64
}

fn param<'a>(ctx: &'a RouteContext<()>, name: &str) -> &'a str {
    // The router only calls a handler when every named parameter matched.
    ctx.param(name).map(String::as_str).unwrap_or_default()
}

/// Reads a JSON body of at most [`MAX_BODY_BYTES`], saying what was wrong.
async fn read_json<T: DeserializeOwned>(req: &mut Request) -> std::result::Result<T, ApiError> {
    let declared = req
        .headers()
        .get("content-length")?
        .and_then(|v| v.parse::<usize>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES) {
        return Err(ApiError::body_too_large(MAX_BODY_BYTES));
    }
    let bytes = req.bytes().await?;
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::body_too_large(MAX_BODY_BYTES));
    }
    serde_json::from_slice(&bytes).map_err(|e| ApiError::bad_json(e.to_string()))
}

/// Answers when the Worker, D1 and the object binding are all reachable.
async fn health(ctx: RouteContext<()>) -> Handled {
    let db = db::database(&ctx.env)?;
    let showings = db::upcoming_showings(&db, i64::MIN).await?.len();
    ctx.env.durable_object("SHOWTIME")?;
    Ok(Response::from_json(&json!({ "ok": true, "showings": showings }))?)
}

async fn list_showings(ctx: RouteContext<()>) -> Handled {
    let db = db::database(&ctx.env)?;
    let showings = db::upcoming_showings(&db, now_ms()).await?;
    Ok(Response::from_json(&json!({ "showings": showings }))?)
}

async fn get_showing(ctx: RouteContext<()>) -> Handled {
    let sid = param(&ctx, "sid");
    let db = db::database(&ctx.env)?;
    let showing = db::get_showing(&db, sid)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    let mut seats = client::call::<()>(&ctx.env, sid, Method::Get, "/seats", None).await?;
    let availability: serde_json::Value = seats.json().await?;
    Ok(Response::from_json(
        &json!({ "showing": showing, "availability": availability }),
    )?)
}

async fn get_seats(ctx: RouteContext<()>) -> Handled {
    let sid = param(&ctx, "sid");
    Ok(client::call::<()>(&ctx.env, sid, Method::Get, "/seats", None).await?)
}

async fn create_showing(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env)?;
    let body: NewShowingRequest = read_json(&mut req).await?;
    let showing = NewShowing::parse(body)
        .map_err(|e| ApiError::new(400, "invalid_showing", e.0))?;
    let units = showing
        .units()
        .map_err(|e| ApiError::new(400, "invalid_showing", e.0))?;
    let id = ids::new_showing_id().map_err(|e| ApiError::internal(e.to_string()))?;
    let seat_count = units.names.len();
    // The object is set up first: a showing becomes visible (its D1 row)
    // only once its seats exist.
    let init = InitShowing {
        showing_id: id.clone(),
        units,
        max_seats_per_hold: showing.max_seats_per_hold,
        hold_ttl_ms: showing.hold_ttl_ms,
    };
    let created = client::call(&ctx.env, &id, Method::Post, "/init", Some(&init)).await?;
    if created.status_code() >= 300 {
        return Err(ApiError::internal("the showing's seats could not be created"));
    }
    let db = db::database(&ctx.env)?;
    db::insert_showing(&db, &id, &showing, seat_count, now_ms()).await?;
    Ok(Response::from_json(&json!({ "id": id }))?.with_status(201))
}
