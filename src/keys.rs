//! The secrets the cinema sets, checked, and a key for each purpose
//! derived from them.
//!
//! One secret signs several things (buyer cookies, staff sessions, CSRF
//! tokens, order links, door PIN hashes); each gets its own key, derived
//! with HKDF-SHA256 (RFC 5869) and a label, so that what is learned of one
//! (a buyer cookie is a sample anyone can get) says nothing of the others.
//! Secrets are checked before the Worker does anything with them: a short
//! one is refused rather than used, and `/api/health` names it (never its
//! value). Pure: the shell passes in the settings.

use hkdf::Hkdf;
use serde::Serialize;
use sha2::Sha256;

use crate::ticket_code::TicketKeys;

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
                if !id_ok || secret.len() < crate::keys::MIN_SECRET_BYTES {
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

/// A setting that is missing or unfit: its name and what is wrong, never
/// its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub name: &'static str,
    pub problem: String,
}

/// Every problem with the secrets, given a way to read each (`None` when
/// unset).
pub fn check(get: impl Fn(&str) -> Option<String>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut say = |name: &'static str, problem: &str| {
        problems.push(Problem {
            name,
            problem: problem.to_string(),
        })
    };
    let short = format!("shorter than {MIN_SECRET_BYTES} bytes");
    for (name, required) in [
        ("SESSION_SECRET", true),
        ("ADMIN_TOKEN", true),
        ("DOOR_TOKEN", false),
    ] {
        match get(name) {
            None if required => say(name, "not set"),
            None => {}
            Some(value) if value.len() < MIN_SECRET_BYTES => say(name, &short),
            Some(_) => {}
        }
    }
    match get("TICKET_SIGNING_KEYS").map(|text| TicketKeys::parse(&text)) {
        None => say("TICKET_SIGNING_KEYS", "not set"),
        Some(Err(e)) => say("TICKET_SIGNING_KEYS", &e),
        Some(Ok(_)) => {}
    }
    if let Some(Err(e)) = get("ORDER_LINK_KEYS").map(|text| Keys::parse(&text)) {
        say("ORDER_LINK_KEYS", &e);
    }
    for name in ["SQUARE_ACCESS_TOKEN", "SQUARE_WEBHOOK_SIGNATURE_KEY"] {
        if get(name).is_none_or(|v| v.trim().is_empty()) {
            say(name, "not set, or empty");
        }
    }
    // Turnstile is on with both keys and off with neither; one alone is a
    // mistake that would leave it off unnoticed.
    let set = |name| get(name).is_some_and(|v| !v.is_empty());
    if set("TURNSTILE_SITE_KEY") != set("TURNSTILE_SECRET_KEY") {
        say(
            "TURNSTILE_SECRET_KEY",
            "set with TURNSTILE_SITE_KEY, or neither",
        );
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn good() -> HashMap<&'static str, String> {
        let long = "x".repeat(MIN_SECRET_BYTES);
        HashMap::from([
            ("SESSION_SECRET", long.clone()),
            ("ADMIN_TOKEN", long.clone()),
            ("TICKET_SIGNING_KEYS", format!("k1:{long}")),
            ("SQUARE_ACCESS_TOKEN", "token".into()),
            ("SQUARE_WEBHOOK_SIGNATURE_KEY", "key".into()),
        ])
    }

    fn problems(settings: &HashMap<&'static str, String>) -> Vec<&'static str> {
        check(|name| settings.get(name).cloned())
            .into_iter()
            .map(|p| p.name)
            .collect()
    }

    #[test]
    fn good_settings_have_no_problem_and_each_bad_one_is_named() {
        let settings = good();
        assert!(problems(&settings).is_empty());
        for (name, value) in [
            ("SESSION_SECRET", "short"),
            ("ADMIN_TOKEN", ""),
            ("DOOR_TOKEN", "1234"),
            ("TICKET_SIGNING_KEYS", "k1:only-twenty-bytes-"),
            ("TICKET_SIGNING_KEYS", "no colon"),
            ("ORDER_LINK_KEYS", ","),
            ("SQUARE_WEBHOOK_SIGNATURE_KEY", " "),
            ("TURNSTILE_SITE_KEY", "1x00000000000000000000AA"),
        ] {
            let mut bad = good();
            bad.insert(name, value.into());
            let named = if name == "TURNSTILE_SITE_KEY" {
                "TURNSTILE_SECRET_KEY"
            } else {
                name
            };
            assert_eq!(problems(&bad), vec![named], "{name}={value:?}");
        }
        let mut missing = good();
        missing.remove("SESSION_SECRET");
        missing.remove("SQUARE_ACCESS_TOKEN");
        assert_eq!(
            problems(&missing),
            vec!["SESSION_SECRET", "SQUARE_ACCESS_TOKEN"]
        );
    }

    #[test]
    fn a_problem_never_carries_the_value() {
        let mut bad = good();
        bad.insert("SESSION_SECRET", "hunter2".into());
        let said = serde_json::to_string(&check(|n| bad.get(n).cloned())).unwrap();
        assert!(!said.contains("hunter2"), "{said}");
    }

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
