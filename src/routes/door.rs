//! The door: scanning tickets, behind a door credential (the showing's door
//! PIN or the staff door token), which reaches nothing else.

use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use worker::{Env, Request, Response, RouteContext};

use super::{parse_json, read_body, showing_id, Handled};
use crate::api_error::ApiError;
use crate::db::orders::{self as order_rows, CheckIn};
use crate::keys::Purpose;
use crate::showtime::client::ShowtimeClient;
use crate::{auth, db, door_session, door_sync, ticket_code};
use desk::Code;
use worker::D1Database;

const MIN_PIN_DIGITS: usize = 4;
const MAX_PIN_DIGITS: usize = 12;
const MAX_DEVICE_BYTES: usize = 64;

thread_local! {
    /// The ticket keys, read once per isolate: an Ed25519 key's public half
    /// is computed as it is read, and secrets change only with a
    /// deployment, which starts new isolates.
    static TICKET_KEYS: std::cell::OnceCell<Result<ticket_code::TicketKeys, String>> =
        const { std::cell::OnceCell::new() };
}

pub fn signing_keys(env: &Env) -> Result<ticket_code::TicketKeys, ApiError> {
    let read = || {
        let text = env
            .secret("TICKET_SIGNING_KEYS")
            .map(|s| s.to_string())
            .map_err(|_| "TICKET_SIGNING_KEYS is not configured".to_string())?;
        ticket_code::TicketKeys::parse(&text).map_err(|e| format!("TICKET_SIGNING_KEYS: {e}"))
    };
    TICKET_KEYS
        .with(|keys| keys.get_or_init(read).clone())
        .map_err(ApiError::internal)
}

/// The code of each ticket in `tickets` (objects with `id` and `seat`),
/// added as `code`.
pub fn add_codes(env: &Env, showing_id: &str, tickets: &mut Value) -> Result<(), ApiError> {
    let keys = signing_keys(env)?;
    for ticket in tickets.as_array_mut().into_iter().flatten() {
        // Only a paid ticket has a code: one whose payment is still being
        // confirmed might never be paid, and an offline door admits a
        // signed code it has no list entry for.
        if ticket["status"].as_str().is_some_and(|s| s != "valid") {
            continue;
        }
        let reference = ticket_code::TicketRef {
            showing_id: showing_id.to_string(),
            ticket_id: ticket["id"].as_str().unwrap_or_default().to_string(),
            seat: ticket["seat"].as_str().unwrap_or_default().to_string(),
        };
        ticket["code"] = json!(ticket_code::sign(&keys, &reference));
    }
    Ok(())
}

/// Marks a PIN hash made with the door-PIN key.
const KEYED: &str = "hmac:";

/// How a showing's PIN is stored: HMAC-SHA256 with a key derived from
/// `SESSION_SECRET`, so that a copy of the database cannot be turned back
/// into PINs by trying every 4- to 12-digit number, over a salt drawn each
/// time the PIN is set (`hmac:<salt>.<tag>`), so that setting even the same
/// PIN again changes the hash and ends the door sessions bound to it.
/// Hashes stored before the salt (`hmac:<tag>`) are read as they were.
fn pin_hash(
    env: &Env,
    showing_id: &str,
    pin: &str,
    salt: Option<&str>,
) -> Result<String, ApiError> {
    use hmac::{Hmac, Mac};
    let key = auth::key(env, Purpose::DoorPin)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
    let (message, prefix) = match salt {
        Some(salt) => (format!("{showing_id}:{salt}:{pin}"), format!("{salt}.")),
        None => (format!("{showing_id}:{pin}"), String::new()),
    };
    mac.update(message.as_bytes());
    Ok(format!(
        "{KEYED}{prefix}{}",
        hex::encode(mac.finalize().into_bytes())
    ))
}

