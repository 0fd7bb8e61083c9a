//! What buyers see and do: showings, seat maps and holds.

use futures_util::future::join_all;
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use worker::{Env, Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::buyer::{hold_ref, Session, HOLD_TOKEN_LEN};
use crate::clock::now_ms;
use crate::network::client_address;
use crate::order_answer::add_order_link;
use crate::request::{parse_json, read_body, showing_id};
use crate::showtime::client::{HoldAnswer, ShowtimeClient};
use crate::{db, ids};
use desk::protocol::{BestHold, Caller, Idempotency, NewHold, Summary};
use desk::Code;

/// The header a buyer admitted by a waiting room sends its admission in.
pub const ADMISSION_HEADER: &str = "x-admission";
/// Longest `Idempotency-Key` accepted (a UUID is 36).
const MAX_IDEMPOTENCY_KEY_BYTES: usize = 255;

pub async fn list(ctx: RouteContext<()>) -> Handled {
    let db = db::database(&ctx.env)?;
    let now = now_ms();
    let defaults = crate::settings::window_defaults(&ctx.env);
    // Showings yet to start, and those that started but still sell.
    let showings: Vec<db::Showing> =
        db::upcoming_showings(&db, now.saturating_sub(desk::window::MAX_AFTER_START_MS))
            .await?
            .into_iter()
            .filter(|s| s.starts_at_ms >= now || s.windows(defaults).sales_close_at_ms > now)
            .collect();
    let summaries = summaries(&ctx.env, &showings).await;
    let listed: Vec<Value> = showings
        .iter()
        .zip(summaries)
        .map(|(showing, summary)| {
            json!({
                "id": showing.id,
                "title": showing.title,
                "starts_at_ms": showing.starts_at_ms,
                "price": showing.price,
                "prices": showing.prices,
                "film_id": showing.film_id,
                "seat_count": showing.seat_count,
                "cancelled": showing.cancelled_at_ms.is_some(),
                "sales": showing.sales_json(defaults, now),
                "seats_available": summary.map(Value::from).unwrap_or(Value::Null),
            })
        })
        .collect();
    // The films shown, once each: the pages group showings by film.
    let films = films_from(
        &ctx.env,
        now.saturating_sub(desk::window::MAX_AFTER_START_MS),
    )
    .await?;
    Ok(Response::from_json(
        &json!({ "showings": listed, "films": films, "tax": tax(&ctx.env) }),
    )?)
}

/// The films of showings starting from `from_ms`, by id, for listings.
async fn films_from(env: &Env, from_ms: i64) -> Result<Value, ApiError> {
    let films = db::catalog::films_from(&db::database(env)?, from_ms).await?;
    let by_id: serde_json::Map<String, Value> = films
        .into_iter()
        .filter_map(|f| Some((f["id"].as_str()?.to_string(), f)))
        .collect();
    Ok(Value::Object(by_id))
}

/// Seats left in a listed showing are this instance's copy, asked of the
/// showing's object at most this often: a listing viewed by a crowd costs
/// the objects one call each every few seconds, not one per view. A seat
/// map is exact; the listing's count may lag this much.
const SUMMARY_CACHE_MS: u64 = 5_000;

thread_local! {
    /// Showing id → (when asked, seats available).
    static SUMMARIES: std::cell::RefCell<std::collections::HashMap<String, (u64, u32)>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// Seats available in each showing, from the copy or (for those whose copy
/// is old) its object, asked all at once; `None` where it did not answer.
async fn summaries(env: &Env, showings: &[db::Showing]) -> Vec<Option<u32>> {
    let now = now_ms() as u64;
    let cached = |sid: &str| {
        SUMMARIES.with(|c| {
            c.borrow()
                .get(sid)
                .filter(|(at, _)| now.saturating_sub(*at) < SUMMARY_CACHE_MS)
                .map(|(_, available)| *available)
        })
    };
    let stale: Vec<&str> = showings
        .iter()
        .map(|s| s.id.as_str())
        .filter(|sid| cached(sid).is_none())
        .collect();
    let asked = join_all(stale.iter().map(|sid| summary(env, sid))).await;
    SUMMARIES.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() + stale.len() > MAP_CACHE_SHOWINGS {
            c.retain(|_, (at, _)| now.saturating_sub(*at) < SUMMARY_CACHE_MS);
        }
        for (sid, summary) in stale.iter().zip(&asked) {
            if let Some(summary) = summary {
                c.insert(sid.to_string(), (now, summary.available));
            }
        }
    });
    let mut asked = stale
        .iter()
        .zip(asked)
        .collect::<std::collections::HashMap<_, _>>();
    showings
        .iter()
        .map(|s| match asked.remove(&s.id.as_str()) {
            Some(summary) => summary.map(|s| s.available),
            None => cached(&s.id),
        })
        .collect()
}

