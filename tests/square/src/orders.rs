//! Square's orders: reading a CreateOrder body with Square's field checks,
//! and working out its totals by Square's rules.
//!
//! The rules, with their sources:
//! - Amounts are rounded half to even ("Bankers' Rounding",
//!   <https://developer.squareup.com/docs/orders-api/price-adjustments>).
//! - An ORDER-scoped tax is worked out on the order's total and rounded
//!   once, then shared among the line items in proportion to their
//!   amounts (<https://developer.squareup.com/docs/orders-api/taxes>: "calculated
//!   for the entire order and then distributed proportionally"; the Japan
//!   guide, <https://developer.squareup.com/docs/international-development/japan-order-calculation>,
//!   rounds once per rate). The units left over by the sharing go to the
//!   largest remainders, which reproduces the split in Square's own
//!   CreateOrder example (303 as 79 and 224).
//! - A LINE_ITEM-scoped tax is worked out on each line it is applied to.
//! - An INCLUSIVE tax is the part of the amount that is tax,
//!   `amount × p / (100 + p)` (Square's example: 1.00 at 10 % holds 0.09),
//!   counted in `total_tax_money` but not added to `total_money`.
//!
//! - A LINE_ITEM-scoped FIXED_AMOUNT discount applied to one line comes
//!   off that line before its taxes ("Order Discounts",
//!   <https://developer.squareup.com/docs/orders-api/discounts>: item
//!   totals first, then discounts; taxes on what is left), and is counted
//!   in `total_discount_money`.
//!
//! What Square documents too loosely to copy (decimal quantities, catalog
//! items, modifiers, service charges, fulfilments, percentage or
//! order-scoped discounts and a discount shared among lines, whose
//! rounding and order of application among several is not documented) is
//! refused with an error that says the stand-in does not take it, never
//! accepted silently.

use serde_json::{json, Map, Value};

use crate::clock::rfc3339;
use crate::square_error::{ExpectedKind, SquareError};

/// Square's limits (connect-api-specification `api.json`, `Order`,
/// `OrderLineItem`, `OrderLineItemTax`, `CreateOrderRequest`).
pub const MAX_ORDER_KEY_CHARS: usize = 192;
pub const MAX_REFERENCE_ID_CHARS: usize = 40;
pub const MAX_UID_CHARS: usize = 60;
pub const MAX_LINE_NAME_CHARS: usize = 512;
pub const MAX_VARIATION_NAME_CHARS: usize = 400;
pub const MAX_TAX_NAME_CHARS: usize = 255;
pub const MAX_NOTE_CHARS: usize = 2000;
pub const MAX_QUANTITY_CHARS: usize = 12;
pub const MAX_PERCENTAGE_CHARS: usize = 10;
pub const MAX_METADATA_ENTRIES: usize = 10;
pub const MAX_METADATA_KEY_CHARS: usize = 60;
pub const MAX_METADATA_VALUE_CHARS: usize = 255;
/// Square documents no limit; the stand-in keeps orders small.
pub const MAX_LINE_ITEMS: usize = 500;
pub const MAX_TAXES: usize = 50;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaxType {
    Additive,
    Inclusive,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Order,
    LineItem,
}

