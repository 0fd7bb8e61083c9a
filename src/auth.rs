//! Staff credentials, and the keys read from the secrets. The admin token
//! is the secret `ADMIN_TOKEN`; it is compared in constant time so its
//! bytes cannot be guessed from timing. Scripts send it as a bearer token;
//! the admin pages sign in with it once and then carry a session cookie
//! and a CSRF token (see [`crate::admin_session`]). Every key the Worker
//! signs with (sessions, order links, ticket codes) is read from the
//! secrets here.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use worker::{Env, Method, Request};

use crate::admin_session;
use crate::api_error::ApiError;
use crate::keys::Keys;
use crate::keys::{self, Purpose};
use crate::ticket_code::TicketKeys;
use crate::{db, session, settings};
use desk::Code;

/// Succeeds when the request carries `Authorization: Bearer <ADMIN_TOKEN>`,
/// or a valid staff session cookie and, for anything but a read, that
/// session's CSRF token.
pub async fn require_admin(req: &Request, env: &Env) -> Result<(), ApiError> {
    if let Some(given) = bearer(req) {
        let guess = Guess::start(req, env).await?;
        return if is_admin_token(env, &given)? {
            Ok(())
        } else {
            guess.wrong().await?;
            Err(ApiError::unauthorized())
        };
    }
    let cookies = header(req, "cookie").unwrap_or_default();
    let secure = is_https(req);
    let Some(session) = admin_session::from_cookies(&cookies, secure) else {
        return Err(ApiError::unauthorized());
    };
    let Some((_, nonce)) = admin_session::issued_and_nonce(session) else {
        return Err(ApiError::unauthorized());
    };
    let (epoch, signed_out) = db::staff_standing(&db::database(env)?, nonce).await?;
    let now = worker::Date::now().as_millis();
    if signed_out || !admin_session::verify(&staff_key_at(env, epoch)?, session, now) {
        return Err(ApiError::unauthorized());
    }
    if matches!(req.method(), Method::Get | Method::Head) {
        return Ok(());
    }
    let token = header(req, admin_session::CSRF_HEADER).unwrap_or_default();
    if !admin_session::csrf_matches(&key(env, Purpose::Csrf)?, session, &token) {
        return Err(ApiError::new(
            Code::CsrfFailed,
            "this change needs the session's X-CSRF-Token header; reload the page and try again",
        ));
    }
    Ok(())
}

/// Wrong credentials (admin token, door token, sign-in) one client network
/// may send within [`GUESS_WINDOW_MS`]; past that it is told to wait, and
/// even the right one is refused until the window moves on. Ten tries per
/// quarter hour leave a typing mistake harmless and make guessing a
/// 32-byte secret, or even a short one, hopeless.
pub const MAX_WRONG_GUESSES: u64 = 10;
pub const GUESS_WINDOW_MS: u64 = 15 * 60 * 1000;

/// One attempt at a credential by the request's client network.
pub struct Guess<'a> {
    env: &'a Env,
    client: String,
}

