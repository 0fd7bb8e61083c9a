//! Discount codes as staff define them (`POST /api/admin/codes`): what a
//! code takes off, where and when it applies, and how often it may be
//! used. Pure: the request is checked here, with every limit, before
//! anything is stored; and when a buyer applies a code, whether it is
//! open here and now ([`DiscountCode::refused_here`]). The desk checks
//! the hold's seats and takes the discount off; a limited code's uses are
//! decided by its own object (`uses`).

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

pub use checkout::discount::Off;

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

/// Why a code does not apply to a showing now: the refusal's `why`
/// (`paused`, `dates`, `showing`, `film`, `box_office`) and a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotHere {
    pub why: &'static str,
    pub detail: String,
}

impl DiscountCode {
    /// Its uses are counted by its own object: a total or a per-buyer
    /// limit.
    pub fn limited(&self) -> bool {
        self.max_uses.is_some() || self.max_uses_per_buyer.is_some()
    }

    /// Whether the code applies to this showing (of `film_id`) bought
    /// online at `now_ms`, and why not.
    pub fn refused_here(
        &self,
        paused: bool,
        now_ms: u64,
        showing_id: &str,
        film_id: Option<&str>,
    ) -> Option<NotHere> {
        let not = |why: &'static str, detail: String| Some(NotHere { why, detail });
        if paused {
            return not("paused", format!("{} is paused by the cinema", self.code));
        }
        if self.box_office_only {
            return not(
                "box_office",
                format!("{} is taken at the box office only", self.code),
            );
        }
        if self.valid_from_ms.is_some_and(|from| now_ms < from) {
            return not("dates", format!("{} is not valid yet", self.code));
        }
        if self.valid_until_ms.is_some_and(|until| now_ms >= until) {
            return not("dates", format!("{} is no longer valid", self.code));
        }
        if !self.showings.is_empty() && !self.showings.iter().any(|s| s == showing_id) {
            return not("showing", format!("{} is not for this showing", self.code));
        }
        let film = film_id.unwrap_or_default();
        if !self.films.is_empty() && !self.films.iter().any(|f| f == film) {
            return not("film", format!("{} is not for this film", self.code));
        }
        None
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

    #[test]
    fn a_code_says_why_it_is_not_open_here_and_now() {
        let code = request(serde_json::json!({
            "code": "SPRING", "amount_off": 200, "valid_from": 1000, "valid_until": 2000,
            "showings": ["00000000000000aa"], "films": ["00000000000000f1"],
        }))
        .unwrap();
        let why = |paused, now, showing, film| {
            code.refused_here(paused, now, showing, film).map(|n| n.why)
        };
        let (here, film) = ("00000000000000aa", Some("00000000000000f1"));
        assert_eq!(why(false, 1500, here, film), None);
        assert!(!code.limited());
        assert_eq!(why(true, 1500, here, film), Some("paused"));
        assert_eq!(why(false, 999, here, film), Some("dates"));
        assert_eq!(
            why(false, 2000, here, film),
            Some("dates"),
            "until is not included"
        );
        assert_eq!(why(false, 1500, "00000000000000bb", film), Some("showing"));
        assert_eq!(why(false, 1500, here, None), Some("film"));
    }
}
