//! The settings the Worker and the showing objects decide with, read from
//! the environment (`wrangler.toml` vars, `.dev.vars`), once per isolate.
//! A setting that is missing or unreadable takes its default. The secrets
//! have none: [`check`] names every one missing or unfit before the Worker
//! does anything with them, and `/api/health` names it (never its value).

use serde::Serialize;
use worker::Env;

use crate::keys::{Keys, MIN_SECRET_BYTES};
use crate::ticket_code::TicketKeys;

/// At most one staff digest goes out in each such period.
pub const DIGEST_EVERY_MS: u64 = 3600 * 1000;

#[derive(Debug, Clone)]
pub struct Settings {
    pub desk: desk::Settings,
    /// How long an order or refund must have waited before the cron sweep
    /// steps in (`SWEEP_MIN_AGE_MS`, a minute): younger ones are still in
    /// their own object's or webhook's hands.
    pub sweep_min_age_ms: u64,
    /// How long something waits on the attention list before the staff
    /// digest mentions it (`DIGEST_AFTER_MS`, an hour).
    pub digest_after_ms: u64,
}

fn var(env: &Env, name: &str) -> Option<String> {
    env.var(name).ok().map(|v| v.to_string())
}

fn number<T: std::str::FromStr>(env: &Env, name: &str) -> Option<T> {
    var(env, name).and_then(|v| v.parse().ok())
}

impl Settings {
    /// `HOLD_RATE_BURST`, `HOLD_RATE_PER_MINUTE` (holds per client
    /// network), `HOLD_SEATS_PER_CLIENT` (seats one network may hold at
    /// once per showing), `CARD_ATTEMPTS_BURST`, `CARD_ATTEMPTS_PER_HOUR` (card
    /// payments per address and per buyer), `CHECKOUT_RETRY_BASE_MS`, `CHECKOUT_ANSWER_TIMEOUT_MS`,
    /// `SQUARE_LOCATION_ID`, `SWEEP_MIN_AGE_MS`, `DIGEST_AFTER_MS`,
    /// and the test-only
    /// `SHOWTIME_FAILPOINT`.
    pub fn from_env(env: &Env) -> Settings {
        // Settings change only with a deploy, which starts new isolates:
        // they are read once per isolate, not for every object started.
        thread_local! {
            static READ: std::cell::OnceCell<Settings> = const { std::cell::OnceCell::new() };
        }
        READ.with(|read| read.get_or_init(|| Settings::read(env)).clone())
    }

    fn read(env: &Env) -> Settings {
        let rate = desk::RateLimit::default();
        let cards = desk::CardLimit::default();
        let checkout = checkout::Config::default();
        Settings {
            desk: desk::Settings {
                hold_rate: desk::RateLimit {
                    burst: number(env, "HOLD_RATE_BURST").unwrap_or(rate.burst),
                    per_minute: number(env, "HOLD_RATE_PER_MINUTE").unwrap_or(rate.per_minute),
                    seats_held: number(env, "HOLD_SEATS_PER_CLIENT").unwrap_or(rate.seats_held),
                },
                card_limit: desk::CardLimit {
                    burst: number(env, "CARD_ATTEMPTS_BURST").unwrap_or(cards.burst),
                    per_hour: number(env, "CARD_ATTEMPTS_PER_HOUR").unwrap_or(cards.per_hour),
                },
                waitlist_offer_ms: number(env, "WAITLIST_OFFER_MS")
                    .unwrap_or(desk::waitlist::DEFAULT_OFFER_MS),
                checkout: checkout::Config {
                    retry_base_ms: number(env, "CHECKOUT_RETRY_BASE_MS")
                        .unwrap_or(checkout.retry_base_ms),
                    answer_timeout_ms: number(env, "CHECKOUT_ANSWER_TIMEOUT_MS")
                        .unwrap_or(checkout.answer_timeout_ms),
                    ..checkout
                },
                location_id: var(env, "SQUARE_LOCATION_ID").unwrap_or_default(),
                authorization_delay: number(env, "AUTHORIZATION_DELAY_MINUTES")
                    .and_then(desk::square::AuthorizationDelay::minutes)
                    .unwrap_or_default(),
                failpoint_after_capture: var(env, "SHOWTIME_FAILPOINT").as_deref()
                    == Some("after_capture"),
                map_push: desk::PushPeriod::default(),
                // Unfit tax settings stop the Worker (`check`), so the
                // default here is never sold at.
                tax: tax(|name| var(env, name)).unwrap_or_default(),
            },
            sweep_min_age_ms: number(env, "SWEEP_MIN_AGE_MS").unwrap_or(60_000),
            digest_after_ms: number(env, "DIGEST_AFTER_MS").unwrap_or(DIGEST_EVERY_MS),
        }
    }
}