/// Whether `pin` is the one `stored`: keyed (salted or not), or an unkeyed
/// SHA-256 as PINs were stored before (those still work until staff set
/// the PIN again).
fn pin_matches(env: &Env, showing_id: &str, pin: &str, stored: &str) -> Result<bool, ApiError> {
    let expected = match stored.strip_prefix(KEYED) {
        Some(keyed) => {
            let salt = keyed.split_once('.').map(|(salt, _)| salt);
            pin_hash(env, showing_id, pin, salt)?
        }
        None => hex::encode(Sha256::digest(format!("{showing_id}:{pin}").as_bytes())),
    };
    Ok(bool::from(expected.as_bytes().ct_eq(stored.as_bytes())))
}

/// Door staff for `showing_id`: a door session of this showing, the staff
/// door token, or this showing's PIN.
async fn require_door(req: &Request, env: &Env, showing_id: &str) -> Result<(), ApiError> {
    let valid_id = showing_id.len() == 16 && showing_id.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some(session) = req.headers().get(door_session::HEADER)? {
        // An HMAC no one can guess: no count of wrong ones, and no PIN
        // lock, which is for PINs typed at sign-in.
        if valid_id {
            let stored = db::door_pin_hash(&db::database(env)?, showing_id).await?;
            let key = auth::door_session_key(env, stored.as_deref())?;
            if door_session::verify(&key, &session, showing_id, super::now_ms() as u64) {
                return Ok(());
            }
        }
        return Err(ApiError::unauthorized());
    }
    if let Some(given) = auth::bearer(req) {
        // A bearer is the door token or nothing: a wrong one is a guess.
        let guess = auth::Guess::start(req, env).await?;
        let token = env
            .secret("DOOR_TOKEN")
            .map(|s| s.to_string())
            .unwrap_or_default();
        if !token.is_empty() && bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
            return Ok(());
        }
        guess.wrong().await?;
        return Err(ApiError::unauthorized());
    }
    let pin = req.headers().get("x-door-pin")?.unwrap_or_default();
    if pin.is_empty() || !valid_id {
        return Err(ApiError::unauthorized());
    }
    let db = db::database(env)?;
    let Some(stored) = db::door_pin_hash(&db, showing_id).await? else {
        return Err(ApiError::unauthorized());
    };
    let matched = pin_matches(env, showing_id, &pin, &stored)?;
    // The showing's object counts wrong PINs and locks the PIN after too
    // many, so a 4-digit PIN cannot be guessed by trying them all.
    ShowtimeClient::new(env, showing_id)?
        .door_attempt(matched, crate::routes::client_address(req))
        .await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scan {
    code: String,
    showing_id: String,
    device: Option<String>,
    /// The device's own id of this scan, the one it queues the scan under
    /// if the answer does not come: the admission is then recorded once.
    scan_id: Option<String>,
}