async fn summary(env: &Env, sid: &str) -> Option<Summary> {
    ShowtimeClient::new(env, sid).ok()?.summary().await.ok()
}

/// `GET /api/showings/{id}`: the showing and its seats (the Worker's copy
/// of the map, as `…/seats` answers it). A visitor without
/// a session is given one here, before choosing seats, so that a hold
/// whose answer is lost can be asked again as the same buyer (a replay is
/// only ever made to the buyer who asked first).
pub async fn get(req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?;
    let session = Session::of(&req, &ctx.env)?;
    let db = db::database(&ctx.env)?;
    let showing = db::get_showing(&db, sid)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    let availability: Value =
        serde_json::from_str(&cached_map(&ctx.env, sid, MapKind::Seats).await?)
            .map_err(|e| ApiError::internal(e.to_string()))?;
    let sales = showing.sales_json(crate::settings::window_defaults(&ctx.env), now_ms());
    // The layout is the page's to fetch by its version, which never
    // changes; this answer is what does.
    let mut showing =
        serde_json::to_value(&showing).map_err(|e| ApiError::internal(e.to_string()))?;
    if let Some(fields) = showing.as_object_mut() {
        fields.remove("layout");
    }
    session.hand_cookie(Response::from_json(&json!({
        "showing": showing, "sales": sales, "availability": availability,
        "tax": tax(&ctx.env),
    }))?)
}

/// The cinema's tax, so a page can say whether its prices include it.
fn tax(env: &Env) -> checkout::Tax {
    crate::settings::Settings::from_env(env).desk.tax
}

/// `GET /api/layouts/{version}`: a layout as it was saved under that
/// version. A version names its content, so the answer never changes and
/// browsers and Cloudflare's cache may keep it for a year; the seat map
/// fetches who holds what separately (`/seats`).
pub async fn layout(_req: Request, ctx: RouteContext<()>) -> Handled {
    let version = ctx.param("version").map(String::as_str).unwrap_or_default();
    let plausible = (1..=crate::showing::MAX_LAYOUT_VERSION_CHARS).contains(&version.len())
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let db = db::database(&ctx.env)?;
    let found = match plausible {
        true => db::get_layout(&db, version).await?,
        false => None,
    };
    let layout = found.ok_or_else(|| ApiError::not_found("layout"))?;
    let mut resp = Response::ok(layout)?;
    let headers = resp.headers_mut();
    headers.set("content-type", "application/json")?;
    headers.set("cache-control", "public, max-age=31536000, immutable")?;
    Ok(resp)
}

/// The seat maps the pages read (both forms) are kept this long in the Worker's
/// memory: however many phones watch a showing, and however fast its seats
/// change, its object then serves each Worker instance about one map a
/// second. A page told of a newer version than it got asks again a second
/// later, so it is never more than about two seconds behind.
const MAP_CACHE_MS: u64 = 1_000;
/// While one request fetches a newer map, the others are answered from the
/// copy for up to this long, so a burst of polls costs the object one read.
const MAP_STALE_MS: u64 = 3_000;
/// Most maps (of either kind) one Worker instance keeps.
const MAP_CACHE_SHOWINGS: usize = 512;

struct CachedMap {
    fetched_ms: u64,
    body: String,
    /// A request is fetching a newer copy.
    refreshing: bool,
}

