//! Names for the things the ledger keeps: units (by dense index), holds and orders.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest hold or order id, in bytes. The Durable Object uses 32 hex
/// characters; the limit leaves room for other schemes and keeps rows small.
pub const MAX_ID_BYTES: usize = 64;

/// Longest unit name, in bytes ("A1", "Site 12", "Balcony R3 S14").
pub const MAX_UNIT_NAME_BYTES: usize = 32;

/// A unit's place in the showing's fixed, ordered list of units.
///
/// Units are named in the API, but every record refers to them by this dense
/// index so that a hold costs O(seats in the hold), whatever the venue size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UnitId(pub u32);

impl UnitId {
    /// The position of the unit in the showing's list of units.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Why a hold or order id was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IdError {
    /// The id has no characters.
    Empty,
    /// The id is longer than [`MAX_ID_BYTES`].
    TooLong { len: usize, max: usize },
    /// The id has a byte outside printable ASCII without space (`!` to `~`).
    NotPrintableAscii,
}

impl fmt::Display for IdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdError::Empty => write!(f, "id is empty"),
            IdError::TooLong { len, max } => write!(f, "id is {len} bytes, longer than {max}"),
            IdError::NotPrintableAscii => write!(f, "id has a byte outside printable ASCII"),
        }
    }
}

impl std::error::Error for IdError {}

fn check_id(text: &str) -> Result<(), IdError> {
    if text.is_empty() {
        return Err(IdError::Empty);
    }
    if text.len() > MAX_ID_BYTES {
        return Err(IdError::TooLong {
            len: text.len(),
            max: MAX_ID_BYTES,
        });
    }
    if !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(IdError::NotPrintableAscii);
    }
    Ok(())
}

/// Declares a caller-chosen id: a validated string that serde also validates,
/// so a stored row with a bad id fails to load instead of entering the ledger.
macro_rules! caller_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// Checks the id: 1 to [`MAX_ID_BYTES`] bytes of printable ASCII, no spaces.
            pub fn new(text: impl Into<String>) -> Result<Self, IdError> {
                let text = text.into();
                check_id(&text)?;
                Ok(Self(text))
            }

            /// The id as the caller gave it.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(text: String) -> Result<Self, IdError> {
                Self::new(text)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

caller_id!(
    /// Names one hold. Chosen by the caller (the Durable Object draws 32 hex
    /// characters from a secure random source), so that knowing a hold's id is
    /// what lets a buyer release it or pay for it.
    HoldId
);

caller_id!(
    /// Names one order: the seats one payment buys. Chosen by the caller.
    OrderId
);

/// Whether `name` may name a unit: 1 to [`MAX_UNIT_NAME_BYTES`] bytes with no
/// control characters. Spaces are allowed ("Site 1").
pub fn is_valid_unit_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_UNIT_NAME_BYTES && !name.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_checked_on_creation_and_on_decode() {
        assert!(HoldId::new("0123456789abcdef0123456789abcdef").is_ok());
        assert_eq!(HoldId::new(""), Err(IdError::Empty));
        assert_eq!(OrderId::new("a b"), Err(IdError::NotPrintableAscii));
        assert_eq!(
            OrderId::new("x".repeat(65)),
            Err(IdError::TooLong { len: 65, max: 64 })
        );
        let decoded: Result<HoldId, _> = serde_json::from_str("\"caf\u{e9}\"");
        assert!(decoded.is_err());
    }

    #[test]
    fn unit_names_allow_spaces_but_not_control_characters() {
        assert!(is_valid_unit_name("Site 1"));
        assert!(is_valid_unit_name(&"x".repeat(32)));
        assert!(!is_valid_unit_name(&"x".repeat(33)));
        assert!(!is_valid_unit_name(""));
        assert!(!is_valid_unit_name("A\n1"));
    }
}
