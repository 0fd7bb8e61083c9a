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
