//! A discount code's reduction of a hold's prices, worked out to the
//! minor unit before any tax, which is then worked out on what is left,
//! as Square works out a line's tax after its discounts
//! (<https://developer.squareup.com/docs/orders-api/discounts>: "after the
//! Orders API calculates item totals, it considers any available
//! discounts"; taxes apply to the discounted amount).
//!
//! - A percentage comes off each ticket it applies to, rounded half to
//!   even like Square's amounts.
//! - A fixed amount per ticket comes off each ticket it applies to, never
//!   below nothing.
//! - A fixed amount per order is shared among the tickets it applies to
//!   in proportion to their prices (the largest fractions taking the
//!   units left over), never more than they cost together.
//!
//! Each ticket's reduction is sent to Square as a fixed amount on its own
//! line, so Square's order says exactly what the receipt says.

use serde::{Deserialize, Serialize};

use crate::order::SeatPrice;
use crate::tax::{apportion, round_half_even, Tax};

/// What a code takes off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Off {
    /// Percent of each price it applies to, 1 to 100.
    Percent { percent: u32 },
    /// A fixed amount, in minor units, off each ticket or the order.
    Amount { amount: u64, per_order: bool },
}

/// Each seat's price before its tax, as the buyer was shown it listed.
fn listed(price: &SeatPrice, tax: &Tax) -> u64 {
    let before = price.amount_minor + price.discount_minor;
    match tax.inclusive {
        true => before,
        false => before - price.tax_minor,
    }
}

/// Takes `off` from the seats for which `applies` is true and taxes every
/// seat again. `prices` come as held (taxed, no discount) and leave with
/// `discount_minor` the reduction of each and `amount_minor` what is left
/// to pay for it. Answers the whole reduction.
pub fn apply(off: Off, applies: &[bool], prices: &mut [SeatPrice], tax: &Tax) -> u64 {
    let list: Vec<u64> = prices.iter().map(|p| listed(p, tax)).collect();
    let weights: Vec<u64> = list
        .iter()
        .zip(applies)
        .map(|(&l, &a)| if a { l } else { 0 })
        .collect();
    let reductions: Vec<u64> = match off {
        Off::Percent { percent } => weights
            .iter()
            .map(|&w| round_half_even(u128::from(w) * u128::from(percent.min(100)), 100) as u64)
            .collect(),
        Off::Amount {
            amount,
            per_order: false,
        } => weights.iter().map(|&w| w.min(amount)).collect(),
        Off::Amount {
            amount,
            per_order: true,
        } => apportion(amount.min(weights.iter().sum()), &weights),
    };
    for ((price, &l), &r) in prices.iter_mut().zip(&list).zip(&reductions) {
        price.discount_minor = r;
        price.amount_minor = l - r;
    }
    tax.apply(prices);
    reductions.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(name: &str, amount: u64) -> SeatPrice {
        SeatPrice {
            seat: name.into(),
            category: "adult".into(),
            name: "Adult".into(),
            amount_minor: amount,
            tax_minor: 0,
            tax_rate_bps: 0,
            discount_minor: 0,
        }
    }

    #[test]
    fn a_percentage_comes_off_each_ticket_it_applies_to() {
        let mut prices = vec![seat("A1", 1250), seat("A2", 1250), seat("A3", 800)];
        let off = apply(
            Off::Percent { percent: 10 },
            &[true, true, false],
            &mut prices,
            &Tax::default(),
        );
        // 125 each; the third is not in the code's categories.
        assert_eq!(off, 250);
        assert_eq!(prices[0].amount_minor, 1125);
        assert_eq!(prices[2].discount_minor, 0);
        // 12.5 rounds to the even 12.
        let mut odd = vec![seat("A1", 125)];
        apply(
            Off::Percent { percent: 10 },
            &[true],
            &mut odd,
            &Tax::default(),
        );
        assert_eq!(odd[0].discount_minor, 12);
    }

    #[test]
    fn an_amount_per_order_is_shared_and_never_more_than_the_tickets() {
        let mut prices = vec![seat("A1", 1000), seat("A2", 500)];
        let off = apply(
            Off::Amount {
                amount: 301,
                per_order: true,
            },
            &[true, true],
            &mut prices,
            &Tax::default(),
        );
        assert_eq!(off, 301);
        assert_eq!(
            (prices[0].discount_minor, prices[1].discount_minor),
            (201, 100)
        );
        let mut prices = vec![seat("A1", 1000)];
        let off = apply(
            Off::Amount {
                amount: 5000,
                per_order: true,
            },
            &[true],
            &mut prices,
            &Tax::default(),
        );
        assert_eq!((off, prices[0].amount_minor), (1000, 0));
        let mut prices = vec![seat("A1", 1000), seat("A2", 300)];
        apply(
            Off::Amount {
                amount: 500,
                per_order: false,
            },
            &[true, true],
            &mut prices,
            &Tax::default(),
        );
        assert_eq!((prices[0].amount_minor, prices[1].amount_minor), (500, 0));
    }

    #[test]
    fn the_tax_is_worked_out_on_what_is_left_and_a_second_code_starts_from_the_list() {
        let added = Tax {
            name: "Sales tax".into(),
            rate_bps: 1000,
            inclusive: false,
            by_category: Default::default(),
        };
        let mut prices = vec![seat("A1", 1000)];
        added.apply(&mut prices);
        assert_eq!(prices[0].amount_minor, 1100);
        apply(Off::Percent { percent: 50 }, &[true], &mut prices, &added);
        assert_eq!(
            (
                prices[0].amount_minor,
                prices[0].tax_minor,
                prices[0].discount_minor
            ),
            (550, 50, 500)
        );
        // Applied again (another code): from the listed 1000, not from 500.
        apply(
            Off::Amount {
                amount: 100,
                per_order: false,
            },
            &[true],
            &mut prices,
            &added,
        );
        assert_eq!(
            (prices[0].amount_minor, prices[0].discount_minor),
            (990, 100)
        );
        let vat = Tax {
            name: "VAT".into(),
            rate_bps: 2000,
            inclusive: true,
            by_category: Default::default(),
        };
        let mut prices = vec![seat("A1", 1200)];
        vat.apply(&mut prices);
        apply(Off::Percent { percent: 25 }, &[true], &mut prices, &vat);
        assert_eq!((prices[0].amount_minor, prices[0].tax_minor), (900, 150));
    }
}
