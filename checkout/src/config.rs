//! How a checkout retries, and the hard limits on those settings.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Most CreatePayment attempts any configuration may allow before the
/// authorization is voided by its key: a buyer is kept waiting meanwhile.
pub const MAX_AUTHORIZATION_ATTEMPTS_LIMIT: u32 = 20;

/// Longest wait between two attempts of any step, or for one answer: an
/// hour. Longer waits would leave a buyer's order pending for no reason.
pub const MAX_WAIT_MS: u64 = 3_600_000;

/// How one checkout waits and retries. Every field has a limit, checked by
/// [`Config::validate`] before a checkout starts or is restored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Config {
    /// How many CreatePayment attempts may end without a definite answer
    /// (timeout, 5xx, 429, dropped connection) before the machine stops
    /// asking and voids whatever the key made: 1 to
    /// [`MAX_AUTHORIZATION_ATTEMPTS_LIMIT`].
    pub max_authorization_attempts: u32,
    /// The wait before the first retry of a step; each further retry waits
    /// twice as long, up to `retry_max_ms`.
    pub retry_base_ms: u64,
    /// The longest wait between retries. Steps that involve money retry
    /// forever, so this is how often a stuck order is tried again.
    pub retry_max_ms: u64,
    /// How long an action may go unanswered before it counts as unanswered
    /// and is sent again. It covers the Durable Object being evicted or
    /// crashing mid-call: the state on disk says the action is in flight,
    /// and only this deadline tells the reloaded object to send it again.
    pub answer_timeout_ms: u64,
    /// Pay card payments through a Square order with a line item per seat
    /// (CreateOrder, then CreatePayment with its `order_id`), so that the
    /// cinema's Square Dashboard reports tickets by film and category. An
    /// exchange's card payment never is: its credit is money already paid,
    /// which a Square order could show only as a discount.
    pub square_orders: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_authorization_attempts: 5,
            retry_base_ms: 1_000,
            retry_max_ms: 60_000,
            answer_timeout_ms: 30_000,
            square_orders: true,
        }
    }
}

/// Why a [`Config`] was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfigError {
    /// `max_authorization_attempts` is not between 1 and
    /// [`MAX_AUTHORIZATION_ATTEMPTS_LIMIT`].
    AuthorizationAttemptsOutOfRange { value: u32 },
    /// `retry_base_ms` is not between 1 and [`MAX_WAIT_MS`].
    RetryBaseOutOfRange { value_ms: u64 },
    /// `retry_max_ms` is below `retry_base_ms` or above [`MAX_WAIT_MS`].
    RetryMaxOutOfRange { value_ms: u64, base_ms: u64 },
    /// `answer_timeout_ms` is not between 1 and [`MAX_WAIT_MS`].
    AnswerTimeoutOutOfRange { value_ms: u64 },
}

impl Config {
    /// Checks every field against its limit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=MAX_AUTHORIZATION_ATTEMPTS_LIMIT).contains(&self.max_authorization_attempts) {
            return Err(ConfigError::AuthorizationAttemptsOutOfRange {
                value: self.max_authorization_attempts,
            });
        }
        if !(1..=MAX_WAIT_MS).contains(&self.retry_base_ms) {
            return Err(ConfigError::RetryBaseOutOfRange {
                value_ms: self.retry_base_ms,
            });
        }
        if !(self.retry_base_ms..=MAX_WAIT_MS).contains(&self.retry_max_ms) {
            return Err(ConfigError::RetryMaxOutOfRange {
                value_ms: self.retry_max_ms,
                base_ms: self.retry_base_ms,
            });
        }
        if !(1..=MAX_WAIT_MS).contains(&self.answer_timeout_ms) {
            return Err(ConfigError::AnswerTimeoutOutOfRange {
                value_ms: self.answer_timeout_ms,
            });
        }
        Ok(())
    }

    /// The wait before sending a step's request again, after `sent`
    /// requests of that step: `retry_base_ms`, doubling, up to `retry_max_ms`.
    pub fn retry_delay_ms(&self, sent: u32) -> u64 {
        let doublings = sent.saturating_sub(1).min(63);
        let factor = 1u64 << doublings;
        self.retry_base_ms
            .saturating_mul(factor)
            .min(self.retry_max_ms)
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_double_from_the_base_up_to_the_cap() {
        let config = Config::default();
        let delays: Vec<u64> = (1..=9).map(|sent| config.retry_delay_ms(sent)).collect();
        assert_eq!(
            delays,
            [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]
        );
        assert_eq!(config.retry_delay_ms(0), 1_000);
        assert_eq!(config.retry_delay_ms(u32::MAX), 60_000);
    }

    #[test]
    fn each_setting_out_of_range_is_refused_by_name() {
        let with = |change: fn(&mut Config)| {
            let mut config = Config::default();
            change(&mut config);
            config.validate()
        };
        assert_eq!(Config::default().validate(), Ok(()));
        assert_eq!(
            with(|c| c.max_authorization_attempts = 0),
            Err(ConfigError::AuthorizationAttemptsOutOfRange { value: 0 })
        );
        assert_eq!(
            with(|c| c.retry_base_ms = 0),
            Err(ConfigError::RetryBaseOutOfRange { value_ms: 0 })
        );
        assert_eq!(
            with(|c| c.retry_max_ms = 10),
            Err(ConfigError::RetryMaxOutOfRange {
                value_ms: 10,
                base_ms: 1_000
            })
        );
        assert_eq!(
            with(|c| c.answer_timeout_ms = MAX_WAIT_MS + 1),
            Err(ConfigError::AnswerTimeoutOutOfRange {
                value_ms: MAX_WAIT_MS + 1
            })
        );
    }
}
