//! Amounts are integers in the currency's minor units everywhere; this is
//! the one place they become words, with as many decimals as the currency
//! has (ISO 4217): none for yen, three for dinar, two for most.

/// ISO 4217 currencies whose minor unit is the whole unit.
pub const NO_DECIMALS: [&str; 17] = [
    "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND",
    "VUV", "XAF", "XOF", "XPF",
];
/// ISO 4217 currencies with three decimals.
pub const THREE_DECIMALS: [&str; 7] = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"];

/// Decimal places of an ISO 4217 currency's minor unit: the one table the
/// Worker, its messages and (through [`exceptions`]) the pages use.
pub fn minor_digits(currency: &str) -> u32 {
    if NO_DECIMALS.contains(&currency) {
        0
    } else if THREE_DECIMALS.contains(&currency) {
        3
    } else {
        2
    }
}

/// Every currency whose minor unit is not a hundredth, as the pages read
/// it: `BIF:0,CLP:0,…,TND:3`.
pub fn exceptions() -> String {
    let zero = NO_DECIMALS.iter().map(|c| format!("{c}:0"));
    let three = THREE_DECIMALS.iter().map(|c| format!("{c}:3"));
    zero.chain(three).collect::<Vec<_>>().join(",")
}

/// The amount in major units as a plain decimal, for spreadsheets:
/// "12.50", "1500", "12.345".
pub fn decimal(amount: u64, currency: &str) -> String {
    number(amount, currency, |n| n.to_string())
}

fn number(amount: u64, currency: &str, whole: fn(u64) -> String) -> String {
    let digits = minor_digits(currency);
    let unit = 10u64.pow(digits);
    let major = whole(amount / unit);
    if digits == 0 {
        major
    } else {
        format!("{major}.{:0width$}", amount % unit, width = digits as usize)
    }
}

/// "£12.50", "¥1,500", "12.50 CHF".
pub fn format(amount: u64, currency: &str) -> String {
    let number = number(amount, currency, group);
    match currency {
        "USD" | "CAD" | "AUD" | "NZD" => format!("${number}"),
        "GBP" => format!("£{number}"),
        "EUR" => format!("€{number}"),
        "JPY" => format!("¥{number}"),
        _ => format!("{number} {currency}"),
    }
}

/// 1234567 → "1,234,567".
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{decimal, format};

    #[test]
    fn each_currency_gets_its_own_decimals() {
        assert_eq!(format(1250, "GBP"), "£12.50");
        assert_eq!(format(5, "USD"), "$0.05");
        assert_eq!(format(1500, "JPY"), "¥1,500");
        assert_eq!(format(1234567, "EUR"), "€12,345.67");
        assert_eq!(format(12345, "KWD"), "12.345 KWD");
        assert_eq!(format(0, "CHF"), "0.00 CHF");
        assert_eq!(decimal(123456, "USD"), "1234.56");
        assert_eq!(decimal(1500, "JPY"), "1500");
    }
}
