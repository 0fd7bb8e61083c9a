//! Ticket codes: what the QR code on a ticket says and the door scans.
//!
//! `v2.<key id>.<showing id>.<ticket id>.<seat, base64url>.<signature>`,
//! where the signature is Ed25519 (RFC 8032) over everything before the last
//! dot, base64url. A door device holding the public keys (served in the
//! door's manifest) checks a code with no network.
//!
//! `v1.…` codes, made before, carry the first 128 bits of HMAC-SHA256 in
//! place of the signature: only the server can check them, so they are
//! checked online only.
//!
//! The key id names which key signed, so keys can rotate: the secret
//! `TICKET_SIGNING_KEYS` lists `id:ed25519:<64 hex digits>` (an Ed25519
//! private key) and `id:<secret>` (an HMAC secret, for v1 codes) pairs; the
//! first signs, all verify. Pure.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

const HMAC_VERSION: &str = "v1";
const ED25519_VERSION: &str = "v2";
const ED25519_PREFIX: &str = "ed25519:";
/// Longest code accepted; a real one is about 190 characters.
pub const MAX_CODE_BYTES: usize = 512;
const HMAC_TAG_BYTES: usize = 16;

/// What a valid code names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketRef {
    pub showing_id: String,
    pub ticket_id: String,
    pub seat: String,
}

#[derive(Clone)]
enum Key {
    Hmac(Vec<u8>),
    Ed25519(Box<SigningKey>),
}

/// A public key as door devices are given it: its id and its 32 bytes,
/// base64url.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicKey {
    pub id: String,
    pub key: String,
}

/// The signing keys, in order: the first signs.
#[derive(Clone)]
pub struct TicketKeys(Vec<(String, Key)>);

impl std::fmt::Debug for TicketKeys {
    // Never the keys themselves.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.0.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_tuple("TicketKeys").field(&ids).finish()
    }
}

fn parse_key(secret: &str) -> Result<Key, &'static str> {
    if let Some(hex_key) = secret.strip_prefix(ED25519_PREFIX) {
        let bytes: [u8; 32] = hex::decode(hex_key.trim())
            .ok()
            .and_then(|b| b.try_into().ok())
            .ok_or(
                "an ed25519 key is 64 hex digits (32 random bytes, e.g. `openssl rand -hex 32`)",
            )?;
        return Ok(Key::Ed25519(Box::new(SigningKey::from_bytes(&bytes))));
    }
    if secret.len() < crate::keys::MIN_SECRET_BYTES {
        return Err("key ids are 1 to 8 letters or digits and secrets at least 32 bytes");
    }
    Ok(Key::Hmac(secret.as_bytes().to_vec()))
}

impl TicketKeys {
    /// Reads `id:ed25519:<hex>,id:secret`; ids are short and alphanumeric
    /// and not repeated.
    pub fn parse(text: &str) -> Result<TicketKeys, String> {
        let mut keys: Vec<(String, Key)> = Vec::new();
        for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (id, secret) = pair.split_once(':').ok_or("each key is id:secret")?;
            let id_ok =
                !id.is_empty() && id.len() <= 8 && id.bytes().all(|b| b.is_ascii_alphanumeric());
            if !id_ok {
                return Err(
                    "key ids are 1 to 8 letters or digits and secrets at least 32 bytes".into(),
                );
            }
            if keys.iter().any(|(known, _)| known == id) {
                return Err(format!("key id {id} is listed twice"));
            }
            keys.push((id.to_string(), parse_key(secret)?));
        }
        if keys.is_empty() {
            return Err("no ticket signing key".into());
        }
        Ok(TicketKeys(keys))
    }

    /// The public half of every Ed25519 key, for door devices.
    pub fn public_keys(&self) -> Vec<PublicKey> {
        self.0
            .iter()
            .filter_map(|(id, key)| match key {
                Key::Ed25519(signing) => Some(PublicKey {
                    id: id.clone(),
                    key: URL_SAFE_NO_PAD.encode(signing.verifying_key().as_bytes()),
                }),
                Key::Hmac(_) => None,
            })
            .collect()
    }

    /// Whether new codes can be checked by a device alone (the first key
    /// is an Ed25519 key).
    pub fn signs_for_devices(&self) -> bool {
        matches!(self.0[0].1, Key::Ed25519(_))
    }

    fn get(&self, id: &str) -> Option<&Key> {
        self.0.iter().find(|(k, _)| k == id).map(|(_, key)| key)
    }
}