/// A percentage as Square sends it ("8.875"): `units / 10^places` percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Percentage {
    pub units: u128,
    pub places: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Tax {
    pub uid: String,
    pub name: String,
    pub tax_type: TaxType,
    pub percentage_text: String,
    pub percentage: Percentage,
    pub scope: Scope,
    /// Worked out: the tax over every line it applies to.
    pub applied: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AppliedTax {
    pub uid: String,
    pub tax_uid: String,
    pub applied: i64,
}

/// A FIXED_AMOUNT, LINE_ITEM-scoped discount.
#[derive(Debug, Clone, PartialEq)]
pub struct Discount {
    pub uid: String,
    pub name: String,
    pub amount: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LineItem {
    pub uid: String,
    pub name: String,
    pub variation_name: Option<String>,
    pub quantity: String,
    pub base_price: i64,
    pub note: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub applied_taxes: Vec<AppliedTax>,
    /// base price × quantity.
    pub gross: i64,
    /// The discount applied to this line (its uid), and its amount.
    pub discount: Option<(String, i64)>,
}

impl LineItem {
    fn tax_total(&self) -> i64 {
        self.applied_taxes.iter().map(|t| t.applied).sum()
    }

    fn discount_total(&self) -> i64 {
        self.discount.as_ref().map_or(0, |(_, amount)| *amount)
    }

    /// What the line comes to before its taxes: gross less its discount.
    fn taxable(&self) -> i64 {
        self.gross - self.discount_total()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderState {
    Open,
    Completed,
    Canceled,
}

impl OrderState {
    pub fn as_str(self) -> &'static str {
        match self {
            OrderState::Open => "OPEN",
            OrderState::Completed => "COMPLETED",
            OrderState::Canceled => "CANCELED",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    pub id: String,
    pub location_id: String,
    pub reference_id: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub currency: String,
    pub line_items: Vec<LineItem>,
    pub taxes: Vec<Tax>,
    pub discounts: Vec<Discount>,
    pub state: OrderState,
    pub version: i64,
    pub created_at_ms: u64,
    pub updated_at_ms: u64,
    pub closed_at_ms: Option<u64>,
    /// The payments made for it, by id: an authorization, then its capture.
    pub tenders: Vec<String>,
    /// What the order comes to: the lines with their added taxes.
    pub total: i64,
    pub total_tax: i64,
}

/// `CreateOrder`'s body read: its key (if any) and the order, totals
/// worked out. `id` and times are the caller's to fill.
pub fn create_order(body: &Value, currency: &str) -> Result<(Option<String>, Order), SquareError> {
    let fields = object(body, "")?;
    refuse_unknown(fields, "", &["idempotency_key", "order"])?;
    let key = optional_str(fields, "idempotency_key", MAX_ORDER_KEY_CHARS)?;
    if key.as_deref() == Some("") {
        return Err(SquareError::too_short("idempotency_key"));
    }
    let order = match fields.get("order") {
        None | Some(Value::Null) => return Err(SquareError::missing("order")),
        Some(order) => object(order, "order")?,
    };
    Ok((key, read_order(order, currency)?))
}

fn read_order(fields: &Map<String, Value>, currency: &str) -> Result<Order, SquareError> {
    refuse_unknown(
        fields,
        "order",
        &[
            "location_id",
            "reference_id",
            "line_items",
            "taxes",
            "discounts",
            "metadata",
            "state",
        ],
    )?;
    let location_id = optional_str(fields, "order.location_id", MAX_UID_CHARS * 4)?
        .filter(|id| !id.is_empty())
        .ok_or_else(|| SquareError::missing("order.location_id"))?;
    let reference_id = optional_str(fields, "order.reference_id", MAX_REFERENCE_ID_CHARS)?;
    match optional_str(fields, "order.state", 20)?.as_deref() {
        None | Some("OPEN") => {}
        Some(_) => {
            return Err(unsupported(
                "order.state",
                "the stand-in creates OPEN orders only",
            ))
        }
    }
    let metadata = metadata(fields, "order.metadata")?;
    let taxes = array(fields, "order.taxes", MAX_TAXES)?
        .iter()
        .enumerate()
        .map(|(i, tax)| read_tax(tax, &format!("order.taxes[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut uids: Vec<&str> = taxes.iter().map(|t| t.uid.as_str()).collect();
    uids.sort_unstable();
    if let Some(pair) = uids.windows(2).find(|w| w[0] == w[1]) {
        return Err(SquareError::invalid_value(
            "order.taxes",
            format!("Duplicate tax uid {}.", pair[0]),
        ));
    }
    let discounts = array(fields, "order.discounts", MAX_LINE_ITEMS)?
        .iter()
        .enumerate()
        .map(|(i, d)| read_discount(d, &format!("order.discounts[{i}]"), currency))
        .collect::<Result<Vec<_>, _>>()?;
    let lines = array(fields, "order.line_items", MAX_LINE_ITEMS)?;
    if lines.is_empty() {
        return Err(SquareError::missing("order.line_items"));
    }
    let line_items = lines
        .iter()
        .enumerate()
        .map(|(i, line)| read_line(line, i, currency, &taxes, &discounts))
        .collect::<Result<Vec<_>, _>>()?;
    check_discounts_applied(&discounts, &line_items)?;
    let mut order = Order {
        id: String::new(),
        location_id,
        reference_id,
        metadata,
        currency: currency.to_string(),
        line_items,
        taxes,
        discounts,
        state: OrderState::Open,
        version: 1,
        created_at_ms: 0,
        updated_at_ms: 0,
        closed_at_ms: None,
        tenders: Vec::new(),
        total: 0,
        total_tax: 0,
    };
    work_out(&mut order);
    Ok(order)
}

fn read_tax(value: &Value, at: &str) -> Result<Tax, SquareError> {
    let fields = object(value, at)?;
    refuse_unknown(fields, at, &["uid", "name", "type", "percentage", "scope"])?;
    let uid = optional_str(fields, &format!("{at}.uid"), MAX_UID_CHARS)?
        .filter(|uid| !uid.is_empty())
        .ok_or_else(|| unsupported(&format!("{at}.uid"), "the stand-in needs every tax's uid"))?;
    let name = optional_str(fields, &format!("{at}.name"), MAX_TAX_NAME_CHARS)?.unwrap_or_default();
    let tax_type = match optional_str(fields, &format!("{at}.type"), 20)?.as_deref() {
        None | Some("ADDITIVE") => TaxType::Additive,
        Some("INCLUSIVE") => TaxType::Inclusive,
        Some(_) => {
            return Err(SquareError::invalid_value(
                &format!("{at}.type"),
                "Must be ADDITIVE or INCLUSIVE.",
            ))
        }
    };
    let percentage_field = format!("{at}.percentage");
    let percentage_text = optional_str(fields, &percentage_field, MAX_PERCENTAGE_CHARS)?
        .ok_or_else(|| SquareError::missing(&percentage_field))?;
    let percentage = percentage(&percentage_text).ok_or_else(|| {
        SquareError::invalid_value(&percentage_field, "Must be a decimal percentage, as 8.875.")
    })?;
    let scope = match optional_str(fields, &format!("{at}.scope"), 20)?.as_deref() {
        Some("ORDER") => Scope::Order,
        Some("LINE_ITEM") => Scope::LineItem,
        None => return Err(SquareError::missing(&format!("{at}.scope"))),
        Some(_) => {
            return Err(SquareError::invalid_value(
                &format!("{at}.scope"),
                "Must be ORDER or LINE_ITEM.",
            ))
        }
    };
    Ok(Tax {
        uid,
        name,
        tax_type,
        percentage_text,
        percentage,
        scope,
        applied: 0,
    })
}

/// A discount of the order's: the stand-in takes a FIXED_AMOUNT one
/// scoped to LINE_ITEM (`OrderLineItemDiscount`), and refuses the rest.
fn read_discount(value: &Value, at: &str, currency: &str) -> Result<Discount, SquareError> {
    let fields = object(value, at)?;
    refuse_unknown(
        fields,
        at,
        &["uid", "name", "type", "amount_money", "percentage", "scope"],
    )?;
    let uid = optional_str(fields, &format!("{at}.uid"), MAX_UID_CHARS)?
        .filter(|uid| !uid.is_empty())
        .ok_or_else(|| {
            unsupported(
                &format!("{at}.uid"),
                "the stand-in needs every discount's uid",
            )
        })?;
    let name = optional_str(fields, &format!("{at}.name"), MAX_TAX_NAME_CHARS)?.unwrap_or_default();
    match optional_str(fields, &format!("{at}.type"), 30)?.as_deref() {
        Some("FIXED_AMOUNT") => {}
        None => return Err(SquareError::missing(&format!("{at}.type"))),
        Some("FIXED_PERCENTAGE") => {
            return Err(unsupported(&format!("{at}.type"), "percentage discounts"))
        }
        Some(_) => {
            return Err(SquareError::invalid_value(
                &format!("{at}.type"),
                "Must be FIXED_AMOUNT or FIXED_PERCENTAGE.",
            ))
        }
    }
    if fields.contains_key("percentage") {
        return Err(SquareError::invalid_value(
            &format!("{at}.percentage"),
            "A FIXED_AMOUNT discount has no percentage.",
        ));
    }
    match optional_str(fields, &format!("{at}.scope"), 20)?.as_deref() {
        Some("LINE_ITEM") => {}
        Some("ORDER") | None => {
            return Err(unsupported(
                &format!("{at}.scope"),
                "discounts not scoped to LINE_ITEM",
            ))
        }
        Some(_) => {
            return Err(SquareError::invalid_value(
                &format!("{at}.scope"),
                "Must be ORDER or LINE_ITEM.",
            ))
        }
    }
    let amount = money(fields, &format!("{at}.amount_money"), currency)?;
    if amount <= 0 {
        return Err(SquareError::invalid_value(
            &format!("{at}.amount_money.amount"),
            "Must be greater than 0.",
        ));
    }
    Ok(Discount { uid, name, amount })
}

/// Each discount is applied to exactly one line: one shared among lines
/// would be split by rules the stand-in does not copy.
fn check_discounts_applied(discounts: &[Discount], lines: &[LineItem]) -> Result<(), SquareError> {
    for (i, discount) in discounts.iter().enumerate() {
        let on = lines
            .iter()
            .filter(|l| {
                l.discount
                    .as_ref()
                    .is_some_and(|(uid, _)| *uid == discount.uid)
            })
            .count();
        if on != 1 {
            return Err(unsupported(
                &format!("order.discounts[{i}]"),
                "a LINE_ITEM discount applied to other than exactly one line",
            ));
        }
    }
    Ok(())
}

/// The line's `applied_discounts`: at most one, naming a discount of the
/// order's no larger than the line.
fn applied_discount(
    fields: &Map<String, Value>,
    at: &str,
    gross: i64,
    discounts: &[Discount],
) -> Result<Option<(String, i64)>, SquareError> {
    let named = array(fields, &format!("{at}.applied_discounts"), MAX_TAXES)?;
    if named.len() > 1 {
        return Err(unsupported(
            &format!("{at}.applied_discounts"),
            "more than one discount on a line",
        ));
    }
    let Some(applied) = named.first() else {
        return Ok(None);
    };
    let applied_at = format!("{at}.applied_discounts[0]");
    let fields = object(applied, &applied_at)?;
    refuse_unknown(fields, &applied_at, &["uid", "discount_uid"])?;
    optional_str(fields, &format!("{applied_at}.uid"), MAX_UID_CHARS)?;
    let field = format!("{applied_at}.discount_uid");
    let uid =
        optional_str(fields, &field, MAX_UID_CHARS)?.ok_or_else(|| SquareError::missing(&field))?;
    let Some(discount) = discounts.iter().find(|d| d.uid == uid) else {
        return Err(SquareError::invalid_value(
            &field,
            format!("There is no discount on this order with uid {uid}."),
        ));
    };
    if discount.amount > gross {
        return Err(SquareError::invalid_value(
            &field,
            "The discount is more than the line item's price.",
        ));
    }
    Ok(Some((uid, discount.amount)))
}

fn read_line(
    value: &Value,
    index: usize,
    currency: &str,
    taxes: &[Tax],
    discounts: &[Discount],
) -> Result<LineItem, SquareError> {
    let at = format!("order.line_items[{index}]");
    let fields = object(value, &at)?;
    refuse_unknown(
        fields,
        &at,
        &[
            "uid",
            "name",
            "quantity",
            "base_price_money",
            "variation_name",
            "note",
            "metadata",
            "applied_taxes",
            "applied_discounts",
            "pricing_blocklists",
        ],
    )?;
    let uid = optional_str(fields, &format!("{at}.uid"), MAX_UID_CHARS)?
        .filter(|uid| !uid.is_empty())
        .unwrap_or_else(|| format!("line-{}", index + 1));
    let name_field = format!("{at}.name");
    let name = optional_str(fields, &name_field, MAX_LINE_NAME_CHARS)?
        .filter(|n| !n.is_empty())
        .ok_or_else(|| SquareError::missing(&name_field))?;
    let quantity_field = format!("{at}.quantity");
    let quantity = optional_str(fields, &quantity_field, MAX_QUANTITY_CHARS)?
        .ok_or_else(|| SquareError::missing(&quantity_field))?;
    let count: i64 = match quantity.parse::<i64>() {
        Ok(n) if n > 0 && quantity.bytes().all(|b| b.is_ascii_digit()) => n,
        _ => {
            return Err(SquareError::invalid_value(
                &quantity_field,
                "The stand-in takes a whole quantity of at least 1.",
            ))
        }
    };
    let price_field = format!("{at}.base_price_money");
    let base_price = money(fields, &price_field, currency)?;
    let gross = base_price
        .checked_mul(count)
        .filter(|g| *g <= 100_000_000_000)
        .ok_or_else(|| SquareError::invalid_value(&quantity_field, "The amount is too large."))?;
    let variation_name = optional_str(
        fields,
        &format!("{at}.variation_name"),
        MAX_VARIATION_NAME_CHARS,
    )?;
    let note = optional_str(fields, &format!("{at}.note"), MAX_NOTE_CHARS)?;
    let blocked = blocked_taxes(fields, &at, taxes)?;
    let discount = applied_discount(fields, &at, gross, discounts)?;
    let metadata = metadata(fields, &format!("{at}.metadata"))?;
    let mut applied_taxes = Vec::new();
    let named = array(fields, &format!("{at}.applied_taxes"), MAX_TAXES)?;
    for (j, applied) in named.iter().enumerate() {
        let applied_at = format!("{at}.applied_taxes[{j}]");
        let fields = object(applied, &applied_at)?;
        refuse_unknown(fields, &applied_at, &["uid", "tax_uid"])?;
        let tax_field = format!("{applied_at}.tax_uid");
        let tax_uid = optional_str(fields, &tax_field, MAX_UID_CHARS)?
            .ok_or_else(|| SquareError::missing(&tax_field))?;
        if tax_uid.is_empty() {
            return Err(SquareError::value_empty(&tax_field));
        }
        let Some(tax) = taxes.iter().find(|t| t.uid == tax_uid) else {
            return Err(SquareError::invalid_value(
                &tax_field,
                format!("There is no tax on this order with uid {tax_uid}."),
            ));
        };
        if tax.scope == Scope::Order {
            return Err(SquareError::invalid_value(
                &tax_field,
                "An ORDER-scoped tax applies to every line item by itself.",
            ));
        }
        let uid = optional_str(fields, &format!("{applied_at}.uid"), MAX_UID_CHARS)?
            .unwrap_or_else(|| format!("{uid}-{tax_uid}"));
        applied_taxes.push(AppliedTax {
            uid,
            tax_uid,
            applied: 0,
        });
    }
    for tax in taxes
        .iter()
        .filter(|t| t.scope == Scope::Order && !blocked.contains(&t.uid))
    {
        applied_taxes.push(AppliedTax {
            uid: format!("{uid}-{}", tax.uid),
            tax_uid: tax.uid.clone(),
            applied: 0,
        });
    }
    Ok(LineItem {
        uid,
        name,
        variation_name,
        quantity,
        base_price,
        note,
        metadata,
        applied_taxes,
        gross,
        discount,
    })
}

/// The taxes a line's `pricing_blocklists` keeps off it, by uid. Square
/// blocks a tax by `tax_uid` (an ad hoc tax) or `tax_catalog_object_id`;
/// the stand-in has no catalog, and blocks ORDER-scoped taxes only (a
/// LINE_ITEM one is applied to a line by naming it, or not at all).
/// <https://developer.squareup.com/reference/square/objects/OrderLineItemPricingBlocklists>
fn blocked_taxes(
    fields: &Map<String, Value>,
    at: &str,
    taxes: &[Tax],
) -> Result<Vec<String>, SquareError> {
    let lists_at = format!("{at}.pricing_blocklists");
    let lists = match fields.get("pricing_blocklists") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(value) => object(value, &lists_at)?,
    };
    refuse_unknown(lists, &lists_at, &["blocked_taxes"])?;
    let mut blocked = Vec::new();
    let listed = array(lists, &format!("{lists_at}.blocked_taxes"), MAX_TAXES)?;
    for (j, entry) in listed.iter().enumerate() {
        let entry_at = format!("{lists_at}.blocked_taxes[{j}]");
        let fields = object(entry, &entry_at)?;
        refuse_unknown(fields, &entry_at, &["uid", "tax_uid"])?;
        optional_str(fields, &format!("{entry_at}.uid"), MAX_UID_CHARS)?;
        let tax_field = format!("{entry_at}.tax_uid");
        let tax_uid = optional_str(fields, &tax_field, MAX_UID_CHARS)?
            .ok_or_else(|| SquareError::missing(&tax_field))?;
        if tax_uid.is_empty() {
            return Err(SquareError::value_empty(&tax_field));
        }
        match taxes.iter().find(|t| t.uid == tax_uid) {
            None => {
                return Err(SquareError::invalid_value(
                    &tax_field,
                    format!("There is no tax on this order with uid {tax_uid}."),
                ))
            }
            Some(tax) if tax.scope == Scope::LineItem => {
                return Err(unsupported(
                    &tax_field,
                    "blocking a LINE_ITEM-scoped tax; leave it off the line instead",
                ))
            }
            Some(_) => blocked.push(tax_uid),
        }
    }
    Ok(blocked)
}

/// Works out every tax, each line's and the order's totals.
pub fn work_out(order: &mut Order) {
    for tax in &mut order.taxes {
        let lines: Vec<usize> = (0..order.line_items.len())
            .filter(|&i| {
                order.line_items[i]
                    .applied_taxes
                    .iter()
                    .any(|a| a.tax_uid == tax.uid)
            })
            .collect();
        let shares: Vec<i64> = match tax.scope {
            Scope::Order => {
                let gross: Vec<i64> = lines
                    .iter()
                    .map(|&i| order.line_items[i].taxable())
                    .collect();
                let amount = tax_on(gross.iter().sum(), tax);
                share(amount, &gross)
            }
            Scope::LineItem => lines
                .iter()
                .map(|&i| tax_on(order.line_items[i].taxable(), tax))
                .collect(),
        };
        tax.applied = shares.iter().sum();
        for (&i, amount) in lines.iter().zip(shares) {
            let line = &mut order.line_items[i];
            if let Some(applied) = line.applied_taxes.iter_mut().find(|a| a.tax_uid == tax.uid) {
                applied.applied = amount;
            }
        }
    }
    let added: i64 = order
        .taxes
        .iter()
        .filter(|t| t.tax_type == TaxType::Additive)
        .map(|t| t.applied)
        .sum();
    order.total_tax = order.taxes.iter().map(|t| t.applied).sum();
    order.total = order.line_items.iter().map(LineItem::taxable).sum::<i64>() + added;
}

/// The tax on `amount` at the tax's percentage, rounded half to even.
fn tax_on(amount: i64, tax: &Tax) -> i64 {
    let amount = amount.max(0) as u128;
    let scale = 100 * 10u128.pow(tax.percentage.places);
    let (numerator, denominator) = match tax.tax_type {
        TaxType::Additive => (amount * tax.percentage.units, scale),
        TaxType::Inclusive => (amount * tax.percentage.units, scale + tax.percentage.units),
    };
    half_even(numerator, denominator) as i64
}

fn half_even(numerator: u128, denominator: u128) -> u128 {
    let quotient = numerator / denominator;
    let twice = 2 * (numerator % denominator);
    if twice > denominator || (twice == denominator && quotient % 2 == 1) {
        quotient + 1
    } else {
        quotient
    }
}

/// `amount` shared in proportion to `weights`: floors first, then a unit
/// each to the largest remainders (the earlier line on a tie).
fn share(amount: i64, weights: &[i64]) -> Vec<i64> {
    let total: i128 = weights.iter().map(|&w| i128::from(w)).sum();
    if total <= 0 {
        return vec![0; weights.len()];
    }
    let parts: Vec<(i128, i128)> = weights
        .iter()
        .map(|&w| {
            let exact = i128::from(amount) * i128::from(w);
            (exact / total, exact % total)
        })
        .collect();
    let mut shares: Vec<i64> = parts.iter().map(|&(q, _)| q as i64).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(parts[i].1));
    let left = amount - shares.iter().sum::<i64>();
    for &i in order.iter().take(left.max(0) as usize) {
        shares[i] += 1;
    }
    shares
}

/// "8.875" → 8875 thousandths of a percent; `None` unless digits with at
/// most one point, and at most 100 %.
fn percentage(text: &str) -> Option<Percentage> {
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty()
        || !digits(whole)
        || !digits(fraction)
        || (text.contains('.') && fraction.is_empty())
    {
        return None;
    }
    let places = fraction.len() as u32;
    let units: u128 = format!("{whole}{fraction}").parse().ok()?;
    (units <= 100 * 10u128.pow(places)).then_some(Percentage { units, places })
}

impl Order {
    pub fn to_json(&self) -> Value {
        let money = |amount: i64| json!({ "amount": amount, "currency": self.currency });
        let lines: Vec<Value> = self
            .line_items
            .iter()
            .map(|l| {
                let added: i64 = l
                    .applied_taxes
                    .iter()
                    .filter(|a| self.tax(&a.tax_uid).tax_type == TaxType::Additive)
                    .map(|a| a.applied)
                    .sum();
                let mut line = json!({
                    "uid": l.uid,
                    "name": l.name,
                    "quantity": l.quantity,
                    "item_type": "ITEM",
                    "base_price_money": money(l.base_price),
                    "variation_total_price_money": money(l.gross),
                    "gross_sales_money": money(l.gross),
                    "total_tax_money": money(l.tax_total()),
                    "total_discount_money": money(l.discount_total()),
                    "total_money": money(l.taxable() + added),
                    "applied_taxes": l.applied_taxes.iter().map(|a| json!({
                        "uid": a.uid, "tax_uid": a.tax_uid, "applied_money": money(a.applied),
                    })).collect::<Vec<_>>(),
                });
                if let Some((uid, amount)) = &l.discount {
                    line["applied_discounts"] = json!([{
                        "uid": format!("{}-{uid}", l.uid), "discount_uid": uid,
                        "applied_money": money(*amount),
                    }]);
                }
                if let Some(note) = &l.note {
                    line["note"] = json!(note);
                }
                if let Some(variation) = &l.variation_name {
                    line["variation_name"] = json!(variation);
                }
                if let Some(metadata) = &l.metadata {
                    line["metadata"] = Value::Object(metadata.clone());
                }
                line
            })
            .collect();
        let taxes: Vec<Value> = self
            .taxes
            .iter()
            .map(|t| {
                json!({
                    "uid": t.uid, "name": t.name, "percentage": t.percentage_text,
                    "type": match t.tax_type { TaxType::Additive => "ADDITIVE", TaxType::Inclusive => "INCLUSIVE" },
                    "scope": match t.scope { Scope::Order => "ORDER", Scope::LineItem => "LINE_ITEM" },
                    "applied_money": money(t.applied),
                })
            })
            .collect();
        let discount: i64 = self.line_items.iter().map(LineItem::discount_total).sum();
        let paid = self.state == OrderState::Completed;
        let mut order = json!({
            "id": self.id,
            "location_id": self.location_id,
            "source": {"name": "Stand-in"},
            "line_items": lines,
            "taxes": taxes,
            "created_at": rfc3339(self.created_at_ms),
            "updated_at": rfc3339(self.updated_at_ms),
            "state": self.state.as_str(),
            "version": self.version,
            "total_money": money(self.total),
            "total_tax_money": money(self.total_tax),
            "total_discount_money": money(discount),
            "total_tip_money": money(0),
            "total_service_charge_money": money(0),
            "net_amounts": {
                "total_money": money(self.total),
                "tax_money": money(self.total_tax),
                "discount_money": money(discount),
                "tip_money": money(0),
                "service_charge_money": money(0),
            },
            "net_amount_due_money": money(if paid { 0 } else { self.total }),
        });
        if !self.discounts.is_empty() {
            order["discounts"] = json!(self
                .discounts
                .iter()
                .map(|d| json!({
                    "uid": d.uid, "name": d.name, "type": "FIXED_AMOUNT", "scope": "LINE_ITEM",
                    "amount_money": money(d.amount), "applied_money": money(d.amount),
                }))
                .collect::<Vec<_>>());
        }
        if let Some(reference_id) = &self.reference_id {
            order["reference_id"] = json!(reference_id);
        }
        if let Some(metadata) = &self.metadata {
            order["metadata"] = Value::Object(metadata.clone());
        }
        if let Some(at) = self.closed_at_ms {
            order["closed_at"] = json!(rfc3339(at));
        }
        if !self.tenders.is_empty() {
            order["tenders"] = json!(self
                .tenders
                .iter()
                .map(|id| json!({"id": id, "payment_id": id, "type": "CARD"}))
                .collect::<Vec<_>>());
        }
        order
    }

    fn tax(&self, uid: &str) -> &Tax {
        self.taxes
            .iter()
            .find(|t| t.uid == uid)
            .expect("an applied tax names one of the order's")
    }
}

fn unsupported(field: &str, detail: &str) -> SquareError {
    SquareError::invalid_value(field, format!("Not supported by the stand-in: {detail}."))
}

fn object<'a>(value: &'a Value, at: &str) -> Result<&'a Map<String, Value>, SquareError> {
    match value {
        Value::Object(fields) => Ok(fields),
        _ if at.is_empty() => Err(SquareError::malformed_json()),
        _ => Err(SquareError::expected(at, ExpectedKind::Object)),
    }
}

/// Square answers a field it does not know with `UNKNOWN_BODY_PARAMETER`
/// (a generic code in `api.json`); the stand-in also refuses the fields it
/// does not implement, so nothing is dropped unnoticed.
fn refuse_unknown(
    fields: &Map<String, Value>,
    at: &str,
    known: &[&str],
) -> Result<(), SquareError> {
    match fields.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(key) => {
            let field = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            Err(SquareError::unknown_parameter(&field))
        }
    }
}

fn optional_str(
    fields: &Map<String, Value>,
    path: &str,
    max_chars: usize,
) -> Result<Option<String>, SquareError> {
    let name = path.rsplit('.').next().unwrap_or(path);
    match fields.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.chars().count() > max_chars => {
            Err(SquareError::too_long(path, max_chars))
        }
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(SquareError::expected(path, ExpectedKind::String)),
    }
}

fn array<'a>(
    fields: &'a Map<String, Value>,
    path: &str,
    max: usize,
) -> Result<&'a [Value], SquareError> {
    let name = path.rsplit('.').next().unwrap_or(path);
    match fields.get(name) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(items)) if items.len() > max => {
            Err(SquareError::array_too_long(path, max))
        }
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(SquareError::expected(path, ExpectedKind::Array)),
    }
}

