//! Door credentials: the showing's PIN (drawn by the Worker when staff ask
//! for one, stored keyed and salted), the staff door token, and the door
//! session a device is given at sign-in for either, which names the device.
//! Wrong PINs are counted per client network across every showing, in D1,
//! so one network's guesses never lock another's door.

use serde::Deserialize;
use serde_json::json;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use worker::{Env, Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::clock::now_ms;
use crate::db::door::{self as door_rows, TryKind};
use crate::door_session::{self, Session};
use crate::keys::Purpose;
use crate::network::guesser_address;
use crate::request::{parse_json, read_body, showing_id};
use crate::{auth, db};
use desk::Code;

/// The digits of a PIN the Worker draws: ten billion PINs, of which one
/// network (an IPv4 address, an IPv6 /48) may try [`PIN_TRIES`] each
/// [`PIN_WINDOW_MS`]. Even thousands of networks guessing together would
/// need years on average.
pub const PIN_DIGITS: usize = 10;
/// PINs one client network may type within [`PIN_WINDOW_MS`], for any
/// showings, before every PIN it sends is refused until its oldest try
/// is that old; right ones are not counted. Other networks' tries never
/// count against it, so nobody can lock the door's own network out.
pub const PIN_TRIES: u32 = 10;
pub const PIN_WINDOW_MS: u64 = 10 * 60 * 1000;

/// How a request proved it is door staff.
pub enum Credential {
    /// A door session, which names its device.
    Session(Session),
    /// The staff door token, naming no device.
    Token,
    /// The showing's PIN, naming no device.
    Pin,
}

impl Credential {
    /// The device a scan is recorded under: the session's, or the kind of
    /// credential sent bare (never a drawn device id).
    pub fn device(&self) -> &str {
        match self {
            Credential::Session(session) => &session.device,
            Credential::Token => "token",
            Credential::Pin => "pin",
        }
    }

    /// The device a request names, if any, checked against this one: a
    /// device records scans only under its own session's name.
    pub fn check_named(&self, named: Option<&str>) -> Result<(), ApiError> {
        match named {
            Some(named) if named != self.device() => Err(ApiError::new(
                Code::WrongDevice,
                "this request names another device than its door session's; \
                 a device scans and syncs under the name it was given at sign-in",
            )),
            _ => Ok(()),
        }
    }
}

/// Marks the hash of a PIN the Worker drew. PINs stored before (chosen
/// by staff, `hmac:…` or a bare SHA-256) never sign in: staff draw one.
const DRAWN: &str = "drawn:";

/// How a drawn PIN is stored: HMAC-SHA256 with a key derived from
/// `SESSION_SECRET`, so that a copy of the database cannot be turned back
/// into PINs by trying every number, over a salt drawn with the PIN
/// (`drawn:<salt>.<tag>`), so that a new PIN changes the hash and ends the
/// door sessions bound to it.
fn pin_hash(env: &Env, showing_id: &str, pin: &str, salt: &str) -> Result<String, ApiError> {
    use hmac::{Hmac, Mac};
    let key = auth::key(env, Purpose::DoorPin)?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes any key length");
    mac.update(format!("{showing_id}:{salt}:{pin}").as_bytes());
    Ok(format!(
        "{DRAWN}{salt}.{}",
        hex::encode(mac.finalize().into_bytes())
    ))
}

/// Whether `pin` is the drawn one `stored`.
fn pin_matches(env: &Env, showing_id: &str, pin: &str, stored: &str) -> Result<bool, ApiError> {
    let well_formed = pin.len() == PIN_DIGITS && pin.bytes().all(|b| b.is_ascii_digit());
    let salt = stored
        .strip_prefix(DRAWN)
        .and_then(|drawn| drawn.split_once('.'))
        .map(|(salt, _)| salt);
    let (true, Some(salt)) = (well_formed, salt) else {
        return Ok(false);
    };
    let expected = pin_hash(env, showing_id, pin, salt)?;
    Ok(bool::from(expected.as_bytes().ct_eq(stored.as_bytes())))
}

/// Door staff for `showing_id`: a door session of this showing, the staff
/// door token, or this showing's PIN.
pub async fn require_door(
    req: &Request,
    env: &Env,
    showing_id: &str,
) -> Result<Credential, ApiError> {
    let valid_id = showing_id.len() == 16 && showing_id.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some(value) = req.headers().get(door_session::HEADER)? {
        // An HMAC no one can guess: no count of wrong ones, and no PIN
        // lock, which is for PINs typed at sign-in.
        if valid_id {
            let stored = db::door_pin_hash(&db::database(env)?, showing_id).await?;
            let key = auth::door_session_key(env, stored.as_deref())?;
            if let Some(session) = door_session::verify(&key, &value, showing_id, now_ms() as u64) {
                return Ok(Credential::Session(session));
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
            return Ok(Credential::Token);
        }
        guess.wrong().await?;
        return Err(ApiError::unauthorized());
    }
    let pin = req.headers().get("x-door-pin")?.unwrap_or_default();
    if pin.is_empty() || !valid_id {
        return Err(ApiError::unauthorized());
    }
    try_pin(req, env, showing_id, &pin).await
}

/// A PIN typed for `showing_id`: the try is taken from the network's
/// allowance before the PIN is compared, so parallel guesses cannot slip
/// past it, and given back when the PIN is right.
async fn try_pin(
    req: &Request,
    env: &Env,
    showing_id: &str,
    pin: &str,
) -> Result<Credential, ApiError> {
    let db = db::database(env)?;
    let client = guesser_address(req);
    let now = now_ms() as u64;
    let taken =
        door_rows::take_try(&db, TryKind::Pin, &client, now, PIN_WINDOW_MS, PIN_TRIES).await?;
    let try_id = match taken {
        Ok(id) => id,
        Err(wait_ms) => {
            let mut locked = ApiError::new(
                Code::DoorPinLocked,
                "too many wrong PINs from this network; wait, or sign in with the staff door token",
            );
            locked.retry_after_s = Some(wait_ms.div_ceil(1000));
            return Err(locked);
        }
    };
    let stored = db::door_pin_hash(&db, showing_id).await?;
    match stored {
        Some(stored) if pin_matches(env, showing_id, pin, &stored)? => {
            door_rows::take_back_try(&db, try_id).await?;
            Ok(Credential::Pin)
        }
        _ => Err(ApiError::unauthorized()),
    }
}

/// A door session for `showing_id` that ends at `expires_at_ms`, for a new
/// device whose id is drawn here: `{"session", "device", "expires_at_ms"}`.
pub fn new_session(
    env: &Env,
    showing_id: &str,
    pin_hash: Option<&str>,
    expires_at_ms: u64,
) -> Result<serde_json::Value, ApiError> {
    let hex = crate::ids::random_hex(door_session::DEVICE_HEX / 2)
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let session = Session {
        showing_id: showing_id.to_string(),
        device: format!("{}{hex}", door_session::DEVICE_PREFIX),
        issued_at_ms: now_ms() as u64,
        expires_at_ms,
    };
    let key = auth::door_session_key(env, pin_hash)?;
    Ok(json!({
        "session": door_session::sign(&key, &session),
        "device": session.device,
        "issued_at_ms": session.issued_at_ms,
        "expires_at_ms": expires_at_ms,
    }))
}

/// A PIN of [`PIN_DIGITS`] digits, each equally likely.
fn draw_pin() -> Result<String, ApiError> {
    let mut digits = String::with_capacity(PIN_DIGITS);
    while digits.len() < PIN_DIGITS {
        let mut byte = [0u8; 1];
        getrandom::getrandom(&mut byte).map_err(|e| ApiError::internal(e.to_string()))?;
        // 250 is the largest multiple of 10 a byte reaches: bytes past it
        // are drawn again so that no digit is likelier than another.
        if byte[0] < 250 {
            digits.push(char::from(b'0' + byte[0] % 10));
        }
    }
    Ok(digits)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DrawPin {
    pin: Option<serde_json::Value>,
}

/// `POST /api/admin/showings/{sid}/door-pin`: draws a new door PIN for the
/// showing and answers it, once: `{"pin"}`. The PIN before it, and every
/// door session given for it, stop working.
pub async fn draw(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let sid = showing_id(&ctx)?;
    let body = read_body(&mut req).await?;
    if !body.iter().all(u8::is_ascii_whitespace) {
        let asked: DrawPin = parse_json(&body)?;
        if asked.pin.is_some() {
            return Err(ApiError::new(
                Code::InvalidPin,
                "door PINs are drawn by the server: send no PIN, and show door staff the one answered",
            ));
        }
    }
    let pin = draw_pin()?;
    let db = db::database(&ctx.env)?;
    let salt = crate::ids::random_hex(16).map_err(|e| ApiError::internal(e.to_string()))?;
    let hash = pin_hash(&ctx.env, sid, &pin, &salt)?;
    if !db::set_door_pin_hash(&db, sid, &hash).await? {
        return Err(ApiError::not_found("showing"));
    }
    let mut resp = Response::from_json(&json!({ "pin": pin }))?;
    resp.headers_mut().set("cache-control", "no-store")?;
    Ok(resp)
}
