//! Tax on tickets, worked out the way Square's Orders API works it out, so
//! that a receipt here and the order in Square agree to the minor unit.
//!
//! Square's rule (README, "Tax"): amounts are rounded half to even
//! ("Bankers' Rounding", Square's *Order Price Adjustments* page), and a
//! tax over an order is rounded once on the order's taxable total, not per
//! line: at 8.875 % on lines of 1500, 800, 695 and 695 Square charges 327
//! (327.4875 rounded), where rounding each line would make 328 (Square
//! developer forum, "Square Banker's Rounding Clarification"). An
//! inclusive tax is the part of the price that is tax:
//! `gross × rate / (1 + rate)`.
//!
//! Seats taxed at the same rate form one bucket, rounded once; the
//! bucket's tax is then shared among its seats in proportion to their
//! prices, the remainder going to the largest fractions, so each seat's
//! tax is within one minor unit of its exact share and the seats' taxes
//! add up to the bucket's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::order::SeatPrice;

/// Highest rate, in hundredths of a percent: 100 %.
pub const MAX_TAX_RATE_BPS: u32 = 10_000;
/// Longest tax name as printed on a receipt ("VAT", "Sales tax").
pub const MAX_TAX_NAME_BYTES: usize = 40;
/// Most price categories with a rate of their own.
pub const MAX_TAX_OVERRIDES: usize = 32;

/// The cinema's tax: one rate, and where the law says so, another rate
/// (or none) for some price categories.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tax {
    /// As the receipt names it; empty when there is no tax.
    pub name: String,
    /// In hundredths of a percent (2000 is 20 %); 0 for no tax.
    pub rate_bps: u32,
    /// Prices include the tax (VAT, GST, Japan's consumption tax) rather
    /// than have it added on top (US sales tax).
    pub inclusive: bool,
    /// Price category id → its own rate.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_category: BTreeMap<String, u32>,
}

impl Default for Tax {
    /// No tax: the prices are all there is.
    fn default() -> Self {
        Tax {
            name: String::new(),
            rate_bps: 0,
            inclusive: true,
            by_category: BTreeMap::new(),
        }
    }
}

/// Why a tax setting cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaxProblem {
    RateTooHigh { rate_bps: u32 },
    NameMissing,
    NameTooLong,
    TooManyOverrides,
    BadCategory(String),
}

impl std::fmt::Display for TaxProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaxProblem::RateTooHigh { rate_bps } => write!(
                f,
                "a tax rate is {rate_bps} hundredths of a percent; the most is {MAX_TAX_RATE_BPS}"
            ),
            TaxProblem::NameMissing => write!(f, "a tax with a rate needs a name"),
            TaxProblem::NameTooLong => {
                write!(
                    f,
                    "the tax's name is longer than {MAX_TAX_NAME_BYTES} bytes"
                )
            }
            TaxProblem::TooManyOverrides => write!(
                f,
                "more than {MAX_TAX_OVERRIDES} price categories have a rate of their own"
            ),
            TaxProblem::BadCategory(id) => write!(f, "{id:?} is not a price category id"),
        }
    }
}

impl Tax {
    /// Checks the rates, the name and the categories named.
    pub fn validate(&self) -> Result<(), TaxProblem> {
        let rates = std::iter::once(&self.rate_bps).chain(self.by_category.values());
        if let Some(&rate_bps) = rates.into_iter().find(|&&r| r > MAX_TAX_RATE_BPS) {
            return Err(TaxProblem::RateTooHigh { rate_bps });
        }
        let any_rate = self.rate_bps > 0 || self.by_category.values().any(|&r| r > 0);
        if any_rate && self.name.trim().is_empty() {
            return Err(TaxProblem::NameMissing);
        }
        if self.name.len() > MAX_TAX_NAME_BYTES {
            return Err(TaxProblem::NameTooLong);
        }
        if self.by_category.len() > MAX_TAX_OVERRIDES {
            return Err(TaxProblem::TooManyOverrides);
        }
        let fit = |id: &String| {
            !id.is_empty()
                && id.len() <= crate::order::MAX_CATEGORY_ID_BYTES
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        };
        match self.by_category.keys().find(|id| !fit(id)) {
            Some(id) => Err(TaxProblem::BadCategory(id.clone())),
            None => Ok(()),
        }
    }

    /// The rate seats of this category are taxed at.
    pub fn rate_of(&self, category: &str) -> u32 {
        self.by_category
            .get(category)
            .copied()
            .unwrap_or(self.rate_bps)
    }

