//! The cinema staff's browser session, so the admin pages never keep the
//! admin token in the page: signing in with it sets an HttpOnly cookie.
//!
//! The cookie value is `<issued ms>.<nonce>.<signature>`, the signature
//! being HMAC-SHA256 with `SESSION_SECRET` over a string that starts with
//! `admin:`, so a buyer cookie can never pass for it. A session lasts
//! [`MAX_AGE_MS`] from sign-in.
//!
//! Every change made with the cookie must also carry the session's CSRF
//! token in `X-CSRF-Token`: a token derived from the cookie that another
//! site cannot read, so a form on another site cannot act as staff. Pure:
//! the routes pass in the secret, the time and the random nonce.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const COOKIE_NAME: &str = "showtime_admin";
/// The name over HTTPS (see [`crate::session::HOST_COOKIE_NAME`]).
pub const HOST_COOKIE_NAME: &str = "__Host-showtime_admin";

fn cookie_name(secure: bool) -> &'static str {
    if secure {
        HOST_COOKIE_NAME
    } else {
        COOKIE_NAME
    }
}
pub const CSRF_HEADER: &str = "x-csrf-token";
/// A staff session lasts a working day.
pub const MAX_AGE_MS: u64 = 12 * 3600 * 1000;
/// The nonce is 32 hex characters (128 random bits).
const NONCE_LEN: usize = 32;

type HmacSha256 = Hmac<Sha256>;

fn mac(secret: &[u8], purpose: &str, text: &str) -> HmacSha256 {
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC accepts any key length");
    mac.update(purpose.as_bytes());
    mac.update(b":");
    mac.update(text.as_bytes());
    mac
}

/// The cookie value of a session issued at `issued_ms`.
pub fn sign(secret: &[u8], issued_ms: u64, nonce: &str) -> String {
    let body = format!("{issued_ms}.{nonce}");
    let tag = mac(secret, "admin", &body).finalize().into_bytes();
    format!("{body}.{}", URL_SAFE_NO_PAD.encode(tag))
}

/// A session's issue time and nonce, read from its cookie value without
/// checking its signature: which session a sign-out names. `None` for a
/// value that is not shaped as one.
pub fn issued_and_nonce(value: &str) -> Option<(u64, &str)> {
    let (body, _tag) = value.rsplit_once('.')?;
    let (issued, nonce) = body.split_once('.')?;
    let issued_ms = issued.parse::<u64>().ok()?;
    (nonce.len() == NONCE_LEN && nonce.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some((issued_ms, nonce))
}

/// When the session `value` ends by itself, if it is shaped as one.
pub fn ends_at(value: &str) -> Option<u64> {
    issued_and_nonce(value).map(|(issued_ms, _)| issued_ms.saturating_add(MAX_AGE_MS))
}

/// Whether `value` is a session this secret signed that has not expired.
pub fn verify(secret: &[u8], value: &str, now_ms: u64) -> bool {
    let Some((issued_ms, _)) = issued_and_nonce(value) else {
        return false;
    };
    let Some((body, tag)) = value.rsplit_once('.') else {
        return false;
    };
    let Ok(tag) = URL_SAFE_NO_PAD.decode(tag) else {
        return false;
    };
    if mac(secret, "admin", body).verify_slice(&tag).is_err() {
        return false;
    }
    // A session from the future is as suspect as an expired one.
    issued_ms <= now_ms.saturating_add(60_000) && now_ms < issued_ms.saturating_add(MAX_AGE_MS)
}

/// The session cookie's value in a `Cookie` header, whether or not valid.
pub fn from_cookies(cookie_header: &str, secure: bool) -> Option<&str> {
    cookie_header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == cookie_name(secure))
        .map(|(_, value)| value)
}

/// The CSRF token of the session whose cookie value is `value`.
pub fn csrf_token(secret: &[u8], value: &str) -> String {
    let tag = mac(secret, "csrf", value).finalize().into_bytes();
    URL_SAFE_NO_PAD.encode(&tag[..16])
}

