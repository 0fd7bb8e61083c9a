//! The network a request comes from, as Cloudflare saw it: what the
//! limits on holds, orders, lookups and wrong credentials count by.

use worker::Request;

/// The network the client asks from: its IPv4 address or IPv6 /64, as
/// Cloudflare saw it.
pub fn client_address(req: &Request) -> String {
    desk::client_key(&connecting_ip(req))
}

/// The network a guesser of door PINs or buyers' addresses asks from: its
/// IPv4 address or IPv6 /48 (`desk::guesser_key`).
pub fn guesser_address(req: &Request) -> String {
    desk::guesser_key(&connecting_ip(req))
}

/// The client's address as Cloudflare saw it.
fn connecting_ip(req: &Request) -> String {
    req.headers()
        .get("cf-connecting-ip")
        .ok()
        .flatten()
        .unwrap_or_else(|| "unknown".to_string())
}