impl<'a> Guess<'a> {
    /// Refuses a client with too many recent wrong credentials, before its
    /// credential is even compared.
    pub async fn start(req: &Request, env: &'a Env) -> Result<Guess<'a>, ApiError> {
        let client = crate::network::client_address(req);
        Guess::counted(env, client, "wrong credentials").await
    }

    /// The same for discount codes a buyer tries: counted apart from
    /// credentials, so a buyer mistyping a code never locks staff out.
    pub async fn of_codes(req: &Request, env: &'a Env) -> Result<Guess<'a>, ApiError> {
        let client = format!("code {}", crate::network::client_address(req));
        Guess::counted(env, client, "unknown discount codes").await
    }

    async fn counted(env: &'a Env, client: String, what: &str) -> Result<Guess<'a>, ApiError> {
        let now = worker::Date::now().as_millis();
        let since = now.saturating_sub(GUESS_WINDOW_MS);
        let wrong = db::wrong_guesses_since(&db::database(env)?, &client, since).await?;
        if wrong >= MAX_WRONG_GUESSES {
            let mut error = ApiError::new(
                Code::TooManyAttempts,
                format!("too many {what} from here; wait a quarter of an hour"),
            );
            error.retry_after_s = Some(GUESS_WINDOW_MS / 1000);
            return Err(error);
        }
        Ok(Guess { env, client })
    }

    /// Counts the credential as wrong.
    pub async fn wrong(self) -> Result<(), ApiError> {
        let now = worker::Date::now().as_millis();
        let db = db::database(self.env)?;
        db::note_wrong_guess(&db, &self.client, now, now.saturating_sub(GUESS_WINDOW_MS)).await?;
        Ok(())
    }
}

/// Whether `given` is the admin token.
pub fn is_admin_token(env: &Env, given: &str) -> Result<bool, ApiError> {
    let expected = env
        .secret("ADMIN_TOKEN")
        .map(|s| s.to_string())
        .map_err(|_| ApiError::internal("ADMIN_TOKEN is not configured"))?;
    // An empty configured token would let an empty one in: refuse it.
    Ok(!expected.is_empty() && bool::from(given.as_bytes().ct_eq(expected.as_bytes())))
}

fn session_secret(env: &Env) -> Result<Vec<u8>, ApiError> {
    env.secret("SESSION_SECRET")
        .map(|s| s.to_string().into_bytes())
        .map_err(|_| ApiError::internal("SESSION_SECRET is not configured"))
}

thread_local! {
    /// Keys derived in this isolate. Secrets change only with a
    /// deployment, which starts new isolates, as for [`PROBLEMS`].
    static KEYS: std::cell::RefCell<Vec<(Purpose, [u8; 32])>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The key for `purpose`, derived from `SESSION_SECRET` once per isolate:
/// every buyer request needs one (0.8 % of the runtime's thread in a
/// profile of holds, BENCHMARKS.md).
pub fn key(env: &Env, purpose: Purpose) -> Result<[u8; 32], ApiError> {
    let known = KEYS.with(|keys| {
        keys.borrow()
            .iter()
            .find(|(p, _)| *p == purpose)
            .map(|(_, k)| *k)
    });
    if let Some(key) = known {
        return Ok(key);
    }
    let key = keys::derive(&session_secret(env)?, purpose, b"");
    KEYS.with(|keys| keys.borrow_mut().push((purpose, key)));
    Ok(key)
}

/// The key staff sessions are signed with: bound to the admin token and
/// to the sign-out epoch, so that a new admin token, or signing out on
/// every device, ends every staff session at once.
pub async fn staff_key(env: &Env) -> Result<[u8; 32], ApiError> {
    staff_key_at(env, db::staff_epoch(&db::database(env)?).await?)
}

/// [`staff_key`] at a sign-out epoch already read.
fn staff_key_at(env: &Env, epoch: u64) -> Result<[u8; 32], ApiError> {
    let token = env
        .secret("ADMIN_TOKEN")
        .map(|s| s.to_string())
        .map_err(|_| ApiError::internal("ADMIN_TOKEN is not configured"))?;
    let mut context = Sha256::digest(token.as_bytes()).to_vec();
    context.extend_from_slice(&epoch.to_be_bytes());
    Ok(keys::derive(
        &session_secret(env)?,
        Purpose::StaffSession,
        &context,
    ))
}

/// The key door sessions of a showing are signed with: bound to its
/// stored PIN hash (none when it has no PIN), which changes each time staff
/// set the PIN, and to the staff door token, so that setting the PIN (even
/// to the same one) or a new door token ends every session given before.
pub fn door_session_key(env: &Env, pin_hash: Option<&str>) -> Result<[u8; 32], ApiError> {
    let token = env
        .secret("DOOR_TOKEN")
        .map(|s| s.to_string())
        .unwrap_or_default();
    let mut context = Sha256::digest(token.as_bytes()).to_vec();
    context.extend_from_slice(pin_hash.unwrap_or_default().as_bytes());
    Ok(keys::derive(
        &session_secret(env)?,
        Purpose::DoorSession,
        &context,
    ))
}

thread_local! {
    /// The check's answer, made once per isolate: secrets and vars change
    /// only with a deployment, which starts new isolates.
    static PROBLEMS: std::cell::OnceCell<Vec<settings::Problem>> = const { std::cell::OnceCell::new() };
}

/// Every problem with the secrets, by name (see [`settings::check`]).
pub fn setting_problems(env: &Env) -> Vec<settings::Problem> {
    PROBLEMS.with(|problems| {
        problems
            .get_or_init(|| {
                settings::check(|name| {
                    env.secret(name)
                        .map(|s| s.to_string())
                        .or_else(|_| env.var(name).map(|v| v.to_string()))
                        .ok()
                })
            })
            .clone()
    })
}

/// The order-link keys (`ORDER_LINK_KEYS`, `id:secret[,id:secret…]`), or
/// none when unset (links then fall back to `SESSION_SECRET`).
fn order_link_keys(env: &Env) -> Result<Option<Keys>, ApiError> {
    let Ok(text) = env.secret("ORDER_LINK_KEYS") else {
        return Ok(None);
    };
    Keys::parse(&text.to_string())
        .map(Some)
        .map_err(|e| ApiError::internal(format!("ORDER_LINK_KEYS: {e}")))
}

/// The key of `order_id`'s link.
pub fn order_key(env: &Env, order_id: &str) -> Result<String, ApiError> {
    let keys = order_link_keys(env)?;
    Ok(session::order_access_key(
        keys.as_ref(),
        &session_secret(env)?,
        order_id,
    ))
}

/// The token of a waiting list offer's hold, which its link carries: 128
/// bits derived from the showing and the entry with a key of its own, so
/// only the Worker can make it and the showing's object keeps only its
/// hash.
pub fn offer_token(env: &Env, showing_id: &str, entry_id: &str) -> Result<String, ApiError> {
    let context = format!("{showing_id}\0{entry_id}");
    let token = keys::derive(
        &session_secret(env)?,
        keys::Purpose::WaitlistOffer,
        context.as_bytes(),
    );
    Ok(hex::encode(&token[..16]))
}

/// Whether `link_key` opens `order_id`'s link.
pub fn order_key_ok(env: &Env, order_id: &str, link_key: &str) -> Result<bool, ApiError> {
    let keys = order_link_keys(env)?;
    Ok(session::order_key_matches(
        keys.as_ref(),
        &session_secret(env)?,
        order_id,
        link_key,
    ))
}

thread_local! {
    /// The ticket keys, read once per isolate: an Ed25519 key's public half
    /// is computed as it is read, and secrets change only with a
    /// deployment, which starts new isolates.
    static TICKET_KEYS: std::cell::OnceCell<Result<TicketKeys, String>> =
        const { std::cell::OnceCell::new() };
}

/// The keys that sign ticket codes (`TICKET_SIGNING_KEYS`): the first
/// signs, all verify.
pub fn signing_keys(env: &Env) -> Result<TicketKeys, ApiError> {
    let read = || {
        let text = env
            .secret("TICKET_SIGNING_KEYS")
            .map(|s| s.to_string())
            .map_err(|_| "TICKET_SIGNING_KEYS is not configured".to_string())?;
        TicketKeys::parse(&text).map_err(|e| format!("TICKET_SIGNING_KEYS: {e}"))
    };
    TICKET_KEYS
        .with(|keys| keys.get_or_init(read).clone())
        .map_err(ApiError::internal)
}

/// The token of an `Authorization: Bearer …` header.
/// Whether the request came over HTTPS, so cookies are marked `Secure`.
/// Read from the URL as the runtime serialised it (its scheme always in
/// lower case): parsing the whole URL for this, twice a hold, showed in a
/// profile of the runtime's thread.
pub fn is_https(req: &Request) -> bool {
    req.inner().url().starts_with("https:")
}

pub fn bearer(req: &Request) -> Option<String> {
    header(req, "authorization").and_then(|h| h.strip_prefix("Bearer ").map(str::to_owned))
}

fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}
