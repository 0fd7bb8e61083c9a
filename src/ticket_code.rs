//! Ticket codes: what the QR code on a ticket says and the door scans.
//!
//! `v1.<key id>.<showing id>.<ticket id>.<seat, base64url>.<signature>`,
//! where the signature is the first 128 bits of HMAC-SHA256 over everything
//! before the last dot, base64url. The key id names which secret signed it,
//! so keys can rotate: the secret `TICKET_SIGNING_KEYS` lists
//! `id:secret` pairs, the first signs, all verify. Pure.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

const VERSION: &str = "v1";
/// Longest code accepted; a real one is about 150 characters.
pub const MAX_CODE_BYTES: usize = 512;
const SIGNATURE_BYTES: usize = 16;

/// What a valid code names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRef {
    pub showing_id: String,
    pub ticket_id: String,
    pub seat: String,
}

/// The signing keys, in order: the first signs.
#[derive(Debug, Clone)]
pub struct Keys(Vec<(String, Vec<u8>)>);

impl Keys {
    /// Reads `id:secret,id:secret`; ids are short and alphanumeric.
    pub fn parse(text: &str) -> Result<Keys, String> {
        let keys: Vec<(String, Vec<u8>)> = text
            .split(',')
            .map(str::trim)
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (id, secret) = pair.split_once(':').ok_or("each key is id:secret")?;
                let id_ok = !id.is_empty()
                    && id.len() <= 8
                    && id.bytes().all(|b| b.is_ascii_alphanumeric());
                if !id_ok || secret.len() < crate::keys::MIN_SECRET_BYTES {
                    return Err(
                        "key ids are 1 to 8 letters or digits and secrets at least 32 bytes",
                    );
                }
                Ok((id.to_string(), secret.as_bytes().to_vec()))
            })
            .collect::<Result<_, _>>()?;
        if keys.is_empty() {
            return Err("no ticket signing key".into());
        }
        Ok(Keys(keys))
    }

    /// The key that signs: the first.
    pub fn signer(&self) -> (&str, &[u8]) {
        let (id, secret) = &self.0[0];
        (id, secret)
    }

    /// The secret of key `id`, if listed.
    pub fn secret(&self, id: &str) -> Option<&[u8]> {
        self.0
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, s)| s.as_slice())
    }
}

fn mac(secret: &[u8], signed: &str) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts any key length");
    mac.update(signed.as_bytes());
    mac
}

/// The code for a ticket, signed with the first key.
pub fn sign(keys: &Keys, ticket: &TicketRef) -> String {
    let (id, secret) = &keys.0[0];
    let seat = URL_SAFE_NO_PAD.encode(ticket.seat.as_bytes());
    let signed = format!(
        "{VERSION}.{id}.{}.{}.{seat}",
        ticket.showing_id, ticket.ticket_id
    );
    let tag = mac(secret, &signed).finalize().into_bytes();
    format!(
        "{signed}.{}",
        URL_SAFE_NO_PAD.encode(&tag[..SIGNATURE_BYTES])
    )
}

/// The ticket a code names, if it is well formed and signed by one of the
/// keys; the signature is checked in constant time.
pub fn verify(keys: &Keys, code: &str) -> Option<TicketRef> {
    let code = code.trim();
    if code.len() > MAX_CODE_BYTES {
        return None;
    }
    let (signed, signature) = code.rsplit_once('.')?;
    let mut parts = signed.split('.');
    let (version, key_id, showing_id, ticket_id, seat) = (
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if version != VERSION || parts.next().is_some() {
        return None;
    }
    let tag = URL_SAFE_NO_PAD.decode(signature).ok()?;
    if tag.len() != SIGNATURE_BYTES {
        return None;
    }
    mac(keys.secret(key_id)?, signed)
        .verify_truncated_left(&tag)
        .ok()?;
    let seat = String::from_utf8(URL_SAFE_NO_PAD.decode(seat).ok()?).ok()?;
    Some(TicketRef {
        showing_id: showing_id.to_string(),
        ticket_id: ticket_id.to_string(),
        seat,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ticket() -> TicketRef {
        TicketRef {
            showing_id: "0123456789abcdef".into(),
            ticket_id: "0123456789abcdefaaaaaaaaaaaaaaaaaaaaaaaa-1".into(),
            seat: "Site 1".into(),
        }
    }

    #[test]
    fn a_signed_code_reads_back() {
        let keys = Keys::parse("k2:second-secret-0123456789-abcdefghijklmnop,k1:first-secret-0123456789-abcdefghijklmnop").unwrap();
        let code = sign(&keys, &ticket());
        assert!(code.starts_with("v1.k2."));
        assert_eq!(verify(&keys, &code), Some(ticket()));
    }

    #[test]
    fn an_old_key_still_verifies_after_rotation() {
        let old = Keys::parse("k1:first-secret-0123456789-abcdefghijklmnop").unwrap();
        let rotated =
            Keys::parse("k2:second-secret-0123456789-abcdefghijklmnop,k1:first-secret-0123456789-abcdefghijklmnop").unwrap();
        assert_eq!(verify(&rotated, &sign(&old, &ticket())), Some(ticket()));
    }

    #[test]
    fn forged_or_edited_codes_name_nothing() {
        let keys = Keys::parse("k1:first-secret-0123456789-abcdefghijklmnop").unwrap();
        let other = Keys::parse("k1:another-secret-012345678-abcdefghijklmnop").unwrap();
        let code = sign(&keys, &ticket());
        assert_eq!(verify(&keys, &sign(&other, &ticket())), None);
        let seat_a1 = URL_SAFE_NO_PAD.encode("A1");
        let edited = code.replace(&URL_SAFE_NO_PAD.encode("Site 1"), &seat_a1);
        assert_eq!(verify(&keys, &edited), None);
        assert_eq!(verify(&keys, &code.replace("v1.k1", "v1.k9")), None);
        assert_eq!(verify(&keys, "garbage"), None);
        assert_eq!(verify(&keys, &code[..code.len() - 2]), None);
    }

    #[test]
    fn keys_must_be_named_and_long_enough() {
        assert!(Keys::parse("").is_err());
        assert!(Keys::parse("k1:short").is_err());
        assert!(Keys::parse("bad id:first-secret-0123456789-abcdefghijklmnop").is_err());
    }
}
