//! The Square order a card payment pays: a line item per seat, named for
//! the film and its time, its price category the variation, and the tax
//! Square works out. The cinema's Square Dashboard then reports tickets
//! by film and category beside everything else it sells.
//!
//! Each rate is one ORDER-scoped tax, kept off the seats taxed at another
//! rate with `pricing_blocklists`. Square works an ORDER-scoped tax out
//! once on the subtotal of the lines it applies to and rounds once, half to
//! even, which is how the seats' prices were taxed
//! (<https://developer.squareup.com/docs/international-development/japan-order-calculation>,
//! "Multi-rate tax setup with blocklists";
//! <https://developer.squareup.com/docs/orders-api/price-adjustments>), so
//! Square's total is the total the buyer was shown.
//!
//! A discount code's part of each seat is a FIXED_AMOUNT discount of its
//! own, scoped to that one line (`applied_discounts`), named for the
//! code: Square takes it off the line before the line's tax
//! (<https://developer.squareup.com/docs/orders-api/discounts>), as the
//! seat's price was worked out here, so nothing is left for Square to
//! share or round.

use checkout::{line_uid, Answer, OrderLine, SeatPrice, Tax};
use serde_json::{json, Value};

/// A line item's name when the Worker gave none.
const DEFAULT_ITEM_NAME: &str = "Ticket";

/// What the order's lines are: the seats' prices, their currency, what
/// they are for, and the code their discounts come from.
pub struct Lines<'a> {
    pub item_name: &'a str,
    pub currency: &'a str,
    pub prices: &'a [SeatPrice],
    pub discount_code: Option<&'a str>,
}

/// The `order` of a CreateOrder body.
pub fn order_body(location_id: &str, reference_id: &str, lines: &Lines<'_>, tax: &Tax) -> Value {
    let Lines {
        item_name,
        currency,
        prices,
        discount_code,
    } = *lines;
    let mut rates: Vec<u32> = prices
        .iter()
        .map(|p| p.tax_rate_bps)
        .filter(|&r| r > 0)
        .collect();
    rates.sort_unstable();
    rates.dedup();
    let taxes: Vec<Value> = rates
        .iter()
        .map(|&rate| {
            // One rate is named as the cinema names it; several carry their
            // rate too, so the Dashboard tells them apart.
            let name = match rates.len() {
                1 => tax.name.clone(),
                _ => format!("{} {}%", tax.name, percentage(rate)),
            };
            json!({
                "uid": tax_uid(rate),
                "name": name,
                "percentage": percentage(rate),
                "type": if tax.inclusive { "INCLUSIVE" } else { "ADDITIVE" },
                "scope": "ORDER",
            })
        })
        .collect();
    let name = match item_name {
        "" => DEFAULT_ITEM_NAME,
        name => name,
    };
    let lines: Vec<Value> = prices
        .iter()
        .enumerate()
        .map(|(i, price)| {
            // Square adds an added tax to the price; an inclusive one is in
            // it. The base is the listed price, before the discount.
            let base = price.discount_minor
                + match tax.inclusive {
                    true => price.amount_minor,
                    false => price.net_minor(),
                };
            let mut line = json!({
                "uid": line_uid(i, &price.seat),
                "name": name,
                "variation_name": price.name,
                "quantity": "1",
                "base_price_money": {"amount": base, "currency": currency},
                "note": format!("Seat {}", price.seat),
                "metadata": {"seat": price.seat, "category": price.category},
            });
            let blocked: Vec<Value> = rates
                .iter()
                .filter(|&&rate| rate != price.tax_rate_bps)
                .map(|&rate| json!({ "tax_uid": tax_uid(rate) }))
                .collect();
            if !blocked.is_empty() {
                line["pricing_blocklists"] = json!({ "blocked_taxes": blocked });
            }
            if price.discount_minor > 0 {
                line["applied_discounts"] = json!([{ "discount_uid": discount_uid(i) }]);
            }
            line
        })
        .collect();
    let discounts: Vec<Value> = prices
        .iter()
        .enumerate()
        .filter(|(_, p)| p.discount_minor > 0)
        .map(|(i, p)| {
            json!({
                "uid": discount_uid(i),
                "name": discount_code.unwrap_or("Discount"),
                "type": "FIXED_AMOUNT",
                "amount_money": {"amount": p.discount_minor, "currency": currency},
                "scope": "LINE_ITEM",
            })
        })
        .collect();
    let mut order = json!({
        "location_id": location_id,
        "reference_id": reference_id,
        "line_items": lines,
    });
    if !taxes.is_empty() {
        order["taxes"] = Value::Array(taxes);
    }
    if !discounts.is_empty() {
        order["discounts"] = Value::Array(discounts);
    }
    order
}

fn discount_uid(line: usize) -> String {
    format!("discount-{line}")
}

fn tax_uid(rate_bps: u32) -> String {
    format!("tax-{rate_bps}")
}

/// Hundredths of a percent as Square's percentage text: 2000 is "20",
/// 825 is "8.25", 5 is "0.05".
fn percentage(rate_bps: u32) -> String {
    match rate_bps % 100 {
        0 => format!("{}", rate_bps / 100),
        rest if rest % 10 == 0 => format!("{}.{}", rate_bps / 100, rest / 10),
        rest => format!("{}.{rest:02}", rate_bps / 100),
    }
}

