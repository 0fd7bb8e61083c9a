//! Amounts are integers in the currency's minor units everywhere; this is
//! the one place they become words, with as many decimals as the currency
//! has (ISO 4217): none for yen, three for dinar, two for most.

/// Decimal places of an ISO 4217 currency's minor unit.
pub fn minor_digits(currency: &str) -> u32 {
    match currency {
        "BIF" | "CLP" | "DJF" | "GNF" | "ISK" | "JPY" | "KMF" | "KRW" | "PYG" | "RWF" | "UGX"
        | "UYI" | "VND" | "VUV" | "XAF" | "XOF" | "XPF" => 0,
        "BHD" | "IQD" | "JOD" | "KWD" | "LYD" | "OMR" | "TND" => 3,
        _ => 2,
    }
}

/// "£12.50", "¥1,500", "12.50 CHF".
pub fn format(amount: u64, currency: &str) -> String {
    let digits = minor_digits(currency);
    let unit = 10u64.pow(digits);
    let major = group(amount / unit);
    let number = if digits == 0 {
        major
    } else {
        format!("{major}.{:0width$}", amount % unit, width = digits as usize)
    };
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
    use super::format;

    #[test]
    fn each_currency_gets_its_own_decimals() {
        assert_eq!(format(1250, "GBP"), "£12.50");
        assert_eq!(format(5, "USD"), "$0.05");
        assert_eq!(format(1500, "JPY"), "¥1,500");
        assert_eq!(format(1234567, "EUR"), "€12,345.67");
        assert_eq!(format(12345, "KWD"), "12.345 KWD");
        assert_eq!(format(0, "CHF"), "0.00 CHF");
    }
}
