//! Discount codes as staff define them (`POST /api/admin/codes`): what a
//! code takes off, where and when it applies, and how often it may be
//! used. Pure: the request is checked here, with every limit, before
//! anything is stored. Applying a code to a hold, and deciding its uses
//! under a rush, come with the showing's checkout (issue #42).

use serde::{Deserialize, Serialize};

/// Shortest and longest code.
pub const MIN_CODE_CHARS: usize = 3;
pub const MAX_CODE_CHARS: usize = 32;
/// Most uses of one code, in all and by one buyer.
pub const MAX_USES: u32 = 1_000_000;
/// Most showings, films or price categories one code may name.
pub const MAX_SCOPE: usize = 100;
/// Largest fixed amount off, in minor units (as an order's price).
pub const MAX_AMOUNT_OFF: u64 = checkout::MAX_AMOUNT_MINOR;

/// What staff send.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeRequest {
    pub code: String,
    #[serde(default)]
    pub percent_off: Option<u32>,
    /// In the currency's minor units.
    #[serde(default)]
    pub amount_off: Option<u64>,
    /// `"ticket"` (the default) or `"order"`: a fixed amount off each
    /// ticket, or once off the order.
    #[serde(default)]
    pub per: Option<String>,
    #[serde(default)]
    pub max_uses: Option<u32>,
    #[serde(default)]
    pub max_uses_per_buyer: Option<u32>,
    #[serde(default)]
    pub valid_from: Option<u64>,
    #[serde(default)]
    pub valid_until: Option<u64>,
    #[serde(default)]
    pub showings: Vec<String>,
    #[serde(default)]
    pub films: Vec<String>,
    #[serde(default)]
    pub categories: Vec<String>,
    #[serde(default)]
    pub box_office_only: bool,
}

/// What a code takes off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Off {
    /// Percent of each price it applies to, 1 to 100.
    Percent { percent: u32 },
    /// A fixed amount, in minor units, off each ticket or the order.
    Amount { amount: u64, per_order: bool },
}

/// A checked code, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DiscountCode {
    /// Upper case: codes are compared case-insensitively.
    pub code: String,
    pub off: Off,
    pub max_uses: Option<u32>,
    pub max_uses_per_buyer: Option<u32>,
    pub valid_from_ms: Option<u64>,
    pub valid_until_ms: Option<u64>,
    pub showings: Vec<String>,
    pub films: Vec<String>,
    pub categories: Vec<String>,
    pub box_office_only: bool,
}

/// How a code is written: letters, digits and hyphens, compared without
/// case. `None` when it is not one.
pub fn normalized(code: &str) -> Option<String> {
    let code = code.trim();
    let ok = (MIN_CODE_CHARS..=MAX_CODE_CHARS).contains(&code.chars().count())
        && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    ok.then(|| code.to_ascii_uppercase())
}

fn ids(list: &[String], what: &str, fits: impl Fn(&str) -> bool) -> Result<Vec<String>, String> {
    if list.len() > MAX_SCOPE {
        return Err(format!("{what}: at most {MAX_SCOPE}"));
    }
    match list.iter().find(|id| !fits(id)) {
        Some(bad) => Err(format!("{what}: {bad:?} is not one")),
        None => Ok(list.to_vec()),
    }
}

