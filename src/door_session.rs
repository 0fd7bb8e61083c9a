//! A door device's session for one showing, given at sign-in for the
//! showing's door PIN (or the staff door token). The device then scans
//! with it, not with the PIN, so once it is at the door, wrong PINs guessed
//! from elsewhere cannot stop it: they lock the PIN for new sign-ins only.
//!
//! The value is `<showing id>.<expires ms>.<tag>`, the tag HMAC-SHA256 over
//! `door:<showing id>.<expires ms>` with a key bound to the showing's
//! stored PIN hash ([`crate::auth::door_session_key`]), so that setting a
//! new PIN ends every session of the old one. A session lasts until
//! [`AFTER_CLOSE_MS`] after the door closes, long enough for a device
//! offline all evening to send its scans. Pure: the routes pass in the
//! key and the time.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The request header a session comes in.
pub const HEADER: &str = "x-door-session";
/// How long after the door closes a session still works: as long as a
/// scan made before the close may still be sent
/// ([`crate::door_sync::MAX_SCAN_AGE_MS`]).
pub const AFTER_CLOSE_MS: u64 = crate::door_sync::MAX_SCAN_AGE_MS;
/// The longest value read: a 16-character id, a 13-digit time and a
/// 43-character tag, with room to spare.
const MAX_LEN: usize = 128;

fn mac(key: &[u8], body: &str) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(b"door:");
    mac.update(body.as_bytes());
    mac
}

/// The session for `showing_id` that ends at `expires_ms`.
pub fn sign(key: &[u8], showing_id: &str, expires_ms: u64) -> String {
    let body = format!("{showing_id}.{expires_ms}");
    let tag = mac(key, &body).finalize().into_bytes();
    format!("{body}.{}", URL_SAFE_NO_PAD.encode(tag))
}

/// Whether `value` is a session for `showing_id`, signed with `key`, that
/// has not ended at `now_ms`.
pub fn verify(key: &[u8], value: &str, showing_id: &str, now_ms: u64) -> bool {
    if value.len() > MAX_LEN {
        return false;
    }
    let Some((body, tag)) = value.rsplit_once('.') else {
        return false;
    };
    let Some((named, expires)) = body.split_once('.') else {
        return false;
    };
    let Ok(expires_ms) = expires.parse::<u64>() else {
        return false;
    };
    let Ok(tag) = URL_SAFE_NO_PAD.decode(tag) else {
        return false;
    };
    named == showing_id && now_ms < expires_ms && mac(key, body).verify_slice(&tag).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SID: &str = "0123456789abcdef";
    const KEY: [u8; 32] = [7; 32];

    #[test]
    fn a_session_works_for_its_showing_until_it_ends() {
        let value = sign(&KEY, SID, 5_000);
        assert!(verify(&KEY, &value, SID, 4_999));
        assert!(!verify(&KEY, &value, SID, 5_000), "ended");
        assert!(
            !verify(&KEY, &value, "fedcba9876543210", 1_000),
            "another showing's"
        );
        assert!(
            !verify(&[8; 32], &value, SID, 1_000),
            "a key of another PIN"
        );
    }

    #[test]
    fn an_altered_or_malformed_session_is_refused() {
        let value = sign(&KEY, SID, 5_000);
        let later = value.replacen(".5000.", ".9000.", 1);
        assert!(!verify(&KEY, &later, SID, 6_000), "a later end, unsigned");
        for bad in [
            "",
            "..",
            SID,
            &format!("{SID}.5000"),
            &format!("{SID}.x.{}", value.rsplit('.').next().unwrap()),
            &format!("{value}{}", "A".repeat(MAX_LEN)),
        ] {
            assert!(!verify(&KEY, bad, SID, 1_000), "{bad}");
        }
    }
}