thread_local! {
    static MAPS: std::cell::RefCell<std::collections::HashMap<String, CachedMap>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// `GET /api/showings/{id}/seats`: seat name → state. With
/// `?format=codes`: `{"version", "codes"}`, one letter per seat in layout
/// order. Either is this instance's copy, usually at most [`MAP_CACHE_MS`]
/// old (and never more than [`MAP_STALE_MS`]): a flood of reads costs the
/// showing's object about one a second, never one each.
pub async fn seats(req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?;
    let url = req.url()?;
    let codes = url
        .query_pairs()
        .any(|(k, v)| k == "format" && v == "codes");
    let kind = if codes {
        MapKind::Codes
    } else {
        MapKind::Seats
    };
    let body = cached_map(&ctx.env, sid, kind).await?;
    let resp = Response::ok(body)?;
    resp.headers().set("content-type", "application/json")?;
    Ok(resp)
}

/// The two forms of a showing's map the Worker keeps a copy of.
#[derive(Clone, Copy, PartialEq, Eq)]
enum MapKind {
    /// Seat name → state (`GET …/seats`, and the showing's page).
    Seats,
    /// One letter a seat (`?format=codes`).
    Codes,
}

/// This instance's copy kept under `key`, if it is fresh, or stale while
/// another request fetches a newer one; otherwise `None`, and the caller
/// fetches (and [`keep`]s or [`forget`]s) while the others use the copy.
fn copy_of(key: &str, now: u64) -> Option<String> {
    MAPS.with(|maps| {
        let mut maps = maps.borrow_mut();
        let map = maps.get_mut(key)?;
        let age = now.saturating_sub(map.fetched_ms);
        if age < MAP_CACHE_MS || (map.refreshing && age < MAP_STALE_MS) {
            return Some(map.body.clone());
        }
        // This request fetches; the others keep the copy meanwhile.
        map.refreshing = true;
        None
    })
}

fn keep(key: String, body: &str, now: u64) {
    MAPS.with(|maps| {
        let mut maps = maps.borrow_mut();
        if maps.len() >= MAP_CACHE_SHOWINGS {
            maps.retain(|_, m| now.saturating_sub(m.fetched_ms) < MAP_CACHE_MS);
        }
        if maps.len() < MAP_CACHE_SHOWINGS {
            let map = CachedMap {
                fetched_ms: now,
                body: body.to_string(),
                refreshing: false,
            };
            maps.insert(key, map);
        }
    });
}

fn forget(key: &str) {
    MAPS.with(|maps| maps.borrow_mut().remove(key));
}

/// The map's JSON, from this instance's copy or, when that is old, from
/// the object (one request fetching while the others keep the copy).
async fn cached_map(env: &Env, sid: &str, kind: MapKind) -> Result<String, ApiError> {
    let key = match kind {
        MapKind::Seats => format!("{sid}:seats"),
        MapKind::Codes => format!("{sid}:codes"),
    };
    let now = now_ms() as u64;
    if let Some(body) = copy_of(&key, now) {
        return Ok(body);
    }
    let object = ShowtimeClient::new(env, sid)?;
    let fetched = match kind {
        MapKind::Seats => object.seats().await.and_then(|m| to_json(&m)),
        MapKind::Codes => object.seat_codes().await.and_then(|c| to_json(&c)),
    };
    match fetched {
        Ok(body) => {
            keep(key, &body, now);
            Ok(body)
        }
        Err(e) => {
            forget(&key);
            Err(e)
        }
    }
}

fn to_json(value: &impl serde::Serialize) -> Result<String, ApiError> {
    serde_json::to_string(value).map_err(|e| ApiError::internal(e.to_string()))
}

fn idempotency(req: &Request, body: &[u8]) -> Result<Option<Idempotency>, ApiError> {
    let Some(key) = req.headers().get("idempotency-key")? else {
        return Ok(None);
    };
    let valid = !key.is_empty()
        && key.len() <= MAX_IDEMPOTENCY_KEY_BYTES
        && key.bytes().all(|b| b.is_ascii_graphic());
    if !valid {
        return Err(ApiError::new(
            Code::BadIdempotencyKey,
            format!(
                "Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY_BYTES} printable characters"
            ),
        ));
    }
    let fingerprint = hex::encode(Sha256::digest(body));
    Ok(Some(Idempotency { key, fingerprint }))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HoldBody {
    seats: Vec<String>,
    /// Seat → price category, for seats not at the default price.
    #[serde(default)]
    prices: std::collections::BTreeMap<String, String>,
}

/// Best available: `{"best": 3, "together"?, "accessible"?, "prices"?}`,
/// `prices` saying how many of the seats are at each category.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BestBody {
    best: u32,
    #[serde(default = "together")]
    together: bool,
    #[serde(default)]
    accessible: bool,
    #[serde(default)]
    prices: std::collections::BTreeMap<String, u32>,
}

fn together() -> bool {
    true
}

/// General admission: `{"zone": "Floor", "count": 4, "prices"?}`, places
/// in the zone by count, `prices` as for best available.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ZoneBody {
    zone: String,
    count: u32,
    #[serde(default)]
    prices: std::collections::BTreeMap<String, u32>,
}

