//! What buyers may change of an order themselves: cancel (until how long
//! before the start, for what fee) and exchange (until when). A showing
//! has its own policy or the cinema's; staff may always refund.

use serde::{Deserialize, Serialize};

/// The longest cut-off staff may set: 30 days before the start.
pub const MAX_CUTOFF_MINUTES: u32 = 30 * 24 * 60;

/// The largest fixed fee, in minor units (a fee is never more than the
/// ticket it is kept from, whatever it is set to).
pub const MAX_FIXED_FEE: u64 = 1_000_000;

/// A fee kept from each cancelled ticket's refund.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Fee {
    #[default]
    None,
    /// This much of each ticket, in the currency's minor units.
    Fixed(u64),
    /// This whole percentage of each ticket's price, rounded to the
    /// nearest minor unit (half up).
    Percent(u8),
}

impl Fee {
    /// The fee kept from a ticket sold at `price`: never more than it.
    pub fn of(self, price: u64) -> u64 {
        let fee = match self {
            Fee::None => 0,
            Fee::Fixed(amount) => amount,
            Fee::Percent(percent) => {
                // Exact: no float, and a price fits u64 with room to spare
                // (the checkout caps an order far below u64::MAX / 100).
                (u128::from(price) * u128::from(percent) + 50)
                    .checked_div(100)
                    .and_then(|f| u64::try_from(f).ok())
                    .unwrap_or(price)
            }
        };
        fee.min(price)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelRule {
    /// Buyers may cancel until this many minutes before the start.
    pub until_minutes_before: u32,
    #[serde(default)]
    pub fee: Fee,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExchangeRule {
    /// Buyers may change showing until this many minutes before the start.
    pub until_minutes_before: u32,
}

/// A showing's policy; `None` in a field means buyers may not do that.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    #[serde(default)]
    pub cancel: Option<CancelRule>,
    #[serde(default)]
    pub exchange: Option<ExchangeRule>,
}

/// Why a policy is not one staff may set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyProblem {
    CutoffTooLong { field: &'static str },
    FeeTooLarge,
    PercentOver100,
}

/// Why a buyer may not change an order now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Closed {
    /// The showing's policy does not let buyers do it.
    NotAllowed,
    /// It did, until `closed_at_ms`.
    Passed { closed_at_ms: u64 },
}

impl Policy {
    pub fn check(&self) -> Result<(), PolicyProblem> {
        if let Some(cancel) = self.cancel {
            if cancel.until_minutes_before > MAX_CUTOFF_MINUTES {
                return Err(PolicyProblem::CutoffTooLong {
                    field: "cancel.until_minutes_before",
                });
            }
            match cancel.fee {
                Fee::Fixed(amount) if amount > MAX_FIXED_FEE => {
                    return Err(PolicyProblem::FeeTooLarge)
                }
                Fee::Percent(p) if p > 100 => return Err(PolicyProblem::PercentOver100),
                _ => {}
            }
        }
        if let Some(exchange) = self.exchange {
            if exchange.until_minutes_before > MAX_CUTOFF_MINUTES {
                return Err(PolicyProblem::CutoffTooLong {
                    field: "exchange.until_minutes_before",
                });
            }
        }
        Ok(())
    }

    /// Until when buyers may cancel, and the fee; or why they may not.
    pub fn cancel_open(&self, starts_at_ms: u64, now_ms: u64) -> Result<(u64, Fee), Closed> {
        let rule = self.cancel.ok_or(Closed::NotAllowed)?;
        let closes_at_ms = cutoff(starts_at_ms, rule.until_minutes_before);
        if now_ms >= closes_at_ms {
            return Err(Closed::Passed {
                closed_at_ms: closes_at_ms,
            });
        }
        Ok((closes_at_ms, rule.fee))
    }

    /// Until when buyers may change showing; or why they may not.
    pub fn exchange_open(&self, starts_at_ms: u64, now_ms: u64) -> Result<u64, Closed> {
        let rule = self.exchange.ok_or(Closed::NotAllowed)?;
        let closes_at_ms = cutoff(starts_at_ms, rule.until_minutes_before);
        if now_ms >= closes_at_ms {
            return Err(Closed::Passed {
                closed_at_ms: closes_at_ms,
            });
        }
        Ok(closes_at_ms)
    }
}

fn cutoff(starts_at_ms: u64, minutes_before: u32) -> u64 {
    starts_at_ms.saturating_sub(u64::from(minutes_before) * 60_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fee_is_exact_and_never_more_than_the_ticket() {
        assert_eq!(Fee::Percent(10).of(1250), 125);
        assert_eq!(Fee::Percent(10).of(1255), 126); // 125.5, half up
        assert_eq!(Fee::Percent(100).of(999), 999);
        assert_eq!(Fee::Fixed(150).of(1000), 150);
        assert_eq!(Fee::Fixed(150).of(100), 100);
        assert_eq!(Fee::None.of(1000), 0);
        assert_eq!(Fee::Percent(50).of(u64::MAX), u64::MAX / 2 + 1);
    }

    #[test]
    fn cancelling_closes_at_the_cutoff() {
        let policy = Policy {
            cancel: Some(CancelRule {
                until_minutes_before: 120,
                fee: Fee::Fixed(100),
            }),
            exchange: None,
        };
        let starts = 10 * 3_600_000;
        let closes = starts - 2 * 3_600_000;
        assert_eq!(
            policy.cancel_open(starts, closes - 1),
            Ok((closes, Fee::Fixed(100)))
        );
        assert_eq!(
            policy.cancel_open(starts, closes),
            Err(Closed::Passed {
                closed_at_ms: closes
            })
        );
        assert_eq!(policy.exchange_open(starts, 0), Err(Closed::NotAllowed));
    }

    #[test]
    fn a_policy_reads_as_staff_write_it() {
        let policy: Policy = serde_json::from_str(
            r#"{"cancel": {"until_minutes_before": 60, "fee": {"percent": 10}}, "exchange": null}"#,
        )
        .unwrap();
        assert_eq!(policy.cancel.unwrap().fee, Fee::Percent(10));
        assert!(policy.check().is_ok());
        let greedy: Policy = serde_json::from_str(
            r#"{"cancel": {"until_minutes_before": 60, "fee": {"percent": 101}}}"#,
        )
        .unwrap();
        assert_eq!(greedy.check(), Err(PolicyProblem::PercentOver100));
        assert!(serde_json::from_str::<Policy>(r#"{"cancel": {"until": 60}}"#).is_err());
    }
}