fn hex_id(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

fn category_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= checkout::MAX_CATEGORY_ID_BYTES
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl CodeRequest {
    /// The code, or what is wrong with the request (the field first).
    pub fn check(self) -> Result<DiscountCode, String> {
        let code = normalized(&self.code).ok_or(format!(
            "code: {MIN_CODE_CHARS} to {MAX_CODE_CHARS} letters, digits or hyphens"
        ))?;
        let per_order = match self.per.as_deref() {
            None | Some("ticket") => false,
            Some("order") => true,
            Some(_) => return Err("per: \"ticket\" or \"order\"".into()),
        };
        let off = match (self.percent_off, self.amount_off) {
            (Some(percent), None) if (1..=100).contains(&percent) && !per_order => {
                Off::Percent { percent }
            }
            (Some(_), None) if per_order => {
                return Err("per: a percentage comes off each ticket".into())
            }
            (Some(_), None) => return Err("percent_off: 1 to 100".into()),
            (None, Some(amount)) if (1..=MAX_AMOUNT_OFF).contains(&amount) => {
                Off::Amount { amount, per_order }
            }
            (None, Some(_)) => {
                return Err(format!("amount_off: 1 to {MAX_AMOUNT_OFF}, in minor units"))
            }
            _ => return Err("give percent_off or amount_off, one of them".into()),
        };
        let uses = |value: Option<u32>, name: &str| match value {
            Some(n) if !(1..=MAX_USES).contains(&n) => Err(format!("{name}: 1 to {MAX_USES}")),
            other => Ok(other),
        };
        let max_uses = uses(self.max_uses, "max_uses")?;
        let max_uses_per_buyer = uses(self.max_uses_per_buyer, "max_uses_per_buyer")?;
        if let (Some(total), Some(each)) = (max_uses, max_uses_per_buyer) {
            if each > total {
                return Err("max_uses_per_buyer: at most max_uses".into());
            }
        }
        if let (Some(from), Some(until)) = (self.valid_from, self.valid_until) {
            if until <= from {
                return Err("valid_until: after valid_from".into());
            }
        }
        Ok(DiscountCode {
            code,
            off,
            max_uses,
            max_uses_per_buyer,
            valid_from_ms: self.valid_from,
            valid_until_ms: self.valid_until,
            showings: ids(&self.showings, "showings", hex_id)?,
            films: ids(&self.films, "films", hex_id)?,
            categories: ids(&self.categories, "categories", category_id)?,
            box_office_only: self.box_office_only,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(json: serde_json::Value) -> Result<DiscountCode, String> {
        serde_json::from_value::<CodeRequest>(json)
            .map_err(|e| e.to_string())?
            .check()
    }

    #[test]
    fn a_code_is_kept_in_upper_case_with_what_it_takes_off() {
        let code = request(serde_json::json!({
            "code": " premiere-50 ", "percent_off": 50, "max_uses": 50,
            "max_uses_per_buyer": 2, "categories": ["adult"],
        }))
        .unwrap();
        assert_eq!(code.code, "PREMIERE-50");
        assert_eq!(code.off, Off::Percent { percent: 50 });
        assert_eq!(
            (code.max_uses, code.max_uses_per_buyer),
            (Some(50), Some(2))
        );
        let fixed =
            request(serde_json::json!({"code": "FIVER", "amount_off": 500, "per": "order"}));
        assert_eq!(
            fixed.unwrap().off,
            Off::Amount {
                amount: 500,
                per_order: true
            }
        );
    }

    #[test]
    fn each_bad_field_is_named() {
        for (body, field) in [
            (serde_json::json!({"code": "AB", "percent_off": 10}), "code"),
            (
                serde_json::json!({"code": "TEN OFF", "percent_off": 10}),
                "code",
            ),
            (
                serde_json::json!({"code": "TEN", "percent_off": 0}),
                "percent_off",
            ),
            (
                serde_json::json!({"code": "TEN", "percent_off": 101}),
                "percent_off",
            ),
            (
                serde_json::json!({"code": "TEN", "percent_off": 10, "per": "order"}),
                "per",
            ),
            (
                serde_json::json!({"code": "TEN", "amount_off": 0}),
                "amount_off",
            ),
            (serde_json::json!({"code": "TEN"}), "give percent_off"),
            (
                serde_json::json!({"code": "TEN", "percent_off": 10, "amount_off": 5}),
                "give percent_off",
            ),
            (
                serde_json::json!({"code": "TEN", "percent_off": 10, "max_uses": 0}),
                "max_uses",
            ),
            (
                serde_json::json!({"code": "TEN", "percent_off": 10, "max_uses": 5, "max_uses_per_buyer": 6}),
                "max_uses_per_buyer",
            ),
            (
                serde_json::json!({"code": "TEN", "percent_off": 10, "valid_from": 5, "valid_until": 5}),
                "valid_until",
            ),
            (
                serde_json::json!({"code": "TEN", "percent_off": 10, "showings": ["nope"]}),
                "showings",
            ),
            (
                serde_json::json!({"code": "TEN", "percent_off": 10, "categories": ["a b"]}),
                "categories",
            ),
        ] {
            let error = request(body.clone()).unwrap_err();
            assert!(error.starts_with(field), "{body}: {error}");
        }
        assert!(
            request(serde_json::json!({"code": "TEN", "percent_off": 10, "colour": 1})).is_err()
        );
    }
}
