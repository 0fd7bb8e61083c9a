//! Square's webhook signature: base64 of HMAC-SHA256 over the subscribed
//! notification URL followed by the raw body, compared in constant time.
//! Pure; the route passes in the configured URL, key and raw bytes.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// Whether `signature` (the `x-square-hmacsha256-signature` header) signs
/// `body` as delivered to `notification_url` with `key`.
pub fn signature_is_valid(key: &str, notification_url: &str, body: &[u8], signature: &str) -> bool {
    let Ok(given) = STANDARD.decode(signature.trim()) else {
        return false;
    };
    let mut mac =
        Hmac::<Sha256>::new_from_slice(key.as_bytes()).expect("HMAC accepts any key length");
    mac.update(notification_url.as_bytes());
    mac.update(body);
    // verify_slice compares in constant time.
    mac.verify_slice(&given).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two test vectors of `shared/square.md`.
    #[test]
    fn squares_test_vectors_verify() {
        assert!(signature_is_valid(
            "asdf1234",
            "https://example.com/webhook",
            br#"{"hello":"world"}"#,
            "2kRE5qRU2tR+tBGlDwMEw2avJ7QM4ikPYD/PJ3bd9Og="
        ));
        assert!(signature_is_valid(
            "signature-key",
            "https://webhook.site/webhooks",
            br#"{"data":{"type":"webhooks","id":"fake_id"}}"#,
            "W3FlCNk5IA3ZQ2LHTWoajvzfaDu/OwY2tNHIHC3IUOA="
        ));
    }

    #[test]
    fn forged_altered_or_missing_signatures_fail() {
        let sig = "2kRE5qRU2tR+tBGlDwMEw2avJ7QM4ikPYD/PJ3bd9Og=";
        let url = "https://example.com/webhook";
        assert!(!signature_is_valid(
            "asdf1234",
            url,
            br#"{"hello":"World"}"#,
            sig
        ));
        assert!(!signature_is_valid(
            "other",
            url,
            br#"{"hello":"world"}"#,
            sig
        ));
        assert!(!signature_is_valid(
            "asdf1234",
            "https://example.com/other",
            br#"{"hello":"world"}"#,
            sig
        ));
        assert!(!signature_is_valid(
            "asdf1234",
            url,
            br#"{"hello":"world"}"#,
            ""
        ));
        assert!(!signature_is_valid(
            "asdf1234",
            url,
            br#"{"hello":"world"}"#,
            "not base64!"
        ));
    }
}
