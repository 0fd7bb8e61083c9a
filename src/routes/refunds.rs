//! Refunds staff ask for here, and the tickets they say a partial refund
//! from the Square Dashboard covers. Each route parses and authorises;
//! every decision is the `refunds` machine's (`crate::refunding`).

use serde::Deserialize;
use worker::{Request, Response, RouteContext};

use crate::api_error::Handled;
use crate::request::{param, parse_json, read_body};
use crate::{auth, db, refunding};

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RefundBody {
    ticket_ids: Option<Vec<String>>,
}

/// `POST /api/admin/orders/{oid}/refund`, optionally `{"ticket_ids": […]}`.
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
    Ok(Response::from_json(&asked.json())?.with_status(202))
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
