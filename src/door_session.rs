//! A door device's session for one showing, given at sign-in for the
//! showing's door PIN (or the staff door token). The device then scans and
//! syncs with it, not with the PIN, and keeps only it: once it is at the
//! door, wrong PINs guessed from elsewhere cannot stop it, and the PIN is
//! not left on the device.
//!
//! The session names the device: the Worker draws the device's id at
//! sign-in and signs it in, so a device cannot record scans under another
//! device's name, and says when it was given, so a scan cannot be dated
//! before its device signed in. The value is
//! `<showing id>.<device>.<issued ms>.<expires ms>.<tag>`, the tag
//! HMAC-SHA256 over `door:` and the rest, with a key bound to the
//! showing's stored PIN hash ([`crate::auth::door_session_key`]), so that
//! setting a new PIN ends every session of the old one. A session lasts
//! until [`AFTER_CLOSE_MS`] after the door closes, long enough for a device
//! offline all evening to send its scans. Pure: the routes pass in the
//! key, the device's id and the time.

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
/// What a device id starts with; the rest is [`DEVICE_HEX`] hex digits.
pub const DEVICE_PREFIX: &str = "door-";
/// Hex digits drawn for a device id: 48 bits, so that two devices of one
/// showing never share one.
pub const DEVICE_HEX: usize = 12;
/// The longest value read: a 16-character id, a 17-character device, two
/// 13-digit times and a 43-character tag, with room to spare.
const MAX_LEN: usize = 160;

/// A session as signed: the showing, the device it names and its life.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub showing_id: String,
    pub device: String,
    pub issued_at_ms: u64,
    pub expires_at_ms: u64,
}

/// Whether `device` is an id the Worker draws: `door-` and 12 hex digits.
pub fn is_device_id(device: &str) -> bool {
    device.strip_prefix(DEVICE_PREFIX).is_some_and(|hex| {
        hex.len() == DEVICE_HEX && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

fn mac(key: &[u8], body: &str) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(b"door:");
    mac.update(body.as_bytes());
    mac
}

/// The signed value of `session`.
pub fn sign(key: &[u8], session: &Session) -> String {
    let body = format!(
        "{}.{}.{}.{}",
        session.showing_id, session.device, session.issued_at_ms, session.expires_at_ms
    );
    let tag = mac(key, &body).finalize().into_bytes();
    format!("{body}.{}", URL_SAFE_NO_PAD.encode(tag))
}

/// The session `value` is, if it is one for `showing_id`, signed with
/// `key`, that has not ended at `now_ms`.
pub fn verify(key: &[u8], value: &str, showing_id: &str, now_ms: u64) -> Option<Session> {
    if value.len() > MAX_LEN {
        return None;
    }
    let (body, tag) = value.rsplit_once('.')?;
    let mut parts = body.split('.');
    let (named, device, issued, expires) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || named != showing_id || !is_device_id(device) {
        return None;
    }
    let session = Session {
        showing_id: named.to_string(),
        device: device.to_string(),
        issued_at_ms: issued.parse().ok()?,
        expires_at_ms: expires.parse().ok()?,
    };
    let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
    mac(key, body).verify_slice(&tag).ok()?;
    (now_ms < session.expires_at_ms).then_some(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SID: &str = "0123456789abcdef";
    const KEY: [u8; 32] = [7; 32];

    fn session() -> Session {
        Session {
            showing_id: SID.into(),
            device: "door-0123456789ab".into(),
            issued_at_ms: 1_000,
            expires_at_ms: 5_000,
        }
    }

    #[test]
    fn a_session_works_for_its_showing_until_it_ends_and_names_its_device() {
        let value = sign(&KEY, &session());
        assert_eq!(verify(&KEY, &value, SID, 4_999), Some(session()));
        assert_eq!(verify(&KEY, &value, SID, 5_000), None, "ended");
        assert_eq!(verify(&KEY, &value, "fedcba9876543210", 1_000), None);
        assert_eq!(verify(&[8; 32], &value, SID, 1_000), None, "another PIN's");
    }

    #[test]
    fn an_altered_or_malformed_session_is_refused() {
        let value = sign(&KEY, &session());
        let tag = value.rsplit('.').next().unwrap();
        let later = value.replacen(".5000.", ".9000.", 1);
        let other_device = value.replacen("door-0123456789ab", "door-0123456789ac", 1);
        let earlier = value.replacen(".1000.", ".0.", 1);
        for bad in [
            later.as_str(),
            &other_device,
            &earlier,
            "",
            "....",
            SID,
            &format!("{SID}.door-0123456789ab.1000.5000"),
            &format!("{SID}.door-0123456789ab.x.5000.{tag}"),
            &format!("{SID}.door-1.1000.5000.{tag}"),
            &format!("{value}{}", "A".repeat(MAX_LEN)),
        ] {
            assert_eq!(verify(&KEY, bad, SID, 2_000), None, "{bad}");
        }
    }

    #[test]
    fn only_drawn_device_ids_are_device_ids() {
        assert!(is_device_id("door-0123456789ab"));
        for bad in [
            "door-1",
            "door-0123456789AB",
            "pin",
            "door-0123456789abc",
            "",
        ] {
            assert!(!is_device_id(bad), "{bad}");
        }
    }
}
