//! Films and screens: staff keep them once and showings refer to them. An
//! edit carries over to the showings yet to start that have had no order
//! (a film's title; a screen's layout), never to one that has.

use serde_json::json;
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::catalog::{FilmRequest, ScreenRequest};
use crate::clock::now_ms;
use crate::db::catalog as rows;
use crate::request::{param, parse_json, read_body};
use crate::showing_edit::resave;
use crate::{auth, db, ids};
use desk::Code;

fn invalid(detail: String) -> ApiError {
    ApiError::new(Code::InvalidCatalog, detail)
}

/// A film or screen id: 16 hex characters, as made here.
fn catalog_id(ctx: &RouteContext<()>, name: &str) -> Result<String, ApiError> {
    let id = param(ctx, name);
    if id.len() != 16 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ApiError::not_found(if name == "fid" {
            "film"
        } else {
            "screen"
        }));
    }
    Ok(id.to_string())
}

fn new_id() -> Result<String, ApiError> {
    ids::random_hex(8).map_err(|e| ApiError::internal(e.to_string()))
}

/// `POST /api/admin/films`: answers `{"id"}`.
pub async fn create_film(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let body: FilmRequest = parse_json(&read_body(&mut req).await?)?;
    let film = body.check().map_err(invalid)?;
    let id = new_id()?;
    rows::put_film(&db::database(&ctx.env)?, &id, &film, now_ms() as u64).await?;
    Ok(Response::from_json(&json!({ "id": id }))?.with_status(201))
}

/// `PUT /api/admin/films/{fid}`: a new title carries over to the film's
/// showings that have sold nothing; answers which.
pub async fn update_film(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let id = catalog_id(&ctx, "fid")?;
    let body: FilmRequest = parse_json(&read_body(&mut req).await?)?;
    let film = body.check().map_err(invalid)?;
    let db = db::database(&ctx.env)?;
    rows::film(&db, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("film"))?;
    rows::put_film(&db, &id, &film, now_ms() as u64).await?;
    let unsold = rows::unsold_showings_of(&db, "film_id", &id, now_ms()).await?;
    for sid in &unsold {
        rows::retitle(&db, sid, &film.title).await?;
    }
    Ok(Response::from_json(
        &json!({ "id": id, "showings_updated": unsold }),
    )?)
}

/// `GET /api/admin/films`.
pub async fn list_films(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let films = rows::films(&db::database(&ctx.env)?).await?;
    Ok(Response::from_json(&json!({ "films": films }))?)
}

/// `POST /api/admin/screens`: answers `{"id"}`.
pub async fn create_screen(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let body: ScreenRequest = parse_json(&read_body(&mut req).await?)?;
    let screen = body.check().map_err(invalid)?;
    let id = new_id()?;
    rows::put_screen(&db::database(&ctx.env)?, &id, &screen, now_ms() as u64).await?;
    Ok(
        Response::from_json(&json!({ "id": id, "seat_count": screen.seat_count }))?
            .with_status(201),
    )
}

/// `PUT /api/admin/screens/{scid}`: a new layout carries over to the
/// screen's showings yet to start that have had no order and hold no seat;
/// answers those changed and those kept as they were.
pub async fn update_screen(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let id = catalog_id(&ctx, "scid")?;
    let body: ScreenRequest = parse_json(&read_body(&mut req).await?)?;
    let screen = body.check().map_err(invalid)?;
    let db = db::database(&ctx.env)?;
    rows::screen(&db, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("screen"))?;
    rows::put_screen(&db, &id, &screen, now_ms() as u64).await?;
    let mut updated = Vec::new();
    let mut kept = Vec::new();
    for sid in rows::unsold_showings_of(&db, "screen_id", &id, now_ms()).await? {
        match resave(&ctx.env, &sid, Some(&screen.layout)).await {
            Ok(true) => updated.push(sid),
            Ok(false) => kept.push(sid),
            Err(e) => {
                worker::console_error!("screen {id}: showing {sid} kept its layout: {}", e.detail);
                kept.push(sid);
            }
        }
    }
    Ok(Response::from_json(&json!({
        "id": id, "showings_updated": updated, "showings_kept": kept
    }))?)
}

/// `GET /api/admin/screens`.
pub async fn list_screens(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let screens = rows::screens(&db::database(&ctx.env)?).await?;
    Ok(Response::from_json(&json!({ "screens": screens }))?)
}
