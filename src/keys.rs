//! Keys made from the secrets the cinema sets: the shortest secret
//! accepted, lists of named secrets that rotate, and a key for each
//! purpose derived from one secret.
//!
//! One secret signs several things (buyer cookies, staff sessions, CSRF
//! tokens, order links, door PIN hashes); each gets its own key, derived
//! with HKDF-SHA256 (RFC 5869) and a label, so that what is learned of one
//! (a buyer cookie is a sample anyone can get) says nothing of the others.
//! Every secret is checked before the Worker does anything with it
//! ([`crate::settings::check`]). Pure: the shell passes in the secrets.

use hkdf::Hkdf;
use sha2::Sha256;

/// The shortest secret accepted: 256 bits, past any offline guessing.
pub const MIN_SECRET_BYTES: usize = 32;

/// Secrets named by short ids (`id:secret[,id:secret…]`), in order: the
/// first signs, all verify, so a key can rotate. Order links use them.
#[derive(Clone)]
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
                if !id_ok || secret.len() < MIN_SECRET_BYTES {
                    return Err(
                        "key ids are 1 to 8 letters or digits and secrets at least 32 bytes",
                    );
                }
                Ok((id.to_string(), secret.as_bytes().to_vec()))
            })
            .collect::<Result<_, _>>()?;
        if keys.is_empty() {
            return Err("no key".into());
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

impl std::fmt::Debug for Keys {
    // Never the secrets themselves.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.0.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_tuple("Keys").field(&ids).finish()
    }
}

/// What a derived key is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    BuyerSession,
    StaffSession,
    Csrf,
    OrderLink,
    DoorPin,
    DoorSession,
    /// Queue and admission tokens of a showing's waiting room.
    WaitingRoom,
    /// The links of waiting list offers.
    WaitlistOffer,
}

impl Purpose {
    fn label(self) -> &'static str {
        match self {
            Purpose::BuyerSession => "showtime buyer session v1",
            Purpose::StaffSession => "showtime staff session v1",
            Purpose::Csrf => "showtime csrf v1",
            Purpose::OrderLink => "showtime order link v1",
            Purpose::DoorPin => "showtime door pin v1",
            Purpose::DoorSession => "showtime door session v1",
            Purpose::WaitingRoom => "showtime waiting room v1",
            Purpose::WaitlistOffer => "showtime waitlist offer v1",
        }
    }
}

/// The key for `purpose` from `secret`; `context` binds it further (the
/// staff session key to the admin token and the sign-out epoch).
pub fn derive(secret: &[u8], purpose: Purpose, context: &[u8]) -> [u8; 32] {
    let mut info = purpose.label().as_bytes().to_vec();
    info.push(0);
    info.extend_from_slice(context);
    let mut key = [0u8; 32];
    Hkdf::<Sha256>::new(None, secret)
        .expand(&info, &mut key)
        .expect("32 bytes is a length HKDF-SHA256 gives");
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_purpose_and_context_has_its_own_key() {
        let secret = b"one secret for everything, 32 bytes long";
        let purposes = [
            Purpose::BuyerSession,
            Purpose::StaffSession,
            Purpose::Csrf,
            Purpose::OrderLink,
            Purpose::DoorPin,
            Purpose::DoorSession,
            Purpose::WaitingRoom,
            Purpose::WaitlistOffer,
        ];
        let mut keys: Vec<[u8; 32]> = purposes.iter().map(|&p| derive(secret, p, b"")).collect();
        keys.push(derive(secret, Purpose::StaffSession, b"epoch 1"));
        keys.push(derive(
            b"another secret entirely, also long",
            Purpose::Csrf,
            b"",
        ));
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(
            derive(secret, Purpose::Csrf, b""),
            derive(secret, Purpose::Csrf, b"")
        );
    }
}
