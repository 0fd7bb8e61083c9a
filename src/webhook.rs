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

/// The card a Square payment was made with, as a receipt shows it.
#[derive(Debug, PartialEq, Eq)]
pub struct CardShown {
    /// Square's brand code: `VISA`, `MASTERCARD`, `AMERICAN_EXPRESS`, …
    pub brand: String,
    pub last4: String,
}

/// Longest card brand code kept: Square's longest is under 30.
const MAX_BRAND_BYTES: usize = 40;

/// `card_details.card` of a payment object, when it has a brand code and
/// four digits; anything else (a cash payment, a malformed field) is none.
pub fn card_of(payment: &serde_json::Value) -> Option<CardShown> {
    let card = &payment["card_details"]["card"];
    let brand = card["card_brand"].as_str()?;
    let last4 = card["last_4"].as_str()?;
    let brand_ok = (1..=MAX_BRAND_BYTES).contains(&brand.len())
        && brand.bytes().all(|b| b.is_ascii_uppercase() || b == b'_');
    let last4_ok = last4.len() == 4 && last4.bytes().all(|b| b.is_ascii_digit());
    (brand_ok && last4_ok).then(|| CardShown {
        brand: brand.to_string(),
        last4: last4.to_string(),
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_payments_card_is_its_brand_and_last_four_digits_or_nothing() {
        let paid = |brand: &str, last4: &str| serde_json::json!({"card_details": {"card": {"card_brand": brand, "last_4": last4}}});
        assert_eq!(
            card_of(&paid("VISA", "1111")),
            Some(CardShown {
                brand: "VISA".into(),
                last4: "1111".into()
            })
        );
        for (brand, last4) in [
            ("visa", "1111"),
            ("VISA", "111"),
            ("VISA", "11a1"),
            ("", "1111"),
        ] {
            assert_eq!(card_of(&paid(brand, last4)), None, "{brand} {last4}");
        }
        assert_eq!(card_of(&serde_json::json!({"cash_details": {}})), None);
    }
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
