//! The fixed, ordered list of units a showing sells, and its checks.

use crate::config::{ConfigError, MAX_UNITS};
use crate::ids::{is_valid_unit_name, UnitId};
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

/// Checks the unit names and maps each to its index. The count is checked
/// before any name is hashed, so an oversized list costs nothing.
pub(crate) fn index_units(names: &[String]) -> Result<HashMap<String, UnitId>, LayoutError> {
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
        if !is_valid_unit_name(name) {
            return Err(LayoutError::InvalidUnitName { name: name.clone() });
        }
        // The count check above keeps every position within u32.
        let id = UnitId(position as u32);
        if index.insert(name.clone(), id).is_some() {
            return Err(LayoutError::DuplicateUnitName { name: name.clone() });
        }
    }
    Ok(index)
}
