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

use crate::keys::Keys;

pub const COOKIE_NAME: &str = "showtime_buyer";
/// The name over HTTPS: a `__Host-` cookie is set only by this very host,
/// over HTTPS, for the whole site, so no other subdomain can plant one.
pub const HOST_COOKIE_NAME: &str = "__Host-showtime_buyer";

fn cookie_name(secure: bool) -> &'static str {
    if secure {
        HOST_COOKIE_NAME
    } else {
        COOKIE_NAME
    }
}
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
pub fn buyer_from_cookies(secret: &[u8], cookie_header: &str, secure: bool) -> Option<String> {
    cookie_header
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .filter(|(name, _)| *name == cookie_name(secure))
        .find_map(|(_, value)| verify(secret, value))
}

/// The `Set-Cookie` header value for `buyer`. `Secure` only over https, so
/// that the local stack on plain http keeps its session too.
pub fn set_cookie(secret: &[u8], buyer: &str, secure: bool) -> String {
    let name = cookie_name(secure);
    let secure = if secure { "; Secure" } else { "" };
    format!(
        "{name}={}; Path=/; Max-Age={MAX_AGE_S}; HttpOnly; SameSite=Lax{secure}",
        sign(secret, buyer)
    )
}

/// The tag of an order's link under one secret: HMAC over the order id
/// with the secret's order-link key, 16 bytes (128 bits, as hard to guess
/// as a hold token), base64url.
fn order_tag(secret: &[u8], order_id: &str) -> String {
    let key = crate::keys::derive(secret, crate::keys::Purpose::OrderLink, b"");
    legacy_order_tag(&key, order_id)
}

/// The tag as links were made before keys were derived per purpose: with
/// the secret itself. Such links are still in buyers' mailboxes, so they
/// still open; none is made any more.
fn legacy_order_tag(secret: &[u8], order_id: &str) -> String {
    let tag = mac(secret, &format!("order:{order_id}"))
        .finalize()
        .into_bytes();
    URL_SAFE_NO_PAD.encode(&tag[..16])
}

/// The key in an order's link: whoever has it may read the order and its
/// tickets. Derived from the order id, so it is never stored. With the
/// order-link keys (`ORDER_LINK_KEYS`) it is `<key id>.<tag>`, signed by the
/// first key, so rotating `SESSION_SECRET` leaves links working and a
/// link key can itself rotate; without them, the bare tag under the
/// session secret, as links were made before those keys existed.
pub fn order_access_key(keys: Option<&Keys>, legacy_secret: &[u8], order_id: &str) -> String {
    match keys {
        Some(keys) => {
            let (id, secret) = keys.signer();
            format!("{id}.{}", order_tag(secret, order_id))
        }
        None => order_tag(legacy_secret, order_id),
    }
}

/// Whether `key` opens `order_id`: a key-id link checked with that key (any
/// listed key, so older links outlive a rotation), a bare one with the
/// session secret. Compared in constant time.
pub fn order_key_matches(
    keys: Option<&Keys>,
    legacy_secret: &[u8],
    order_id: &str,
    key: &str,
) -> bool {
    use subtle::ConstantTimeEq;
    let (prefix, secret) = match key.split_once('.') {
        Some((id, _)) => match keys.and_then(|k| k.secret(id)) {
            Some(secret) => (format!("{id}."), secret),
            None => return false,
        },
        None => (String::new(), legacy_secret),
    };
    [
        order_tag(secret, order_id),
        legacy_order_tag(secret, order_id),
    ]
    .iter()
    .any(|tag| bool::from(format!("{prefix}{tag}").as_bytes().ct_eq(key.as_bytes())))
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
            buyer_from_cookies(b"secret", &header, false).as_deref(),
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
        let key = order_access_key(None, b"s", "order-1");
        assert_eq!(key.len(), 22);
        assert!(order_key_matches(None, b"s", "order-1", &key));
        assert!(!order_key_matches(None, b"s", "order-2", &key));
        assert!(!order_key_matches(None, b"t", "order-1", &key));
    }

    #[test]
    fn links_are_made_with_the_order_link_key_and_older_links_still_open() {
        let secret = b"a session secret of thirty-two bytes";
        let key = order_access_key(None, secret, "order-1");
        assert_ne!(
            key,
            legacy_order_tag(secret, "order-1"),
            "not the secret itself"
        );
        assert!(order_key_matches(None, secret, "order-1", &key));
        let old = legacy_order_tag(secret, "order-1");
        assert!(order_key_matches(None, secret, "order-1", &old));
        assert!(!order_key_matches(None, secret, "order-2", &old));
    }

    #[test]
    fn link_keys_outlive_a_new_session_secret_and_a_rotation_of_their_own() {
        let old = Keys::parse("a:0123456789abcdef0123456789abcdef").unwrap();
        let key = order_access_key(Some(&old), b"session one", "order-1");
        assert!(key.starts_with("a.") && key.len() == 24);
        // The session secret changed: the link still opens.
        assert!(order_key_matches(
            Some(&old),
            b"session two",
            "order-1",
            &key
        ));
        // A new link key signs; the old one still verifies its links.
        let rotated =
            Keys::parse("b:fedcba9876543210fedcba9876543210,a:0123456789abcdef0123456789abcdef")
                .unwrap();
        assert!(order_key_matches(Some(&rotated), b"x", "order-1", &key));
        assert!(order_access_key(Some(&rotated), b"x", "order-1").starts_with("b."));
        // A key id nobody lists, or another order, opens nothing.
        let dropped = Keys::parse("b:fedcba9876543210fedcba9876543210").unwrap();
        assert!(!order_key_matches(Some(&dropped), b"x", "order-1", &key));
        assert!(!order_key_matches(Some(&old), b"x", "order-2", &key));
        // Links from before the link keys keep working with the session secret.
        let legacy = order_access_key(None, b"session one", "order-1");
        assert!(order_key_matches(
            Some(&old),
            b"session one",
            "order-1",
            &legacy
        ));
    }

    #[test]
    fn the_cookie_is_http_only_and_secure_over_https() {
        let header = set_cookie(b"k", BUYER, true);
        assert!(header.starts_with("__Host-showtime_buyer="), "{header}");
        let value = header.split(';').next().unwrap().to_string();
        assert!(buyer_from_cookies(b"k", &value, true).is_some());
        assert!(buyer_from_cookies(b"k", &value, false).is_none());
        let plain = value.replace("__Host-", "");
        assert!(
            buyer_from_cookies(b"k", &plain, true).is_none(),
            "not the plain name over https"
        );
        assert!(header.contains("HttpOnly") && header.ends_with("; Secure"));
        assert!(!set_cookie(b"k", BUYER, false).contains("Secure"));
    }
}
