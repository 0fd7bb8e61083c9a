//! Staff endpoints. Each needs the admin token as a bearer token, or the
//! staff session cookie that signing in with it sets (and, for changes,
//! that session's CSRF token); see [`crate::auth`].

use serde::Deserialize;
use serde_json::{json, Map, Value};
use worker::{Env, Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::clock::now_ms;
use crate::db::admin as admin_rows;
use crate::keys::Purpose;
use crate::request::{param, parse_json, read_body, showing_id};
use crate::showing::{NewShowing, NewShowingRequest, Units};
use crate::showing_edit::{object_settings, resolve, save_edit};
use crate::showtime::client::ShowtimeClient;
use crate::{admin_session, auth, db, ids};
use desk::Code;
use mail::venue::Venue;

/// Longest search text.
const MAX_SEARCH_CHARS: usize = 200;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SignIn {
    token: String,
}

/// `POST /api/admin/session` `{"token": …}`: signs staff in with the admin
/// token and sets the session cookie; answers the session's CSRF token.
pub async fn sign_in(mut req: Request, ctx: RouteContext<()>) -> Handled {
    // A sign-in posted from another site would sign the victim into our
    // session (login CSRF): browsers always send Origin on a POST.
    if let (Some(origin), Ok(url)) = (req.headers().get("origin")?, req.url()) {
        if origin != url.origin().ascii_serialization() {
            return Err(ApiError::new(
                Code::CrossSite,
                "sign in from this site's own admin page",
            ));
        }
    }
    let body: SignIn = parse_json(&read_body(&mut req).await?)?;
    let guess = auth::Guess::start(&req, &ctx.env).await?;
    if !auth::is_admin_token(&ctx.env, body.token.trim())? {
        guess.wrong().await?;
        return Err(ApiError::new(
            Code::WrongAdminToken,
            "that is not the admin token",
        ));
    }
    let nonce = ids::random_hex(16).map_err(|e| ApiError::internal(e.to_string()))?;
    let value = admin_session::sign(
        &auth::staff_key(&ctx.env).await?,
        worker::Date::now().as_millis(),
        &nonce,
    );
    let csrf = admin_session::csrf_token(&auth::key(&ctx.env, Purpose::Csrf)?, &value);
    let resp = Response::from_json(&json!({ "signed_in": true, "csrf": csrf }))?;
    resp.headers().set(
        "set-cookie",
        &admin_session::set_cookie(&value, auth::is_https(&req)),
    )?;
    Ok(resp)
}

/// `GET /api/admin/session`: whether this browser is signed in, and its
/// CSRF token for the page's forms.
pub async fn session(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let secret = auth::key(&ctx.env, Purpose::Csrf)?;
    let cookies = req.headers().get("cookie")?.unwrap_or_default();
    let csrf = admin_session::from_cookies(&cookies, auth::is_https(&req))
        .map(|value| admin_session::csrf_token(&secret, value));
    Ok(Response::from_json(
        &json!({ "signed_in": true, "csrf": csrf }),
    )?)
}

/// `DELETE /api/admin/session`: signs this browser out. Its session is
/// recorded as ended, so the cookie is refused even if it was copied; the
/// cinema's other staff browsers stay signed in.
pub async fn sign_out(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let cookies = req.headers().get("cookie")?.unwrap_or_default();
    // A caller with the admin token itself has no session to end.
    if let Some(value) = admin_session::from_cookies(&cookies, auth::is_https(&req)) {
        if let (Some((_, nonce)), Some(ends_at)) = (
            admin_session::issued_and_nonce(value),
            admin_session::ends_at(value),
        ) {
            let now = worker::Date::now().as_millis();
            db::sign_out_staff_session(&db::database(&ctx.env)?, nonce, ends_at, now).await?;
        }
    }
    signed_out(&req)
}

/// `DELETE /api/admin/sessions`: signs out every staff browser at once,
/// this one too, for a lost or shared device: the sign-out epoch moves on,
/// and with it the key every staff session is signed with.
pub async fn sign_out_everywhere(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    db::advance_staff_epoch(&db::database(&ctx.env)?).await?;
    signed_out(&req)
}

/// An empty answer that clears this browser's staff cookie.
fn signed_out(req: &Request) -> Handled {
    let resp = Response::empty()?.with_status(204);
    resp.headers().set(
        "set-cookie",
        &admin_session::clear_cookie(auth::is_https(req)),
    )?;
    Ok(resp)
}

/// A showing's layout and limits, checked, with the object's view of it.
fn parse_showing(body: NewShowingRequest, env: &Env) -> Result<(NewShowing, Units), ApiError> {
    let venue = crate::mail::venue(env).map_err(ApiError::internal)?;
    let invalid = |e: crate::showing::InvalidShowing| {
        let error = ApiError::new(Code::InvalidShowing, e.detail);
        if e.choices.is_empty() {
            error
        } else {
            error.with("choices", e.choices)
        }
    };
    let showing = NewShowing::parse(body, &venue).map_err(invalid)?;
    let units = showing.units().map_err(invalid)?;
    Ok((showing, units))
}

/// Square refuses a payment in any currency but its location's, so a
/// showing priced in another could never be paid for: it is refused when
/// saved, not at every checkout.
async fn check_currency(env: &Env, showing: &NewShowing) -> Result<(), ApiError> {
    let takes = crate::square::location_currency(env).await?;
    if showing.price.currency != takes {
        return Err(ApiError::new(
            Code::CurrencyMismatch,
            format!(
                "this cinema's Square location takes {takes}; a price in {} could never be paid",
                showing.price.currency
            ),
        )
        .with("location_currency", takes));
    }
    Ok(())
}

pub async fn create_showing(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let mut body: NewShowingRequest = parse_json(&read_body(&mut req).await?)?;
    resolve(&ctx.env, &mut body).await?;
    let (showing, units) = parse_showing(body, &ctx.env)?;
    check_currency(&ctx.env, &showing).await?;
    let id = create(&ctx.env, &showing, units).await?;
    Ok(Response::from_json(&json!({ "id": id }))?.with_status(201))
}

/// Makes a checked showing: its object first, so a showing becomes
/// visible (its D1 row) only once its seats exist. Answers its id.
async fn create(env: &Env, showing: &NewShowing, units: Units) -> Result<String, ApiError> {
    let id = ids::new_showing_id().map_err(|e| ApiError::internal(e.to_string()))?;
    let created_at_ms = now_ms();
    let seat_count = units.for_sale();
    let init = object_settings(env, &id, showing, units, created_at_ms)?;
    ShowtimeClient::new(env, &id)?.init(init).await?;
    let db = db::database(env)?;
    db::insert_showing(&db, &id, showing, seat_count, created_at_ms).await?;
    Ok(id)
}

/// `POST /api/admin/showings/recurring`: the body of a showing with
/// `repeat` (`{"at", "weekdays", "from", "until"}`) in place of
/// `starts_at`: one showing for each chosen weekday between the dates, at
/// that local time. Answers those made and the dates skipped, with why.
pub async fn create_recurring(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let mut body: Value = parse_json(&read_body(&mut req).await?)?;
    let repeat = body
        .as_object_mut()
        .and_then(|o| o.remove("repeat"))
        .ok_or_else(|| {
            ApiError::new(Code::InvalidShowing, "repeat: say when the showings recur")
        })?;
    let repeat: crate::recurrence::Recurrence = serde_json::from_value(repeat)
        .map_err(|e| ApiError::new(Code::InvalidShowing, format!("repeat: {e}")))?;
    // A window of fixed times would be the same instant for every date.
    for fixed in [
        "starts_at",
        "sales_open_at",
        "sales_close_at",
        "door_close_at",
    ] {
        if body.get(fixed).is_some_and(|v| !v.is_null()) {
            return Err(ApiError::new(
                Code::InvalidShowing,
                format!("{fixed}: recurring showings take their times from repeat and the cinema's defaults"),
            ));
        }
    }
    // The film's title and the screen's layout, once for every date.
    let mut template = body.clone();
    template["starts_at"] = json!("2000-01-01T00:00");
    let mut template: NewShowingRequest =
        serde_json::from_value(template).map_err(|e| ApiError::bad_json(e.to_string()))?;
    resolve(&ctx.env, &mut template).await?;
    body["title"] = json!(template.title);
    body["layout"] = json!(template.layout);
    let venue = crate::mail::venue(&ctx.env).map_err(ApiError::internal)?;
    let occurrences = repeat
        .occurrences(&venue)
        .map_err(|e| ApiError::new(Code::InvalidShowing, format!("repeat: {e}")))?;
    // Every date is checked before any showing is made.
    let mut planned = Vec::new();
    let mut skipped = Vec::new();
    for occurrence in occurrences {
        if let Err(why) = &occurrence.starts_at_ms {
            skipped.push(json!({ "local": occurrence.local, "reason": why }));
            continue;
        }
        let mut one = body.clone();
        one["starts_at"] = json!(occurrence.local);
        let request: NewShowingRequest =
            serde_json::from_value(one).map_err(|e| ApiError::bad_json(e.to_string()))?;
        planned.push(parse_showing(request, &ctx.env)?);
    }
    if let Some((first, _)) = planned.first() {
        check_currency(&ctx.env, first).await?;
    }
    let mut created = Vec::new();
    for (showing, units) in planned {
        let starts_at_ms = showing.starts_at_ms;
        let id = create(&ctx.env, &showing, units).await?;
        created.push(json!({ "id": id, "starts_at_ms": starts_at_ms }));
    }
    Ok(Response::from_json(&json!({ "created": created, "skipped": skipped }))?.with_status(201))
}

/// The longest reason for a cancellation, which every buyer is sent.
const MAX_CANCEL_REASON_CHARS: usize = 500;

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct CancelBody {
    reason: Option<String>,
}

/// `POST /api/admin/showings/{sid}/cancel`, optionally `{"reason": "…"}`:
/// the object stops every sale at once, D1 marks the showing cancelled and
/// queues each paid order's message in one batch, then paid orders are
/// refunded whole (the sweep goes on with any left). Repeating it refunds
/// nothing twice and keeps the first reason.
pub async fn cancel_showing(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let bytes = read_body(&mut req).await?;
    let body: CancelBody = if bytes.is_empty() {
        CancelBody::default()
    } else {
        parse_json(&bytes)?
    };
    let reason = body.reason.unwrap_or_default().trim().to_string();
    let reason_ok = reason.chars().count() <= MAX_CANCEL_REASON_CHARS
        && !reason.chars().any(|c| c.is_control() && c != '\n');
    if !reason_ok {
        return Err(ApiError::new(
            Code::InvalidReason,
            format!("reason: at most {MAX_CANCEL_REASON_CHARS} characters, no control characters"),
        ));
    }
    let db = db::database(&ctx.env)?;
    showing_row(&db, &sid).await?;
    let (new, cancelled_at_ms) = ShowtimeClient::new(&ctx.env, &sid)?.cancel().await?;
    admin_rows::cancel_showing(&db, &sid, &reason, cancelled_at_ms).await?;
    let mut refunds = crate::refunding::refund_cancelled(&ctx.env, &db, &sid).await?;
    if let Err(e) = crate::mail::drain(&ctx.env, None, now_ms() as u64).await {
        worker::console_error!("cancel {sid}: mail not sent now: {e}");
    }
    refunds["cancelled_at_ms"] = json!(cancelled_at_ms);
    refunds["new"] = json!(new);
    Ok(Response::from_json(&refunds)?)
}

/// `PUT /api/admin/showings/{sid}`: the same body as creating one. The
/// object decides first (it refuses new seats once any was held or sold),
/// then D1's row follows; repeating an edit is harmless.
pub async fn update_showing(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let mut body: NewShowingRequest = parse_json(&read_body(&mut req).await?)?;
    resolve(&ctx.env, &mut body).await?;
    let (showing, _) = parse_showing(body, &ctx.env)?;
    check_currency(&ctx.env, &showing).await?;
    let db = db::database(&ctx.env)?;
    let existing = showing_row(&db, &sid).await?;
    save_edit(&ctx.env, &db, &sid, &showing, existing.created_at_ms).await?;
    Ok(Response::from_json(&json!({ "id": sid }))?)
}

/// `GET /api/admin/showings`: every showing, past ones too, with sales.
/// `GET /api/admin/waiting-room-rate?payment_cap_ms=600000`: the admission
/// rate a waiting room takes unless staff set one, with the numbers that
/// produced it, for the showing editor to show.
/// `POST /api/admin/apple-pay/domain`: registers the site's own domain
/// (`PUBLIC_URL`'s host) with Square for Apple Pay, in the environment
/// `SQUARE_BASE_URL` names (sandbox and production register apart).
/// Answers `{"domain", "status"}`, Square's `VERIFIED` or `PENDING`.
pub async fn register_apple_pay_domain(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let public = ctx
        .env
        .var("PUBLIC_URL")
        .map(|v| v.to_string())
        .unwrap_or_default();
    let domain = url::Url::parse(&public)
        .ok()
        .filter(|u| u.scheme() == "https")
        .and_then(|u| u.host_str().map(str::to_string))
        .ok_or_else(|| {
            ApiError::new(
                Code::ApplePayDomainRefused,
                "Apple Pay needs the site's own https:// address in PUBLIC_URL",
            )
        })?;
    let square = crate::square::Square::from_env(&ctx.env).map_err(ApiError::internal)?;
    match square.register_apple_pay_domain(&domain).await {
        crate::square::Reply::Ok(body) => {
            let status = body["status"].as_str().unwrap_or("PENDING").to_string();
            Ok(Response::from_json(&json!({ "domain": domain, "status": status }))?)
        }
        crate::square::Reply::Refused { code, detail, .. } => Err(ApiError::new(
            Code::ApplePayDomainRefused,
            format!(
                "Square would not register {domain}: {code}: {detail}; is the domain \
                 association file deployed at /.well-known/apple-developer-merchantid-domain-association?"
            ),
        )
        .with("square_code", json!(code))),
        crate::square::Reply::Unknown(why) => Err(ApiError::new(
            Code::SquareUnavailable,
            format!("Square did not answer ({why}); try again in a moment"),
        )),
    }
}

pub async fn waiting_room_rate(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let url = req.url()?;
    let payment_cap_ms = url
        .query_pairs()
        .find(|(k, _)| k == "payment_cap_ms")
        .and_then(|(_, v)| v.parse::<u64>().ok())
        .ok_or_else(|| {
            ApiError::new(
                Code::InvalidRequest,
                "payment_cap_ms: how long buyers have to pay, in milliseconds",
            )
        })?;
    Ok(Response::from_json(&crate::showing::suggested_rate(
        payment_cap_ms,
    ))?)
}

pub async fn list_showings(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let db = db::database(&ctx.env)?;
    let showings = admin_rows::showings(&db, now_ms() as u64).await?;
    Ok(Response::from_json(&json!({ "showings": showings }))?)
}

/// The showing, or `404 not_found` for an id no showing has.
async fn showing_row(db: &worker::D1Database, sid: &str) -> Result<db::Showing, ApiError> {
    db::get_showing(db, sid)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))
}