/// What buyers may change themselves by default (a showing may have its
/// own): `CANCEL_UNTIL_MINUTES` before the start they may cancel (unset:
/// they may not), keeping `CANCEL_FEE` of each ticket (`150`, in minor
/// units, or `10%`; none by default); `EXCHANGE_UNTIL_MINUTES` before it
/// they may change showing (unset: they may not). A value out of bounds
/// is ignored, as if unset.
pub fn buyer_policy(env: &Env) -> refunds::Policy {
    let minutes =
        |name: &str| number::<u32>(env, name).filter(|m| *m <= refunds::MAX_CUTOFF_MINUTES);
    let fee = var(env, "CANCEL_FEE")
        .and_then(|text| parse_fee(&text))
        .unwrap_or_default();
    refunds::Policy {
        cancel: minutes("CANCEL_UNTIL_MINUTES").map(|until_minutes_before| refunds::CancelRule {
            until_minutes_before,
            fee,
        }),
        exchange: minutes("EXCHANGE_UNTIL_MINUTES").map(|until_minutes_before| {
            refunds::ExchangeRule {
                until_minutes_before,
            }
        }),
    }
}

/// `150` (minor units) or `10%`.
fn parse_fee(text: &str) -> Option<refunds::Fee> {
    let text = text.trim();
    let fee = match text.strip_suffix('%') {
        Some(percent) => refunds::Fee::Percent(percent.trim().parse().ok()?),
        None => refunds::Fee::Fixed(text.parse().ok()?),
    };
    let policy = refunds::Policy {
        cancel: Some(refunds::CancelRule {
            until_minutes_before: 0,
            fee,
        }),
        exchange: None,
    };
    policy.check().ok().map(|()| fee)
}

/// When sales close and the door stops admitting by default, after a
/// showing's start (`SALES_CLOSE_MINUTES`, 15; `DOOR_CLOSE_MINUTES`, 120;
/// each at most a day); staff may set other times for one showing.
/// How long a waiting room's admission lasts (`ADMISSION_MS`, optional:
/// ten minutes, and never longer; a second at least).
pub fn admission_ms(env: &Env) -> u64 {
    number::<u64>(env, "ADMISSION_MS")
        .filter(|ms| (1_000..=queue::ADMISSION_TTL_MS).contains(ms))
        .unwrap_or(queue::ADMISSION_TTL_MS)
}

pub fn window_defaults(env: &Env) -> desk::window::Defaults {
    let defaults = desk::window::Defaults::default();
    let minutes = |name: &str, default_ms: i64| {
        number::<i64>(env, name)
            .map(|m| m.saturating_mul(60_000))
            .filter(|ms| (0..=desk::window::MAX_AFTER_START_MS).contains(ms))
            .unwrap_or(default_ms)
    };
    desk::window::Defaults {
        sales_close_after_start_ms: minutes(
            "SALES_CLOSE_MINUTES",
            defaults.sales_close_after_start_ms,
        ),
        // The door must still admit once the showing has started.
        door_close_after_start_ms: minutes(
            "DOOR_CLOSE_MINUTES",
            defaults.door_close_after_start_ms,
        )
        .max(1),
    }
}

