//! Paying for a hold, reading an order, and Square's webhooks.

use serde::Deserialize;
use serde_json::json;
use worker::{Context, Env, Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::buyer::{card_problem, email_ok, hold_ref, name_ok, MAX_NAME_BYTES};
use crate::clock::now_ms;
use crate::db::mail as mail_rows;
use crate::db::orders as order_rows;
use crate::network::client_address;
use crate::order_answer::{add_codes, add_order_link, note_answered_pending, order_body};
use crate::request::{param, parse_json, read_body, showing_id};
use crate::showtime::client::ShowtimeClient;
use crate::{db, ids};
use checkout::PublicStatus;
use desk::protocol::CheckoutRequest;
use desk::Code;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckoutBody {
    /// The card token; none for a hold whose seats are all free (the
    /// showing's object says which, and refuses a paid one without).
    #[serde(default)]
    source_id: String,
    /// The buyer verification token the SDK's `verifyBuyer()` gave for
    /// a wallet's `source_id`, where Square asks for one.
    #[serde(default)]
    verification_token: String,
    email: String,
    name: String,
}

fn invalid(field: &str, detail: &str) -> ApiError {
    ApiError::new(Code::InvalidBuyer, format!("{field}: {detail}")).with("field", field)
}

impl CheckoutBody {
    fn check(self) -> Result<CheckoutBody, ApiError> {
        let email = self.email.trim().to_string();
        let name = self.name.trim().to_string();
        if !email_ok(&email) {
            return Err(invalid(
                "email",
                "give an e-mail address like name@example.com",
            ));
        }
        if name.is_empty() || !name_ok(&name) {
            return Err(invalid(
                "name",
                &format!(
                    "give a name of 1 to {MAX_NAME_BYTES} bytes, without control or invisible formatting characters"
                ),
            ));
        }
        if let Some((field, detail)) = card_problem(&self.source_id, &self.verification_token) {
            return Err(invalid(field, detail));
        }
        Ok(CheckoutBody {
            source_id: self.source_id,
            verification_token: self.verification_token,
            email,
            name,
        })
    }
}

pub async fn checkout(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?;
    let hold = hold_ref(&req, &ctx)?;
    let body: CheckoutBody = parse_json(&read_body(&mut req).await?)?;
    let body = body.check()?;
    let showing = ShowtimeClient::new(&ctx.env, sid)?;
    // A checkout without a card token is free (the object refuses it for
    // seats that cost money), so nothing but Turnstile stands between a
    // script and tickets mailed to any address. The same hold always
    // verifies under one key, so a retried checkout may send its token
    // again; one whose order has begun (its answer was lost, and the page
    // has no token left) is answered that order without a new check.
    if body.source_id.is_empty() {
        let begun = showing.get_hold(hold.clone()).await?.order_id.is_some();
        if !begun {
            let key = crate::turnstile::idempotency_uuid(
                &format!("checkout:{}", hold.buyer),
                &hold.token,
            );
            crate::turnstile::require(&req, &ctx.env, Some(key), crate::turnstile::Action::Buy)
                .await?;
        }
    }
    let item_name = match body.source_id.is_empty() {
        true => String::new(),
        false => square_item_name(&ctx.env, sid).await,
    };
    let request = CheckoutRequest {
        hold,
        item_name,
        source_id: body.source_id,
        verification_token: body.verification_token,
        email: body.email,
        name: body.name,
        order_nonce: ids::order_nonce().map_err(|e| ApiError::internal(e.to_string()))?,
        client: client_address(&req),
        exchange: None,
    };
    let order = showing.checkout(request).await?;
    if order.status == PublicStatus::Pending {
        note_answered_pending(&ctx.env, &order.order_id).await;
    }
    let (status, mut body) = order_body(&order);
    // Every answer that names an order carries its link, so the buyer can
    // always come back to it.
    if body.get("tickets").is_some() {
        add_codes(&ctx.env, sid, &mut body["tickets"])?;
    }
    if let Some(order_id) = body["order_id"].as_str().map(str::to_string) {
        add_order_link(&ctx.env, &order_id, &mut body)?;
    }
    Ok(Response::from_json(&body)?.with_status(status))
}

/// What a card payment's Square order names each seat's line item: the
/// film and its time where the cinema is. Only a name: a showing D1 cannot
/// read just now is paid for as "Ticket".
async fn square_item_name(env: &worker::Env, showing_id: &str) -> String {
    let showing = match db::database(env) {
        Ok(db) => db::title_and_start(&db, showing_id).await.ok().flatten(),
        Err(_) => None,
    };
    match (showing, crate::mail::venue(env)) {
        (Some((title, at_ms)), Ok(venue)) => format!("{title}, {}", venue.local_time(at_ms)),
        (Some((title, _)), Err(_)) => title,
        (None, _) => String::new(),
    }
}

#[derive(Deserialize)]
struct KeyQuery {
    key: Option<String>,
}

/// `GET /api/orders/{oid}?key=…`: the order as D1 records it, and its tickets.
pub async fn get(req: Request, ctx: RouteContext<()>) -> Handled {
    let order_id = param(&ctx, "oid");
    let key = req
        .query::<KeyQuery>()
        .ok()
        .and_then(|q| q.key)
        .unwrap_or_default();
    if !crate::auth::order_key_ok(&ctx.env, order_id, &key)? {
        return Err(ApiError::not_found("order"));
    }
    let db = db::database(&ctx.env)?;
    let order = order_rows::get_order(&db, order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let rows = order_rows::tickets_of(&db, order_id).await?;
    let tax = order.tax_line(&rows);
    let discount = order
        .discount(&rows)
        .map(|(code, amount)| json!({"code": code, "amount": amount}));
    let mut tickets = serde_json::to_value(rows).map_err(|e| ApiError::internal(e.to_string()))?;
    add_codes(&ctx.env, &order.showing_id, &mut tickets)?;
    for ticket in tickets.as_array_mut().into_iter().flatten() {
        crate::order_answer::add_net(ticket);
        let page = format!(
            "/tickets/{}?key={key}",
            ticket["id"].as_str().unwrap_or_default()
        );
        ticket["page_url"] = json!(page);
        let short = crate::ticket_code::short_code(ticket["id"].as_str().unwrap_or_default());
        ticket["short_code"] = json!(short);
    }
    let showing = db::get_showing(&db, &order.showing_id).await?;
    let refunds = order_rows::buyer_refunds(&db, order_id).await?;
    let changes = crate::refunding::buyer_options(&ctx.env, &db, order_id).await?;
    Ok(Response::from_json(&json!({
        "order": {
            "id": order.id,
            "status": order.status,
            "email": order.email,
            "name": order.name,
            "amount": {"amount": order.amount as u64, "currency": order.currency},
            "created_at_ms": order.created_at_ms as u64,
            "updated_at_ms": order.updated_at_ms as u64,
            "channel": order.channel,
            "card": order.card_brand.map(|brand| json!({"brand": brand, "last4": order.card_last4})),
            "credit": order.credit as u64,
            "tax": tax,
            "discount": discount,
        },
        "showing": showing,
        "tickets": tickets,
        "refunds": refunds,
        "changes": changes,
    }))?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LookupBody {
    email: String,
}

/// Order-link requests one client may make an hour.
const LOOKUPS_PER_CLIENT_HOUR: u32 = 5;
/// Order-link mails one address may get an hour.
const LOOKUPS_PER_ADDRESS_HOUR: u64 = 2;
const HOUR_MS: u64 = 3600 * 1000;

/// `POST /api/orders/lookup {"email"}`: mails the address the links of its
/// orders. Before the answer the Worker does the same work whatever the
/// address (the body, Turnstile, the client's rate); whether the address
/// bought anything is looked up after the answer (the request's
/// `waitUntil`), so neither the answer nor its time tells who did. An
/// address gets at most a couple of these mails an hour, and a client may
/// ask a few times an hour.
pub async fn order_lookup(mut req: Request, env: Env, ctx: &Context) -> worker::Result<Response> {
    match lookup_accepted(&mut req, &env).await {
        Ok((email, now)) => {
            ctx.wait_until(async move {
                if let Err(e) = mail_links(&env, &email, now).await {
                    worker::console_error!("order links: not sent: {}", e.detail);
                }
            });
            Ok(Response::from_json(&json!({
                "status": "accepted",
                "detail": "if that address has orders with us, a message with their links is on its way",
            }))?
            .with_status(202))
        }
        Err(e) => e.into_response(),
    }
}

/// Everything before the answer: the address, checked, and the time.
async fn lookup_accepted(req: &mut Request, env: &Env) -> Result<(String, u64), ApiError> {
    let body: LookupBody = parse_json(&read_body(req).await?)?;
    crate::turnstile::require(req, env, None, crate::turnstile::Action::Lookup).await?;
    let email = body.email.trim().to_lowercase();
    if !email_ok(&email) {
        return Err(invalid(
            "email",
            "give an e-mail address like name@example.com",
        ));
    }
    let db = db::database(env)?;
    let now = now_ms() as u64;
    // An IPv4 address, or the /64 of an IPv6 one.
    let client = client_address(req);
    let since = now.saturating_sub(HOUR_MS);
    if !mail_rows::note_lookup(&db, &client, since, LOOKUPS_PER_CLIENT_HOUR, now).await? {
        let mut error = ApiError::new(
            Code::RateLimited,
            "too many order-link requests from here; try again in an hour",
        );
        error.retry_after_s = Some(HOUR_MS / 1000);
        return Err(error);
    }
    Ok((email, now))
}

/// After the answer: the message with the address's order links, if it
/// has orders from the last 90 days or for showings to come and has not
/// had its mails this hour.
async fn mail_links(env: &Env, email: &str, now: u64) -> Result<(), ApiError> {
    let db = db::database(env)?;
    let since = now.saturating_sub(HOUR_MS);
    let orders =
        mail_rows::orders_of_address(&db, email, now.saturating_sub(90 * 24 * HOUR_MS), now)
            .await?;
    if orders.is_empty() {
        return Ok(());
    }
    let row_id = format!(
        "lookup:{}",
        ids::random_hex(8).map_err(|e| ApiError::internal(e.to_string()))?
    );
    if mail_rows::queue_lookup(&db, &row_id, email, since, LOOKUPS_PER_ADDRESS_HOUR, now).await? {
        crate::mail::send_row_now(env, &row_id).await;
    }
    Ok(())
}