/// CreateOrder's answer: the order's id, version, total and lines; `None`
/// for a body that does not say them.
pub fn created(body: &Value) -> Option<Answer> {
    let order = &body["order"];
    let lines = order["line_items"]
        .as_array()?
        .iter()
        .map(|line| {
            Some(OrderLine {
                uid: line["uid"].as_str()?.to_string(),
                total_minor: line["total_money"]["amount"].as_u64()?,
                tax_minor: line["total_tax_money"]["amount"].as_u64().unwrap_or(0),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Answer::OrderCreated {
        order_id: order["id"].as_str()?.to_string(),
        version: order["version"].as_u64()?,
        total_minor: order["total_money"]["amount"].as_u64()?,
        lines,
    })
}

/// RetrieveOrder's or UpdateOrder's answer: the order's state and version.
pub fn seen(body: &Value) -> Option<Answer> {
    let order = &body["order"];
    Some(Answer::OrderSeen {
        order_id: order["id"].as_str()?.to_string(),
        version: order["version"].as_u64()?,
        state: order["state"].as_str()?.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(seat: &str, category: &str, amount: u64, tax: u64, rate: u32) -> SeatPrice {
        SeatPrice {
            seat: seat.into(),
            category: category.into(),
            name: category.to_uppercase(),
            amount_minor: amount,
            tax_minor: tax,
            tax_rate_bps: rate,
            discount_minor: 0,
        }
    }

    #[test]
    fn percentages_are_written_as_square_reads_them() {
        let cases = [
            (2000, "20"),
            (825, "8.25"),
            (5, "0.05"),
            (750, "7.5"),
            (10_000, "100"),
        ];
        for (bps, text) in cases {
            assert_eq!(percentage(bps), text);
        }
    }

    #[test]
    fn each_rate_is_one_order_tax_kept_off_the_seats_at_another() {
        let tax = Tax {
            name: "VAT".into(),
            rate_bps: 2000,
            inclusive: true,
            by_category: [("child".to_string(), 500)].into(),
        };
        let prices = [
            seat("A1", "adult", 1200, 200, 2000),
            seat("A2", "child", 840, 40, 500),
            seat("A3", "free", 0, 0, 0),
        ];
        let lines_of = |item_name, currency, prices| Lines {
            item_name,
            currency,
            prices,
            discount_code: None,
        };
        let order = order_body(
            "L1",
            "order-1",
            &lines_of("Vertigo, 19:30", "GBP", &prices),
            &tax,
        );
        let taxes = order["taxes"].as_array().unwrap();
        assert_eq!(taxes.len(), 2);
        assert_eq!(taxes[0]["percentage"], "5");
        assert_eq!(taxes[0]["name"], "VAT 5%");
        assert_eq!(taxes[1]["type"], "INCLUSIVE");
        let lines = order["line_items"].as_array().unwrap();
        assert_eq!(
            lines[0]["base_price_money"]["amount"], 1200,
            "inclusive: the price"
        );
        assert_eq!(lines[0]["variation_name"], "ADULT");
        assert_eq!(
            lines[0]["pricing_blocklists"]["blocked_taxes"],
            json!([{"tax_uid": "tax-500"}])
        );
        assert_eq!(
            lines[2]["pricing_blocklists"]["blocked_taxes"]
                .as_array()
                .unwrap()
                .len(),
            2,
            "an untaxed seat takes neither"
        );
        let added = Tax {
            inclusive: false,
            by_category: Default::default(),
            ..tax
        };
        let order = order_body("L1", "order-1", &lines_of("", "USD", &prices[..1]), &added);
        let line = &order["line_items"][0];
        assert_eq!(line["base_price_money"]["amount"], 1000, "added: the net");
        assert_eq!(line["name"], "Ticket");
        assert!(line.get("pricing_blocklists").is_none());
        assert_eq!(order["taxes"][0]["name"], "VAT");
    }

    #[test]
    fn a_discounted_seat_has_its_own_fixed_discount_off_its_listed_price() {
        let added = Tax {
            name: "Sales tax".into(),
            rate_bps: 1000,
            inclusive: false,
            by_category: Default::default(),
        };
        // Listed at 1000, 250 off, 75 tax on the 750 left.
        let mut discounted = seat("A1", "adult", 825, 75, 1000);
        discounted.discount_minor = 250;
        let prices = [discounted, seat("A2", "adult", 1100, 100, 1000)];
        let lines = Lines {
            item_name: "Vertigo",
            currency: "USD",
            prices: &prices,
            discount_code: Some("SPRING"),
        };
        let order = order_body("L1", "order-1", &lines, &added);
        let line = &order["line_items"][0];
        assert_eq!(line["base_price_money"]["amount"], 1000);
        assert_eq!(
            line["applied_discounts"],
            json!([{"discount_uid": "discount-0"}])
        );
        assert!(order["line_items"][1].get("applied_discounts").is_none());
        assert_eq!(
            order["discounts"],
            json!([{"uid": "discount-0", "name": "SPRING", "type": "FIXED_AMOUNT",
                    "amount_money": {"amount": 250, "currency": "USD"}, "scope": "LINE_ITEM"}])
        );
    }
}
