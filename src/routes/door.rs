//! The door: scanning tickets, behind a door credential (a device's door
//! session, or the showing's door PIN or the staff door token, which
//! reach nothing else; see `credential`): check-ins, the ticket list a
//! device keeps while the door is open, finding a buyer's tickets by
//! e-mail, and the scans a device sends after working offline.

use serde::Deserialize;
use serde_json::{json, Value};
use worker::{Env, Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::auth::signing_keys;
use crate::clock::now_ms;
use crate::db::door::{self as door_rows, TryKind};
use crate::db::orders::{self as order_rows, CheckIn};
use crate::network::guesser_address;
use crate::request::{parse_json, read_body, showing_id};
use crate::{auth, db, door_sync, ticket_code};
use credential::{require_door, Credential};
use desk::Code;
use worker::D1Database;

mod credential;

pub use credential::draw as draw_pin;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scan {
    code: String,
    showing_id: String,
    /// The device scanning, if named: it must be its door session's.
    device: Option<String>,
    /// The device's own id of this scan, the one it queues the scan under
    /// if the answer does not come: the admission is then recorded once.
    scan_id: Option<String>,
}

pub async fn check_in(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let scan: Scan = parse_json(&read_body(&mut req).await?)?;
    let credential = require_door(&req, &ctx.env, &scan.showing_id).await?;
    credential.check_named(scan.device.as_deref())?;
    if let Some(problem) = scan
        .scan_id
        .as_deref()
        .and_then(|id| door_sync::id_problem("scan_id", id))
    {
        return Err(ApiError::new(Code::InvalidScans, problem));
    }
    let db = db::database(&ctx.env)?;
    let sid = scan.showing_id.as_str();
    let ticket = match ticket_code::verify(&signing_keys(&ctx.env)?, &scan.code) {
        Some(ticket) => ticket,
        None => match typed_ticket(&db, sid, &scan.code).await? {
            Ok(ticket) => ticket,
            Err(result) => return answer(&db, sid, json!({ "result": result })).await,
        },
    };
    let base = json!({ "ticket_id": ticket.ticket_id, "seat": ticket.seat });
    if ticket.showing_id != sid {
        let body = merge(
            base,
            json!({ "result": "wrong_showing", "ticket_showing_id": ticket.showing_id }),
        );
        return answer(&db, sid, body).await;
    }
    let now_ms = worker::Date::now().as_millis();
    if let Some(refused) = not_admitting(&ctx.env, &db, sid, now_ms).await? {
        return answer(&db, sid, merge(base, refused)).await;
    }
    let device = credential.device();
    let found = order_rows::check_in(
        &db,
        &ticket.ticket_id,
        sid,
        device,
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
        CheckIn::Moved { seat } => json!({ "result": "moved", "moved_to_seat": seat }),
        CheckIn::Unknown => json!({ "result": "invalid" }),
        CheckIn::JudgedOnDevice => json!({ "result": "judged_on_device" }),
    };
    answer(&db, sid, merge(base, result)).await
}

/// Why the showing admits no ticket now, as a scan's result: it was
/// cancelled (though its refunds may not all have voided their tickets
/// yet), or its door closed (late enough that it is not this showing the
/// holder means to see).
async fn not_admitting(
    env: &Env,
    db: &D1Database,
    showing_id: &str,
    now_ms: u64,
) -> Result<Option<Value>, ApiError> {
    let Some(showing) = db::get_showing(db, showing_id).await? else {
        return Ok(None);
    };
    if showing.cancelled_at_ms.is_some() {
        return Ok(Some(json!({ "result": "cancelled" })));
    }
    let windows = showing.windows(crate::settings::window_defaults(env));
    if !windows.door_admits(now_ms as i64) {
        let close = windows.door_close_at_ms;
        return Ok(Some(
            json!({ "result": "door_closed", "door_close_at_ms": close }),
        ));
    }
    Ok(None)
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

/// How long after its door closes a device keeps a showing's ticket list
/// (its buyers' names): long enough to finish with the last latecomer,
/// short enough that a lost device holds little. Scans waiting to be sent
/// are kept until they are.
const FORGET_AFTER_CLOSE_MS: i64 = 60 * 60 * 1000;

/// `GET /api/door/showings/{sid}/manifest`: what a door device needs to
/// scan this showing with no network: the public keys that check ticket
/// codes, every paid or void ticket with its seat, category, check-in,
/// short code and buyer's name (never the e-mail), and the showing's door
/// window with when the device forgets the list. Behind the same door
/// credential as a scan, and only from when the door lists the showing
/// until its door closes.
pub async fn manifest(req: Request, ctx: RouteContext<()>) -> Handled {
    let (sid, db, showing, windows) = door_showing(&req, &ctx).await?;
    door_open(&windows)?;
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
            "forget_at_ms": windows.door_close_at_ms.saturating_add(FORGET_AFTER_CLOSE_MS),
            "cancelled": showing.cancelled_at_ms.is_some(),
        },
        "generated_at_ms": now_ms(),
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

/// When the door lists a showing, and so may be handed its buyers: six
/// hours before its start (`desk::window::DOOR_LIST_MS`).
fn door_opens_at_ms(windows: &desk::window::Windows) -> i64 {
    windows
        .starts_at_ms
        .saturating_sub(desk::window::DOOR_LIST_MS)
}

/// Refuses what only an open door is told (the ticket list, a buyer's
/// tickets) before the door lists the showing and once its door closed.
fn door_open(windows: &desk::window::Windows) -> Result<(), ApiError> {
    let now = now_ms();
    let opens_at_ms = door_opens_at_ms(windows);
    if now < opens_at_ms {
        return Err(ApiError::new(
            Code::DoorNotOpen,
            "the door does not list this showing yet: six hours before its start",
        )
        .with("opens_at_ms", opens_at_ms));
    }
    if !windows.door_admits(now) {
        return Err(
            ApiError::new(Code::DoorClosed, "this showing's door has closed")
                .with("door_close_at_ms", windows.door_close_at_ms),
        );
    }
    Ok(())
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

/// `POST /api/door/showings/{sid}/session`: signing a door device in with
/// the PIN (or the door token): a session naming a device id drawn here,
/// which the device keeps in place of the PIN and scans and syncs with
/// from then on, so that wrong PINs guessed elsewhere do not stop it. It
/// lasts until two days after the door closes.
pub async fn session(req: Request, ctx: RouteContext<()>) -> Handled {
    let (sid, db, _, windows) = door_showing(&req, &ctx).await?;
    let expires_at_ms = (windows.door_close_at_ms.max(0) as u64)
        .saturating_add(crate::door_session::AFTER_CLOSE_MS);
    if now_ms() as u64 >= expires_at_ms {
        return Err(ApiError::new(
            Code::DoorClosed,
            "this showing's door closed over two days ago",
        ));
    }
    let stored = db::door_pin_hash(&db, sid).await?;
    no_store(&credential::new_session(
        &ctx.env,
        sid,
        stored.as_deref(),
        expires_at_ms,
    )?)
}

/// `POST /api/door/sync`: the scans a device queued while offline, sent
/// when the network is back, with the device's door session (a PIN or the
/// door token alone names no device). Each scan is recorded once however
/// often the batch is sent, under the session's device, dated within the
/// session's life and the door's window; a ticket's admission recorded
/// first stands, and the answer says what became of each scan, with the
/// showing's conflicts and running count.
pub async fn sync(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let batch: door_sync::SyncRequest = parse_json(&read_body(&mut req).await?)?;
    let Credential::Session(session) = require_door(&req, &ctx.env, &batch.showing_id).await?
    else {
        return Err(ApiError::new(
            Code::DoorSessionRequired,
            "a sync is sent with the device's door session (X-Door-Session), not a PIN or token",
        ));
    };
    Credential::Session(session.clone()).check_named(batch.device.as_deref())?;
    let now = now_ms() as u64;
    if let Some(problem) = batch.problem() {
        return Err(ApiError::new(Code::InvalidScans, problem));
    }
    let db = db::database(&ctx.env)?;
    let Some(showing) = db::get_showing(&db, &batch.showing_id).await? else {
        return Err(ApiError::not_found("showing"));
    };
    let windows = showing.windows(crate::settings::window_defaults(&ctx.env));
    let dating = door_sync::Dating {
        session_from_ms: session.issued_at_ms,
        received_ms: now,
        door_open_ms: door_opens_at_ms(&windows).max(0) as u64,
        door_close_ms: windows.door_close_at_ms.max(0) as u64,
    };
    let keys = signing_keys(&ctx.env)?;
    // A ticket found offline by its typed number is sent by its whole id;
    // the door credential already lets its holder admit any ticket of the
    // showing that way, and D1 admits only tickets of this showing.
    let rows = batch.rows(
        |code| ticket_code::verify(&keys, code).or_else(|| ticket_code::whole_id(code)),
        dating,
    );
    let (sid, device) = (batch.showing_id.as_str(), session.device.as_str());
    let rows = match rows.is_empty() {
        true => rows,
        false => {
            let recorded = door_rows::record_sync(&db, sid, device, &rows, now).await?;
            door_sync::as_recorded(rows, recorded)
        }
    };
    let tickets = door_rows::tickets_named(&db, sid, &rows).await?;
    let cancelled = showing.cancelled_at_ms.is_some();
    let mut scans = door_sync::outcomes(device, &rows, &tickets, cancelled);
    scans.extend(batch.too_old_outcomes(now));
    let body = json!({
        "scans": scans,
        "conflicts": door_rows::conflicts(&db, sid).await?,
    });
    answer(&db, sid, body).await
}

/// Tickets one client network may look up by e-mail within
/// [`LOOKUP_WINDOW_MS`], for any showings: a door's busy night, not a way
/// to learn who bought.
const LOOKUP_TRIES: u32 = 30;
const LOOKUP_WINDOW_MS: u64 = 10 * 60 * 1000;
/// The longest e-mail address looked up (RFC 5321's limit).
const MAX_EMAIL_BYTES: usize = 254;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Lookup {
    email: String,
}

/// `POST /api/door/showings/{sid}/find`: the tickets of this showing bought
/// with exactly this e-mail address (letter case aside), for door staff
/// finding a buyer with no code to show. Online only (a device's ticket
/// list carries no e-mail), while the door is open, and limited per
/// client network.
pub async fn find(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let lookup: Lookup = parse_json(&read_body(&mut req).await?)?;
    let (sid, db, _, windows) = door_showing(&req, &ctx).await?;
    door_open(&windows)?;
    let email = lookup.email.trim();
    let well_formed = (3..=MAX_EMAIL_BYTES).contains(&email.len())
        && email.contains('@')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    if !well_formed {
        return Err(ApiError::new(
            Code::BadSearch,
            format!(
                "a buyer is found by their whole e-mail address, at most {MAX_EMAIL_BYTES} bytes"
            ),
        ));
    }
    let client = guesser_address(&req);
    let now = now_ms() as u64;
    let taken = door_rows::take_try(
        &db,
        TryKind::Lookup,
        &client,
        now,
        LOOKUP_WINDOW_MS,
        LOOKUP_TRIES,
    )
    .await?;
    if let Err(wait_ms) = taken {
        let mut limited = ApiError::new(
            Code::TooManyLookups,
            "too many e-mail lookups from this network; wait, or find the ticket by name or seat",
        );
        limited.retry_after_s = Some(wait_ms.div_ceil(1000));
        return Err(limited);
    }
    let mut tickets = door_rows::tickets_of_buyer(&db, sid, email).await?;
    for ticket in &mut tickets {
        ticket.short_code = ticket_code::short_code(&ticket.id);
    }
    no_store(&json!({ "tickets": tickets }))
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
    let now = now_ms();
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
