//! The settings of one showing's ledger and the hard limits they must respect.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Most units one showing may have: a 20,000-seat arena must fit.
pub const MAX_UNITS: usize = 20_000;

/// Most seats any hold may take, whatever the configuration says; the design
/// study found bookings of up to 10 seats.
pub const MAX_SEATS_PER_HOLD_LIMIT: u32 = 10;

/// Longest hold or payment window: a day. Longer holds are mistakes, and the
/// bound keeps `now_ms + payment_cap_ms` far from overflow.
pub const MAX_WINDOW_MS: u64 = 86_400_000;

/// Most closed orders the ledger may be configured to remember.
pub const MAX_CLOSED_ORDERS_LIMIT: u32 = 100_000;

/// Latest instant the ledger reads: the last millisecond of the year 9999.
/// A later `now_ms` is read as this one, so that no deadline can overflow.
pub const MAX_NOW_MS: u64 = 253_402_300_799_999;

/// How one showing's ledger behaves. Every field has a limit, checked by
/// [`Config::validate`] before a ledger is built or restored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// Most seats in one hold (and so in one order): 1 to 10.
    pub max_seats_per_hold: u32,
    /// How long a hold lasts before payment starts, from the moment it is granted.
    pub hold_ttl_ms: u64,
    /// When payment starts, the hold is extended once to this long after the
    /// moment it was granted; never shorter than `hold_ttl_ms`.
    pub payment_cap_ms: u64,
    /// Most holds alive at once; bounds memory and the work of a sweep.
    pub max_live_holds: u32,
    /// Most expired holds one call releases, so that no request pays for a
    /// long backlog; the rest wait for the next call or alarm.
    pub max_released_per_sweep: u32,
    /// How many closed (abandoned or fully refunded) orders are remembered, so
    /// that a repeated callback about them stays harmless. The oldest is
    /// forgotten first.
    pub max_closed_orders: u32,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_seats_per_hold: 4,
            hold_ttl_ms: 300_000,
            payment_cap_ms: 600_000,
            max_live_holds: 5_000,
            max_released_per_sweep: 1_000,
            max_closed_orders: 10_000,
        }
    }
}

/// Why a [`Config`] was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfigError {
    /// `max_seats_per_hold` is not between 1 and [`MAX_SEATS_PER_HOLD_LIMIT`].
    SeatsPerHoldOutOfRange { value: u32 },
    /// `hold_ttl_ms` is not between 1 and [`MAX_WINDOW_MS`].
    HoldTtlOutOfRange { value_ms: u64 },
    /// `payment_cap_ms` is shorter than `hold_ttl_ms`.
    PaymentCapBelowHoldTtl { cap_ms: u64, ttl_ms: u64 },
    /// `payment_cap_ms` is longer than [`MAX_WINDOW_MS`].
    PaymentCapOutOfRange { value_ms: u64 },
    /// `max_live_holds` is not between 1 and [`MAX_UNITS`].
    LiveHoldsOutOfRange { value: u32 },
    /// `max_released_per_sweep` is not between 1 and [`MAX_UNITS`].
    SweepLimitOutOfRange { value: u32 },
    /// `max_closed_orders` is above [`MAX_CLOSED_ORDERS_LIMIT`].
    ClosedOrdersOutOfRange { value: u32 },
}