/// `GET /api/admin/showings/{sid}`: the showing, its seat map with the
/// ticket and order behind each taken seat, its totals and limits.
pub async fn showing(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let db = db::database(&ctx.env)?;
    let showing = showing_row(&db, sid).await?;
    let object = ShowtimeClient::new(&ctx.env, sid)?;
    let availability = serde_json::to_value(object.seats().await?)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let stats = object.stats().await?;
    let owners: Map<String, Value> = admin_rows::seat_owners(&db, sid)
        .await?
        .into_iter()
        .filter_map(|row| Some((row["seat"].as_str()?.to_string(), row)))
        .collect();
    let totals = admin_rows::totals(&db, sid).await?;
    let has_door_pin = db::door_pin_hash(&db, sid).await?.is_some();
    Ok(Response::from_json(&json!({
        "showing": showing,
        "payment_cap_ms": stats["payment_cap_ms"],
        "has_door_pin": has_door_pin,
        "availability": availability,
        "owners": owners,
        "totals": totals,
        "live_holds": stats["live_holds"],
        "tax": crate::settings::Settings::from_env(&ctx.env).desk.tax,
    }))?)
}

/// A query parameter, trimmed; `None` when absent or empty.
fn query_value(url: &worker::Url, name: &str) -> Option<String> {
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// `GET /api/admin/orders?showing=…&email=…&q=…`: orders, newest first.
/// `email` matches any part of the buyer's address; `q` any part of their
/// address or name, or their order number (see [`admin_rows::Search`]).
pub async fn orders(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let url = req.url()?;
    let query = |name: &str| query_value(&url, name);
    let (email, text) = (query("email"), query("q"));
    if [&email, &text].iter().any(|v| {
        v.as_ref()
            .is_some_and(|v| v.chars().count() > MAX_SEARCH_CHARS)
    }) {
        return Err(ApiError::new(
            Code::BadSearch,
            format!("search for at most {MAX_SEARCH_CHARS} characters"),
        ));
    }
    let search = admin_rows::Search {
        showing: query("showing"),
        email,
        text,
    };
    let db = db::database(&ctx.env)?;
    let orders = admin_rows::orders(&db, &search).await?;
    Ok(Response::from_json(&json!({ "orders": orders }))?)
}

/// `GET /api/admin/orders/{oid}`: one order with its tickets, audit trail
/// and refunds.
pub async fn order(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let order_id = param(&ctx, "oid");
    let db = db::database(&ctx.env)?;
    let order = db::orders::get_order(&db, order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let (tickets, events, refunds) = admin_rows::order_detail(&db, order_id).await?;
    let emails = crate::db::mail::of_order(&db, order_id).await?;
    // The buyer's own link, for staff to copy into a reply.
    let key = auth::order_key(&ctx.env, order_id)?;
    let order_url = format!("/orders/{order_id}?key={key}");
    // Whether its code's uses are counted, so staff may give its use back.
    let code_limited = match &order.discount_code {
        Some(code) => crate::db::codes::get(&db, code)
            .await?
            .is_some_and(|c| c.code.limited()),
        None => false,
    };
    Ok(Response::from_json(&json!({
        "order": order, "tickets": tickets, "events": events, "refunds": refunds,
        "emails": emails, "order_url": order_url, "code_limited": code_limited,
    }))?)
}

/// `POST /api/admin/orders/{oid}/resend`: the order's tickets mailed to its
/// buyer again, as a new message, sent at once (the sweep retries it).
/// Only an order with a valid ticket has anything to send.
pub async fn resend_tickets(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let order_id = param(&ctx, "oid").to_string();
    let db = db::database(&ctx.env)?;
    db::orders::get_order(&db, &order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    let live = db::orders::tickets_of(&db, &order_id)
        .await?
        .iter()
        .any(|t| t.status == "valid");
    if !live {
        return Err(ApiError::new(
            Code::NoTicketsToSend,
            "this order has no valid ticket to send",
        ));
    }
    let now = now_ms() as u64;
    let row_id = format!(
        "tickets:{order_id}:{}",
        crate::ids::random_hex(6).map_err(|e| ApiError::internal(e.to_string()))?
    );
    crate::db::mail::queue_resend(&db, &row_id, &order_id, now)?
        .run()
        .await?;
    crate::mail::send_now(&ctx.env, &order_id).await;
    let emails = crate::db::mail::of_order(&db, &order_id).await?;
    let this = emails.iter().find(|m| m["id"] == row_id.as_str()).cloned();
    Ok(Response::from_json(&json!({ "email": this }))?.with_status(202))
}

/// Longest note staff may leave when marking an order handled.
const MAX_NOTE_CHARS: usize = 500;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HandledNote {
    note: String,
}

/// A note of what staff did: 1 to [`MAX_NOTE_CHARS`] characters.
fn checked_note(note: &str) -> Result<String, ApiError> {
    let note = note.trim().to_string();
    if note.is_empty() || note.chars().count() > MAX_NOTE_CHARS {
        return Err(ApiError::new(
            Code::BadNote,
            format!("say in 1 to {MAX_NOTE_CHARS} characters what was done"),
        ));
    }
    Ok(note)
}

/// `POST /api/admin/orders/{oid}/handled` `{"note": …}`: staff dealt with
/// an order on the attention list by hand; it leaves the list, and the
/// note goes into its history. A payment still unknown is not staff's to
/// close (the sweep settles it), nor a refund whose tickets are undecided.
pub async fn mark_handled(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let order_id = param(&ctx, "oid").to_string();
    let body: HandledNote = parse_json(&read_body(&mut req).await?)?;
    let note = checked_note(&body.note)?;
    let db = db::database(&ctx.env)?;
    let order = db::orders::get_order(&db, &order_id)
        .await?
        .ok_or_else(|| ApiError::not_found("order"))?;
    if order.status == "pending" {
        return Err(ApiError::new(
            Code::PaymentUnsettled,
            "this payment's outcome is not known yet; the recovery sweep settles it",
        ));
    }
    let now = now_ms() as u64;
    if !admin_rows::mark_handled(&db, &order_id, &note, now).await? {
        return Err(ApiError::new(
            Code::AlreadyHandled,
            "this order was already marked handled",
        ));
    }
    let detail = format!("handled by staff: {note}");
    db::orders::audit(&db, &order_id, now, &order.status, &order.status, &detail).await?;
    Ok(Response::empty()?.with_status(204))
}

/// `GET /api/admin/attention`: what needs a person, oldest first.
pub async fn attention(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let db = db::database(&ctx.env)?;
    let now = now_ms() as u64;
    // A payment still pending once the recovery sweep would look at it
    // has an outcome nobody knows yet: staff should see it too.
    let stale_ms = crate::settings::Settings::from_env(&ctx.env).sweep_min_age_ms;
    let items = admin_rows::attention(&db, now, stale_ms).await?;
    Ok(Response::from_json(
        &json!({ "now_ms": now, "items": items }),
    )?)
}

/// A cell's text for the export, with every formula trigger defused.
fn csv_cell(value: &Value) -> String {
    let text = match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    defuse_formulas(&text)
}

/// What makes a spreadsheet read a cell as a formula when it starts with
/// it: a buyer's name or a comp's reason must never run as one.
const FORMULA_TRIGGERS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// Puts a `'` before a formula trigger at the start of the text, and at
/// the start of every part after a `,` or `;` (spaces skipped): a
/// spreadsheet that opens the file with another separator, or splits a
/// column, starts a cell there.
fn defuse_formulas(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    let mut part_starts = true;
    for c in text.chars() {
        if part_starts && FORMULA_TRIGGERS.contains(&c) {
            out.push('\'');
        }
        part_starts = matches!(c, ',' | ';') || (part_starts && c == ' ');
        out.push(c);
    }
    out
}

/// A time as the cinema's clock showed it, with the zone's abbreviation.
fn local_time(venue: &Venue, ms: &Value) -> String {
    ms.as_f64()
        .map(|ms| venue.local_stamp(ms as i64))
        .unwrap_or_default()
}

/// `GET /api/admin/showings/{sid}/tickets.csv`: every ticket, void ones
/// too, with its buyer, for a spreadsheet.
pub async fn tickets_csv(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let db = db::database(&ctx.env)?;
    showing_row(&db, sid).await?;
    let rows = admin_rows::ticket_export(&db, sid).await?;
    let venue = crate::mail::venue(&ctx.env).map_err(ApiError::internal)?;
    // Every cell quoted, so no separator or line break in a buyer's text
    // can start another cell or row.
    let mut out = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_writer(Vec::new());
    let csv_error = |e: csv::Error| ApiError::internal(e.to_string());
    out.write_record([
        "seat",
        "ticket",
        "price",
        "amount",
        "net",
        "tax",
        "tax_rate",
        "currency",
        "ticket_status",
        "checked_in_at",
        "voided_at",
        "order",
        "sold",
        "comp_reason",
        "order_status",
        "name",
        "email",
        "ordered_at",
    ])
    .map_err(csv_error)?;
    for row in &rows {
        // Minor units as a decimal in the row's currency ("12.00"), or
        // nothing for a ticket sold before tickets had prices (or tax).
        let currency = row["currency"].as_str().unwrap_or_default();
        let minor = |key: &str| row[key].as_f64().map(|n| n as u64);
        let decimal = |amount: Option<u64>| {
            amount.map_or_else(String::new, |a| mail::money::decimal(a, currency))
        };
        let (price, tax) = (minor("price_amount"), minor("price_tax"));
        let net = price.zip(tax).map(|(p, t)| p.saturating_sub(t));
        out.write_record([
            csv_cell(&row["seat"]),
            csv_cell(&row["ticket_id"]),
            csv_cell(&row["price_name"]),
            decimal(price),
            decimal(net),
            decimal(tax),
            minor("price_tax_rate_bps")
                .map(|bps| format!("{}.{:02}%", bps / 100, bps % 100))
                .unwrap_or_default(),
            csv_cell(&row["currency"]),
            csv_cell(&row["status"]),
            local_time(&venue, &row["checked_in_at_ms"]),
            local_time(&venue, &row["voided_at_ms"]),
            csv_cell(&row["order_id"]),
            csv_cell(&row["channel"]),
            csv_cell(&row["comp_reason"]),
            csv_cell(&row["order_status"]),
            csv_cell(&row["name"]),
            csv_cell(&row["email"]),
            local_time(&venue, &row["created_at_ms"]),
        ])
        .map_err(csv_error)?;
    }
    csv_download(out, &format!("tickets-{sid}.csv"))
}

/// A CSV file to download, never cached.
fn csv_download(out: csv::Writer<Vec<u8>>, filename: &str) -> Handled {
    let bytes = out
        .into_inner()
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let resp = Response::from_bytes(bytes)?;
    let headers = resp.headers();
    headers.set("content-type", "text/csv; charset=utf-8")?;
    headers.set(
        "content-disposition",
        &format!("attachment; filename=\"{filename}\""),
    )?;
    headers.set("cache-control", "no-store")?;
    Ok(resp)
}

/// Seats in each state as stored, live holds, the alarm: what is tied up.
pub async fn stats(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let stats = ShowtimeClient::new(&ctx.env, sid)?.stats().await?;
    Ok(Response::from_json(&stats)?)
}

/// `POST /api/admin/showings/{sid}/reconcile`: compares the showing's
/// seats, D1's tickets and Square's payments now, repairs what is
/// provable, and answers every difference found.
pub async fn reconcile(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let report = crate::reconciliation::run(&ctx.env, sid, "staff", now_ms() as u64).await?;
    Ok(Response::from_json(&report)?)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FindingHandled {
    kind: String,
    subject: String,
    note: String,
}

/// `POST /api/admin/showings/{sid}/reconcile/handled` `{"kind", "subject",
/// "note"}`: staff dealt with a difference the reconciliation could not
/// repair; it leaves the attention list with their note.
pub async fn finding_handled(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?.to_string();
    let body: FindingHandled = parse_json(&read_body(&mut req).await?)?;
    let note = checked_note(&body.note)?;
    let db = db::database(&ctx.env)?;
    let now = now_ms() as u64;
    if !db::reconcile::mark_handled(&db, &sid, &body.kind, &body.subject, &note, now).await? {
        return Err(ApiError::new(
            Code::AlreadyHandled,
            "no such difference is open: it was handled, repaired, or never found",
        ));
    }
    worker::console_log!(
        "{}",
        json!({"event": "reconciliation_handled", "showing": sid, "kind": body.kind,
            "subject": body.subject, "note": note})
    );
    Ok(Response::empty()?.with_status(204))
}

/// `GET /api/admin/showings/{sid}/reconcile`: every difference the
/// showing's reconciliations found, newest first, and what became of it.
pub async fn reconciliation(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let db = db::database(&ctx.env)?;
    let findings = db::reconcile::findings(&db, sid).await?;
    Ok(Response::from_json(
        &json!({ "showing_id": sid, "findings": findings }),
    )?)
}

/// `GET /api/admin/reports/distributor?week=2027-03-26[&format=csv]`: the
/// distributor return for the cinema week holding that date (weeks start
/// on `CINEMA_WEEK_STARTS`, Friday unless set), as JSON or CSV.
pub async fn distributor_return(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let url = req.url()?;
    let query = |name: &str| query_value(&url, name);
    let venue = crate::mail::venue(&ctx.env).map_err(ApiError::internal)?;
    let first_day = crate::settings::week_starts(&ctx.env);
    let date = query("week").unwrap_or_default();
    let (week, from_ms, to_ms) = crate::reports::week_of(&date, first_day, &venue)
        .map_err(|e| ApiError::new(Code::InvalidRequest, e).with("field", "week"))?;
    let csv = wants_csv(query("format"))?;
    let db = db::database(&ctx.env)?;
    let rows = &db::reports::showings(&db, from_ms, to_ms).await?;
    let sold = &db::reports::sold(&db, db::reports::SoldBy::Showing, from_ms, to_ms).await?;
    let refunds = &db::reports::refunds(&db, from_ms, to_ms).await?;
    let from = week.from.clone();
    let report = crate::reports::distributor_return(week, &venue, rows, sold, refunds);
    if !csv {
        return Ok(Response::from_json(&report)?);
    }
    let mut rows = vec![crate::reports::CSV_HEADER.map(String::from)];
    rows.extend(
        crate::reports::csv_rows(&report)
            .into_iter()
            .map(|mut row| {
                // Titles are staff's text; the figures stay numbers.
                row[0] = defuse_formulas(&row[0]);
                row
            }),
    );
    report_csv(&rows, &format!("distributor-return-{from}.csv"))
}

/// `format=json` (or none) or `format=csv`: true for CSV.
fn wants_csv(format: Option<String>) -> Result<bool, ApiError> {
    match format.as_deref() {
        None | Some("json") => Ok(false),
        Some("csv") => Ok(true),
        Some(_) => {
            Err(ApiError::new(Code::InvalidRequest, "format: json or csv").with("field", "format"))
        }
    }
}

/// A report's rows, every cell quoted, as a CSV download.
fn report_csv<const N: usize>(rows: &[[String; N]], name: &str) -> Handled {
    let mut out = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_writer(Vec::new());
    for row in rows {
        out.write_record(row)
            .map_err(|e| ApiError::internal(e.to_string()))?;
    }
    csv_download(out, name)
}

/// `GET /api/admin/reports/sales?from=2027-03-01&to=2027-03-31[&format=csv]`:
/// sales by day over the cinema's dates `from` to `to` (a year at most),
/// by channel and by price category, and the money through Square each
/// day, as JSON or CSV.
pub async fn sales_report(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let url = req.url()?;
    let query = |name: &str| query_value(&url, name);
    let venue = crate::mail::venue(&ctx.env).map_err(ApiError::internal)?;
    let (from, to) = (
        query("from").unwrap_or_default(),
        query("to").unwrap_or_default(),
    );
    let (dates, from_ms, to_ms) = crate::sales::range_of(&from, &to, &venue)
        .map_err(|e| ApiError::new(Code::InvalidRequest, e).with("field", "from"))?;
    let csv = wants_csv(query("format"))?;
    let report = sales_of(&ctx.env, &dates, &venue, from_ms, to_ms).await?.0;
    if !csv {
        return Ok(Response::from_json(&report)?);
    }
    let name = format!("sales-{}-to-{}.csv", report.from, report.to);
    report_csv(&crate::sales::csv_rows(&report), &name)
}

/// The sales report over `[from_ms, to_ms)`, and the online orders it
/// counts as captured.
async fn sales_of(
    env: &Env,
    dates: &[jiff::civil::Date],
    venue: &Venue,
    from_ms: i64,
    to_ms: i64,
) -> Result<(crate::sales::SalesReport, Vec<crate::sales::Captured>), ApiError> {
    let db = db::database(env)?;
    let by = db::reports::SoldBy::Order;
    let sold = db::reports::sold(&db, by, from_ms, to_ms).await?;
    let captured = db::reports::captured(&db, from_ms, to_ms).await?;
    let refunded = db::reports::refunded(&db, from_ms, to_ms).await?;
    let currency = crate::square::location_currency(env).await?;
    let report = crate::sales::sales_report(&currency, dates, venue, &sold, &captured, &refunded);
    Ok((report, captured))
}

/// `GET /api/admin/showings/{sid}/sales-curve`: the showing's valid
/// tickets over time, a point an order, against its capacity.
pub async fn sales_curve(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let db = db::database(&ctx.env)?;
    let showing = showing_row(&db, sid).await?;
    let orders = db::reports::orders_over_time(&db, sid).await?;
    Ok(Response::from_json(&json!({
        "showing_id": sid,
        "title": showing.title,
        "starts_at_ms": showing.starts_at_ms,
        "created_at_ms": showing.created_at_ms,
        "capacity": showing.seat_count,
        "points": crate::reports::sales_curve(&orders),
    }))?)
}

/// `GET /api/admin/reports/daily?date=2027-03-26`: the day's summary for
/// the Square location: what was captured, refunded and the net, as the
/// sales report counts them, and beside it what Square lists for the
/// same orders that day, so any difference shows to the minor unit.
pub async fn daily_summary(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let url = req.url()?;
    let venue = crate::mail::venue(&ctx.env).map_err(ApiError::internal)?;
    let date = query_value(&url, "date").unwrap_or_default();
    let (dates, from_ms, to_ms) = crate::sales::range_of(&date, &date, &venue).map_err(|e| {
        ApiError::new(Code::InvalidRequest, e.replace("from", "date")).with("field", "date")
    })?;
    let (report, captured) = sales_of(&ctx.env, &dates, &venue, from_ms, to_ms).await?;
    let square =
        crate::reconciliation::square_captured(&ctx.env, &captured, from_ms, to_ms).await?;
    let day = &report.days[0];
    Ok(Response::from_json(&json!({
        "date": day.date,
        "currency": report.currency,
        "location_id": ctx.env.var("SQUARE_LOCATION_ID").map(|v| v.to_string()).unwrap_or_default(),
        "captured": day.square.captured,
        "refunded": day.square.refunded,
        "net": day.square.net,
        "tickets": day.sold.tickets,
        "square": square,
        "agrees": square["captured"].as_u64() == Some(day.square.captured),
    }))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula_cells_are_defused() {
        assert_eq!(csv_cell(&json!("=HYPERLINK(\"x\")")), "'=HYPERLINK(\"x\")");
        assert_eq!(csv_cell(&json!("@SUM(A1)")), "'@SUM(A1)");
        assert_eq!(csv_cell(&json!("Ana Lima")), "Ana Lima");
        assert_eq!(csv_cell(&json!(12)), "12");
        assert_eq!(csv_cell(&Value::Null), "");
    }

    #[test]
    fn a_formula_after_a_comma_or_semicolon_is_defused_too() {
        assert_eq!(
            defuse_formulas("Ana;=cmd|' /C calc'!A0"),
            "Ana;'=cmd|' /C calc'!A0"
        );
        assert_eq!(defuse_formulas("Lima, -2+3"), "Lima, '-2+3");
        assert_eq!(defuse_formulas("a,b;@c, +d"), "a,b;'@c, '+d");
        assert_eq!(defuse_formulas("x-y=z @ w"), "x-y=z @ w");
        assert_eq!(defuse_formulas("Ana-Maria O'Neil"), "Ana-Maria O'Neil");
    }

    #[test]
    fn times_are_the_cinemas_local_time() {
        let venue = Venue::new("Rio", "", "Europe/London").unwrap();
        let summer = json!(1_783_103_400_000.0);
        assert_eq!(local_time(&venue, &summer), "2026-07-03 19:30:00 BST");
        assert_eq!(local_time(&venue, &Value::Null), "");
    }
}