fn mac(secret: &[u8], signed: &str) -> Hmac<Sha256> {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC accepts any key length");
    mac.update(signed.as_bytes());
    mac
}

/// The code for a ticket, signed with the first key.
pub fn sign(keys: &TicketKeys, ticket: &TicketRef) -> String {
    let (id, key) = &keys.0[0];
    let version = match key {
        Key::Hmac(_) => HMAC_VERSION,
        Key::Ed25519(_) => ED25519_VERSION,
    };
    let seat = URL_SAFE_NO_PAD.encode(ticket.seat.as_bytes());
    let signed = format!(
        "{version}.{id}.{}.{}.{seat}",
        ticket.showing_id, ticket.ticket_id
    );
    let signature = match key {
        Key::Hmac(secret) => {
            let tag = mac(secret, &signed).finalize().into_bytes();
            URL_SAFE_NO_PAD.encode(&tag[..HMAC_TAG_BYTES])
        }
        Key::Ed25519(signing) => URL_SAFE_NO_PAD.encode(signing.sign(signed.as_bytes()).to_bytes()),
    };
    format!("{signed}.{signature}")
}

/// A code taken apart, its signature not yet checked.
struct Parts<'a> {
    version: &'a str,
    key_id: &'a str,
    signed: &'a str,
    signature: Vec<u8>,
    showing_id: &'a str,
    ticket_id: &'a str,
    seat: &'a str,
}

fn parts(code: &str) -> Option<Parts<'_>> {
    let code = code.trim();
    if code.len() > MAX_CODE_BYTES {
        return None;
    }
    let (signed, signature) = code.rsplit_once('.')?;
    let mut fields = signed.split('.');
    let parts = Parts {
        version: fields.next()?,
        key_id: fields.next()?,
        showing_id: fields.next()?,
        ticket_id: fields.next()?,
        seat: fields.next()?,
        signed,
        signature: URL_SAFE_NO_PAD.decode(signature).ok()?,
    };
    fields.next().is_none().then_some(parts)
}

impl Parts<'_> {
    fn ticket(&self) -> Option<TicketRef> {
        let seat = String::from_utf8(URL_SAFE_NO_PAD.decode(self.seat).ok()?).ok()?;
        Some(TicketRef {
            showing_id: self.showing_id.to_string(),
            ticket_id: self.ticket_id.to_string(),
            seat,
        })
    }

    /// Checks an Ed25519 signature (strictly: no malleable signature or
    /// weak key is accepted).
    fn ed25519_valid(&self, key: &VerifyingKey) -> bool {
        let Ok(signature) = Signature::from_slice(&self.signature) else {
            return false;
        };
        key.verify_strict(self.signed.as_bytes(), &signature)
            .is_ok()
    }
}

/// The ticket a code names, if it is well formed and signed by one of the
/// keys; an HMAC tag is checked in constant time.
pub fn verify(keys: &TicketKeys, code: &str) -> Option<TicketRef> {
    let parts = parts(code)?;
    let valid = match (parts.version, keys.get(parts.key_id)?) {
        (HMAC_VERSION, Key::Hmac(secret)) => {
            parts.signature.len() == HMAC_TAG_BYTES
                && mac(secret, parts.signed)
                    .verify_truncated_left(&parts.signature)
                    .is_ok()
        }
        (ED25519_VERSION, Key::Ed25519(signing)) => parts.ed25519_valid(&signing.verifying_key()),
        _ => false,
    };
    valid.then(|| parts.ticket())?
}

/// The ticket a v2 code names, checked with public keys alone: what the
/// door page does offline (`public/door.js`), here to show that the served
/// keys suffice.
/// Hex digits of a ticket's order nonce that its short code shows: with
/// 40 random bits, two orders of one showing share them about once in
/// 20,000 showings of 10,000 orders (the door says so when they do).
const SHORT_DIGITS: usize = 10;
/// A ticket id: the showing's 16 hex digits, the order's 24, `-`, and the
/// ticket's number in its order.
const SHOWING_DIGITS: usize = 16;
const NONCE_DIGITS: usize = 24;
const MAX_TICKET_NUMBER_DIGITS: usize = 3;

