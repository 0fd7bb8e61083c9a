//! The bounds of a request for seats (a buyer's hold, a box-office sale),
//! checked by the Worker before the showing's object is asked, and again
//! by the object before it decides anything. Whatever a caller sends, a
//! request that passes names at most ten short seats and as many short
//! price categories, so no row the object stores and no refusal it gives
//! can be made large by the caller. A refusal here depends on the body
//! alone, so it is never kept for a replay.

use std::collections::{BTreeMap, BTreeSet};

use ledger::{is_valid_unit_name, MAX_SEATS_PER_HOLD_LIMIT, MAX_UNIT_NAME_BYTES};

use crate::refusal::{Code, Refusal};

/// Longest price category id: the checkout keeps each ticket's.
pub const MAX_CATEGORY_ID_BYTES: usize = checkout::MAX_CATEGORY_ID_BYTES;

/// A category id of 1 to [`MAX_CATEGORY_ID_BYTES`] with no control
/// characters, as a seat's name is (they reach logs, CSV files and pages).
fn is_valid_category_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_CATEGORY_ID_BYTES && !id.chars().any(char::is_control)
}

fn invalid(field: &str, detail: String) -> Refusal {
    Refusal::new(Code::InvalidRequest, detail).with("field", field)
}

/// Checks a request for `seats`, priced by `prices` (seat → category id).
pub fn check_seat_request(
    seats: &[String],
    prices: &BTreeMap<String, String>,
) -> Result<(), Refusal> {
    check_count(seats.len(), "seats")?;
    if !seats.iter().all(|s| is_valid_unit_name(s)) {
        return Err(invalid(
            "seats",
            format!(
                "each seat is named by 1 to {MAX_UNIT_NAME_BYTES} bytes without control characters"
            ),
        ));
    }
    let mut seen = BTreeSet::new();
    let twice: BTreeSet<&String> = seats.iter().filter(|s| !seen.insert(*s)).collect();
    if !twice.is_empty() {
        return Err(
            Refusal::new(Code::DuplicateSeats, "each seat may be named only once")
                .with("seats", twice.into_iter().cloned().collect::<Vec<_>>())
                .with("field", "seats"),
        );
    }
    if prices.keys().any(|seat| !seen.contains(seat)) {
        return Err(invalid(
            "prices",
            "a price may be chosen only for a seat being held".into(),
        ));
    }
    check_category_ids(prices.values())
}

/// Checks a request for the best `count` seats with `categories` (price
/// category id → how many of them): as many seats as a hold may have, and
/// no more priced than asked for.
pub fn check_best_request(
    count: u32,
    categories: &BTreeMap<String, u32>,
    zone: Option<&str>,
) -> Result<(), Refusal> {
    let field = match zone {
        Some(zone) if zone.is_empty() || zone.len() > ledger::MAX_ZONE_NAME_BYTES => {
            return Err(invalid(
                "zone",
                format!(
                    "a zone's name is 1 to {} bytes",
                    ledger::MAX_ZONE_NAME_BYTES
                ),
            ))
        }
        Some(_) => "count",
        None => "best",
    };
    check_count(count as usize, field)?;
    check_category_ids(categories.keys())?;
    let priced = categories.values().try_fold(0u32, |sum, &n| match n {
        0 => None,
        n => sum.checked_add(n),
    });
    match priced {
        Some(priced) if priced <= count => Ok(()),
        _ => Err(invalid(
            "prices",
            format!("each price says how many of the {count} seats are at it, at least 1 and {count} in all at most"),
        )),
    }
}

fn check_count(count: usize, field: &str) -> Result<(), Refusal> {
    if count == 0 {
        return Err(Refusal::new(Code::NoSeats, "choose at least one seat").with("field", field));
    }
    let max = MAX_SEATS_PER_HOLD_LIMIT as usize;
    if count > max {
        return Err(Refusal::new(
            Code::TooManySeats,
            format!("{count} seats asked for; one hold may have at most {max}"),
        )
        .with("max_seats", max)
        .with("field", field));
    }
    Ok(())
}