pub async fn check_in(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let scan: Scan = parse_json(&read_body(&mut req).await?)?;
    require_door(&req, &ctx.env, &scan.showing_id).await?;
    if let Some(problem) = scan
        .scan_id
        .as_deref()
        .and_then(|id| door_sync::id_problem("scan_id", id))
    {
        return Err(ApiError::new(Code::InvalidScans, problem));
    }
    let device: String = scan
        .device
        .unwrap_or_else(|| "door".into())
        .chars()
        .take(MAX_DEVICE_BYTES)
        .collect();
    let db = db::database(&ctx.env)?;
    let ticket = match ticket_code::verify(&signing_keys(&ctx.env)?, &scan.code) {
        Some(ticket) => ticket,
        None => match typed_ticket(&db, &scan.showing_id, &scan.code).await? {
            Ok(ticket) => ticket,
            Err(result) => return answer(&db, &scan.showing_id, json!({ "result": result })).await,
        },
    };
    let base = json!({ "ticket_id": ticket.ticket_id, "seat": ticket.seat });
    if ticket.showing_id != scan.showing_id {
        let body = merge(
            base,
            json!({ "result": "wrong_showing", "ticket_showing_id": ticket.showing_id }),
        );
        return answer(&db, &scan.showing_id, body).await;
    }
    let now_ms = worker::Date::now().as_millis();
    // After the door closes a ticket is no longer admitted: late enough
    // that it is not this showing the holder means to see.
    if let Some(showing) = db::get_showing(&db, &scan.showing_id).await? {
        // A cancelled showing admits no one, though its refunds may not
        // all have voided their tickets yet.
        if showing.cancelled_at_ms.is_some() {
            let cancelled = json!({ "result": "cancelled" });
            return answer(&db, &scan.showing_id, merge(base, cancelled)).await;
        }
        let windows = showing.windows(crate::settings::window_defaults(&ctx.env));
        if !windows.door_admits(now_ms as i64) {
            let closed =
                json!({ "result": "door_closed", "door_close_at_ms": windows.door_close_at_ms });
            return answer(&db, &scan.showing_id, merge(base, closed)).await;
        }
    }
    let found = order_rows::check_in(
        &db,
        &ticket.ticket_id,
        &scan.showing_id,
        &device,
        scan.scan_id.as_deref(),
        now_ms,
    )
    .await?;
    let result = match found {
        CheckIn::Admitted { at_ms } => json!({ "result": "admitted", "checked_in_at_ms": at_ms }),
        CheckIn::AlreadyCheckedIn { at_ms } => {
            json!({ "result": "already_checked_in", "checked_in_at_ms": at_ms })
        }
        CheckIn::Void => json!({ "result": "void" }),
        CheckIn::Unknown => json!({ "result": "invalid" }),
        CheckIn::JudgedOnDevice => json!({ "result": "judged_on_device" }),
    };
    answer(&db, &scan.showing_id, merge(base, result)).await
}

/// The ticket of this showing whose number door staff typed (its short
/// code or its whole id), or the result to answer: `invalid` when no
/// ticket has it, `ambiguous` when two share a short code.
async fn typed_ticket(
    db: &D1Database,
    showing_id: &str,
    text: &str,
) -> Result<Result<ticket_code::TicketRef, &'static str>, ApiError> {
    let Some(typed) = ticket_code::read_typed(text) else {
        return Ok(Err("invalid"));
    };
    let (from, to) = ticket_code::typed_range(showing_id, &typed);
    let found = order_rows::tickets_in_range(db, showing_id, &from, &to).await?;
    let ids: Vec<String> = found.iter().map(|(id, _)| id.clone()).collect();
    Ok(match ticket_code::pick_typed(showing_id, &typed, &ids) {
        ticket_code::Picked::None => Err("invalid"),
        ticket_code::Picked::Several => Err("ambiguous"),
        ticket_code::Picked::One(id) => Ok(ticket_code::TicketRef {
            showing_id: showing_id.to_string(),
            ticket_id: id.clone(),
            seat: found
                .iter()
                .find(|(other, _)| other == id)
                .map(|(_, seat)| seat.clone())
                .unwrap_or_default(),
        }),
    })
}

/// Most tickets a manifest lists: a 20,000-seat room sold out twice over
/// after refunds, and still a download a phone can keep.
const MAX_MANIFEST_TICKETS: u32 = 50_000;