/// The short code printed under a ticket's QR code, for door staff to type
/// when the QR will not scan: "3F9A1-C2E4B-2". `None` for an id not made
/// by this project.
pub fn short_code(ticket_id: &str) -> Option<String> {
    let Typed::Ticket(id) = read_typed(ticket_id)? else {
        return None;
    };
    let (order, number) = id.split_once('-')?;
    let nonce = order[SHOWING_DIGITS..].to_ascii_uppercase();
    let (first, second) = nonce[..SHORT_DIGITS].split_at(SHORT_DIGITS / 2);
    Some(format!("{first}-{second}-{number}"))
}

/// What door staff typed instead of a scanned code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Typed {
    /// A whole ticket id, as the ticket page prints it in small type.
    Ticket(String),
    /// A short code: the first digits of the order's nonce (lower case,
    /// as ids are stored) and the ticket's number in its order.
    Short { nonce_prefix: String, number: u32 },
}

/// Reads a typed ticket number, forgiving case, spaces and dashes in a
/// short code. `None` for anything else.
pub fn read_typed(text: &str) -> Option<Typed> {
    let text = text.trim();
    if text.len() > SHOWING_DIGITS + NONCE_DIGITS + 1 + MAX_TICKET_NUMBER_DIGITS {
        return None;
    }
    let number_ok = |n: &str| {
        (1..=MAX_TICKET_NUMBER_DIGITS).contains(&n.len())
            && n.bytes().all(|b| b.is_ascii_digit())
            && !n.starts_with('0')
    };
    let hex = |t: &str| t.bytes().all(|b| b.is_ascii_hexdigit());
    if let Some((order, number)) = text.split_once('-') {
        if order.len() == SHOWING_DIGITS + NONCE_DIGITS && hex(order) && number_ok(number) {
            return Some(Typed::Ticket(format!(
                "{}-{number}",
                order.to_ascii_lowercase()
            )));
        }
    }
    let packed: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    let (prefix, number) = packed.split_at_checked(SHORT_DIGITS)?;
    if !hex(prefix) || !number_ok(number) {
        return None;
    }
    Some(Typed::Short {
        nonce_prefix: prefix.to_ascii_lowercase(),
        number: number.parse().ok()?,
    })
}

/// Which ticket a typed code names.
#[derive(Debug, PartialEq, Eq)]
pub enum Picked<'a> {
    None,
    One(&'a String),
    /// Two orders share the short code's digits: the door must not guess.
    Several,
}

/// The ticket a whole typed id names (its seat unknown here).
pub fn whole_id(text: &str) -> Option<TicketRef> {
    match read_typed(text)? {
        Typed::Ticket(id) => Some(TicketRef {
            showing_id: id[..SHOWING_DIGITS].to_string(),
            ticket_id: id,
            seat: String::new(),
        }),
        Typed::Short { .. } => None,
    }
}

/// The ticket a typed code names among `candidates` (ids of the showing
/// whose nonce starts with the typed prefix).
pub fn pick_typed<'a>(showing_id: &str, typed: &Typed, candidates: &'a [String]) -> Picked<'a> {
    let named: Vec<&String> = candidates
        .iter()
        .filter(|id| match typed {
            Typed::Ticket(whole) => *id == whole,
            Typed::Short {
                nonce_prefix,
                number,
            } => id
                .strip_prefix(showing_id)
                .and_then(|rest| rest.split_once('-'))
                .is_some_and(|(nonce, n)| {
                    nonce.starts_with(nonce_prefix.as_str()) && n == number.to_string()
                }),
        })
        .collect();
    match named.as_slice() {
        [] => Picked::None,
        [one] => Picked::One(one),
        _ => Picked::Several,
    }
}

/// The first id and the id past the last that a typed code can name in a
/// showing, for a range read of the tickets' primary key.
pub fn typed_range(showing_id: &str, typed: &Typed) -> (String, String) {
    match typed {
        Typed::Ticket(id) => (id.clone(), format!("{id}\u{0}")),
        // Ids are lower-case hex: every one with the prefix sorts before
        // the prefix followed by "g".
        Typed::Short { nonce_prefix, .. } => (
            format!("{showing_id}{nonce_prefix}"),
            format!("{showing_id}{nonce_prefix}g"),
        ),
    }
}

