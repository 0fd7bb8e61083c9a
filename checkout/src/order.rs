//! What a checkout is asked to buy, its limits, and why a start is refused.

use crate::config::ConfigError;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Most seats one order may buy; the ledger's hold limit is the same.
pub const MAX_SEATS_PER_ORDER: usize = 10;
/// Longest order id: it is sent to Square as `reference_id`, which takes 40.
pub const MAX_ORDER_ID_BYTES: usize = 40;
/// Longest hold id, as the ledger allows.
pub const MAX_HOLD_ID_BYTES: usize = 64;
/// Longest seat name, as the ledger allows.
pub const MAX_SEAT_NAME_BYTES: usize = 32;
/// Longest card token. Browser tokens are far shorter; the bound keeps a
/// forged one from bloating the stored state.
pub const MAX_SOURCE_ID_BYTES: usize = 512;
/// Longest buyer email: Square's `buyer_email_address` takes 255.
pub const MAX_BUYER_EMAIL_BYTES: usize = 255;
/// Longest buyer name, as printed on the order.
pub const MAX_BUYER_NAME_BYTES: usize = 200;
/// Largest price of one order, in minor units (a million in a currency
/// with cents). Ten seats never cost this; a larger amount is a bug.
pub const MAX_AMOUNT_MINOR: u64 = 100_000_000;

/// Longest name of what a seat is for (the film and its time), each
/// seat's line item name in the Square order.
pub const MAX_ITEM_NAME_BYTES: usize = 200;

/// Longest price category id (`adult`, `child`, …).
pub const MAX_CATEGORY_ID_BYTES: usize = 32;
/// Longest price category name as a buyer reads it.
pub const MAX_CATEGORY_NAME_BYTES: usize = 60;

/// One seat's price, as priced when it was held: its category and amount.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatPrice {
    pub seat: String,
    /// The category's id and name as they were when the seat was held.
    pub category: String,
    pub name: String,
    /// What the buyer pays for the seat, tax included.
    pub amount_minor: u64,
    /// The tax within `amount_minor` (0 for an order made before tax).
    #[serde(default)]
    pub tax_minor: u64,
    /// The rate it was taxed at, in hundredths of a percent.
    #[serde(default)]
    pub tax_rate_bps: u32,
    /// What a discount code took off the listed price, before its tax
    /// (`amount_minor` is what is left, taxed); 0 for none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub discount_minor: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SeatPrice {
    /// The price less its tax.
    pub fn net_minor(&self) -> u64 {
        self.amount_minor - self.tax_minor
    }
}

/// The uid of the seat's line item in the Square order: the seat's name
/// when Square takes it as a uid (printable ASCII, at most 60), which is
/// what staff read in the Dashboard and refunds name, else its place.
pub fn line_uid(index: usize, seat: &str) -> String {
    match check_id(seat, 60) {
        Ok(()) => seat.to_owned(),
        Err(_) => format!("seat-{}", index + 1),
    }
}

/// Money already paid through another order's Square payment that pays
/// for part or all of this order: the worth of the tickets a buyer
/// exchanged. Only the rest is charged through Square.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credit {
    /// The order whose payment the credit was drawn from.
    pub from_order: String,
    /// 1 to the order's `amount_minor`.
    pub amount_minor: u64,
}

impl Credit {
    /// Checks the credit against the order it pays for: an order id it was
    /// drawn from, and an amount of at least 1 and at most the order's.
    pub fn validate(&self, order_amount_minor: u64) -> Result<(), StartError> {
        check_id(&self.from_order, MAX_ORDER_ID_BYTES).map_err(StartError::InvalidCreditOrder)?;
        if !(1..=order_amount_minor).contains(&self.amount_minor) {
            return Err(StartError::CreditOutOfRange {
                credit_minor: self.amount_minor,
                amount_minor: order_amount_minor,
            });
        }
        Ok(())
    }
}