impl Config {
    /// Checks every field against its limit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let units = MAX_UNITS as u32;
        if !(1..=MAX_SEATS_PER_HOLD_LIMIT).contains(&self.max_seats_per_hold) {
            return Err(ConfigError::SeatsPerHoldOutOfRange {
                value: self.max_seats_per_hold,
            });
        }
        if !(1..=MAX_WINDOW_MS).contains(&self.hold_ttl_ms) {
            return Err(ConfigError::HoldTtlOutOfRange {
                value_ms: self.hold_ttl_ms,
            });
        }
        if self.payment_cap_ms < self.hold_ttl_ms {
            return Err(ConfigError::PaymentCapBelowHoldTtl {
                cap_ms: self.payment_cap_ms,
                ttl_ms: self.hold_ttl_ms,
            });
        }
        if self.payment_cap_ms > MAX_WINDOW_MS {
            return Err(ConfigError::PaymentCapOutOfRange {
                value_ms: self.payment_cap_ms,
            });
        }
        if !(1..=units).contains(&self.max_live_holds) {
            return Err(ConfigError::LiveHoldsOutOfRange {
                value: self.max_live_holds,
            });
        }
        if !(1..=units).contains(&self.max_released_per_sweep) {
            return Err(ConfigError::SweepLimitOutOfRange {
                value: self.max_released_per_sweep,
            });
        }
        if self.max_closed_orders > MAX_CLOSED_ORDERS_LIMIT {
            return Err(ConfigError::ClosedOrdersOutOfRange {
                value: self.max_closed_orders,
            });
        }
        Ok(())
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::SeatsPerHoldOutOfRange { value } => {
                write!(f, "max_seats_per_hold {value} is not within 1..=10")
            }
            ConfigError::HoldTtlOutOfRange { value_ms } => {
                write!(
                    f,
                    "hold_ttl_ms {value_ms} is not within 1..={MAX_WINDOW_MS}"
                )
            }
            ConfigError::PaymentCapBelowHoldTtl { cap_ms, ttl_ms } => {
                write!(f, "payment_cap_ms {cap_ms} is below hold_ttl_ms {ttl_ms}")
            }
            ConfigError::PaymentCapOutOfRange { value_ms } => {
                write!(f, "payment_cap_ms {value_ms} is above {MAX_WINDOW_MS}")
            }
            ConfigError::LiveHoldsOutOfRange { value } => {
                write!(f, "max_live_holds {value} is not within 1..={MAX_UNITS}")
            }
            ConfigError::SweepLimitOutOfRange { value } => {
                write!(
                    f,
                    "max_released_per_sweep {value} is not within 1..={MAX_UNITS}"
                )
            }
            ConfigError::ClosedOrdersOutOfRange { value } => {
                write!(
                    f,
                    "max_closed_orders {value} is above {MAX_CLOSED_ORDERS_LIMIT}"
                )
            }
        }
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_limit_has_its_own_refusal() {
        let ok = Config::default();
        assert_eq!(ok.validate(), Ok(()));
        let cases = [
            (
                Config {
                    max_seats_per_hold: 11,
                    ..ok.clone()
                },
                ConfigError::SeatsPerHoldOutOfRange { value: 11 },
            ),
            (
                Config {
                    hold_ttl_ms: 0,
                    ..ok.clone()
                },
                ConfigError::HoldTtlOutOfRange { value_ms: 0 },
            ),
            (
                Config {
                    payment_cap_ms: 299_999,
                    ..ok.clone()
                },
                ConfigError::PaymentCapBelowHoldTtl {
                    cap_ms: 299_999,
                    ttl_ms: 300_000,
                },
            ),
            (
                Config {
                    payment_cap_ms: MAX_WINDOW_MS + 1,
                    ..ok.clone()
                },
                ConfigError::PaymentCapOutOfRange {
                    value_ms: MAX_WINDOW_MS + 1,
                },
            ),
            (
                Config {
                    max_live_holds: 0,
                    ..ok.clone()
                },
                ConfigError::LiveHoldsOutOfRange { value: 0 },
            ),
            (
                Config {
                    max_released_per_sweep: 0,
                    ..ok.clone()
                },
                ConfigError::SweepLimitOutOfRange { value: 0 },
            ),
            (
                Config {
                    max_closed_orders: 100_001,
                    ..ok.clone()
                },
                ConfigError::ClosedOrdersOutOfRange { value: 100_001 },
            ),
        ];
        for (config, expected) in cases {
            assert_eq!(config.validate(), Err(expected));
        }
    }
}