/// The cinema's tax: `TAX_RATE_BPS` (hundredths of a percent, 2000 for
/// 20 %; unset or 0 for none), `TAX_NAME` (as receipts print it, "Tax"
/// if unset), `TAX_INCLUSIVE` (`true` when prices include it, as VAT and
/// GST do; `false` when it is added on top, as US sales tax is: required
/// with a rate, since either guess would sell at the wrong price), and
/// `TAX_RATES_BY_CATEGORY` (`child=0,student=500`: price categories taxed
/// at another rate).
pub fn tax(get: impl Fn(&str) -> Option<String>) -> Result<checkout::Tax, Problem> {
    let unfit = |name: &'static str, problem: String| Problem { name, problem };
    let get = |name: &str| {
        get(name)
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    let rate = |name: &'static str, text: &str| {
        text.parse::<u32>()
            .map_err(|_| unfit(name, "not a whole number of hundredths of a percent".into()))
    };
    let rate_bps = get("TAX_RATE_BPS")
        .map(|text| rate("TAX_RATE_BPS", &text))
        .transpose()?
        .unwrap_or(0);
    let mut by_category = std::collections::BTreeMap::new();
    for pair in get("TAX_RATES_BY_CATEGORY")
        .iter()
        .flat_map(|t| t.split(','))
    {
        let Some((id, text)) = pair.split_once('=') else {
            let problem = "each entry is category=rate, as in child=0".to_string();
            return Err(unfit("TAX_RATES_BY_CATEGORY", problem));
        };
        by_category.insert(
            id.trim().to_string(),
            rate("TAX_RATES_BY_CATEGORY", text.trim())?,
        );
    }
    let taxed = rate_bps > 0 || by_category.values().any(|&r| r > 0);
    let inclusive = match get("TAX_INCLUSIVE").as_deref() {
        Some("true") => true,
        Some("false") => false,
        None if !taxed => true,
        _ => {
            let problem = "true (prices include the tax) or false (it is added on top)";
            return Err(unfit("TAX_INCLUSIVE", problem.into()));
        }
    };
    let tax = checkout::Tax {
        name: get("TAX_NAME").unwrap_or_else(|| if taxed { "Tax".into() } else { String::new() }),
        rate_bps,
        inclusive,
        by_category,
    };
    let problem = match tax.validate() {
        Ok(()) => return Ok(tax),
        Err(problem) => problem,
    };
    let name = match problem {
        checkout::TaxProblem::RateTooHigh { rate_bps } if rate_bps == tax.rate_bps => {
            "TAX_RATE_BPS"
        }
        checkout::TaxProblem::NameMissing | checkout::TaxProblem::NameTooLong => "TAX_NAME",
        _ => "TAX_RATES_BY_CATEGORY",
    };
    Err(unfit(name, problem.to_string()))
}

/// The first day of the cinema's week, for the distributor return
/// (`CINEMA_WEEK_STARTS`, `friday` unless set, as film weeks run).
pub fn week_starts(env: &Env) -> jiff::civil::Weekday {
    var(env, "CINEMA_WEEK_STARTS")
        .and_then(|day| crate::recurrence::weekday(&day))
        .unwrap_or(jiff::civil::Weekday::Friday)
}

/// A setting that is missing or unfit: its name and what is wrong, never
/// its value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub name: &'static str,
    pub problem: String,
}