    /// Taxes the seats of one order. Each price comes in at its
    /// category's price as listed; it leaves with `amount_minor` what the
    /// buyer pays for it (the listed price plus its tax when tax is added
    /// on top), `tax_minor` the tax within that, and `tax_rate_bps`.
    pub fn apply(&self, prices: &mut [SeatPrice]) {
        let mut buckets: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, price) in prices.iter_mut().enumerate() {
            price.tax_rate_bps = self.rate_of(&price.category);
            price.tax_minor = 0;
            if price.tax_rate_bps > 0 {
                buckets.entry(price.tax_rate_bps).or_default().push(i);
            }
        }
        for (rate_bps, lines) in buckets {
            let listed: Vec<u64> = lines.iter().map(|&i| prices[i].amount_minor).collect();
            let base: u64 = listed.iter().sum();
            let tax = bucket_tax(base, rate_bps, self.inclusive);
            for (&i, share) in lines.iter().zip(apportion(tax, &listed)) {
                prices[i].tax_minor = share;
                if !self.inclusive {
                    prices[i].amount_minor += share;
                }
            }
        }
    }
}

/// What an order's answer and receipt say of its tax.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaxLine {
    pub name: String,
    /// The rate every seat of the order was taxed at, or `None` when they
    /// differ (each ticket then names its own).
    pub rate_bps: Option<u32>,
    pub inclusive: bool,
    /// The order's tax, in minor units: the sum of its seats'.
    pub amount: u64,
}

impl TaxLine {
    /// The line for seats taxed at these rates and amounts (`(rate_bps,
    /// tax_minor)` each).
    pub fn of(name: &str, inclusive: bool, seats: impl IntoIterator<Item = (u32, u64)>) -> TaxLine {
        let mut rates = std::collections::BTreeSet::new();
        let mut amount = 0;
        for (rate_bps, tax_minor) in seats {
            rates.insert(rate_bps);
            amount += tax_minor;
        }
        TaxLine {
            name: name.to_string(),
            rate_bps: match rates.len() {
                0 | 1 => Some(rates.first().copied().unwrap_or(0)),
                _ => None,
            },
            inclusive,
            amount,
        }
    }
}

/// The tax on a bucket's prices together, rounded once.
fn bucket_tax(base_minor: u64, rate_bps: u32, inclusive: bool) -> u64 {
    let base = u128::from(base_minor);
    let rate = u128::from(rate_bps);
    let scale = u128::from(MAX_TAX_RATE_BPS);
    let (numerator, denominator) = match inclusive {
        true => (base * rate, scale + rate),
        false => (base * rate, scale),
    };
    // At most the base (rate ≤ 100 %), so it fits back in a u64.
    round_half_even(numerator, denominator) as u64
}

/// `numerator / denominator` to the nearest whole number, a half going to
/// the even one.
pub fn round_half_even(numerator: u128, denominator: u128) -> u128 {
    let (quotient, remainder) = (numerator / denominator, numerator % denominator);
    match (2 * remainder).cmp(&denominator) {
        std::cmp::Ordering::Less => quotient,
        std::cmp::Ordering::Greater => quotient + 1,
        std::cmp::Ordering::Equal => quotient + (quotient % 2),
    }
}

