//! Cards and what happens when they are charged.
//!
//! Two ways in: Square's sandbox test tokens (`cnon:card-nonce-…`, usable any
//! number of times) and cards typed into the SDK stand-in, whose outcome is
//! fixed when they are tokenized from [`CARD_RULES`]. Only the brand, the
//! last four digits and the expiry are ever kept.

use serde::Deserialize;

/// Why a charge was declined, in Square's codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decline {
    Generic,
    Cvv,
    PostalCode,
    Expiration,
    InsufficientFunds,
    /// An SCA card charged with a token that was not verified.
    VerificationRequired,
}

impl Decline {
    pub fn code(self) -> &'static str {
        match self {
            Decline::Generic => "GENERIC_DECLINE",
            Decline::Cvv => "CVV_FAILURE",
            Decline::PostalCode => "ADDRESS_VERIFICATION_FAILURE",
            Decline::Expiration => "INVALID_EXPIRATION",
            Decline::InsufficientFunds => "INSUFFICIENT_FUNDS",
            Decline::VerificationRequired => "CARD_DECLINED_VERIFICATION_REQUIRED",
        }
    }

    pub fn cvv_status(self) -> &'static str {
        match self {
            Decline::Cvv => "CVV_REJECTED",
            _ => "CVV_ACCEPTED",
        }
    }

    pub fn avs_status(self) -> &'static str {
        match self {
            Decline::PostalCode => "AVS_REJECTED",
            _ => "AVS_ACCEPTED",
        }
    }
}

/// Square's sandbox test tokens; they can be charged again and again.
pub const SANDBOX_TOKENS: [(&str, Option<Decline>); 5] = [
    ("cnon:card-nonce-ok", None),
    ("cnon:card-nonce-declined", Some(Decline::Generic)),
    ("cnon:card-nonce-rejected-cvv", Some(Decline::Cvv)),
    (
        "cnon:card-nonce-rejected-postalcode",
        Some(Decline::PostalCode),
    ),
    (
        "cnon:card-nonce-rejected-expiration",
        Some(Decline::Expiration),
    ),
];

/// One thing typed into the card form that makes the charge fail.
#[derive(Debug, Clone, Copy)]
pub enum Trigger {
    Number(&'static str),
    Cvv(&'static str),
    PostalCode(&'static str),
    /// `MM/YY` as typed.
    Expiry(&'static str),
}

/// Outcomes of cards typed into the SDK stand-in, checked top to bottom;
/// any other Luhn-valid number with a future expiry is approved.
/// The CVV, postal code and expiry rows are Square's sandbox values; the
/// 4000 0000 0000 0002 row follows Square's decline example, and the
/// insufficient-funds number is this stand-in's own choice (Square publishes
/// no card for it).
pub const CARD_RULES: [(Trigger, Decline); 5] = [
    (Trigger::Number("4000000000000002"), Decline::Generic),
    (
        Trigger::Number("4000000000009995"),
        Decline::InsufficientFunds,
    ),
    (Trigger::Cvv("911"), Decline::Cvv),
    (Trigger::PostalCode("99999"), Decline::PostalCode),
    (Trigger::Expiry("01/40"), Decline::Expiration),
];

/// Whether a card's issuer asks for Strong Customer Authentication, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sca {
    NotNeeded,
    /// Verified as soon as verification details come with the tokenize.
    NoChallenge,
    /// The buyer must type the code the issuer sent ([`CHALLENGE_CODE`]).
    Challenge,
}

/// The SCA cards of Square's "Sandbox Payments" page
/// (<https://developer.squareup.com/docs/testing/test-values>): charged
/// with a token made without verification details, they are declined
/// `CARD_DECLINED_VERIFICATION_REQUIRED`.
pub const SCA_CARDS: [(&str, Sca); 3] = [
    ("4800000000000004", Sca::NoChallenge),
    ("5222220000000005", Sca::NoChallenge),
    ("5248480000210026", Sca::Challenge),
];

/// The code the challenge of Square's sandbox SCA cards accepts.
pub const CHALLENGE_CODE: &str = "123456";

/// What is remembered of a card: never the full number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub brand: &'static str,
    pub last_4: String,
    pub exp_month: u8,
    pub exp_year: u16,
}

impl Card {
    /// The card Square's sandbox reports for its own test tokens.
    pub fn sandbox_visa() -> Card {
        Card {
            brand: "VISA",
            last_4: "1111".to_owned(),
            exp_month: 12,
            exp_year: 2030,
        }
    }
}

/// The fields the SDK stand-in posts from the card form.
#[derive(Debug, Deserialize)]
pub struct TypedCard {
    #[serde(default)]
    pub card_number: String,
    /// `MM/YY`.
    #[serde(default)]
    pub expiration: String,
    #[serde(default)]
    pub cvv: String,
    #[serde(default)]
    pub postal_code: String,
}

/// A form field the Web Payments SDK would reject before tokenizing, named as
/// the SDK names its fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: &'static str,
    pub message: &'static str,
}

/// A typed card that passed the form's checks, with its fixed outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AcceptedCard {
    pub card: Card,
    pub decline: Option<Decline>,
    pub sca: Sca,
    /// The buyer was verified when the token was made, or (for a wallet)
    /// by the `verifyBuyer()` token the charge came with.
    pub verified: bool,
    /// Paid from a wallet (Google Pay, Apple Pay) at a location whose
    /// country requires Strong Customer Authentication: verified only
    /// through `verifyBuyer()`.
    pub wallet_needs_verification: bool,
}