fn metadata(
    fields: &Map<String, Value>,
    path: &str,
) -> Result<Option<Map<String, Value>>, SquareError> {
    let name = path.rsplit('.').next().unwrap_or(path);
    let map = match fields.get(name) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(map)) => map,
        Some(_) => return Err(SquareError::expected(path, ExpectedKind::Object)),
    };
    if map.len() > MAX_METADATA_ENTRIES {
        return Err(SquareError::invalid_value(
            path,
            format!("At most {MAX_METADATA_ENTRIES} entries."),
        ));
    }
    for (key, value) in map {
        let key_fits = !key.is_empty()
            && key.chars().count() <= MAX_METADATA_KEY_CHARS
            && key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !key_fits {
            return Err(SquareError::invalid_value(
                path,
                format!("Invalid metadata key {key:?}."),
            ));
        }
        match value {
            Value::String(text) if text.chars().count() <= MAX_METADATA_VALUE_CHARS => {}
            Value::String(_) => {
                return Err(SquareError::too_long(
                    &format!("{path}.{key}"),
                    MAX_METADATA_VALUE_CHARS,
                ))
            }
            _ => {
                return Err(SquareError::expected(
                    &format!("{path}.{key}"),
                    ExpectedKind::String,
                ))
            }
        }
    }
    Ok(Some(map.clone()))
}

