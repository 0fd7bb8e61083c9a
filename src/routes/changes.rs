//! Buyers changing their own order within their showing's policy, and
//! staff setting that policy. Each route parses and authorises; the
//! policy's cut-off and fee, and every refund, are the `refunds` crate's.

use serde::Deserialize;
use serde_json::{json, Value};
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::clock::now_ms;
use crate::db::refunds as refund_rows;
use crate::request::{param, parse_json, read_body};
use crate::{auth, db, refunding};
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

/// `POST /api/orders/{oid}/cancel?key=…` `{"tickets": […]}`: the buyer
/// cancels some or all of their tickets while the showing's policy
/// allows, and gets back what they cost less the fee on each.
pub async fn cancel(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let order_id = param(&ctx, "oid").to_string();
    let key = req
        .query::<KeyQuery>()
        .ok()
        .and_then(|q| q.key)
        .unwrap_or_default();
    if !auth::order_key_ok(&ctx.env, &order_id, &key)? {
        return Err(ApiError::not_found("order"));
    }
    let body: CancelBody = parse_json(&read_body(&mut req).await?)?;
    if body.tickets.is_empty() || body.tickets.len() > MAX_CANCEL_TICKETS {
        return Err(invalid(
            "tickets",
            &format!("name 1 to {MAX_CANCEL_TICKETS} tickets of this order"),
        ));
    }
    if body
        .tickets
        .iter()
        .any(|t| t.is_empty() || t.len() > MAX_TICKET_ID_BYTES)
    {
        return Err(invalid("tickets", "a ticket id is malformed"));
    }
    let db = db::database(&ctx.env)?;
    let (starts_at_ms, stored) = refund_rows::order_policy(&db, &order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let policy = refunding::policy_of(&ctx.env, stored.as_deref());
    let now = u64::try_from(now_ms()).unwrap_or(0);
    let (_, fee) = policy.cancel_open(starts_at_ms, now).map_err(|closed| match closed {
        refunds::Closed::NotAllowed => ApiError::new(
            Code::NotCancellable,
            "this showing's tickets cannot be cancelled online: ask the cinema",
        ),
        refunds::Closed::Passed { closed_at_ms } => ApiError::new(
            Code::CancelClosed,
            "tickets for this showing could be cancelled until shortly before it starts; that time has passed",
        )
        .with("closed_at_ms", closed_at_ms),
    })?;
    let asked = refunding::cancel_tickets(&ctx.env, &order_id, body.tickets, fee).await?;
    let mut answer = asked.json();
    answer["fee"] = json!(fee);
    Ok(Response::from_json(&answer)?.with_status(202))
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
