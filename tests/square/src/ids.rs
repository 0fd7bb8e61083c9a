//! Identifiers shaped like Square's: opaque base62 strings, refund ids
//! prefixed with their payment's id, `cnon:` card tokens.

use rand::distributions::{Alphanumeric, DistString};

const PAYMENT_ID_CHARS: usize = 29;
const ORDER_ID_CHARS: usize = 27;
const REFUND_SUFFIX_CHARS: usize = 43;
const CARD_TOKEN_CHARS: usize = 32;
const VERSION_TOKEN_CHARS: usize = 40;

fn random(chars: usize) -> String {
    Alphanumeric.sample_string(&mut rand::thread_rng(), chars)
}

pub fn payment_id() -> String {
    random(PAYMENT_ID_CHARS)
}

/// Square spells a refund id as `<payment id>_<suffix>`.
pub fn refund_id(payment_id: &str) -> String {
    format!("{payment_id}_{}", random(REFUND_SUFFIX_CHARS))
}

/// Square's order ids are base62 too, a little shorter than a payment's.
pub fn order_id() -> String {
    random(ORDER_ID_CHARS)
}

pub fn card_token() -> String {
    format!("cnon:{}", random(CARD_TOKEN_CHARS))
}

pub fn version_token() -> String {
    random(VERSION_TOKEN_CHARS)
}

pub fn event_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