/// What the Durable Object asks a checkout to buy, once the buyer's hold is
/// paying (`ledger.start_payment` succeeded).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewCheckout {
    /// Chosen by the Durable Object; Square's `reference_id`.
    pub order_id: String,
    /// The ledger's hold these seats are held under.
    pub hold_id: String,
    /// The held seats, by name, as the ledger knows them.
    pub seats: Vec<String>,
    pub amount_minor: u64,
    /// ISO 4217, three capital letters.
    pub currency: String,
    /// The card token from the browser. Kept only until the authorization
    /// is settled, and never written to an audit row.
    pub source_id: String,
    /// The SDK's buyer verification token for `source_id`, sent with
    /// CreatePayment; empty when the card was verified as it was
    /// tokenized (or needs no verification). Kept like the card token.
    #[serde(default)]
    pub verification_token: String,
    pub buyer_email: String,
    pub buyer_name: String,
    /// Each seat's price, in the order of `seats`, adding up to
    /// `amount_minor`.
    pub prices: Vec<SeatPrice>,
    /// Paid at the box office (cash, the cinema's own card terminal), or
    /// given free there: nothing is charged through Square.
    pub paid_at_desk: bool,
    /// Paid in part or in full by an exchanged order's payment: Square is
    /// asked only for `amount_minor` less the credit, or for nothing.
    #[serde(default)]
    pub credit: Option<Credit>,
    /// What the seats are for, as the Square order's line items name it
    /// ("Vertigo, Fri 26 Mar 19:30"); empty names them "Ticket".
    #[serde(default)]
    pub item_name: String,
    /// The last instant a PENDING payment is waited for: the paying hold's
    /// expiry, or the end of the authorization's delay if that comes
    /// first. Past it, an approval could not take the seats anyway.
    /// `None` counts each PENDING answer as an unknown one.
    #[serde(default)]
    pub pay_by_ms: Option<u64>,
    /// The discount code the prices' `discount_minor` come from, as
    /// Square's order names each line's discount.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount_code: Option<String>,
}

/// The order as the checkout keeps it: everything in [`NewCheckout`] but the
/// card token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    pub order_id: String,
    pub hold_id: String,
    pub seats: Vec<String>,
    pub amount_minor: u64,
    pub currency: String,
    pub buyer_email: String,
    pub buyer_name: String,
    /// Empty for an order made before seats had their own prices: each
    /// then cost an equal share.
    #[serde(default)]
    pub prices: Vec<SeatPrice>,
    #[serde(default)]
    pub paid_at_desk: bool,
    /// `None` for an order that was no exchange, and for one stored before
    /// exchanges.
    #[serde(default)]
    pub credit: Option<Credit>,
    #[serde(default)]
    pub item_name: String,
    /// `None` for a checkout stored before PENDING payments were waited for.
    #[serde(default)]
    pub pay_by_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount_code: Option<String>,
}

/// What is wrong with a text field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TextProblem {
    Empty,
    TooLong {
        len: usize,
        max: usize,
    },
    /// Ids must be printable ASCII without spaces; other text must have no
    /// control characters.
    BadCharacter,
}

/// Why a checkout could not start; nothing was sent anywhere.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StartError {
    Config(ConfigError),
    InvalidOrderId(TextProblem),
    InvalidHoldId(TextProblem),
    NoSeats,
    TooManySeats {
        count: usize,
        max: usize,
    },
    InvalidSeatName {
        seat: String,
        problem: TextProblem,
    },
    /// A seat named twice; the ledger refuses such a commit.
    DuplicateSeat {
        seat: String,
    },
    AmountOutOfRange {
        amount_minor: u64,
        max: u64,
    },
    /// Not three capital ASCII letters.
    InvalidCurrency,
    InvalidSourceId(TextProblem),
    InvalidVerificationToken(TextProblem),
    InvalidBuyerEmail(TextProblem),
    /// The name may be empty, but not too long or with control characters.
    InvalidBuyerName(TextProblem),
    /// Seat prices that are not one for each seat, in order.
    PricesDoNotMatchSeats,
    /// Seat prices that do not add up to the amount.
    PricesDoNotAddUp,
    /// A seat's tax above its price, or a rate above 100 %.
    TaxOutOfRange {
        seat: String,
    },
    InvalidCategory(TextProblem),
    /// A credit of 0, or of more than the order costs.
    CreditOutOfRange {
        credit_minor: u64,
        amount_minor: u64,
    },
    /// The order a credit was drawn from is no valid order id.
    InvalidCreditOrder(TextProblem),
    InvalidItemName(TextProblem),
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The token's text never reaches a log line, only its problem.
            StartError::InvalidSourceId(problem) => write!(f, "InvalidSourceId({problem:?})"),
            StartError::InvalidVerificationToken(problem) => {
                write!(f, "InvalidVerificationToken({problem:?})")
            }
            other => fmt::Debug::fmt(other, f),
        }
    }
}

