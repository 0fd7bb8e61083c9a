//! Buyers changing their own order within their showing's policy, and
//! staff setting that policy. Each route parses and authorises; the
//! policy's cut-off and fee, and every refund, are the `refunds` crate's;
//! the new seats of an exchange are the new showing's object's.

use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::buyer::{card_problem, hold_named};
use crate::clock::now_ms;
use crate::db::orders as order_rows;
use crate::db::refunds as refund_rows;
use crate::network::client_address;
use crate::order_answer::{add_codes, add_order_link, note_answered_pending, order_body};
use crate::request::{param, parse_json, read_body};
use crate::showtime::client::ShowtimeClient;
use crate::{auth, db, ids, refunding};
use checkout::PublicStatus;
use desk::protocol::{CheckoutRequest, ExchangeCredit};
use desk::Code;

/// Most tickets one cancellation names (an order holds at most 10).
const MAX_CANCEL_TICKETS: usize = 10;
/// Ticket ids are 32 hex digits; anything much longer is not one.
const MAX_TICKET_ID_BYTES: usize = 64;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyQuery {
    key: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CancelBody {
    tickets: Vec<String>,
}

fn invalid(field: &str, detail: &str) -> ApiError {
    ApiError::new(Code::InvalidRequest, detail).with("field", field)
}

/// The order's link key from the query, checked: `404` for a wrong one,
/// as for an order that does not exist.
fn keyed_order(req: &Request, ctx: &RouteContext<()>) -> Result<String, ApiError> {
    let order_id = param(ctx, "oid").to_string();
    let key = req
        .query::<KeyQuery>()
        .ok()
        .and_then(|q| q.key)
        .unwrap_or_default();
    if !auth::order_key_ok(&ctx.env, &order_id, &key)? {
        return Err(ApiError::not_found("order"));
    }
    Ok(order_id)
}

/// Refuses a list of tickets that cannot be an order's.
fn check_tickets(tickets: &[String]) -> Result<(), ApiError> {
    if tickets.is_empty() || tickets.len() > MAX_CANCEL_TICKETS {
        return Err(invalid(
            "tickets",
            &format!("name 1 to {MAX_CANCEL_TICKETS} tickets of this order"),
        ));
    }
    if tickets
        .iter()
        .any(|t| t.is_empty() || t.len() > MAX_TICKET_ID_BYTES)
    {
        return Err(invalid("tickets", "a ticket id is malformed"));
    }
    Ok(())
}

/// The policy of an order's showing, its start and the time now; `404`
/// for no such order.
async fn policy_now(
    ctx: &RouteContext<()>,
    db: &worker::D1Database,
    order_id: &str,
) -> Result<(refunds::Policy, u64, u64), ApiError> {
    let (starts_at_ms, stored) = refund_rows::order_policy(db, order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let policy = refunding::policy_of(&ctx.env, stored.as_deref());
    Ok((policy, starts_at_ms, u64::try_from(now_ms()).unwrap_or(0)))
}

#[derive(Clone, Copy)]
enum Change {
    Cancel,
    Exchange,
}

/// Why the policy refuses a change now.
fn refused(closed: refunds::Closed, change: Change) -> ApiError {
    let (not_allowed, past, verb) = match change {
        Change::Cancel => (Code::NotCancellable, Code::CancelClosed, "cancelled"),
        Change::Exchange => (Code::NotExchangeable, Code::ExchangeClosed, "exchanged"),
    };
    match closed {
        refunds::Closed::NotAllowed => ApiError::new(
            not_allowed,
            format!("this showing's tickets cannot be {verb} online: ask the cinema"),
        ),
        refunds::Closed::Passed { closed_at_ms } => ApiError::new(
            past,
            format!(
                "tickets for this showing could be {verb} until shortly before it starts; that time has passed"
            ),
        )
        .with("closed_at_ms", closed_at_ms),
    }
}

/// `POST /api/orders/{oid}/cancel?key=…` `{"tickets": […]}`: the buyer
/// cancels some or all of their tickets while the showing's policy
/// allows, and gets back what they cost less the fee on each.
pub async fn cancel(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let order_id = keyed_order(&req, &ctx)?;
    let body: CancelBody = parse_json(&read_body(&mut req).await?)?;
    check_tickets(&body.tickets)?;
    let db = db::database(&ctx.env)?;
    let (policy, starts_at_ms, now) = policy_now(&ctx, &db, &order_id).await?;
    let (_, fee) = policy
        .cancel_open(starts_at_ms, now)
        .map_err(|closed| refused(closed, Change::Cancel))?;
    let asked = refunding::cancel_tickets(&ctx.env, &order_id, body.tickets, fee).await?;
    let mut answer = asked.json();
    answer["fee"] = json!(fee);
    Ok(Response::from_json(&answer)?.with_status(202))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExchangeBody {
    tickets: Vec<String>,
    /// The showing to change to, and the buyer's hold of as many seats
    /// there (its token, in this buyer's session).
    showing_id: String,
    hold: String,
    /// The card token, when the new seats cost more than the old tickets.
    #[serde(default)]
    source_id: String,
    /// Its buyer verification token, for a wallet's card.
    #[serde(default)]
    verification_token: String,
}

/// The new order's nonce: the same exchange asked again (the same order,
/// hold and card) names the same order, so it is started once.
fn exchange_nonce(order_id: &str, hold: &str, source_id: &str) -> String {
    let mut hash = Sha256::new();
    for part in [order_id, hold, source_id] {
        hash.update(part.as_bytes());
        hash.update([0u8]);
    }
    hex::encode(&hash.finalize()[..ids::ORDER_NONCE_BYTES])
}

/// `POST /api/orders/{oid}/exchange?key=…` `{"tickets": […], "showing_id",
/// "hold", "source_id"?}`: the buyer moves these tickets to the seats they
/// hold in another showing of the same film, while the policy allows. The
/// old tickets are kept for the exchange first; the new showing's object
/// sells the new seats with their worth as credit, charging the card only
/// the difference; the old tickets are void and their seats reopened only
/// once the new order is paid, and what they were worth beyond it is
/// refunded. Answers the new order as a checkout does.
pub async fn exchange(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let order_id = keyed_order(&req, &ctx)?;
    let body: ExchangeBody = parse_json(&read_body(&mut req).await?)?;
    check_tickets(&body.tickets)?;
    if let Some((field, detail)) = card_problem(&body.source_id, &body.verification_token) {
        return Err(invalid(field, detail));
    }
    let db = db::database(&ctx.env)?;
    let (policy, starts_at_ms, now) = policy_now(&ctx, &db, &order_id).await?;
    policy
        .exchange_open(starts_at_ms, now)
        .map_err(|closed| refused(closed, Change::Exchange))?;
    let order = order_rows::get_order(&db, &order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let choices = db::same_film_showings(&db, &order.showing_id, now).await?;
    if !choices.iter().any(|s| s.id == body.showing_id) {
        return Err(invalid(
            "showing_id",
            "not another showing of the same film that is still to come",
        ));
    }
    let new_showing = body.showing_id.clone();
    let hold = hold_named(&req, &ctx.env, &body.hold)?;
    let showing = ShowtimeClient::new(&ctx.env, &body.showing_id)?;
    let held = showing.get_hold(hold.clone()).await?;
    if held.seats.len() != body.tickets.len() {
        return Err(invalid(
            "hold",
            &format!(
                "hold {} seats for the {} tickets you exchange",
                body.tickets.len(),
                body.tickets.len()
            ),
        ));
    }
    let nonce = exchange_nonce(&order_id, &body.hold, &body.source_id);
    let new_order = format!("{}{nonce}", body.showing_id);
    let (kept, worth) =
        refunding::exchange_tickets(&ctx.env, &order_id, body.tickets, &new_order).await?;
    let request = CheckoutRequest {
        hold,
        source_id: body.source_id,
        verification_token: body.verification_token,
        email: order.email,
        name: order.name,
        order_nonce: nonce,
        client: client_address(&req),
        // An exchange's card pays no Square order (its credit is no discount).
        item_name: String::new(),
        exchange: Some(ExchangeCredit {
            from_order: order_id.clone(),
            credit_limit_minor: worth,
        }),
    };
    let answer = match showing.checkout(request).await {
        Ok(answer) => answer,
        Err(refused) => {
            // Nothing started: the old tickets are the buyer's again. (An
            // order the object has, from this same exchange asked before,
            // is settled by its own outcome.)
            if showing.order_status(&new_order).await?.is_none() {
                refunding::exchange_not_started(&ctx.env, &order_id, &kept).await;
            }
            return Err(refused);
        }
    };
    if answer.status == PublicStatus::Pending {
        note_answered_pending(&ctx.env, &answer.order_id).await;
    } else if let Err(e) = refunding::settle_exchange(&ctx.env, &order_id).await {
        // The object settles it too, and the sweep if both are lost.
        worker::console_error!("order {order_id}: exchange not settled yet: {e}");
    }
    let (status, mut body) = order_body(&answer);
    if body.get("tickets").is_some() {
        add_codes(&ctx.env, &new_showing, &mut body["tickets"])?;
    }
    add_order_link(&ctx.env, &answer.order_id, &mut body)?;
    body["exchanged_from"] = json!(order_id);
    body["credit"] = json!(answer.credit);
    Ok(Response::from_json(&body)?.with_status(status))
}

/// `PUT /api/admin/showings/{sid}/policy`: what buyers of this showing may
/// change themselves (`{"cancel": {"until_minutes_before": 120, "fee":
/// {"fixed": 150}} | null, "exchange": {"until_minutes_before": 60} |
/// null}`), or `null` for the cinema's. Answers the policy now in force.
pub async fn set_policy(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = param(&ctx, "sid").to_string();
    let body: Option<refunds::Policy> = parse_json(&read_body(&mut req).await?)?;
    if let Some(policy) = &body {
        policy.check().map_err(|problem| match problem {
            refunds::PolicyProblem::CutoffTooLong { field } => invalid(
                field,
                &format!(
                    "at most {} minutes (30 days) before the start",
                    refunds::MAX_CUTOFF_MINUTES
                ),
            ),
            refunds::PolicyProblem::FeeTooLarge => invalid(
                "cancel.fee",
                &format!(
                    "a fixed fee is at most {} minor units",
                    refunds::MAX_FIXED_FEE
                ),
            ),
            refunds::PolicyProblem::PercentOver100 => {
                invalid("cancel.fee", "a percentage is from 0 to 100")
            }
        })?;
    }
    let stored = body
        .as_ref()
        .map(|p| serde_json::to_string(p).map_err(|e| ApiError::internal(e.to_string())))
        .transpose()?;
    let db = db::database(&ctx.env)?;
    if !refund_rows::set_showing_policy(&db, &sid, stored.as_deref()).await? {
        return Err(ApiError::not_found("showing"));
    }
    let policy = refunding::policy_of(&ctx.env, stored.as_deref());
    Ok(Response::from_json(&json!({
        "policy": policy,
        "own": body.is_some(),
    }))?)
}

/// The policy in force for a showing, for the admin page.
pub async fn get_policy(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = param(&ctx, "sid").to_string();
    let db = db::database(&ctx.env)?;
    let (_, stored) = refund_rows::showing_policy(&db, &sid)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    let policy = refunding::policy_of(&ctx.env, stored.as_deref());
    let own: Value = json!(stored.is_some());
    Ok(Response::from_json(&json!({"policy": policy, "own": own}))?)
}