/// A hold's body: seats named, best available's, or places in a zone.
fn hold_body(bytes: &[u8]) -> Result<(HoldBody, Option<BestHold>), ApiError> {
    #[derive(Deserialize)]
    struct Which {
        best: Option<serde::de::IgnoredAny>,
        zone: Option<serde::de::IgnoredAny>,
    }
    let which: Which = parse_json(bytes)?;
    let best = match (which.best, which.zone) {
        (None, None) => {
            let body: HoldBody = parse_json(bytes)?;
            desk::bounds::check_seat_request(&body.seats, &body.prices)?;
            return Ok((body, None));
        }
        (Some(_), None) => {
            let body: BestBody = parse_json(bytes)?;
            BestHold {
                count: body.best,
                together: body.together,
                accessible: body.accessible,
                categories: body.prices,
                zone: None,
            }
        }
        (_, Some(_)) => {
            let body: ZoneBody = parse_json(bytes)?;
            BestHold {
                count: body.count,
                together: false,
                accessible: false,
                categories: body.prices,
                zone: Some(body.zone),
            }
        }
    };
    desk::bounds::check_best_request(best.count, &best.categories, best.zone.as_deref())?;
    let seats = HoldBody {
        seats: Vec::new(),
        prices: Default::default(),
    };
    Ok((seats, Some(best)))
}

pub async fn create_hold(req: Request, ctx: RouteContext<()>) -> Handled {
    let (sid, new, session) = hold_request(req, &ctx).await?;
    let answer = ShowtimeClient::new(&ctx.env, sid)?.hold(new).await;
    session.relay(answer)
}

/// Everything the Worker does for a hold before the showing's object is
/// asked: the body read and checked, the buyer's session, the Turnstile
/// check and the hold's token.
async fn hold_request(
    mut req: Request,
    ctx: &RouteContext<()>,
) -> Result<(&str, NewHold, Session), ApiError> {
    let sid = showing_id(ctx)?;
    let bytes = read_body(&mut req).await?;
    // Bounded here, so the showing's object never reads an unbounded body.
    let (body, best) = hold_body(&bytes)?;
    let idempotency = idempotency(&req, &bytes)?;
    let session = Session::of(&req, &ctx.env)?;
    // A retry of one idempotent hold may send its token again.
    let verify_key = idempotency
        .as_ref()
        .map(|i| crate::turnstile::idempotency_uuid(&session.buyer, &i.key));
    // A waiting room's admission, checked with its key alone; Turnstile
    // was asked when the buyer joined its line.
    let admitted = match req.headers().get(ADMISSION_HEADER)? {
        Some(token) => {
            let key = crate::auth::key(&ctx.env, crate::keys::Purpose::WaitingRoom)?;
            let at = now_ms().max(0) as u64;
            queue::token::verify(
                &key,
                queue::Kind::Admission,
                &token,
                sid,
                &session.buyer,
                at,
            )
            .is_ok()
        }
        None => false,
    };
    if !admitted {
        crate::turnstile::require(&req, &ctx.env, verify_key, crate::turnstile::Action::Buy)
            .await?;
    }
    let new = NewHold {
        caller: Caller {
            buyer: session.buyer.clone(),
            client: client_address(&req),
        },
        seats: body.seats,
        prices: body.prices,
        idempotency,
        token: ids::random_hex(HOLD_TOKEN_LEN / 2)
            .map_err(|e| ApiError::internal(e.to_string()))?,
        best,
        admitted,
    };
    Ok((sid, new, session))
}

/// The benchmark's Worker half of a hold (`npm run bench`): all a hold
/// does in the Worker, with an empty call to the object in place of the
/// hold, answered as a hold is. A hold's cost less this one is what the
/// object spends deciding and writing it.
pub async fn bench_hold_worker_half(req: Request, ctx: RouteContext<()>) -> Handled {
    let (sid, new, session) = hold_request(req, &ctx).await?;
    ShowtimeClient::new(&ctx.env, sid)?.bench(false).await?;
    let granted = desk::protocol::HoldGranted {
        hold_id: new.token,
        amount: desk::protocol::Money {
            amount: 0,
            currency: String::new(),
        },
        prices: Vec::new(),
        tax: Default::default(),
        seats: new.seats,
        // When the object's answer was back, for the benchmark's timeline
        // (`expires_at_ms - expires_in_ms`, as it reads a real hold's).
        expires_at_ms: worker::Date::now().as_millis(),
        expires_in_ms: 0,
    };
    session.relay(Ok(HoldAnswer::Granted(granted)))
}