impl std::error::Error for StartError {}

impl fmt::Debug for NewCheckout {
    /// Everything but the card token, so that a logged request leaks no card data.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NewCheckout")
            .field("order_id", &self.order_id)
            .field("hold_id", &self.hold_id)
            .field("seats", &self.seats)
            .field("amount_minor", &self.amount_minor)
            .field("currency", &self.currency)
            .field("source_id", &"<redacted>")
            .field("verification_token", &"<redacted>")
            .field("buyer_email", &self.buyer_email)
            .field("buyer_name", &self.buyer_name)
            .field("prices", &self.prices)
            .field("paid_at_desk", &self.paid_at_desk)
            .field("credit", &self.credit)
            .field("item_name", &self.item_name)
            .field("pay_by_ms", &self.pay_by_ms)
            .finish()
    }
}

impl NewCheckout {
    /// Checks every field against its limit: the order's fields in
    /// declaration order, then the card token.
    pub fn validate(&self) -> Result<(), StartError> {
        self.order().validate()?;
        // A free order, one paid by its credit, or one paid at the box
        // office has no card token.
        if self.charged_elsewhere() {
            return Ok(());
        }
        check_id(&self.source_id, MAX_SOURCE_ID_BYTES).map_err(StartError::InvalidSourceId)?;
        match self.verification_token.is_empty() {
            true => Ok(()),
            false => check_id(&self.verification_token, MAX_SOURCE_ID_BYTES)
                .map_err(StartError::InvalidVerificationToken),
        }
    }

    /// Nothing of this order is charged through Square.
    pub fn charged_elsewhere(&self) -> bool {
        charge_minor(self.amount_minor, self.credit.as_ref()) == 0 || self.paid_at_desk
    }

    /// The order without the card token.
    pub(crate) fn order(&self) -> Order {
        Order {
            order_id: self.order_id.clone(),
            hold_id: self.hold_id.clone(),
            seats: self.seats.clone(),
            amount_minor: self.amount_minor,
            currency: self.currency.clone(),
            buyer_email: self.buyer_email.clone(),
            buyer_name: self.buyer_name.clone(),
            prices: self.prices.clone(),
            paid_at_desk: self.paid_at_desk,
            credit: self.credit.clone(),
            item_name: self.item_name.clone(),
            pay_by_ms: self.pay_by_ms,
            discount_code: self.discount_code.clone(),
        }
    }
}

impl Order {
    /// Checks every field against its limit, in declaration order; also
    /// run on a restored checkout.
    pub fn validate(&self) -> Result<(), StartError> {
        check_id(&self.order_id, MAX_ORDER_ID_BYTES).map_err(StartError::InvalidOrderId)?;
        check_id(&self.hold_id, MAX_HOLD_ID_BYTES).map_err(StartError::InvalidHoldId)?;
        check_seats(&self.seats)?;
        // 0 is a free order (every seat at a free price).
        if self.amount_minor > MAX_AMOUNT_MINOR {
            return Err(StartError::AmountOutOfRange {
                amount_minor: self.amount_minor,
                max: MAX_AMOUNT_MINOR,
            });
        }
        if !is_currency(&self.currency) {
            return Err(StartError::InvalidCurrency);
        }
        // A box-office buyer may leave no e-mail (nothing is mailed then).
        if !(self.paid_at_desk && self.buyer_email.is_empty()) {
            check_text(&self.buyer_email, MAX_BUYER_EMAIL_BYTES)
                .map_err(StartError::InvalidBuyerEmail)?;
        }
        if !self.buyer_name.is_empty() {
            check_text(&self.buyer_name, MAX_BUYER_NAME_BYTES)
                .map_err(StartError::InvalidBuyerName)?;
        }
        check_prices(&self.prices, &self.seats, self.amount_minor)?;
        if !self.item_name.is_empty() {
            check_text(&self.item_name, MAX_ITEM_NAME_BYTES)
                .map_err(StartError::InvalidItemName)?;
        }
        match &self.credit {
            Some(credit) => credit.validate(self.amount_minor),
            None => Ok(()),
        }
    }