/// Whether `token` is the CSRF token of the session `value`, compared in
/// constant time.
pub fn csrf_matches(secret: &[u8], value: &str, token: &str) -> bool {
    use subtle::ConstantTimeEq;
    bool::from(csrf_token(secret, value).as_bytes().ct_eq(token.as_bytes()))
}

/// The `Set-Cookie` value that starts a session. `SameSite=Strict`: staff
/// pages are never reached from another site's link with the cookie.
pub fn set_cookie(value: &str, secure: bool) -> String {
    let name = cookie_name(secure);
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{name}={value}; Path=/; Max-Age={}; HttpOnly; SameSite=Strict{secure}",
        MAX_AGE_MS / 1000
    )
}

/// The `Set-Cookie` value that ends a session.
pub fn clear_cookie(secure: bool) -> String {
    let name = cookie_name(secure);
    let secure = if secure { "; Secure" } else { "" };
    format!("{name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict{secure}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const NONCE: &str = "0123456789abcdef0123456789abcdef";
    const T0: u64 = 1_800_000_000_000;

    #[test]
    fn a_session_is_valid_until_it_expires() {
        let value = sign(b"secret", T0, NONCE);
        assert!(verify(b"secret", &value, T0));
        assert!(verify(b"secret", &value, T0 + MAX_AGE_MS - 1));
        assert!(!verify(b"secret", &value, T0 + MAX_AGE_MS));
        assert!(!verify(b"secret", &value, T0 - 3_600_000));
    }

    #[test]
    fn forged_edited_or_buyer_cookies_are_refused() {
        let value = sign(b"secret", T0, NONCE);
        assert!(!verify(b"other", &value, T0));
        let later = value.replacen(&T0.to_string(), &(T0 + 1).to_string(), 1);
        assert!(!verify(b"secret", &later, T0));
        let buyer = crate::session::sign(b"secret", NONCE);
        assert!(!verify(b"secret", &buyer, T0));
        assert!(!verify(b"secret", "", T0));
        assert!(!verify(b"secret", "1.2.3", T0));
    }

    #[test]
    fn a_sign_out_names_the_session_by_its_nonce_and_keeps_it_until_it_ends() {
        let value = sign(b"secret", T0, NONCE);
        assert_eq!(issued_and_nonce(&value), Some((T0, NONCE)));
        assert_eq!(ends_at(&value), Some(T0 + MAX_AGE_MS));
        for bad in [
            "",
            "1.2.3",
            "x.0123456789abcdef0123456789abcdef.tag",
            "1.short.tag",
        ] {
            assert_eq!(issued_and_nonce(bad), None, "{bad}");
        }
    }

    #[test]
    fn csrf_tokens_belong_to_one_session() {
        let a = sign(b"secret", T0, NONCE);
        let b = sign(b"secret", T0 + 1, NONCE);
        let token = csrf_token(b"secret", &a);
        assert!(csrf_matches(b"secret", &a, &token));
        assert!(!csrf_matches(b"secret", &b, &token));
        assert!(!csrf_matches(b"other", &a, &token));
        assert!(!csrf_matches(b"secret", &a, ""));
    }

    #[test]
    fn the_cookie_is_found_among_others_and_is_strict() {
        let header = format!("showtime_buyer=x; {COOKIE_NAME}=abc; z=1");
        assert_eq!(from_cookies(&header, false), Some("abc"));
        assert_eq!(from_cookies(&header, true), None);
        assert_eq!(from_cookies("showtime_buyer=x", false), None);
        let set = set_cookie("abc", true);
        assert!(set.starts_with("__Host-showtime_admin=abc; Path=/;"));
        let sent = format!("{HOST_COOKIE_NAME}=abc");
        assert_eq!(from_cookies(&sent, true), Some("abc"));
        assert!(set.contains("HttpOnly") && set.contains("SameSite=Strict"));
        assert!(set.ends_with("; Secure"));
        assert!(clear_cookie(false).contains("Max-Age=0"));
    }
}
