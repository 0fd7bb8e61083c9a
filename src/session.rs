//! The buyer's session: a signed cookie naming an anonymous buyer, so that
//! limits like "one live hold per buyer per showing" and "only the buyer who
//! made a hold may see or release it" have someone to apply to.
//!
//! The cookie value is `<buyer id>.<signature>`, where the signature is
//! HMAC-SHA256 over the id with the secret `SESSION_SECRET`. Pure: the
//! routes pass in the secret and the random id.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const COOKIE_NAME: &str = "showtime_buyer";
/// A buyer id is 32 hex characters (128 random bits).
const BUYER_ID_LEN: usize = 32;
/// A session lasts a month; it only names an anonymous buyer.
const MAX_AGE_S: u32 = 30 * 24 * 3600;

type HmacSha256 = Hmac<Sha256>;

fn mac(secret: &[u8], buyer: &str) -> HmacSha256 {
    // HMAC takes keys of any length, so this cannot fail.
    let mut mac = HmacSha256::new_from_slice(secret).expect("HMAC accepts any key length");
    mac.update(buyer.as_bytes());
    mac
}

/// The cookie value for `buyer`.
pub fn sign(secret: &[u8], buyer: &str) -> String {
    let tag = mac(secret, buyer).finalize().into_bytes();
    format!("{buyer}.{}", URL_SAFE_NO_PAD.encode(tag))
}

/// The buyer id in a cookie value, when its signature is right. The
/// signature is checked in constant time by the hmac crate.
pub fn verify(secret: &[u8], value: &str) -> Option<String> {
    let (buyer, tag) = value.split_once('.')?;
    if buyer.len() != BUYER_ID_LEN || !buyer.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
    mac(secret, buyer).verify_slice(&tag).ok()?;
    Some(buyer.to_string())
}

/// The buyer named by the request's `Cookie` header, if it carries a valid one.
pub fn buyer_from_cookies(secret: &[u8], cookie_header: &str) -> Option<String> {
    cookie_header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == COOKIE_NAME)
        .find_map(|(_, value)| verify(secret, value))
}

/// The `Set-Cookie` header value for `buyer`. `Secure` only over https, so
/// that the local stack on plain http keeps its session too.
pub fn set_cookie(secret: &[u8], buyer: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{COOKIE_NAME}={}; Path=/; Max-Age={MAX_AGE_S}; HttpOnly; SameSite=Lax{secure}",
        sign(secret, buyer)
    )
}

/// The secret in an order's link: whoever has it may read the order and
/// its tickets. Derived from the order id, so it is never stored.
pub fn order_access_key(secret: &[u8], order_id: &str) -> String {
    let tag = mac(secret, &format!("order:{order_id}"))
        .finalize()
        .into_bytes();
    // 16 bytes (128 bits) are as hard to guess as the hold tokens.
    URL_SAFE_NO_PAD.encode(&tag[..16])
}

/// Whether `key` is the access key of `order_id`, compared in constant time.
pub fn order_key_matches(secret: &[u8], order_id: &str, key: &str) -> bool {
    use subtle::ConstantTimeEq;
    let expected = order_access_key(secret, order_id);
    bool::from(expected.as_bytes().ct_eq(key.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUYER: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn a_signed_buyer_round_trips() {
        let value = sign(b"secret", BUYER);
        assert_eq!(verify(b"secret", &value).as_deref(), Some(BUYER));
        let header = format!("other=1; {COOKIE_NAME}={value}");
        assert_eq!(
            buyer_from_cookies(b"secret", &header).as_deref(),
            Some(BUYER)
        );
    }

    #[test]
    fn forged_or_edited_cookies_name_nobody() {
        let value = sign(b"secret", BUYER);
        assert_eq!(verify(b"other secret", &value), None);
        let edited = value.replacen('0', "1", 1);
        assert_eq!(verify(b"secret", &edited), None);
        assert_eq!(verify(b"secret", BUYER), None);
        assert_eq!(verify(b"secret", "short.abc"), None);
    }

    #[test]
    fn order_keys_are_per_order_and_per_secret() {
        let key = order_access_key(b"s", "order-1");
        assert_eq!(key.len(), 22);
        assert!(order_key_matches(b"s", "order-1", &key));
        assert!(!order_key_matches(b"s", "order-2", &key));
        assert!(!order_key_matches(b"t", "order-1", &key));
    }

    #[test]
    fn the_cookie_is_http_only_and_secure_over_https() {
        let header = set_cookie(b"k", BUYER, true);
        assert!(header.contains("HttpOnly") && header.ends_with("; Secure"));
        assert!(!set_cookie(b"k", BUYER, false).contains("Secure"));
    }
}