fn check_category_ids<'a>(mut ids: impl Iterator<Item = &'a String>) -> Result<(), Refusal> {
    match ids.all(|id| is_valid_category_id(id)) {
        true => Ok(()),
        false => Err(invalid(
            "prices",
            format!("each price category id is 1 to {MAX_CATEGORY_ID_BYTES} bytes without control characters"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(seats: &[&str], prices: &[(&str, &str)]) -> Result<(), (String, String)> {
        let seats: Vec<String> = seats.iter().map(|s| s.to_string()).collect();
        let prices = prices
            .iter()
            .map(|(s, c)| (s.to_string(), c.to_string()))
            .collect();
        check_seat_request(&seats, &prices).map_err(|r| {
            let body = r.body();
            (
                body["error"].as_str().unwrap().to_string(),
                body["field"].as_str().unwrap_or("").to_string(),
            )
        })
    }

    fn refused(code: &str, field: &str) -> Result<(), (String, String)> {
        Err((code.into(), field.into()))
    }

    #[test]
    fn a_request_within_bounds_passes() {
        assert_eq!(check(&["A1", "A2"], &[("A2", "child")]), Ok(()));
        let longest = "S".repeat(MAX_UNIT_NAME_BYTES);
        let category = "c".repeat(MAX_CATEGORY_ID_BYTES);
        assert_eq!(check(&[&longest], &[(&longest, &category)]), Ok(()));
    }

    #[test]
    fn seats_out_of_bounds_are_refused_naming_the_field() {
        assert_eq!(check(&[], &[]), refused("no_seats", "seats"));
        let eleven: Vec<String> = (1..=11).map(|n| format!("A{n}")).collect();
        let eleven: Vec<&str> = eleven.iter().map(String::as_str).collect();
        assert_eq!(check(&eleven, &[]), refused("too_many_seats", "seats"));
        let long = "S".repeat(MAX_UNIT_NAME_BYTES + 1);
        assert_eq!(check(&[&long], &[]), refused("invalid_request", "seats"));
        assert_eq!(check(&[""], &[]), refused("invalid_request", "seats"));
        assert_eq!(check(&["A\u{7}"], &[]), refused("invalid_request", "seats"));
        assert_eq!(
            check(&["A1", "A1"], &[]),
            refused("duplicate_seats", "seats")
        );
    }

    #[test]
    fn prices_out_of_bounds_are_refused_naming_the_field() {
        assert_eq!(
            check(&["A1"], &[("A2", "child")]),
            refused("invalid_request", "prices")
        );
        let long = "c".repeat(MAX_CATEGORY_ID_BYTES + 1);
        assert_eq!(
            check(&["A1"], &[("A1", &long)]),
            refused("invalid_request", "prices")
        );
        assert_eq!(
            check(&["A1"], &[("A1", "")]),
            refused("invalid_request", "prices")
        );
    }

    #[test]
    fn a_best_request_is_bounded_in_count_and_in_what_it_prices() {
        let code = |count, prices: &[(&str, u32)]| {
            let prices = prices.iter().map(|(c, n)| (c.to_string(), *n)).collect();
            check_best_request(count, &prices, None).map_err(|r| {
                let body = r.body();
                (
                    body["error"].as_str().unwrap().to_string(),
                    body["field"].as_str().unwrap().to_string(),
                )
            })
        };
        assert_eq!(code(3, &[("child", 2), ("adult", 1)]), Ok(()));
        assert_eq!(code(0, &[]), refused("no_seats", "best"));
        assert_eq!(code(11, &[]), refused("too_many_seats", "best"));
        assert_eq!(
            code(2, &[("child", 3)]),
            refused("invalid_request", "prices")
        );
        assert_eq!(
            code(2, &[("child", 0)]),
            refused("invalid_request", "prices")
        );
        assert_eq!(
            code(2, &[("child", u32::MAX), ("adult", 2)]),
            refused("invalid_request", "prices")
        );
        assert_eq!(code(2, &[("", 1)]), refused("invalid_request", "prices"));
    }

    #[test]
    fn a_refusal_never_quotes_a_long_input() {
        let huge = "x".repeat(200_000);
        let seats = vec![huge.clone(), huge.clone()];
        let prices = BTreeMap::from([(huge.clone(), huge)]);
        let refusal = check_seat_request(&seats, &prices).unwrap_err();
        assert!(refusal.body().to_string().len() < 300);
    }
}
