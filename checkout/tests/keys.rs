//! Idempotency keys: short enough for Square, the same for the same
//! intent, different for any other.

use checkout::{authorization_key, refund_key, MAX_IDEMPOTENCY_KEY_CHARS};
use std::collections::HashSet;

#[test]
fn keys_fit_square_and_are_deterministic() {
    let long = "h".repeat(64);
    let token = "t".repeat(512);
    for key in [
        authorization_key("hold-1", "cnon:card-nonce-ok"),
        authorization_key(&long, &token),
        refund_key("order-1"),
        refund_key(&"o".repeat(40)),
    ] {
        assert!(key.len() <= MAX_IDEMPOTENCY_KEY_CHARS, "{key}");
        assert!(key.bytes().all(|b| b.is_ascii_graphic()), "{key}");
    }
    assert_eq!(
        authorization_key("hold-1", "cnon:a"),
        authorization_key("hold-1", "cnon:a")
    );
    assert_eq!(refund_key("order-1"), refund_key("order-1"));
    assert!(authorization_key("hold-1", "cnon:a").starts_with("auth-"));
    assert!(refund_key("order-1").starts_with("refund-"));
}

#[test]
fn pinned_values_follow_the_documented_derivation() {
    // Computed outside Rust from the derivation in the keys module: a
    // changed derivation would send a new key for an order already in
    // flight, and Square would authorize it a second time.
    assert_eq!(
        authorization_key("hold-1", "cnon:card-nonce-ok"),
        "auth-e76396079a5ca7f8d98a08a7d52377cc61dcddb3"
    );
    assert_eq!(
        refund_key("order-1"),
        "refund-926e3fd9c35b89468c9f26850a7fa8a5a6b0e4"
    );
}

#[test]
fn different_holds_or_cards_get_different_keys() {
    let mut seen = HashSet::new();
    for hold in ["hold-1", "hold-2", "hold-10", "h"] {
        for card in ["cnon:a", "cnon:b", "cnon:card-nonce-ok", "1"] {
            assert!(seen.insert(authorization_key(hold, card)), "{hold} {card}");
        }
    }
    // Moving bytes between the parts does not give the same key.
    assert_ne!(authorization_key("ab", "c"), authorization_key("a", "bc"));
    // An order's refund key is never one of its authorization keys.
    assert_ne!(refund_key("hold-1"), authorization_key("hold-1", ""));
    assert_ne!(refund_key("order-1"), refund_key("order-2"));
}