/// Every problem with the secrets, given a way to read each (`None` when
/// unset).
pub fn check(get: impl Fn(&str) -> Option<String>) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut say = |name: &'static str, problem: &str| {
        problems.push(Problem {
            name,
            problem: problem.to_string(),
        })
    };
    let short = format!("shorter than {MIN_SECRET_BYTES} bytes");
    for (name, required) in [
        ("SESSION_SECRET", true),
        ("ADMIN_TOKEN", true),
        ("DOOR_TOKEN", false),
    ] {
        match get(name) {
            None if required => say(name, "not set"),
            None => {}
            Some(value) if value.len() < MIN_SECRET_BYTES => say(name, &short),
            Some(_) => {}
        }
    }
    match get("TICKET_SIGNING_KEYS").map(|text| TicketKeys::parse(&text)) {
        None => say("TICKET_SIGNING_KEYS", "not set"),
        Some(Err(e)) => say("TICKET_SIGNING_KEYS", &e),
        Some(Ok(_)) => {}
    }
    if let Some(Err(e)) = get("ORDER_LINK_KEYS").map(|text| Keys::parse(&text)) {
        say("ORDER_LINK_KEYS", &e);
    }
    for name in ["SQUARE_ACCESS_TOKEN", "SQUARE_WEBHOOK_SIGNATURE_KEY"] {
        if get(name).is_none_or(|v| v.trim().is_empty()) {
            say(name, "not set, or empty");
        }
    }
    // Turnstile is on with both keys and off with neither; one alone is a
    // mistake that would leave it off unnoticed.
    let set = |name| get(name).is_some_and(|v| !v.is_empty());
    if set("TURNSTILE_SITE_KEY") != set("TURNSTILE_SECRET_KEY") {
        say(
            "TURNSTILE_SECRET_KEY",
            "set with TURNSTILE_SITE_KEY, or neither",
        );
    }
    if let Err(problem) = tax(&get) {
        problems.push(problem);
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn good() -> HashMap<&'static str, String> {
        let long = "x".repeat(MIN_SECRET_BYTES);
        HashMap::from([
            ("SESSION_SECRET", long.clone()),
            ("ADMIN_TOKEN", long.clone()),
            ("TICKET_SIGNING_KEYS", format!("k1:{long}")),
            ("SQUARE_ACCESS_TOKEN", "token".into()),
            ("SQUARE_WEBHOOK_SIGNATURE_KEY", "key".into()),
        ])
    }

    fn problems(settings: &HashMap<&'static str, String>) -> Vec<&'static str> {
        check(|name| settings.get(name).cloned())
            .into_iter()
            .map(|p| p.name)
            .collect()
    }

    #[test]
    fn good_settings_have_no_problem_and_each_bad_one_is_named() {
        let settings = good();
        assert!(problems(&settings).is_empty());
        for (name, value) in [
            ("SESSION_SECRET", "short"),
            ("ADMIN_TOKEN", ""),
            ("DOOR_TOKEN", "1234"),
            ("TICKET_SIGNING_KEYS", "k1:only-twenty-bytes-"),
            ("TICKET_SIGNING_KEYS", "no colon"),
            ("ORDER_LINK_KEYS", ","),
            ("SQUARE_WEBHOOK_SIGNATURE_KEY", " "),
            ("TURNSTILE_SITE_KEY", "1x00000000000000000000AA"),
        ] {
            let mut bad = good();
            bad.insert(name, value.into());
            let named = if name == "TURNSTILE_SITE_KEY" {
                "TURNSTILE_SECRET_KEY"
            } else {
                name
            };
            assert_eq!(problems(&bad), vec![named], "{name}={value:?}");
        }
        let mut missing = good();
        missing.remove("SESSION_SECRET");
        missing.remove("SQUARE_ACCESS_TOKEN");
        assert_eq!(
            problems(&missing),
            vec!["SESSION_SECRET", "SQUARE_ACCESS_TOKEN"]
        );
    }

    #[test]
    fn tax_settings_are_read_and_each_unfit_one_is_named() {
        let read = |pairs: &[(&str, &str)]| {
            let map: HashMap<String, String> = pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            tax(|name| map.get(name).cloned())
        };
        assert_eq!(read(&[]), Ok(checkout::Tax::default()));
        let vat = read(&[
            ("TAX_RATE_BPS", "2000"),
            ("TAX_NAME", "VAT"),
            ("TAX_INCLUSIVE", "true"),
            ("TAX_RATES_BY_CATEGORY", " child = 0, culture=550 "),
        ])
        .unwrap();
        assert_eq!(
            (vat.name.as_str(), vat.rate_bps, vat.inclusive),
            ("VAT", 2000, true)
        );
        assert_eq!(
            (
                vat.rate_of("adult"),
                vat.rate_of("child"),
                vat.rate_of("culture")
            ),
            (2000, 0, 550)
        );
        let sales = read(&[("TAX_RATE_BPS", "875"), ("TAX_INCLUSIVE", "false")]).unwrap();
        assert_eq!((sales.name.as_str(), sales.inclusive), ("Tax", false));
        for (pairs, named) in [
            (&[("TAX_RATE_BPS", "2000")][..], "TAX_INCLUSIVE"),
            (
                &[("TAX_RATE_BPS", "20%"), ("TAX_INCLUSIVE", "true")][..],
                "TAX_RATE_BPS",
            ),
            (
                &[("TAX_RATE_BPS", "10001"), ("TAX_INCLUSIVE", "true")][..],
                "TAX_RATE_BPS",
            ),
            (
                &[("TAX_RATE_BPS", "500"), ("TAX_INCLUSIVE", "yes")][..],
                "TAX_INCLUSIVE",
            ),
            (
                &[("TAX_RATES_BY_CATEGORY", "child")][..],
                "TAX_RATES_BY_CATEGORY",
            ),
            (
                &[("TAX_RATES_BY_CATEGORY", "child=-1")][..],
                "TAX_RATES_BY_CATEGORY",
            ),
            (
                &[
                    ("TAX_RATES_BY_CATEGORY", "child=20000"),
                    ("TAX_INCLUSIVE", "true"),
                ][..],
                "TAX_RATES_BY_CATEGORY",
            ),
            (
                &[
                    ("TAX_RATE_BPS", "500"),
                    ("TAX_INCLUSIVE", "true"),
                    ("TAX_NAME", &"x".repeat(41)),
                ][..],
                "TAX_NAME",
            ),
        ] {
            assert_eq!(read(pairs).map_err(|p| p.name), Err(named), "{pairs:?}");
        }
        let mut bad = good();
        bad.insert("TAX_RATE_BPS", "2000".into());
        assert_eq!(problems(&bad), vec!["TAX_INCLUSIVE"]);
    }

    #[test]
    fn a_problem_never_carries_the_value() {
        let mut bad = good();
        bad.insert("SESSION_SECRET", "hunter2".into());
        let said = serde_json::to_string(&check(|n| bad.get(n).cloned())).unwrap();
        assert!(!said.contains("hunter2"), "{said}");
    }
}