pub async fn get_hold(req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?;
    let hold = hold_ref(&req, &ctx)?;
    let view = ShowtimeClient::new(&ctx.env, sid)?.get_hold(hold).await?;
    let mut body = serde_json::to_value(&view).map_err(|e| ApiError::internal(e.to_string()))?;
    // The hold's owner may open the order paying for it: a page whose
    // checkout answer was lost finds its order here.
    if let Some(order_id) = &view.order_id {
        add_order_link(&ctx.env, order_id, &mut body)?;
    }
    Ok(Response::from_json(&body)?)
}

pub async fn release_hold(req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?;
    let hold = hold_ref(&req, &ctx)?;
    ShowtimeClient::new(&ctx.env, sid)?
        .release_hold(hold)
        .await?;
    Ok(Response::empty()?.with_status(204))
}

/// `GET /api/showings/{sid}/live`: a WebSocket that announces every change
/// of the seat map, so pages refresh at once instead of waiting to poll.
pub async fn live(req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?;
    let upgrade = req.headers().get("upgrade")?.unwrap_or_default();
    if !upgrade.eq_ignore_ascii_case("websocket") {
        return Err(ApiError::new(
            Code::UpgradeRequired,
            "this address takes WebSocket connections",
        ));
    }
    Ok(ShowtimeClient::new(&ctx.env, sid)?.upgrade(&req).await?)
}

/// `POST /api/showings/{id}/queue`, optionally `{"queue_token"}`: puts the
/// buyer's session in the showing's waiting room once (Turnstile, when on,
/// is asked here and not on each hold) and answers where it stands:
/// `{"place", "ahead", "estimate_ms", "queue_token"}` (no place yet before
/// the opening, for those placed at random then), and once the line has
/// reached it, `"admission"`, to send with holds as `x-admission`.
pub async fn join_queue(mut req: Request, ctx: RouteContext<()>) -> Handled {
    let sid = showing_id(&ctx)?.to_string();
    let bytes = read_body(&mut req).await?;
    #[derive(Deserialize, Default)]
    #[serde(deny_unknown_fields)]
    struct QueueBody {
        queue_token: Option<String>,
    }
    let body: QueueBody = match bytes.is_empty() {
        true => QueueBody::default(),
        false => parse_json(&bytes)?,
    };
    let session = Session::of(&req, &ctx.env)?;
    let key = crate::auth::key(&ctx.env, crate::keys::Purpose::WaitingRoom)?;
    let now = now_ms().max(0) as u64;
    // A place shown before must be this session's, for this showing.
    let shown = match &body.queue_token {
        Some(token) => Some(
            queue::token::verify(&key, queue::Kind::Queue, token, &sid, &session.buyer, now)
                .map_err(|_| {
                    ApiError::new(
                        Code::BadQueueToken,
                        "this place in line is not valid here; join again",
                    )
                })?,
        ),
        None => {
            crate::turnstile::require(&req, &ctx.env, None, crate::turnstile::Action::Buy).await?;
            None
        }
    };
    // A buyer with a place is told where it stands from this instance's
    // copy of the cursor (a second old at most), as is one who came early
    // until the opening, so a line of thousands polling costs its object
    // about one request a second, not one each.
    let line_key = format!("{sid}:line");
    let kept = shown.as_ref().and_then(|claims| {
        let clock = copy_of(&line_key, now)
            .and_then(|text| serde_json::from_str::<queue::Clock>(&text).ok())?;
        let standing = match claims.p {
            0 => clock.early_standing(now, claims.k)?,
            place => clock.standing(now, place),
        };
        Some((standing, clock))
    });
    let (standing, clock) = match kept {
        Some(known) => known,
        None => {
            let joined = ask_line(&ctx.env, &sid, &session.buyer, now).await;
            let joined = match joined {
                Ok(joined) => joined,
                Err(e) => {
                    forget(&line_key);
                    return Err(e);
                }
            };
            keep(line_key, &to_json(&joined.clock)?, now);
            (joined.standing, joined.clock)
        }
    };
    let admission_ms = crate::settings::admission_ms(&ctx.env);
    let claims = |place: u32, share: u16, ttl_ms: u64| queue::Claims {
        s: sid.clone(),
        u: session.buyer.clone(),
        p: place,
        k: share,
        x: now + ttl_ms,
    };
    let queue_ttl = queue::token::QUEUE_TTL_MS;
    // When to ask again: as the cursor reaches the place, and at least
    // now and then for news; the page follows it, so the line's whole
    // cost to the stack is set here.
    let ask_again_ms = clock.ask_again_ms(now, &standing);
    let answer = match standing {
        queue::Standing::Early {
            opens_at_ms,
            early,
            share,
        } => json!({
            "place": null, "early": early, "opens_at_ms": opens_at_ms, "ask_again_ms": ask_again_ms,
            "queue_token": queue::token::sign(&key, queue::Kind::Queue, &claims(0, share, queue_ttl)),
        }),
        queue::Standing::Waiting {
            place,
            ahead,
            estimate_ms,
        } => json!({
            "place": place, "ahead": ahead, "estimate_ms": estimate_ms,
            "sold_out": clock.is_sold_out(), "ask_again_ms": ask_again_ms,
            "queue_token": queue::token::sign(&key, queue::Kind::Queue, &claims(place, 0, queue_ttl)),
        }),
        queue::Standing::Admitted { place } => json!({
            "place": place, "ahead": 0, "estimate_ms": 0,
            "queue_token": queue::token::sign(&key, queue::Kind::Queue, &claims(place, 0, queue_ttl)),
            "admission": queue::token::sign(&key, queue::Kind::Admission, &claims(place, 0, admission_ms)),
            "admission_expires_in_ms": admission_ms,
        }),
    };
    session.hand_cookie(Response::from_json(&answer)?)
}

