//! Refunds staff ask for here, and the tickets they say a partial refund
//! from the Square Dashboard covers. Each route parses and authorises;
//! every decision is the `refunds` machine's (`crate::refunding`).

use serde::Deserialize;
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::request::{param, parse_json, read_body};
use crate::showtime::client::code_uses;
use crate::{auth, db, refunding};

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RefundBody {
    ticket_ids: Option<Vec<String>>,
    /// Staff give the order's use of a limited discount code back, so
    /// another buyer (or this one) may use it.
    #[serde(default)]
    return_code_use: bool,
}

/// `POST /api/admin/orders/{oid}/refund`, optionally `{"ticket_ids": […],
/// "return_code_use": true}`; answers the refund, and with
/// `return_code_use`, whether a use came back (`code_use_returned`).
pub async fn refund_order(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let order_id = param(&ctx, "oid").to_string();
    let bytes = read_body(&mut req).await?;
    let body: RefundBody = if bytes.is_empty() {
        RefundBody::default()
    } else {
        parse_json(&bytes)?
    };
    let asked = refunding::refund_tickets(&ctx.env, &order_id, body.ticket_ids).await?;
    let mut answer = asked.json();
    if body.return_code_use {
        answer["code_use_returned"] = return_code_use(&ctx.env, &order_id).await?.into();
    }
    Ok(Response::from_json(&answer)?.with_status(202))
}

/// Gives the order's use of its limited code back to the code's object;
/// false when it had none, or it was given back before.
async fn return_code_use(env: &worker::Env, order_id: &str) -> Result<bool, ApiError> {
    let db = db::database(env)?;
    let Some(order) = db::orders::get_order(&db, order_id).await? else {
        return Ok(false);
    };
    let Some(code) = order.discount_code else {
        return Ok(false);
    };
    let give_back = uses::Request::Return {
        order_id: order_id.to_string(),
    };
    Ok(code_uses(env, &code, &give_back).await?.is_ok())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChosenTickets {
    ticket_ids: Vec<String>,
}

/// `POST /api/admin/refunds/{rid}/tickets` `{"ticket_ids": […]}`: staff say
/// which tickets a partial refund from the Square Dashboard covers (none,
/// for money back on tickets that stay valid). Once it has completed, they
/// are voided and their seats reopen, as for any refund.
pub async fn choose_tickets(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let refund_id = param(&ctx, "rid").to_string();
    let body: ChosenTickets = parse_json(&read_body(&mut req).await?)?;
    let db = db::database(&ctx.env)?;
    let chosen = refunding::choose_tickets(&ctx.env, &db, &refund_id, body.ticket_ids).await?;
    Ok(Response::from_json(&serde_json::json!({
        "refund_id": chosen.refund_id, "status": chosen.status, "ticket_ids": chosen.ticket_ids
    }))?)
}