    /// What Square is asked for: the order's price less its credit. The
    /// seats' prices still add up to `amount_minor`.
    pub fn charge_minor(&self) -> u64 {
        charge_minor(self.amount_minor, self.credit.as_ref())
    }
}

/// The amount less the credit; a credit above the amount (refused by
/// `validate`) leaves nothing to charge rather than wrapping.
fn charge_minor(amount_minor: u64, credit: Option<&Credit>) -> u64 {
    amount_minor.saturating_sub(credit.map_or(0, |c| c.amount_minor))
}

/// Prices, when given, are one a seat in the seats' order and add up to
/// the amount charged.
fn check_prices(
    prices: &[SeatPrice],
    seats: &[String],
    amount_minor: u64,
) -> Result<(), StartError> {
    if prices.is_empty() {
        return Ok(());
    }
    let same_seats =
        prices.len() == seats.len() && prices.iter().zip(seats).all(|(p, s)| &p.seat == s);
    if !same_seats {
        return Err(StartError::PricesDoNotMatchSeats);
    }
    for price in prices {
        check_id(&price.category, MAX_CATEGORY_ID_BYTES).map_err(StartError::InvalidCategory)?;
        check_text(&price.name, MAX_CATEGORY_NAME_BYTES).map_err(StartError::InvalidCategory)?;
        if price.tax_minor > price.amount_minor || price.tax_rate_bps > crate::MAX_TAX_RATE_BPS {
            return Err(StartError::TaxOutOfRange {
                seat: price.seat.clone(),
            });
        }
    }
    let total = prices
        .iter()
        .try_fold(0u64, |sum, p| sum.checked_add(p.amount_minor));
    if total != Some(amount_minor) {
        return Err(StartError::PricesDoNotAddUp);
    }
    Ok(())
}

fn check_seats(seats: &[String]) -> Result<(), StartError> {
    if seats.is_empty() {
        return Err(StartError::NoSeats);
    }
    if seats.len() > MAX_SEATS_PER_ORDER {
        return Err(StartError::TooManySeats {
            count: seats.len(),
            max: MAX_SEATS_PER_ORDER,
        });
    }
    for (i, seat) in seats.iter().enumerate() {
        check_text(seat, MAX_SEAT_NAME_BYTES).map_err(|problem| StartError::InvalidSeatName {
            seat: seat.chars().take(MAX_SEAT_NAME_BYTES).collect(),
            problem,
        })?;
        // Quadratic, which is cheapest for at most ten seats.
        if seats[..i].contains(seat) {
            return Err(StartError::DuplicateSeat { seat: seat.clone() });
        }
    }
    Ok(())
}

/// An id: 1 to `max` bytes of printable ASCII without spaces.
pub(crate) fn check_id(text: &str, max: usize) -> Result<(), TextProblem> {
    check_length(text, max)?;
    if !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(TextProblem::BadCharacter);
    }
    Ok(())
}

/// Free text: 1 to `max` bytes without control characters.
pub(crate) fn check_text(text: &str, max: usize) -> Result<(), TextProblem> {
    check_length(text, max)?;
    if text.chars().any(char::is_control) {
        return Err(TextProblem::BadCharacter);
    }
    Ok(())
}

fn check_length(text: &str, max: usize) -> Result<(), TextProblem> {
    if text.is_empty() {
        return Err(TextProblem::Empty);
    }
    if text.len() > max {
        return Err(TextProblem::TooLong {
            len: text.len(),
            max,
        });
    }
    Ok(())
}

fn is_currency(text: &str) -> bool {
    text.len() == 3 && text.bytes().all(|b| b.is_ascii_uppercase())
}
