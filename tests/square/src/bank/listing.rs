//! ListPayments: the location's payments over a time range, a page at a
//! time (<https://developer.squareup.com/reference/square/payments-api/list-payments>).
//!
//! Square's rules, as the reference gives them: `begin_time` is inclusive
//! and defaults to a year before now, `end_time` defaults to now, both
//! RFC 3339 and read against each payment's `created_at`; `sort_order` is
//! DESC (newest first) unless ASC; at most 100 payments a page, with a
//! `cursor` for the next; `location_id` defaults to the seller's main
//! location. An empty page is `{}` (forum, "List payments - begin_time").
//! The filters the stand-in does not implement (`total`, `last_4`,
//! `card_brand`, the offline and `updated_at` ranges, `sort_field`) are
//! refused rather than ignored, and so is any parameter Square does not
//! document.

use serde_json::{json, Value};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

use super::{Bank, Handled};
use crate::clock::MS_PER_DAY;
use crate::square_error::SquareError;

/// Square's largest page, and its default.
pub const MAX_PAGE: usize = 100;

const UNSUPPORTED: &[&str] = &[
    "total",
    "last_4",
    "card_brand",
    "sort_field",
    "is_offline_payment",
    "offline_begin_time",
    "offline_end_time",
    "updated_at_begin_time",
    "updated_at_end_time",
];

impl Bank {
    pub fn list_payments(&self, query: &[(String, String)], now_ms: u64) -> Handled {
        match self.read_list(query, now_ms) {
            Ok(body) => Handled::ok(body, Vec::new()),
            Err(error) => Handled::error(error),
        }
    }

    fn read_list(&self, query: &[(String, String)], now_ms: u64) -> Result<Value, SquareError> {
        let mut begin_ms = now_ms.saturating_sub(365 * MS_PER_DAY);
        // Up to now, this millisecond included: a payment made in the same
        // millisecond as the listing is listed, as it is at Square.
        let mut end_ms = now_ms.saturating_add(1);
        let mut descending = true;
        let mut offset = 0usize;
        let mut limit = MAX_PAGE;
        for (name, value) in query {
            match name.as_str() {
                "begin_time" => begin_ms = instant(name, value)?,
                "end_time" => end_ms = instant(name, value)?,
                "sort_order" => {
                    descending = match value.as_str() {
                        "DESC" => true,
                        "ASC" => false,
                        _ => return Err(SquareError::invalid_value(name, "Must be ASC or DESC.")),
                    }
                }
                "cursor" => {
                    offset = value
                        .strip_prefix("standin-")
                        .and_then(|n| n.parse().ok())
                        .ok_or_else(|| SquareError::invalid_value(name, "Invalid cursor."))?
                }
                "limit" => {
                    limit = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_PAGE).contains(n))
                        .ok_or_else(|| SquareError::invalid_value(name, "Must be from 1 to 100."))?
                }
                "location_id" if *value != self.settings.location_id => {
                    return Err(SquareError::not_found(format!(
                        "Location `{value}` not found."
                    )))
                }
                "location_id" => {}
                other if UNSUPPORTED.contains(&other) => {
                    return Err(SquareError::invalid_value(
                        other,
                        "Not supported by the stand-in.",
                    ))
                }
                other => return Err(SquareError::unknown_parameter(other)),
            }
        }
        if begin_ms > end_ms {
            return Err(SquareError::invalid_value(
                "begin_time",
                "The begin time must not be after the end time.",
            ));
        }
        let mut found: Vec<&crate::payments::Payment> = self
            .payment_order
            .iter()
            .map(|id| &self.payments[id])
            .filter(|p| (begin_ms..end_ms).contains(&p.created_at_ms))
            .collect();
        if descending {
            found.reverse();
        }
        let page: Vec<Value> = found
            .iter()
            .skip(offset)
            .take(limit)
            .map(|p| p.to_json())
            .collect();
        if page.is_empty() {
            return Ok(json!({}));
        }
        let mut body = json!({ "payments": page });
        if offset + limit < found.len() {
            body["cursor"] = json!(format!("standin-{}", offset + limit));
        }
        Ok(body)
    }
}

fn instant(name: &str, value: &str) -> Result<u64, SquareError> {
    OffsetDateTime::parse(value, &Rfc3339)
        .ok()
        .and_then(|at| u64::try_from(at.unix_timestamp_nanos() / 1_000_000).ok())
        .ok_or_else(|| {
            SquareError::invalid_value(
                name,
                "Must be an RFC 3339 timestamp, as 2026-01-25T18:25:34Z.",
            )
        })
}
