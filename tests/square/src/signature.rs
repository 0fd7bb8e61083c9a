//! Square's webhook signature: base64(HMAC-SHA256(key, notification_url +
//! raw body)). The URL is the subscribed one, byte for byte, so it comes from
//! configuration rather than from where the request is actually sent.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

pub fn sign(signature_key: &str, notification_url: &str, body: &[u8]) -> String {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(signature_key.as_bytes())
        .expect("HMAC takes any key length");
    mac.update(notification_url.as_bytes());
    mac.update(body);
    STANDARD.encode(mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_first_published_vector() {
        assert_eq!(
            sign(
                "asdf1234",
                "https://example.com/webhook",
                br#"{"hello":"world"}"#
            ),
            "2kRE5qRU2tR+tBGlDwMEw2avJ7QM4ikPYD/PJ3bd9Og="
        );
    }

    #[test]
    fn matches_the_second_published_vector() {
        assert_eq!(
            sign(
                "signature-key",
                "https://webhook.site/webhooks",
                br#"{"data":{"type":"webhooks","id":"fake_id"}}"#
            ),
            "W3FlCNk5IA3ZQ2LHTWoajvzfaDu/OwY2tNHIHC3IUOA="
        );
    }
}
