//! Staff endpoints, all behind `Authorization: Bearer <ADMIN_TOKEN>`.

use serde_json::json;
use worker::{Method, Request, Response, RouteContext};

use super::{now_ms, parse_json, read_body, showing_id, Handled};
use crate::api_error::ApiError;
use crate::showing::{NewShowing, NewShowingRequest};
use crate::showtime::{client, InitShowing};
use crate::{auth, db, ids};

pub async fn create_showing(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env)?;
    let body: NewShowingRequest = parse_json(&read_body(&mut req).await?)?;
    let invalid = |e: crate::showing::InvalidShowing| ApiError::new(400, "invalid_showing", e.0);
    let showing = NewShowing::parse(body).map_err(invalid)?;
    let units = showing.units().map_err(invalid)?;
    let id = ids::new_showing_id().map_err(|e| ApiError::internal(e.to_string()))?;
    let seat_count = units.names.len();
    // The object is set up first: a showing becomes visible (its D1 row)
    // only once its seats exist.
    let init = InitShowing {
        showing_id: id.clone(),
        units,
        price: showing.price.clone(),
        max_seats_per_hold: showing.max_seats_per_hold,
        hold_ttl_ms: showing.hold_ttl_ms,
        payment_cap_ms: showing.payment_cap_ms,
    };
    let created = client::call(&ctx.env, &id, Method::Post, "/init", Some(&init)).await?;
    if created.status_code() >= 300 {
        return Err(ApiError::internal(
            "the showing's seats could not be created",
        ));
    }
    let db = db::database(&ctx.env)?;
    db::insert_showing(&db, &id, &showing, seat_count, now_ms()).await?;
    Ok(Response::from_json(&json!({ "id": id }))?.with_status(201))
}

/// Seats in each state as stored, live holds, the alarm: what is tied up.
pub async fn stats(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env)?;
    let sid = showing_id(&ctx)?;
    Ok(client::call::<()>(&ctx.env, sid, Method::Get, "/stats", None).await?)
}