/// `GET /api/door/showings/{sid}/manifest`: what a door device needs to
/// scan this showing with no network: the public keys that check ticket
/// codes, every paid or void ticket with its seat, category, check-in and
/// short code, and the showing's door window. Behind the same door credential as a
/// scan.
pub async fn manifest(req: Request, ctx: RouteContext<()>) -> Handled {
    let (sid, db, showing, windows) = door_showing(&req, &ctx).await?;
    let keys = signing_keys(&ctx.env)?;
    let mut tickets = order_rows::door_tickets(&db, sid, MAX_MANIFEST_TICKETS + 1).await?;
    let complete = tickets.len() <= MAX_MANIFEST_TICKETS as usize;
    tickets.truncate(MAX_MANIFEST_TICKETS as usize);
    for ticket in &mut tickets {
        ticket.short_code = ticket_code::short_code(&ticket.id);
    }
    let body = json!({
        "showing": {
            "id": showing.id, "title": showing.title, "starts_at_ms": showing.starts_at_ms,
            "door_close_at_ms": windows.door_close_at_ms,
            "cancelled": showing.cancelled_at_ms.is_some(),
        },
        "generated_at_ms": super::now_ms(),
        "keys": keys.public_keys(),
        // False while the first ticket key is an HMAC secret: new codes
        // then need the network to be checked.
        "codes_check_offline": keys.signs_for_devices(),
        "tickets": tickets,
        "complete": complete,
        "conflicts": db::door::conflicts(&db, sid).await?,
    });
    // A list of every ticket: kept by the door device, never by a cache.
    no_store(&body)
}

/// The route's showing, for door staff: its id, the database, the showing
/// and its windows.
async fn door_showing<'a>(
    req: &Request,
    ctx: &'a RouteContext<()>,
) -> Result<(&'a str, D1Database, db::Showing, desk::window::Windows), ApiError> {
    let sid = showing_id(ctx)?;
    require_door(req, &ctx.env, sid).await?;
    let db = db::database(&ctx.env)?;
    let Some(showing) = db::get_showing(&db, sid).await? else {
        return Err(ApiError::not_found("showing"));
    };
    let windows = showing.windows(crate::settings::window_defaults(&ctx.env));
    Ok((sid, db, showing, windows))
}

/// An answer no cache keeps: a door credential, or a list of tickets.
fn no_store(body: &Value) -> Handled {
    let mut resp = Response::from_json(body)?;
    resp.headers_mut().set("cache-control", "no-store")?;
    Ok(resp)
}

/// `POST /api/door/showings/{sid}/session`: a session for a door device
/// that signed in with the PIN (or the door token), which it scans with
/// from then on, so that wrong PINs guessed elsewhere, which lock the PIN,
/// do not stop it. It lasts until two days after the door closes.
pub async fn session(req: Request, ctx: RouteContext<()>) -> Handled {
    let (sid, db, _, windows) = door_showing(&req, &ctx).await?;
    let expires_at_ms =
        (windows.door_close_at_ms.max(0) as u64).saturating_add(door_session::AFTER_CLOSE_MS);
    if super::now_ms() as u64 >= expires_at_ms {
        return Err(ApiError::new(
            Code::DoorClosed,
            "this showing's door closed over two days ago",
        ));
    }
    let stored = db::door_pin_hash(&db, sid).await?;
    let key = auth::door_session_key(&ctx.env, stored.as_deref())?;
    let body = json!({
        "session": door_session::sign(&key, sid, expires_at_ms),
        "expires_at_ms": expires_at_ms,
    });
    no_store(&body)
}

/// `POST /api/door/sync`: the scans a device queued while offline, sent
/// when the network is back (door credential for the batch's showing).
/// Each scan is recorded once however often the batch is sent; the
/// earliest admission of a ticket stands, and the answer says what became
/// of each scan, with the showing's conflicts and running count.
pub async fn sync(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let batch: door_sync::SyncRequest = parse_json(&read_body(&mut req).await?)?;
    require_door(&req, &ctx.env, &batch.showing_id).await?;
    let now = super::now_ms() as u64;
    if let Some(problem) = batch.problem() {
        return Err(ApiError::new(Code::InvalidScans, problem));
    }
    let db = db::database(&ctx.env)?;
    if db::get_showing(&db, &batch.showing_id).await?.is_none() {
        return Err(ApiError::not_found("showing"));
    }
    let keys = signing_keys(&ctx.env)?;
    // A ticket found offline by its typed number is sent by its whole id;
    // the door credential already lets its holder admit any ticket of the
    // showing that way, and D1 admits only tickets of this showing.
    let rows = batch.rows(
        |code| ticket_code::verify(&keys, code).or_else(|| ticket_code::whole_id(code)),
        now,
    );
    let sid = batch.showing_id.as_str();
    let rows = match rows.is_empty() {
        true => rows,
        false => {
            let recorded = db::door::record_sync(&db, sid, &batch.device, &rows, now).await?;
            door_sync::as_recorded(rows, recorded)
        }
    };
    let tickets = db::door::tickets_named(&db, sid, &rows).await?;
    let mut scans = door_sync::outcomes(&batch.device, &rows, &tickets);
    scans.extend(batch.too_old_outcomes(now));
    let body = json!({
        "scans": scans,
        "conflicts": db::door::conflicts(&db, sid).await?,
    });
    answer(&db, sid, body).await
}

