//! Signed tokens: `<kind>1.<claims>.<tag>`, the claims as base64url JSON
//! and the tag HMAC-SHA256 over `<kind>1.<claims>` with the caller's key
//! (one derived for the waiting room alone). A queue token says where a
//! session stands in a showing's line; an admission token says the session
//! may hold seats for the showing until it expires. Each is refused for
//! any other kind, showing or session, once expired, or if a byte of it
//! changed.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// How long an admission lasts: time to choose seats and pay, as a hold's
/// own payment window allows.
pub const ADMISSION_TTL_MS: u64 = 10 * 60 * 1000;
/// How long a queue token lasts: past any rush, and past its showing's
/// sales the line is closed anyway.
pub const QUEUE_TTL_MS: u64 = 24 * 60 * 60 * 1000;
/// Longest token accepted, checked before anything is decoded.
pub const MAX_TOKEN_BYTES: usize = 512;

/// What a token is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// A place in line.
    Queue,
    /// Leave to hold seats.
    Admission,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Queue => "q1",
            Kind::Admission => "a1",
        }
    }
}

/// What a token says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The showing.
    pub s: String,
    /// The buyer session it is bound to.
    pub u: String,
    /// The place in line (queue tokens), 0 until sales open for someone
    /// who joined before.
    #[serde(default)]
    pub p: u32,
    /// Where the draw of one who joined before the opening falls
    /// ([`crate::line::draw_share`]), so the Worker can tell them when to
    /// ask again without asking the line; 0 for anyone else.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub k: u16,
    /// Until when it is good (`now_ms < x`).
    pub x: u64,
}

fn is_zero(k: &u16) -> bool {
    *k == 0
}

/// Why a token was refused. The buyer is told only that it is not valid
/// (and to join again); the kinds are for logs and tests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TokenError {
    Malformed,
    /// Its tag is not the key's over its claims: forged or edited.
    BadSignature,
    /// A queue token offered as an admission, or the other way round.
    WrongKind,
    Expired,
    OtherShowing,
    OtherSession,
}

type HmacSha256 = Hmac<Sha256>;

fn tag(key: &[u8], signed: &str) -> [u8; 32] {
    let mut mac = HmacSha256::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(signed.as_bytes());
    mac.finalize().into_bytes().into()
}

/// The token of `kind` for `claims`, signed with `key`.
pub fn sign(key: &[u8], kind: Kind, claims: &Claims) -> String {
    let json = serde_json::to_vec(claims).expect("claims serialize");
    let signed = format!("{}.{}", kind.prefix(), URL_SAFE_NO_PAD.encode(json));
    let tag = URL_SAFE_NO_PAD.encode(tag(key, &signed));
    format!("{signed}.{tag}")
}

/// The claims of a token of `kind` signed with `key`, good at `now_ms`
/// for `showing` and `session`.
pub fn verify(
    key: &[u8],
    kind: Kind,
    token: &str,
    showing: &str,
    session: &str,
    now_ms: u64,
) -> Result<Claims, TokenError> {
    if token.len() > MAX_TOKEN_BYTES {
        return Err(TokenError::Malformed);
    }
    let (signed, tag_text) = token.rsplit_once('.').ok_or(TokenError::Malformed)?;
    let (prefix, claims_text) = signed.split_once('.').ok_or(TokenError::Malformed)?;
    let given = URL_SAFE_NO_PAD
        .decode(tag_text)
        .map_err(|_| TokenError::Malformed)?;
    // The tag first, over whatever kind it claims: nothing unsigned is
    // read, and a wrong kind is told apart only for a genuine token.
    if !bool::from(given.ct_eq(&tag(key, signed))) {
        return Err(TokenError::BadSignature);
    }
    if prefix != kind.prefix() {
        return Err(TokenError::WrongKind);
    }
    let json = URL_SAFE_NO_PAD
        .decode(claims_text)
        .map_err(|_| TokenError::Malformed)?;
    let claims: Claims = serde_json::from_slice(&json).map_err(|_| TokenError::Malformed)?;
    if now_ms >= claims.x {
        return Err(TokenError::Expired);
    }
    if claims.s != showing {
        return Err(TokenError::OtherShowing);
    }
    if claims.u != session {
        return Err(TokenError::OtherSession);
    }
    Ok(claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &[u8] = b"a key derived for the waiting room, 32+ bytes";

    fn admission() -> String {
        let claims = Claims {
            s: "show1".into(),
            u: "session1".into(),
            p: 0,
            k: 0,
            x: 1_000 + ADMISSION_TTL_MS,
        };
        sign(KEY, Kind::Admission, &claims)
    }

    #[test]
    fn a_token_is_good_for_its_kind_showing_and_session_until_it_expires() {
        let token = admission();
        let ok = verify(KEY, Kind::Admission, &token, "show1", "session1", 1_000);
        assert_eq!(ok.map(|c| c.x), Ok(1_000 + ADMISSION_TTL_MS));
        let at = |kind, showing, session, now| verify(KEY, kind, &token, showing, session, now);
        assert_eq!(
            at(
                Kind::Admission,
                "show1",
                "session1",
                1_000 + ADMISSION_TTL_MS
            ),
            Err(TokenError::Expired)
        );
        assert_eq!(
            at(Kind::Admission, "show2", "session1", 1_000),
            Err(TokenError::OtherShowing)
        );
        assert_eq!(
            at(Kind::Admission, "show1", "session2", 1_000),
            Err(TokenError::OtherSession)
        );
        assert_eq!(
            at(Kind::Queue, "show1", "session1", 1_000),
            Err(TokenError::WrongKind)
        );
    }

    #[test]
    fn an_edited_or_foreign_token_is_refused() {
        let token = admission();
        assert_eq!(
            verify(
                b"another key",
                Kind::Admission,
                &token,
                "show1",
                "session1",
                0
            ),
            Err(TokenError::BadSignature)
        );
        // Every byte changed in turn: never accepted.
        for at in 0..token.len() {
            let mut bytes = token.clone().into_bytes();
            bytes[at] = if bytes[at] == b'A' { b'B' } else { b'A' };
            let Ok(edited) = String::from_utf8(bytes) else {
                continue;
            };
            if edited == token {
                continue;
            }
            let result = verify(KEY, Kind::Admission, &edited, "show1", "session1", 0);
            assert!(result.is_err(), "byte {at} changed and still accepted");
        }
        // A queue token's claims under an admission's prefix: the tag
        // covers the prefix, so it does not pass.
        let queue = sign(
            KEY,
            Kind::Queue,
            &Claims {
                s: "show1".into(),
                u: "session1".into(),
                p: 7,
                k: 0,
                x: u64::MAX,
            },
        );
        let relabelled = queue.replacen("q1.", "a1.", 1);
        assert_eq!(
            verify(KEY, Kind::Admission, &relabelled, "show1", "session1", 0),
            Err(TokenError::BadSignature)
        );
        for junk in ["", "a1", "a1..", "a1.x.y", &"a".repeat(MAX_TOKEN_BYTES + 1)] {
            assert!(verify(KEY, Kind::Admission, junk, "show1", "session1", 0).is_err());
        }
    }
}