/// `{amount, currency}`: a whole amount of at least 0 in the location's
/// currency.
fn money(fields: &Map<String, Value>, path: &str, currency: &str) -> Result<i64, SquareError> {
    let name = path.rsplit('.').next().unwrap_or(path);
    let money = match fields.get(name) {
        None | Some(Value::Null) => return Err(SquareError::missing(path)),
        Some(Value::Object(money)) => money,
        Some(_) => return Err(SquareError::expected(path, ExpectedKind::Object)),
    };
    let amount_field = format!("{path}.amount");
    let amount = money
        .get("amount")
        .ok_or_else(|| SquareError::missing(&amount_field))?
        .as_i64()
        .ok_or_else(|| SquareError::expected(&amount_field, ExpectedKind::Integer))?;
    if amount < 0 {
        return Err(SquareError::too_low(&amount_field));
    }
    match money.get("currency").and_then(Value::as_str) {
        Some(sent) if sent == currency => Ok(amount),
        Some(_) => Err(SquareError::invalid_value(
            &format!("{path}.currency"),
            format!("This merchant can only process payments in {currency}."),
        )),
        None => Err(SquareError::missing(&format!("{path}.currency"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &str, amount: i64) -> Value {
        json!({"name": name, "quantity": "1", "base_price_money": {"amount": amount, "currency": "USD"}})
    }

    fn order_of(lines: Vec<Value>, taxes: Value) -> Order {
        let body = json!({"order": {"location_id": "L1", "line_items": lines, "taxes": taxes}});
        create_order(&body, "USD").unwrap().1
    }

    fn tax(percentage: &str, kind: &str, scope: &str) -> Value {
        json!({"uid": "t", "name": "Tax", "percentage": percentage, "type": kind, "scope": scope})
    }

    #[test]
    fn an_order_tax_is_rounded_once_on_the_total_as_square_charged() {
        // Square developer forum, "Square Banker's Rounding Clarification":
        // at 8.875 % Square charged 3.27 on these, where rounding each line
        // would give 3.28, and 2.29 on the first order.
        let order = order_of(
            vec![
                line("a", 1500),
                line("b", 800),
                line("c", 695),
                line("d", 695),
            ],
            json!([tax("8.875", "ADDITIVE", "ORDER")]),
        );
        assert_eq!((order.total_tax, order.total), (327, 3690 + 327));
        let lines: i64 = order.line_items.iter().map(LineItem::tax_total).sum();
        assert_eq!(lines, 327, "the lines' shares add up to the order's");
        let order = order_of(
            vec![line("a", 1880), line("b", 695)],
            json!([tax("8.875", "ADDITIVE", "ORDER")]),
        );
        assert_eq!(order.total_tax, 229);
        // "Order-level Tax Calculation Clarification": 11.75 % of 6.00 is
        // 0.705, charged 0.70; of 30.20 is 3.5485, charged 3.55.
        let six = order_of(
            vec![line("a", 600)],
            json!([tax("11.75", "ADDITIVE", "ORDER")]),
        );
        assert_eq!(six.total, 670);
        let thirty = order_of(
            vec![line("a", 3020)],
            json!([tax("11.75", "ADDITIVE", "ORDER")]),
        );
        assert_eq!(thirty.total_tax, 355);
    }

    #[test]
    fn a_line_discount_comes_off_before_its_tax() {
        // 1000 less 250 is 750, taxed 10 % added: 75; the other line 1000
        // and 100. Inclusive, 1200 less 300 holds 150 of 20 % tax.
        let mut a = line("a", 1000);
        a["applied_discounts"] = json!([{"discount_uid": "d"}]);
        let discounts = json!([{"uid": "d", "name": "SPRING", "type": "FIXED_AMOUNT",
            "scope": "LINE_ITEM", "amount_money": {"amount": 250, "currency": "USD"}}]);
        let body = json!({"order": {"location_id": "L1", "line_items": [a, line("b", 1000)],
            "taxes": [tax("10", "ADDITIVE", "ORDER")], "discounts": discounts}});
        let order = create_order(&body, "USD").unwrap().1;
        assert_eq!((order.total_tax, order.total), (175, 750 + 1000 + 175));
        let shown = order.to_json();
        assert_eq!(shown["total_discount_money"]["amount"], 250);
        assert_eq!(shown["line_items"][0]["total_money"]["amount"], 825);
        let mut a = line("a", 1200);
        a["applied_discounts"] = json!([{"discount_uid": "d"}]);
        let mut body = json!({"order": {"location_id": "L1", "line_items": [a],
            "taxes": [tax("20", "INCLUSIVE", "ORDER")], "discounts": discounts}});
        body["order"]["discounts"][0]["amount_money"]["amount"] = json!(300);
        let order = create_order(&body, "USD").unwrap().1;
        assert_eq!((order.total, order.total_tax), (900, 150));
        body["order"]["discounts"][0]["amount_money"]["amount"] = json!(1300);
        let e = create_order(&body, "USD").unwrap_err();
        assert_eq!(e.code, "INVALID_VALUE", "more than the line");
    }

    #[test]
    fn shares_split_as_in_squares_own_example() {
        // CreateOrder's example in `api.json`: an order-level amount of 303
        // over lines of 1591 and 4478 is 79 and 224.
        assert_eq!(share(303, &[1591, 4478]), [79, 224]);
        assert_eq!(share(30, &[1599, 4500]), [8, 22]);
    }

    #[test]
    fn inclusive_tax_is_within_the_total_and_line_taxes_are_per_line() {
        // OrderLineItemTaxType: 1.00 with 10 % inclusive holds 0.09.
        let one = order_of(
            vec![line("a", 100)],
            json!([tax("10", "INCLUSIVE", "ORDER")]),
        );
        assert_eq!((one.total, one.total_tax), (100, 9));
        let body = json!({"order": {"location_id": "L1", "taxes": [tax("5", "ADDITIVE", "LINE_ITEM")],
        "line_items": [
            {"name": "a", "quantity": "1", "base_price_money": {"amount": 10, "currency": "USD"},
             "applied_taxes": [{"tax_uid": "t"}]},
            {"name": "b", "quantity": "3", "base_price_money": {"amount": 10, "currency": "USD"}}
        ]}});
        let order = create_order(&body, "USD").unwrap().1;
        // 5 % of 0.10 is 0.005, which rounds to 0.00 on its own line; the
        // other line has no tax.
        assert_eq!((order.total_tax, order.total), (0, 40));
        assert_eq!(order.line_items[1].gross, 30);
    }

    #[test]
    fn a_blocked_order_tax_is_kept_off_its_line_and_each_rate_pools_its_own() {
        // Japan guide, "Multi-rate tax setup with blocklists": every tax
        // ORDER-scoped, each line blocking the rates it does not take; each
        // rate is then worked out once on its own lines.
        let blocked = |uid: &str| json!({"blocked_taxes": [{"tax_uid": uid}]});
        let mut a = line("a", 333);
        a["pricing_blocklists"] = blocked("reduced");
        let mut b = line("b", 333);
        b["pricing_blocklists"] = blocked("standard");
        let mut c = line("c", 333);
        c["pricing_blocklists"] = blocked("standard");
        let taxes = json!([
            {"uid": "standard", "name": "VAT", "percentage": "20", "type": "INCLUSIVE", "scope": "ORDER"},
            {"uid": "reduced", "name": "VAT", "percentage": "5", "type": "INCLUSIVE", "scope": "ORDER"},
        ]);
        let order = order_of(vec![a, b, c], taxes);
        // 333 × 20/120 = 55.5 → 56; 666 × 5/105 = 31.71 → 32, as 16 and 16.
        assert_eq!(order.taxes[0].applied, 56);
        assert_eq!(order.taxes[1].applied, 32);
        assert_eq!(order.line_items[0].applied_taxes.len(), 1);
        assert_eq!(
            order.line_items[1].tax_total() + order.line_items[2].tax_total(),
            32
        );
        assert_eq!(order.total, 999, "inclusive: nothing added");
        let mut bad = line("a", 100);
        bad["pricing_blocklists"] = blocked("nope");
        let body = json!({"order": {"location_id": "L1", "line_items": [bad],
            "taxes": [tax("5", "ADDITIVE", "ORDER")]}});
        let e = create_order(&body, "USD").unwrap_err();
        assert_eq!(
            e.field.as_deref(),
            Some("order.line_items[0].pricing_blocklists.blocked_taxes[0].tax_uid")
        );
    }

    #[test]
    fn what_square_or_the_stand_in_refuses_is_named() {
        let refused = |body: Value| {
            let e = create_order(&body, "USD").unwrap_err();
            (e.code, e.field.unwrap_or_default())
        };
        let base = || json!({"order": {"location_id": "L1", "line_items": [line("a", 100)]}});
        let mut b = base();
        b["order"].as_object_mut().unwrap().remove("location_id");
        assert_eq!(
            refused(b),
            ("MISSING_REQUIRED_PARAMETER", "order.location_id".into())
        );
        let mut b = base();
        b["order"]["line_items"][0]["quantity"] = json!("1.5");
        assert_eq!(
            refused(b),
            ("INVALID_VALUE", "order.line_items[0].quantity".into())
        );
        let mut b = base();
        b["order"]["line_items"][0]["name"] = json!("n".repeat(513));
        assert_eq!(
            refused(b),
            ("VALUE_TOO_LONG", "order.line_items[0].name".into())
        );
        let mut b = base();
        b["order"]["reference_id"] = json!("r".repeat(41));
        assert_eq!(refused(b), ("VALUE_TOO_LONG", "order.reference_id".into()));
        let mut b = base();
        b["order"]["discounts"] = json!([{"uid": "d", "type": "FIXED_PERCENTAGE",
            "percentage": "10", "scope": "LINE_ITEM"}]);
        assert_eq!(
            refused(b),
            ("INVALID_VALUE", "order.discounts[0].type".into())
        );
        let mut b = base();
        b["order"]["discounts"] = json!([{"uid": "d", "type": "FIXED_AMOUNT", "scope": "LINE_ITEM",
            "amount_money": {"amount": 10, "currency": "USD"}}]);
        assert_eq!(
            refused(b),
            ("INVALID_VALUE", "order.discounts[0]".into()),
            "a discount on no line"
        );
        let mut b = base();
        b["order"]["taxes"] = json!([tax("8.8.8", "ADDITIVE", "ORDER")]);
        assert_eq!(
            refused(b),
            ("INVALID_VALUE", "order.taxes[0].percentage".into())
        );
        let mut b = base();
        b["order"]["line_items"][0]["applied_taxes"] = json!([{"tax_uid": "nope"}]);
        assert_eq!(
            refused(b),
            (
                "INVALID_VALUE",
                "order.line_items[0].applied_taxes[0].tax_uid".into()
            )
        );
        let mut b = base();
        b["order"]["line_items"][0]["applied_taxes"] = json!([{"tax_uid": ""}]);
        assert_eq!(
            refused(b),
            (
                "VALUE_EMPTY",
                "order.line_items[0].applied_taxes[0].tax_uid".into()
            )
        );
        let mut b = base();
        b["order"]["line_items"][0]["base_price_money"]["currency"] = json!("EUR");
        assert_eq!(
            refused(b),
            (
                "INVALID_VALUE",
                "order.line_items[0].base_price_money.currency".into()
            )
        );
    }
}