#[cfg(test)]
pub fn verify_with_public_keys(public: &[PublicKey], code: &str) -> Option<TicketRef> {
    let parts = parts(code)?;
    if parts.version != ED25519_VERSION {
        return None;
    }
    let key = public.iter().find(|k| k.id == parts.key_id)?;
    let bytes: [u8; 32] = URL_SAFE_NO_PAD.decode(&key.key).ok()?.try_into().ok()?;
    let key = VerifyingKey::from_bytes(&bytes).ok()?;
    parts.ed25519_valid(&key).then(|| parts.ticket())?
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_short_code_names_its_ticket_however_it_is_typed() {
        let sid = "0123456789abcdef";
        let id = format!("{sid}3f9a1c2e4b00112233445566-2");
        assert_eq!(short_code(&id).as_deref(), Some("3F9A1-C2E4B-2"));
        let wanted = Typed::Short {
            nonce_prefix: "3f9a1c2e4b".into(),
            number: 2,
        };
        for typed in [
            "3F9A1-C2E4B-2",
            "3f9a1c2e4b2",
            " 3F9A1 C2E4B 2 ",
            "3f9a1-c2e4b2",
        ] {
            assert_eq!(read_typed(typed), Some(wanted.clone()), "{typed}");
        }
        assert_eq!(
            read_typed(&id.to_uppercase()),
            Some(Typed::Ticket(id.clone()))
        );
        for bad in [
            "",
            "3F9A1-C2E4B",
            "3F9A1-C2E4B-0",
            "3F9A1-C2E4B-02",
            "3F9A1-C2E4G-2",
            "3F9A1-C2E4B-1000",
        ] {
            assert_eq!(read_typed(bad), None, "{bad:?}");
        }
        let (from, to) = typed_range(sid, &wanted);
        assert!(from.as_str() <= id.as_str() && id.as_str() < to.as_str());
        let other = format!("{sid}3f9a1c2e4bffffffffffffff-12");
        let candidates = vec![other.clone(), id.clone()];
        assert_eq!(pick_typed(sid, &wanted, &candidates), Picked::One(&id));
        // The same prefix and number in two orders: the door must not guess.
        let twin = format!("{sid}3f9a1c2e4bffffffffffffff-2");
        assert_eq!(
            pick_typed(sid, &wanted, &[id.clone(), twin]),
            Picked::Several
        );
        assert_eq!(
            pick_typed(sid, &Typed::Ticket(other.clone()), &candidates),
            Picked::One(&other)
        );
        assert_eq!(pick_typed(sid, &wanted, &[other]), Picked::None);
    }

    use super::*;

    const ED_NEW: &str =
        "k3:ed25519:9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
    const ED_OLD: &str =
        "k2:ed25519:4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";
    const HMAC: &str = "k1:first-secret-0123456789-abcdefghijklmnop";

    fn keys(text: &str) -> TicketKeys {
        TicketKeys::parse(text).unwrap()
    }

    fn ticket() -> TicketRef {
        TicketRef {
            showing_id: "0123456789abcdef".into(),
            ticket_id: "0123456789abcdefaaaaaaaaaaaaaaaaaaaaaaaa-1".into(),
            seat: "Site 1".into(),
        }
    }

    #[test]
    fn an_ed25519_code_verifies_with_the_public_key_alone() {
        let signer = keys(&format!("{ED_NEW},{ED_OLD},{HMAC}"));
        let code = sign(&signer, &ticket());
        assert!(code.starts_with("v2.k3.0123456789abcdef."), "{code}");
        // What a door device holds: the public keys as the manifest serves
        // them, read back from JSON. No secret, no server.
        let served = serde_json::to_string(&signer.public_keys()).unwrap();
        assert!(!served.contains("9d61b19d"), "no private key is served");
        let device: Vec<PublicKey> = serde_json::from_str(&served).unwrap();
        assert_eq!(device.len(), 2, "the HMAC key has no public half");
        assert_eq!(verify_with_public_keys(&device, &code), Some(ticket()));
        assert_eq!(verify(&signer, &code), Some(ticket()));
        // The public key of RFC 8032's first test vector, whose secret
        // key is ED_NEW's: the keys are standard Ed25519.
        let rfc = URL_SAFE_NO_PAD
            .decode(&device[0].key)
            .map(hex::encode)
            .unwrap();
        assert_eq!(
            rfc,
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
    }

    #[test]
    fn a_device_refuses_a_forged_edited_or_unknown_key_code() {
        let signer = keys(ED_NEW);
        let device = signer.public_keys();
        let code = sign(&signer, &ticket());
        let forger =
            keys("k3:ed25519:0000000000000000000000000000000000000000000000000000000000000001");
        assert_eq!(
            verify_with_public_keys(&device, &sign(&forger, &ticket())),
            None
        );
        let seat_a1 = URL_SAFE_NO_PAD.encode("A1");
        let edited = code.replace(&URL_SAFE_NO_PAD.encode("Site 1"), &seat_a1);
        assert_eq!(verify_with_public_keys(&device, &edited), None);
        assert_eq!(verify(&signer, &edited), None);
        assert_eq!(
            verify_with_public_keys(&device, &code.replace("v2.k3", "v2.k9")),
            None
        );
        assert_eq!(
            verify_with_public_keys(&device, &code[..code.len() - 2]),
            None
        );
        // A v1 code cannot be checked by a device, whatever it says.
        let v1 = sign(&keys(HMAC), &ticket());
        assert_eq!(verify_with_public_keys(&device, &v1), None);
        // Nor can a v2 code be passed off as v1 under an HMAC key id.
        let both = keys(&format!("{ED_NEW},{HMAC}"));
        let relabelled = code.replacen("v2.k3", "v1.k1", 1);
        assert_eq!(verify(&both, &relabelled), None);
    }

    #[test]
    fn hmac_codes_made_before_keep_verifying_after_the_move_to_ed25519() {
        let before = keys(HMAC);
        let old_code = sign(&before, &ticket());
        assert!(old_code.starts_with("v1.k1."));
        let after = keys(&format!("{ED_NEW},{HMAC}"));
        assert!(after.signs_for_devices() && !before.signs_for_devices());
        assert_eq!(verify(&after, &old_code), Some(ticket()));
        assert!(sign(&after, &ticket()).starts_with("v2.k3."));
        // Rotating between Ed25519 keys keeps the older codes too.
        let older = sign(&keys(ED_OLD), &ticket());
        let rotated = keys(&format!("{ED_NEW},{ED_OLD}"));
        assert_eq!(verify(&rotated, &older), Some(ticket()));
        assert_eq!(
            verify_with_public_keys(&rotated.public_keys(), &older),
            Some(ticket())
        );
    }

    #[test]
    fn forged_or_edited_hmac_codes_name_nothing() {
        let keys = keys(HMAC);
        let other = TicketKeys::parse("k1:another-secret-012345678-abcdefghijklmnop").unwrap();
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
    fn keys_must_be_named_long_enough_and_not_repeated() {
        assert!(TicketKeys::parse("").is_err());
        assert!(TicketKeys::parse("k1:short").is_err());
        assert!(TicketKeys::parse("bad id:first-secret-0123456789-abcdefghijklmnop").is_err());
        assert!(TicketKeys::parse("k1:ed25519:abcd").is_err());
        assert!(TicketKeys::parse(&format!("k1:ed25519:{}", "g".repeat(64))).is_err());
        assert!(TicketKeys::parse(&format!("{ED_NEW},{ED_NEW}")).is_err());
        let debug = format!("{:?}", keys(&format!("{ED_NEW},{HMAC}")));
        assert_eq!(debug, r#"TicketKeys(["k3", "k1"])"#);
    }

    /// A code's QR version at the error correction the ticket page draws
    /// (M): version 10 is 57 modules a side, which a phone camera reads
    /// off another phone's screen at arm's length.
    #[test]
    fn a_ticket_qr_stays_small_enough_to_scan_off_a_phone() {
        let long = TicketRef {
            showing_id: "0123456789abcdef".into(),
            ticket_id: format!("{}-12", "f".repeat(40)),
            seat: "AA120".into(),
        };
        let version = |code: &str| match qrcode::QrCode::new(code.as_bytes()).unwrap().version() {
            qrcode::Version::Normal(v) => v,
            qrcode::Version::Micro(_) => panic!("a micro QR"),
        };
        let code = sign(&keys(ED_NEW), &long);
        let before = sign(&keys(HMAC), &long);
        // `cargo test --lib qr -- --nocapture` prints the figures.
        println!(
            "v2 (Ed25519): {} bytes, QR version {}; v1 (HMAC): {} bytes, QR version {}",
            code.len(),
            version(&code),
            before.len(),
            version(&before)
        );
        assert!(
            version(&code) <= 10,
            "{} bytes need version {}",
            code.len(),
            version(&code)
        );
    }
}
