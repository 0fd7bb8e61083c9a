//! Discount codes staff define, list, pause and resume.

use serde_json::{json, Value};
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::clock::now_ms;
use crate::db::codes as rows;
use crate::discount_code::{normalized, CodeRequest};
use crate::request::{param, parse_json, read_body};
use crate::showtime::client::code_uses;
use crate::{auth, db};
use desk::Code;

/// `POST /api/admin/codes`: answers the code as stored, `409 code_exists`
/// for a code already defined (in any case).
pub async fn create(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let body: CodeRequest = parse_json(&read_body(&mut req).await?)?;
    let code = body
        .check()
        .map_err(|detail| ApiError::new(Code::InvalidDiscountCode, detail))?;
    if !rows::insert(&db::database(&ctx.env)?, &code, now_ms() as u64).await? {
        return Err(ApiError::new(
            Code::CodeExists,
            format!(
                "{} is a code already; pause it, or choose another",
                code.code
            ),
        ));
    }
    Ok(Response::from_json(&json!({ "code": code }))?.with_status(201))
}

/// A stored row as the API shows it: the JSON columns read back.
fn shown(mut row: Value) -> Value {
    for (column, field) in [
        ("off_json", "off"),
        ("showings_json", "showings"),
        ("films_json", "films"),
        ("categories_json", "categories"),
    ] {
        let text = row[column].as_str().unwrap_or("null").to_string();
        row[field] = serde_json::from_str(&text).unwrap_or(Value::Null);
        if let Some(fields) = row.as_object_mut() {
            fields.remove(column);
        }
    }
    row["box_office_only"] = json!(row["box_office_only"] == 1);
    row
}

/// `GET /api/admin/codes`.
pub async fn list(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let codes: Vec<Value> = rows::list(&db::database(&ctx.env)?)
        .await?
        .into_iter()
        .map(shown)
        .collect();
    Ok(Response::from_json(&json!({ "codes": codes }))?)
}

/// `GET /api/admin/codes/{code}`: the code with its `uses`: `paid` (orders
/// sold with it), `on_holds` (a limited code's uses reserved by holds or
/// being paid for, from its object), `left` (a limited code's uses
/// free) and `discounted_minor` (what it took off in all).
pub async fn get(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let name = normalized(param(&ctx, "code")).ok_or_else(|| ApiError::not_found("code"))?;
    let db = db::database(&ctx.env)?;
    let stored = rows::get(&db, &name)
        .await?
        .ok_or_else(|| ApiError::not_found("code"))?;
    let sold = rows::sold_with(&db, &name).await?;
    let mut uses = json!({"paid": sold.orders, "discounted_minor": sold.discounted_minor});
    if stored.code.limited() {
        let counts = match code_uses(&ctx.env, &name, &uses::Request::Count).await? {
            Ok(uses::Reply::Counts(counts)) => counts,
            other => return Err(ApiError::internal(format!("the code's object: {other:?}"))),
        };
        let standing = counts.reserved + counts.held + counts.committed;
        uses["on_holds"] = json!(counts.reserved + counts.held);
        uses["committed"] = json!(counts.committed);
        if let Some(max) = stored.code.max_uses {
            uses["left"] = json!(max.saturating_sub(standing));
        }
    }
    Ok(Response::from_json(&json!({
        "code": stored.code,
        "paused": stored.paused,
        "uses": uses,
    }))?)
}

/// `POST /api/admin/codes/{code}/pause` and `…/resume`.
pub async fn pause(req: Request, ctx: RouteContext<()>) -> Handled {
    set_paused(req, ctx, true).await
}

pub async fn resume(req: Request, ctx: RouteContext<()>) -> Handled {
    set_paused(req, ctx, false).await
}

async fn set_paused(req: Request, ctx: RouteContext<()>, paused: bool) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let code = normalized(param(&ctx, "code")).ok_or_else(|| ApiError::not_found("code"))?;
    let at = paused.then(|| now_ms() as u64);
    if !rows::set_paused(&db::database(&ctx.env)?, &code, at).await? {
        return Err(ApiError::not_found("code"));
    }
    Ok(Response::from_json(
        &json!({ "code": code, "paused_at_ms": at }),
    )?)
}
