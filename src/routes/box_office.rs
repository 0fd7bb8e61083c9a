//! The box office: staff sell or give seats from the admin seat map. The
//! showing's object holds the seats and starts their order at once; the
//! answer carries the tickets to show or print at the desk.

use serde::Deserialize;
use serde_json::json;
use worker::{Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::buyer::{email_ok, name_ok};
use crate::order_answer::{add_codes, order_body};
use crate::request::{parse_json, read_body, showing_id};
use crate::sale_code::{open_code, reserve, terms, Channel};
use crate::showtime::client::ShowtimeClient;
use crate::{auth, ids};
use desk::protocol::{BoxOfficeSale, DeskPayment, PaidAtDesk};
use desk::Code;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SaleBody {
    seats: Vec<String>,
    #[serde(default)]
    prices: std::collections::BTreeMap<String, String>,
    /// `cash`, `card_at_desk`, `comp`, or `channel` (from an allocation).
    paid: PaidAtDesk,
    /// The allocation a channel's tickets are issued from.
    allocation: Option<String>,
    /// Why a comp was given; only a comp has one.
    reason: Option<String>,
    #[serde(default)]
    name: String,
    #[serde(default)]
    email: String,
    /// A discount code the buyer gave at the desk.
    code: Option<String>,
}

fn invalid(detail: impl Into<String>) -> ApiError {
    ApiError::new(Code::InvalidSale, detail)
}

/// `GET /api/admin/showings/{sid}/best?count=3&accessible=true`: the
/// seats best available would pick at the counter now, for staff to
/// adjust on the map before they sell; nothing is held.
pub async fn best(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let url = req.url()?;
    let (mut count, mut accessible, mut zone) = (None, false, None);
    for (key, value) in url.query_pairs() {
        match key.as_ref() {
            "count" => count = value.parse::<u32>().ok(),
            "accessible" => accessible = value == "true",
            "zone" => zone = Some(value.into_owned()),
            _ => {}
        }
    }
    let count = count.ok_or_else(|| {
        ApiError::new(
            Code::InvalidRequest,
            "count: how many seats, a whole number",
        )
        .with("field", "count")
    })?;
    let best = desk::protocol::BestHold {
        count,
        together: zone.is_none(),
        accessible,
        categories: Default::default(),
        zone,
    };
    let seats = ShowtimeClient::new(&ctx.env, &sid)?
        .best_seats(best)
        .await?;
    Ok(Response::from_json(&json!({ "seats": seats }))?)
}

/// `POST /api/admin/showings/{sid}/box-office` `{"seats", "prices"?,
/// "paid", "reason"?, "name"?, "email"?, "code"?}`: the seats are sold (or
/// given) at once; answers the order with its tickets, codes and link. A
/// discount code is refused as online, but for `box_office_only`; one
/// limited per buyer needs the buyer's address.
pub async fn sell(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let body: SaleBody = parse_json(&read_body(&mut req).await?)?;
    desk::bounds::check_seat_request(&body.seats, &body.prices)?;
    let name = body.name.trim().to_string();
    let email = body.email.trim().to_string();
    if !name_ok(&name) {
        return Err(invalid(format!(
            "name: at most {} bytes of text, without control or invisible formatting characters",
            checkout::MAX_BUYER_NAME_BYTES
        )));
    }
    if !email.is_empty() && !email_ok(&email) {
        return Err(invalid("email: an address like name@example.com, or none"));
    }
    let random = |bytes| ids::random_hex(bytes).map_err(|e| ApiError::internal(e.to_string()));
    let token = random(16)?;
    let code = match &body.code {
        Some(text) => Some(desk_code(&ctx.env, &sid, text, &email, &token).await?),
        None => None,
    };
    let sale = BoxOfficeSale {
        seats: body.seats,
        prices: body.prices,
        payment: DeskPayment {
            paid: body.paid,
            reason: body.reason,
        },
        name,
        email,
        token,
        order_nonce: random(ids::ORDER_NONCE_BYTES)?,
        allocation: body.allocation,
        code,
    };
    let order = ShowtimeClient::new(&ctx.env, &sid)?
        .box_office(sale)
        .await?;
    let (status, mut body) = order_body(&order);
    if body.get("tickets").is_some() {
        add_codes(&ctx.env, &sid, &mut body["tickets"])?;
    }
    if let Some(order_id) = body["order_id"].as_str().map(str::to_string) {
        let key = auth::order_key(&ctx.env, &order_id)?;
        // The buyer's own pages, to show or print at the desk.
        body["order_page"] = json!(format!("/orders/{order_id}?key={key}"));
        if let Some(tickets) = body["tickets"].as_array_mut() {
            for ticket in tickets {
                let id = ticket["id"].as_str().unwrap_or_default().to_string();
                ticket["page_url"] = json!(format!("/tickets/{id}?key={key}"));
            }
        }
    }
    Ok(Response::from_json(&body)?.with_status(status))
}

/// The code a buyer gave at the desk, open for this showing, with a use
/// reserved for the sale when it is limited.
async fn desk_code(
    env: &worker::Env,
    sid: &str,
    text: &str,
    email: &str,
    token: &str,
) -> Result<desk::protocol::CodeTerms, ApiError> {
    let db = crate::db::database(env)?;
    let showing = crate::db::get_showing(&db, sid)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    let now = crate::clock::now_ms() as u64;
    let code = open_code(&db, text, &showing, Channel::BoxOffice, now)
        .await?
        .ok_or_else(|| ApiError::new(Code::UnknownCode, "there is no such discount code"))?;
    // Without an address, the sale counts for itself alone.
    let buyer = match email.is_empty() {
        false => email.to_lowercase(),
        true if code.max_uses_per_buyer.is_some() => {
            return Err(invalid(format!(
                "{} is limited per buyer: take the buyer's e-mail address",
                code.code
            )))
        }
        true => format!("box office {token}"),
    };
    reserve(env, &code, sid, token, &buyer, now).await?;
    Ok(terms(&code))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AllocationBody {
    name: String,
    seats: Vec<String>,
    /// The cinema's local time (or one with its offset), as `starts_at`.
    release_at: String,
}

/// `POST /api/admin/showings/{sid}/allocations` `{"name", "seats",
/// "release_at"}`: the seats go to another channel until `release_at`,
/// when those it has not been issued tickets for return to sale.
pub async fn allocate(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let body: AllocationBody = parse_json(&read_body(&mut req).await?)?;
    let name = desk::allocations::check_name(&body.name)?.to_string();
    let venue = crate::mail::venue(&ctx.env).map_err(ApiError::internal)?;
    let release_at_ms = venue
        .parse_local(body.release_at.trim())
        .ok()
        .and_then(|ms| u64::try_from(ms).ok())
        .ok_or_else(|| {
            ApiError::new(
                Code::InvalidAllocation,
                "release_at: a local time like 2026-12-05T18:00",
            )
        })?;
    let new = desk::protocol::NewAllocation {
        name,
        seats: body.seats,
        release_at_ms,
        token: ids::random_hex(16).map_err(|e| ApiError::internal(e.to_string()))?,
    };
    let made = ShowtimeClient::new(&ctx.env, &sid)?.allocate(new).await?;
    Ok(Response::from_json(&made)?.with_status(201))
}

/// `GET /api/admin/showings/{sid}/allocations`: the live ones, with the
/// seats each still holds.
pub async fn allocations(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let all = ShowtimeClient::new(&ctx.env, &sid)?.allocations().await?;
    Ok(Response::from_json(&json!({ "allocations": all }))?)
}

/// `POST /api/admin/showings/{sid}/allocations/{aid}/release`: ends it now.
pub async fn release_allocation(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let aid = ctx.param("aid").map(String::as_str).unwrap_or_default();
    ShowtimeClient::new(&ctx.env, &sid)?
        .release_allocation(aid)
        .await?;
    Ok(Response::empty()?.with_status(204))
}
