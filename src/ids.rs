//! Random identifiers from the platform's secure random source.

/// `bytes` random bytes as lower-case hex.
pub fn random_hex(bytes: usize) -> Result<String, getrandom::Error> {
    let mut buf = vec![0u8; bytes];
    getrandom::getrandom(&mut buf)?;
    Ok(hex::encode(buf))
}

/// A showing id: 64 random bits are plenty for a name that is public anyway.
pub fn new_showing_id() -> Result<String, getrandom::Error> {
    random_hex(8)
}

/// Bytes of an order's nonce: an order's id is its showing's id and the
/// nonce in hex, so the id names its showing.
pub const ORDER_NONCE_BYTES: usize = 12;

/// A fresh order nonce, as hex.
pub fn order_nonce() -> Result<String, getrandom::Error> {
    random_hex(ORDER_NONCE_BYTES)
}

/// The showing an order id names; `None` for an id too short to be one.
pub fn showing_of_order(order_id: &str) -> Option<&str> {
    let end = order_id.len().checked_sub(ORDER_NONCE_BYTES * 2)?;
    order_id.get(..end).filter(|s| !s.is_empty())
}