/// The showing's admission rate and opening (`None` without a waiting
/// room), from this instance's copy a second old at most: every new
/// joiner needs them, and a rush brings a hundred a second, so staff's
/// change reaches the line within a second instead of costing a read each.
async fn line_settings(env: &Env, sid: &str, now: u64) -> Result<Option<(u32, u64)>, ApiError> {
    let key = format!("{sid}:rush");
    if let Some(kept) = copy_of(&key, now).and_then(|t| serde_json::from_str(&t).ok()) {
        return Ok(kept);
    }
    let read = async {
        let db = db::database(env)?;
        let showing = db::get_showing(&db, sid)
            .await?
            .ok_or_else(|| ApiError::not_found("showing"))?;
        let opens_at_ms = showing
            .windows(crate::settings::window_defaults(env))
            .sales_open_at_ms
            .max(0) as u64;
        Ok::<_, ApiError>(showing.admit_per_minute.map(|rate| (rate, opens_at_ms)))
    };
    match read.await {
        Ok(settings) => {
            keep(key, &to_json(&settings)?, now);
            Ok(settings)
        }
        Err(e) => {
            forget(&key);
            Err(e)
        }
    }
}

/// Asks the waiting room's object to put `session` in line (or say where
/// it stands), with the showing's rate and opening as saved (a second
/// ago at most) and whether it is sold out by this instance's copy of the
/// map.
async fn ask_line(
    env: &Env,
    sid: &str,
    session: &str,
    now: u64,
) -> Result<crate::waiting_room::Joined, ApiError> {
    let (rate, opens_at_ms) = line_settings(env, sid, now).await?.ok_or_else(|| {
        ApiError::new(
            Code::NoWaitingRoom,
            "this showing has no waiting room: choose seats straight away",
        )
    })?;
    let draw_hex = ids::random_hex(8).map_err(|e| ApiError::internal(e.to_string()))?;
    let draw = u64::from_str_radix(&draw_hex, 16).map_err(|e| ApiError::internal(e.to_string()))?;
    // Sold out: no free seat and no hold that could lapse, by this
    // instance's copy of the map (a second old at most).
    let codes: Value = serde_json::from_str(&cached_map(env, sid, MapKind::Codes).await?)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let codes = codes["codes"].as_str().unwrap_or("a");
    let none_free = !codes.contains('a');
    let sold_out = none_free && !codes.contains('h');
    let every_seat_held = none_free && codes.contains('h');
    let join = crate::waiting_room::Join {
        session: session.to_string(),
        sold_out,
        every_seat_held,
        opens_at_ms,
        admit_per_minute: rate,
        draw,
        now_ms: now,
    };
    crate::showtime::client::join_waiting_room(env, sid, &join).await
}