/// `GET /api/admin/showings/{sid}/door-conflicts`: admissions that do not
/// stand (two devices admitted a ticket while offline, or a refunded one
/// was admitted), for staff.
pub async fn conflicts(req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let db = db::database(&ctx.env)?;
    let conflicts = db::door::conflicts(&db, sid).await?;
    Ok(Response::from_json(&json!({ "conflicts": conflicts }))?)
}

/// `GET /api/door/showings`: the showings a door works today, from six
/// hours before each one's start to six hours after (or until its door
/// closes, if later), soonest first, with when the door closes.
pub async fn showings(ctx: RouteContext<()>) -> Handled {
    let db = db::database(&ctx.env)?;
    let now = super::now_ms();
    let defaults = crate::settings::window_defaults(&ctx.env);
    let earliest = now.saturating_sub(desk::window::MAX_AFTER_START_MS);
    let latest = now.saturating_add(desk::window::DOOR_LIST_MS);
    let listed: Vec<Value> = db::showings_starting_between(&db, earliest, latest)
        .await?
        .into_iter()
        .filter(|s| s.windows(defaults).door_lists(now))
        .map(|s| {
            json!({
                "id": s.id, "title": s.title, "starts_at_ms": s.starts_at_ms,
                "door_close_at_ms": s.windows(defaults).door_close_at_ms,
                "cancelled": s.cancelled_at_ms.is_some(),
            })
        })
        .collect();
    Ok(Response::from_json(&json!({ "showings": listed }))?)
}

/// Every scan answers 200 with its result and the running count.
async fn answer(db: &worker::D1Database, showing_id: &str, body: Value) -> Handled {
    let (admitted, sold) = order_rows::door_counts(db, showing_id).await?;
    let body = merge(body, json!({ "admitted": admitted, "sold": sold }));
    Ok(Response::from_json(&body)?)
}

fn merge(mut base: Value, extra: Value) -> Value {
    if let (Some(base), Value::Object(extra)) = (base.as_object_mut(), extra) {
        base.extend(extra);
    }
    base
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DoorPin {
    pin: String,
}

/// `POST /api/admin/showings/{sid}/door-pin`: sets the showing's door PIN.
pub async fn set_pin(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let body: DoorPin = parse_json(&read_body(&mut req).await?)?;
    let digits_ok = (MIN_PIN_DIGITS..=MAX_PIN_DIGITS).contains(&body.pin.len())
        && body.pin.bytes().all(|b| b.is_ascii_digit());
    if !digits_ok {
        return Err(ApiError::new(
            Code::InvalidPin,
            format!("a door PIN is {MIN_PIN_DIGITS} to {MAX_PIN_DIGITS} digits"),
        ));
    }
    let db = db::database(&ctx.env)?;
    let salt = crate::ids::random_hex(16).map_err(|e| ApiError::internal(e.to_string()))?;
    let hash = pin_hash(&ctx.env, sid, &body.pin, Some(&salt))?;
    if !db::set_door_pin_hash(&db, sid, &hash).await? {
        return Err(ApiError::not_found("showing"));
    }
    Ok(Response::empty()?.with_status(204))
}