impl AcceptedCard {
    /// The charge's outcome: a card that needs SCA and was not verified is
    /// declined before anything else.
    pub fn outcome(&self) -> Option<Decline> {
        let needs = self.sca != Sca::NotNeeded || self.wallet_needs_verification;
        if needs && !self.verified {
            return Some(Decline::VerificationRequired);
        }
        self.decline
    }
}

const MAX_POSTAL_CODE_CHARS: usize = 12;

/// Checks the form as the SDK would and decides the charge outcome now, so
/// that a token always behaves the same however late it is used.
/// `today` is (year, month) for the expiry check.
pub fn accept(typed: &TypedCard, today: (u16, u8)) -> Result<AcceptedCard, Vec<FieldError>> {
    let digits: String = typed
        .card_number
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    let expiry = typed.expiration.replace(' ', "");
    let mut errors = Vec::new();
    if !(12..=19).contains(&digits.len())
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || !luhn_valid(&digits)
    {
        errors.push(FieldError {
            field: "cardNumber",
            message: "Card number is not valid.",
        });
    }
    let parsed_expiry = parse_expiry(&expiry).filter(|&(year, month)| (year, month) >= today);
    if parsed_expiry.is_none() {
        errors.push(FieldError {
            field: "expirationDate",
            message: "Expiration date is not valid.",
        });
    }
    let cvv = typed.cvv.trim();
    if !(3..=4).contains(&cvv.len()) || !cvv.bytes().all(|b| b.is_ascii_digit()) {
        errors.push(FieldError {
            field: "cvv",
            message: "CVV is not valid.",
        });
    }
    let postal = typed.postal_code.trim();
    if postal.is_empty()
        || postal.chars().count() > MAX_POSTAL_CODE_CHARS
        || !postal
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-')
    {
        errors.push(FieldError {
            field: "postalCode",
            message: "Postal code is not valid.",
        });
    }
    let Some((exp_year, exp_month)) = parsed_expiry else {
        return Err(errors);
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let decline = CARD_RULES.iter().find_map(|(trigger, decline)| {
        let hit = match trigger {
            Trigger::Number(number) => digits == *number,
            Trigger::Cvv(value) => cvv == *value,
            Trigger::PostalCode(value) => postal == *value,
            Trigger::Expiry(value) => expiry == *value,
        };
        hit.then_some(*decline)
    });
    let card = Card {
        brand: brand_of(&digits),
        last_4: digits[digits.len() - 4..].to_owned(),
        exp_month,
        exp_year,
    };
    let sca = SCA_CARDS
        .iter()
        .find(|(number, _)| digits == *number)
        .map_or(Sca::NotNeeded, |(_, sca)| *sca);
    Ok(AcceptedCard {
        card,
        decline,
        sca,
        verified: false,
        wallet_needs_verification: false,
    })
}

/// `MM/YY` → (20YY, MM).
fn parse_expiry(expiry: &str) -> Option<(u16, u8)> {
    let (month, year) = expiry.split_once('/')?;
    if month.len() != 2 || year.len() != 2 {
        return None;
    }
    let month: u8 = month.parse().ok()?;
    let year: u16 = year.parse().ok()?;
    (1..=12).contains(&month).then_some((2000 + year, month))
}

fn luhn_valid(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 {
                    doubled - 9
                } else {
                    doubled
                }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// Square's `card_brand` for a number, by its leading digits.
fn brand_of(digits: &str) -> &'static str {
    let prefix = |n: usize| {
        digits
            .get(..n)
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0)
    };
    match (prefix(1), prefix(2), prefix(4)) {
        (4, _, _) => "VISA",
        (_, 51..=55, _) | (_, _, 2221..=2720) => "MASTERCARD",
        (_, 34 | 37, _) => "AMERICAN_EXPRESS",
        (_, 65, _) | (_, _, 6011) => "DISCOVER",
        (_, 30 | 36 | 38, _) => "DISCOVER_DINERS",
        (_, 35, _) => "JCB",
        (_, 62, _) => "CHINA_UNIONPAY",
        (_, _, 7783) => "SQUARE_GIFT_CARD",
        _ => "OTHER_BRAND",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(number: &str, expiry: &str, cvv: &str, postal: &str) -> TypedCard {
        TypedCard {
            card_number: number.to_owned(),
            expiration: expiry.to_owned(),
            cvv: cvv.to_owned(),
            postal_code: postal.to_owned(),
        }
    }

    const TODAY: (u16, u8) = (2026, 6);

    #[test]
    fn visa_test_card_is_approved_and_keeps_only_last_four() {
        let accepted = accept(
            &typed("4111 1111 1111 1111", "12/30", "111", "94103"),
            TODAY,
        )
        .unwrap();
        assert_eq!(accepted.decline, None);
        assert_eq!(accepted.card.brand, "VISA");
        assert_eq!(accepted.card.last_4, "1111");
        assert_eq!(
            (accepted.card.exp_month, accepted.card.exp_year),
            (12, 2030)
        );
    }

    #[test]
    fn each_rule_fixes_its_decline() {
        let cases = [
            (
                typed("4000000000000002", "12/30", "111", "94103"),
                Decline::Generic,
            ),
            (
                typed("4000000000009995", "12/30", "111", "94103"),
                Decline::InsufficientFunds,
            ),
            (
                typed("4111111111111111", "12/30", "911", "94103"),
                Decline::Cvv,
            ),
            (
                typed("4111111111111111", "12/30", "111", "99999"),
                Decline::PostalCode,
            ),
            (
                typed("4111111111111111", "01/40", "111", "94103"),
                Decline::Expiration,
            ),
        ];
        for (card, decline) in cases {
            assert_eq!(
                accept(&card, TODAY).unwrap().decline,
                Some(decline),
                "{card:?}"
            );
        }
    }

    #[test]
    fn malformed_fields_are_named_like_the_sdk_names_them() {
        let errors = accept(&typed("4111111111111112", "13/30", "1", ""), TODAY).unwrap_err();
        let fields: Vec<_> = errors.iter().map(|e| e.field).collect();
        assert_eq!(
            fields,
            ["cardNumber", "expirationDate", "cvv", "postalCode"]
        );
    }

    #[test]
    fn an_expiry_in_the_past_is_invalid() {
        let errors =
            accept(&typed("4111111111111111", "05/26", "111", "94103"), TODAY).unwrap_err();
        assert_eq!(errors[0].field, "expirationDate");
    }

    #[test]
    fn brands_by_prefix() {
        assert_eq!(brand_of("5105105105105100"), "MASTERCARD");
        assert_eq!(brand_of("340000000000009"), "AMERICAN_EXPRESS");
        assert_eq!(brand_of("6011000000000004"), "DISCOVER");
        assert_eq!(brand_of("3569990010095841"), "JCB");
        assert_eq!(brand_of("6222988812340000"), "CHINA_UNIONPAY");
    }
}