/// `total` shared in proportion to `weights`: each share is its exact part
/// rounded down, and what that leaves goes one unit each to the largest
/// fractions, the earlier line first on a tie. Nothing for weights of 0.
pub(crate) fn apportion(total: u64, weights: &[u64]) -> Vec<u64> {
    let sum: u128 = weights.iter().map(|&w| u128::from(w)).sum();
    if sum == 0 {
        return vec![0; weights.len()];
    }
    let exact: Vec<(u128, u128)> = weights
        .iter()
        .map(|&w| {
            let part = u128::from(total) * u128::from(w);
            (part / sum, part % sum)
        })
        .collect();
    let mut shares: Vec<u64> = exact.iter().map(|&(q, _)| q as u64).collect();
    let left = total - shares.iter().sum::<u64>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    // Stable: equal fractions keep the lines' order.
    order.sort_by(|&a, &b| exact[b].1.cmp(&exact[a].1));
    for &i in order.iter().take(left as usize) {
        shares[i] += 1;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(category: &str, amount_minor: u64) -> SeatPrice {
        SeatPrice {
            seat: format!("A{amount_minor}"),
            category: category.into(),
            name: category.into(),
            amount_minor,
            tax_minor: 0,
            tax_rate_bps: 0,
            discount_minor: 0,
        }
    }

    fn added(rate_bps: u32) -> Tax {
        Tax {
            name: "Sales tax".into(),
            rate_bps,
            inclusive: false,
            by_category: BTreeMap::new(),
        }
    }

    #[test]
    fn halves_go_to_the_even_neighbour_and_the_rest_to_the_nearest() {
        // Square's table: 0.505 → 0.50, 0.715 → 0.72, 1.5 → 2, 2.5 → 2.
        assert_eq!(round_half_even(505, 10), 50);
        assert_eq!(round_half_even(715, 10), 72);
        assert_eq!(round_half_even(15, 10), 2);
        assert_eq!(round_half_even(25, 10), 2);
        assert_eq!(round_half_even(251, 100), 3);
        assert_eq!(round_half_even(249, 100), 2);
    }

    #[test]
    fn added_tax_matches_the_totals_square_charged() {
        // Square's answers in the forum thread "Order-level Tax Calculation
        // Clarification": 11.75 % of 6.00 is 0.705, charged 0.70; of 30.20
        // is 3.5485, charged 3.55.
        let mut six = [seat("standard", 600)];
        added(1175).apply(&mut six);
        assert_eq!((six[0].tax_minor, six[0].amount_minor), (70, 670));
        let mut thirty = [seat("standard", 3020)];
        added(1175).apply(&mut thirty);
        assert_eq!((thirty[0].tax_minor, thirty[0].amount_minor), (355, 3375));
    }

    #[test]
    fn a_bucket_is_rounded_once_and_shared_so_the_lines_add_up() {
        let mut prices = [
            seat("standard", 1500),
            seat("standard", 800),
            seat("standard", 695),
            seat("standard", 695),
        ];
        added(875).apply(&mut prices);
        // 8.75 % of 36.90 is 3.22875: 3.23, shared 131 + 70 + 61 + 61.
        let taxes: Vec<u64> = prices.iter().map(|p| p.tax_minor).collect();
        assert_eq!(taxes, [131, 70, 61, 61]);
        for (p, listed) in prices.iter().zip([1500, 800, 695, 695]) {
            assert_eq!(p.amount_minor, listed + p.tax_minor);
        }
        // Three seats of 1.00 at 5 %: 15 in all, 5 each.
        let mut three = [seat("s", 100), seat("s", 100), seat("s", 100)];
        added(500).apply(&mut three);
        assert!(three.iter().all(|p| p.tax_minor == 5));
        // Three of 0.10 at 5 %: each line alone is 0.5, which rounds to 0,
        // but the order's 1.5 rounds to 2: the first two lines take 1 each.
        let mut dimes = [seat("s", 10), seat("s", 10), seat("s", 10)];
        added(500).apply(&mut dimes);
        let taxes: Vec<u64> = dimes.iter().map(|p| p.tax_minor).collect();
        assert_eq!(taxes, [1, 1, 0]);
    }

    #[test]
    fn inclusive_tax_is_the_part_of_the_price_that_is_tax() {
        let vat = Tax {
            name: "VAT".into(),
            rate_bps: 2000,
            inclusive: true,
            by_category: BTreeMap::from([("child".to_string(), 0)]),
        };
        let mut prices = [seat("adult", 1200), seat("adult", 1000), seat("child", 800)];
        vat.apply(&mut prices);
        // 2200 × 20/120 = 366.67 → 367, shared 200.17 / 166.67 → 200 + 167.
        assert_eq!(prices[0].tax_minor + prices[1].tax_minor, 367);
        assert_eq!((prices[0].tax_minor, prices[1].tax_minor), (200, 167));
        assert_eq!(prices[2].tax_minor, 0);
        assert_eq!(prices[2].tax_rate_bps, 0);
        // The prices stay what the buyer was shown.
        assert_eq!(
            prices.map(|p| p.amount_minor),
            [1200, 1000, 800],
            "inclusive tax changes no price"
        );
    }

    #[test]
    fn every_share_is_within_a_unit_of_its_exact_part_and_they_add_up() {
        let mut seed = 7u64;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % n
        };
        for _ in 0..2_000 {
            let weights: Vec<u64> = (0..1 + next(10)).map(|_| next(5_000)).collect();
            let total = next(3_000);
            let shares = apportion(total, &weights);
            let sum: u64 = weights.iter().sum();
            if sum == 0 {
                assert!(shares.iter().all(|&s| s == 0));
                continue;
            }
            assert_eq!(shares.iter().sum::<u64>(), total);
            for (&s, &w) in shares.iter().zip(&weights) {
                // |s − total × w / sum| < 1, in whole numbers.
                let (scaled, exact) = (s * sum, total * w);
                assert!(
                    scaled.abs_diff(exact) < sum,
                    "{s} of {total} for {w} of {sum}"
                );
            }
        }
    }

    #[test]
    fn unfit_settings_are_named() {
        let mut tax = added(10_001);
        assert_eq!(
            tax.validate(),
            Err(TaxProblem::RateTooHigh { rate_bps: 10_001 })
        );
        tax.rate_bps = 500;
        tax.name = " ".into();
        assert_eq!(tax.validate(), Err(TaxProblem::NameMissing));
        tax.name = "VAT".into();
        tax.by_category.insert("child seat".into(), 0);
        assert_eq!(
            tax.validate(),
            Err(TaxProblem::BadCategory("child seat".into()))
        );
        assert_eq!(Tax::default().validate(), Ok(()));
    }
}
