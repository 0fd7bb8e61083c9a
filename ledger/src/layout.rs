//! The fixed, ordered list of units a showing sells, and its checks.

use crate::config::{ConfigError, MAX_UNITS};
use crate::ids::{is_valid_unit_name, UnitId, MAX_UNIT_NAME_BYTES};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;

/// Why a showing's list of units was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LayoutError {
    NoUnits,
    /// More than [`MAX_UNITS`] units.
    TooManyUnits {
        count: usize,
        max: usize,
    },
    /// Empty, longer than 32 bytes, or with a control character.
    InvalidUnitName {
        name: String,
    },
    DuplicateUnitName {
        name: String,
    },
    /// A seat named as blocked is not in the list of units.
    UnknownBlockedUnit {
        name: String,
    },
}

/// Why a new ledger could not be built.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SetupError {
    Config(ConfigError),
    Layout(LayoutError),
}

impl From<ConfigError> for SetupError {
    fn from(error: ConfigError) -> Self {
        SetupError::Config(error)
    }
}

impl From<LayoutError> for SetupError {
    fn from(error: LayoutError) -> Self {
        SetupError::Layout(error)
    }
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::NoUnits => write!(f, "a showing needs at least one unit"),
            LayoutError::TooManyUnits { count, max } => {
                write!(f, "{count} units is more than the limit of {max}")
            }
            LayoutError::InvalidUnitName { name } => write!(f, "invalid unit name {name:?}"),
            LayoutError::DuplicateUnitName { name } => write!(f, "unit {name:?} appears twice"),
            LayoutError::UnknownBlockedUnit { name } => {
                write!(f, "blocked unit {name:?} is not in the showing")
            }
        }
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Config(error) => write!(f, "configuration: {error}"),
            SetupError::Layout(error) => write!(f, "units: {error}"),
        }
    }
}

impl std::error::Error for LayoutError {}
impl std::error::Error for SetupError {}

/// A unit name held inline. Names are at most 32 bytes, so the index keeps
/// each in its own slot: a lookup reads one slot instead of a slot and a
/// separate heap string, which keeps a hold's cost flat as venues grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct NameKey {
    len: u8,
    bytes: [u8; MAX_UNIT_NAME_BYTES],
}

impl NameKey {
    /// `None` for a name too long to be any unit's.
    fn new(name: &str) -> Option<NameKey> {
        let len = name.len();
        if len > MAX_UNIT_NAME_BYTES {
            return None;
        }
        let mut bytes = [0; MAX_UNIT_NAME_BYTES];
        bytes[..len].copy_from_slice(name.as_bytes());
        Some(NameKey {
            len: len as u8,
            bytes,
        })
    }
}

/// Unit name to id: how a request naming seats costs O(seats named).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct UnitIndex(HashMap<NameKey, UnitId>);

impl UnitIndex {
    pub(crate) fn get(&self, name: &str) -> Option<UnitId> {
        self.0.get(&NameKey::new(name)?).copied()
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

/// Checks the unit names and maps each to its index. The count is checked
/// before any name is hashed, so an oversized list costs nothing.
pub(crate) fn index_units(names: &[String]) -> Result<UnitIndex, LayoutError> {
    if names.is_empty() {
        return Err(LayoutError::NoUnits);
    }
    if names.len() > MAX_UNITS {
        return Err(LayoutError::TooManyUnits {
            count: names.len(),
            max: MAX_UNITS,
        });
    }
    let mut index = HashMap::with_capacity(names.len());
    for (position, name) in names.iter().enumerate() {
        let key = NameKey::new(name).filter(|_| is_valid_unit_name(name));
        let Some(key) = key else {
            return Err(LayoutError::InvalidUnitName { name: name.clone() });
        };
        // The count check above keeps every position within u32.
        let id = UnitId(position as u32);
        if index.insert(key, id).is_some() {
            return Err(LayoutError::DuplicateUnitName { name: name.clone() });
        }
    }
    Ok(UnitIndex(index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_finds_names_up_to_the_limit_and_nothing_longer() {
        let longest = "x".repeat(MAX_UNIT_NAME_BYTES);
        let names = vec!["A1".to_string(), longest.clone(), "Site 3".to_string()];
        let index = index_units(&names).unwrap();
        assert_eq!(index.get("A1"), Some(UnitId(0)));
        assert_eq!(index.get(&longest), Some(UnitId(1)));
        assert_eq!(index.get("Site 3"), Some(UnitId(2)));
        assert_eq!(index.get(&format!("{longest}x")), None);
        assert_eq!(index.get("A1\0"), None);
        assert_eq!(index.get(""), None);
    }
}
