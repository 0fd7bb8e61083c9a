//! The first-deploy checklist staff see in `GET /api/health` and on the
//! admin home: each setting a cinema must get right before selling, and
//! whether it is. Pure: it reads the settings through a function and is
//! told what Square and D1 said, so every rule is tested with plain values.

use serde::Serialize;
use url::Url;

use crate::ticket_code::TicketKeys;

/// One line of the checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    pub setting: &'static str,
    pub ok: bool,
    pub detail: String,
}

/// What the Worker learned for the checklist from outside the settings.
pub struct Facts {
    /// Square's answer for `SQUARE_LOCATION_ID`: its currency, or why not.
    pub location_currency: Result<String, String>,
    /// Showings still to come priced in another currency than that.
    pub showings_in_another_currency: Vec<String>,
}

const SANDBOX_API: &str = "https://connect.squareupsandbox.com";
const PRODUCTION_API: &str = "https://connect.squareup.com";
const SANDBOX_SDK: &str = "https://sandbox.web.squarecdn.com/v1/square.js";
const PRODUCTION_SDK: &str = "https://web.squarecdn.com/v1/square.js";

/// Cloudflare's Turnstile test site keys: they pass (or fail) everyone.
const TURNSTILE_TEST_SITE_KEYS: [&str; 3] = [
    "1x00000000000000000000AA",
    "2x00000000000000000000AB",
    "3x00000000000000000000FF",
];

/// Where the Square API is: Square's sandbox, its production, or a local
/// stand-in (a loopback address, as `npm start` and the tests run).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Environment {
    Sandbox,
    Production,
    Local,
}

fn is_loopback(url: &Url) -> bool {
    matches!(url.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"))
}

fn environment(base_url: &str) -> Option<Environment> {
    match base_url.trim_end_matches('/') {
        SANDBOX_API => Some(Environment::Sandbox),
        PRODUCTION_API => Some(Environment::Production),
        other => Url::parse(other)
            .ok()
            .filter(is_loopback)
            .map(|_| Environment::Local),
    }
}

/// Reads a setting: `None` when unset or blank.
type Get<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The lines so far.
#[derive(Default)]
struct Lines(Vec<Item>);

impl Lines {
    fn line(&mut self, setting: &'static str, check: Result<String, String>) {
        let (ok, detail) = match check {
            Ok(detail) => (true, detail),
            Err(detail) => (false, detail),
        };
        self.0.push(Item {
            setting,
            ok,
            detail,
        });
    }
}

/// Every line, in the order the README's deploy steps set them.
pub fn checklist(get: impl Fn(&str) -> Option<String>, facts: &Facts) -> Vec<Item> {
    let get = |name: &str| get(name).filter(|v| !v.trim().is_empty());
    let mut lines = Lines::default();
    let local = site(&get, &mut lines);
    keys(&get, &mut lines);
    square(&get, facts, &mut lines);
    mail_and_turnstile(&get, local, &mut lines);
    lines.0
}

/// The site's address, name and zone; answers whether it runs on a
/// loopback address (`npm start`, the tests).
fn site(get: Get, lines: &mut Lines) -> bool {
    let mut line = |setting, check| lines.line(setting, check);
    let public = get("PUBLIC_URL");
    let public_url = public.as_deref().and_then(|u| Url::parse(u).ok());
    let local = public_url.as_ref().is_some_and(is_loopback);
    line("PUBLIC_URL", public_url_check(public.as_deref()));
    line(
        "CINEMA_NAME",
        match get("CINEMA_NAME") {
            Some(name) => Ok(format!(
                "\"{}\" on every page, ticket and message",
                name.trim()
            )),
            None => Err("not set: the name on every page, ticket and message".into()),
        },
    );
    line(
        "VENUE_TIME_ZONE",
        match get("VENUE_TIME_ZONE") {
            None => Err("not set: give the IANA zone of the showings, e.g. Europe/London".into()),
            Some(zone) => match jiff::tz::db().get(&zone) {
                Ok(_) => Ok(format!("every time is shown in {zone}")),
                Err(_) => Err(format!("{zone} is no IANA time zone (e.g. Europe/London)")),
            },
        },
    );
    local
}

fn keys(get: Get, lines: &mut Lines) {
    let mut line = |setting, check| lines.line(setting, check);
    line("TICKET_SIGNING_KEYS", match get("TICKET_SIGNING_KEYS").map(|t| TicketKeys::parse(&t)) {
        Some(Ok(keys)) if keys.signs_for_devices() => {
            Ok("an Ed25519 key signs: door devices check codes with no network".into())
        }
        Some(Ok(_)) => Err("the first key is an HMAC key, so door devices cannot check codes offline: put a k2:ed25519:<64 hex> key first".into()),
        Some(Err(e)) => Err(e),
        None => Err("not set".into()),
    });
    line("ORDER_LINK_KEYS", match get("ORDER_LINK_KEYS") {
        Some(_) => Ok("order links have their own key".into()),
        None => Err("not set: order links then hang on SESSION_SECRET, and changing it would break every link already mailed".into()),
    });
}

fn square(get: Get, facts: &Facts, lines: &mut Lines) {
    let mut line = |setting, check| lines.line(setting, check);
    let env = get("SQUARE_BASE_URL").as_deref().and_then(environment);
    line(
        "SQUARE_BASE_URL",
        match env {
            Some(Environment::Sandbox) => Ok("Square's sandbox: test cards only".into()),
            Some(Environment::Production) => Ok("Square's production: real money".into()),
            Some(Environment::Local) => Ok("a local Square stand-in".into()),
            None => Err(format!(
                "give {SANDBOX_API} (sandbox) or {PRODUCTION_API} (production)"
            )),
        },
    );
    line(
        "SQUARE_SDK_URL",
        sdk_check(env, get("SQUARE_SDK_URL").as_deref()),
    );
    line("SQUARE_APPLICATION_ID", match (get("SQUARE_APPLICATION_ID"), env) {
        (None, _) => Err("not set: copy it from your application in the Square Developer Dashboard".into()),
        (Some(id), Some(Environment::Production)) if id.starts_with("sandbox-") => {
            Err("a sandbox application id with Square's production API: use the production id".into())
        }
        (Some(id), Some(Environment::Sandbox)) if !id.starts_with("sandbox-") => {
            Err("a production application id with Square's sandbox API: use the sandbox id (sandbox-…)".into())
        }
        (Some(id), _) => Ok(id),
    });
    line(
        "SQUARE_LOCATION_ID",
        match (get("SQUARE_LOCATION_ID"), &facts.location_currency) {
            (None, _) => {
                Err("not set: copy a location id from the Square Developer Dashboard".into())
            }
            (Some(_), Ok(currency)) => Ok(format!("Square knows it; it takes {currency}")),
            (Some(_), Err(why)) => Err(format!("Square did not answer for it: {why}")),
        },
    );
    line("showing prices", match (&facts.location_currency, facts.showings_in_another_currency.as_slice()) {
        (Err(_), _) => Err("unknown until Square answers for the location".into()),
        (Ok(currency), []) => Ok(format!("every showing to come is priced in {currency}")),
        (Ok(currency), other) => Err(format!(
            "priced in another currency than the location's {currency}, so they cannot be paid for: {}",
            other.join(", ")
        )),
    });
    line(
        "SQUARE_WEBHOOK_URL",
        webhook_check(get("SQUARE_WEBHOOK_URL").as_deref()),
    );
    line(
        "SQUARE_WEBHOOK_SIGNATURE_KEY",
        match get("SQUARE_WEBHOOK_SIGNATURE_KEY") {
            Some(_) => Ok("set: each webhook's signature is checked with it".into()),
            None => Err("not set: copy the subscription's signature key".into()),
        },
    );
}

fn mail_and_turnstile(get: Get, local: bool, lines: &mut Lines) {
    let mut line = |setting, check| lines.line(setting, check);
    line("MAIL_FROM", match get("MAIL_FROM") {
        None => Err("not set: the sender of every message".into()),
        Some(from) if !::mail::address::is_addr_spec(&from) => {
            Err(format!("{from} is not one plain address"))
        }
        Some(from) if from.ends_with(".example") && !local => Err(format!(
            "{from} is the example address: give one on a domain onboarded to Cloudflare Email Service"
        )),
        Some(from) if local => Ok(format!("{from} (locally, messages are written to files)")),
        Some(from) => Ok(format!("{from}, on a domain onboarded to Cloudflare Email Service")),
    });
    line(
        "TURNSTILE_SITE_KEY",
        match (get("TURNSTILE_SITE_KEY"), get("TURNSTILE_SECRET_KEY")) {
            (None, None) => Ok("off (optional; recommended once you sell publicly)".into()),
            (Some(site), Some(_))
                if TURNSTILE_TEST_SITE_KEYS.contains(&site.as_str()) && !local =>
            {
                Err(
                    "one of Cloudflare's test keys, which stop nobody: add a widget for this site"
                        .into(),
                )
            }
            (Some(_), Some(_)) => Ok("on, with its secret key".into()),
            _ => Err("set with TURNSTILE_SECRET_KEY, or neither".into()),
        },
    );
}

fn public_url_check(public: Option<&str>) -> Result<String, String> {
    let text = public.ok_or("not set: the site's address, for the links in messages")?;
    let url = Url::parse(text)
        .map_err(|_| format!("{text} is not an address like https://tickets.cinema.example"))?;
    if url.scheme() != "https" && !is_loopback(&url) {
        return Err(format!("{text} must start with https://"));
    }
    if url.path() != "/" || text.ends_with('/') || url.query().is_some() {
        return Err(format!(
            "{text}: give the site's address alone, with no path or trailing slash"
        ));
    }
    Ok(format!("links in messages open {text}"))
}

fn sdk_check(env: Option<Environment>, sdk: Option<&str>) -> Result<String, String> {
    let sdk = sdk.ok_or("not set")?;
    match (env, sdk) {
        (Some(Environment::Sandbox), SANDBOX_SDK)
        | (Some(Environment::Production), PRODUCTION_SDK) => {
            Ok("the Web Payments SDK of the same environment as the API".into())
        }
        (Some(Environment::Sandbox), _) => Err(format!("with the sandbox API, give {SANDBOX_SDK}")),
        (Some(Environment::Production), _) => {
            Err(format!("with the production API, give {PRODUCTION_SDK}"))
        }
        (Some(Environment::Local), _) => Ok("the local stand-in's SDK".into()),
        (None, _) => Err("set SQUARE_BASE_URL first".into()),
    }
}

fn webhook_check(url: Option<&str>) -> Result<String, String> {
    let text =
        url.ok_or("not set: exactly the notification URL of your Square webhook subscription")?;
    let parsed = Url::parse(text).map_err(|_| format!("{text} is not an address"))?;
    if parsed.scheme() != "https" && !is_loopback(&parsed) {
        return Err(format!(
            "{text}: Square sends webhooks to https:// addresses only"
        ));
    }
    if parsed.path() != "/webhooks/square" {
        return Err(format!(
            "{text}: the Worker takes Square's webhooks at /webhooks/square"
        ));
    }
    Ok(format!(
        "signatures are checked against {text}; subscribe it at API version {}",
        crate::square::SQUARE_VERSION
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A cinema's production settings, all right.
    fn live() -> HashMap<&'static str, String> {
        HashMap::from([
            ("PUBLIC_URL", "https://tickets.cinema.co.uk".to_string()),
            ("CINEMA_NAME", "The Rex".into()),
            ("VENUE_TIME_ZONE", "Europe/London".into()),
            (
                "TICKET_SIGNING_KEYS",
                format!("k1:ed25519:{}", "ab".repeat(32)),
            ),
            ("ORDER_LINK_KEYS", format!("k1:{}", "x".repeat(32))),
            ("SQUARE_BASE_URL", PRODUCTION_API.into()),
            ("SQUARE_SDK_URL", PRODUCTION_SDK.into()),
            ("SQUARE_APPLICATION_ID", "sq0idp-abc".into()),
            ("SQUARE_LOCATION_ID", "L123".into()),
            (
                "SQUARE_WEBHOOK_URL",
                "https://tickets.cinema.co.uk/webhooks/square".into(),
            ),
            ("SQUARE_WEBHOOK_SIGNATURE_KEY", "key".into()),
            ("MAIL_FROM", "tickets@cinema.co.uk".into()),
        ])
    }

    fn square_ok() -> Facts {
        Facts {
            location_currency: Ok("GBP".into()),
            showings_in_another_currency: Vec::new(),
        }
    }

    fn failing(settings: &HashMap<&'static str, String>, facts: &Facts) -> Vec<&'static str> {
        checklist(|name| settings.get(name).cloned(), facts)
            .into_iter()
            .filter(|item| !item.ok)
            .map(|item| item.setting)
            .collect()
    }

    #[test]
    fn a_well_set_cinema_is_all_green_with_turnstile_off() {
        let items = checklist(|name| live().get(name).cloned(), &square_ok());
        assert!(items.iter().all(|i| i.ok), "{items:#?}");
        assert_eq!(items.len(), 14);
    }

    #[test]
    fn each_missing_or_inconsistent_setting_is_named() {
        for (name, value, failed) in [
            ("PUBLIC_URL", "", "PUBLIC_URL"),
            ("PUBLIC_URL", "http://tickets.cinema.co.uk", "PUBLIC_URL"),
            ("PUBLIC_URL", "https://tickets.cinema.co.uk/", "PUBLIC_URL"),
            ("CINEMA_NAME", " ", "CINEMA_NAME"),
            ("VENUE_TIME_ZONE", "Europe/Narnia", "VENUE_TIME_ZONE"),
            (
                "TICKET_SIGNING_KEYS",
                &format!("k1:{}", "x".repeat(32)),
                "TICKET_SIGNING_KEYS",
            ),
            ("ORDER_LINK_KEYS", "", "ORDER_LINK_KEYS"),
            (
                "SQUARE_BASE_URL",
                "https://example.com",
                "SQUARE_BASE_URL SQUARE_SDK_URL",
            ),
            ("SQUARE_SDK_URL", SANDBOX_SDK, "SQUARE_SDK_URL"),
            (
                "SQUARE_APPLICATION_ID",
                "sandbox-sq0idb-abc",
                "SQUARE_APPLICATION_ID",
            ),
            ("SQUARE_LOCATION_ID", "", "SQUARE_LOCATION_ID"),
            (
                "SQUARE_WEBHOOK_URL",
                "http://tickets.cinema.co.uk/webhooks/square",
                "SQUARE_WEBHOOK_URL",
            ),
            (
                "SQUARE_WEBHOOK_URL",
                "https://tickets.cinema.co.uk/square",
                "SQUARE_WEBHOOK_URL",
            ),
            ("MAIL_FROM", "tickets@cinema.example", "MAIL_FROM"),
            (
                "MAIL_FROM",
                "Box Office <tickets@cinema.co.uk>",
                "MAIL_FROM",
            ),
            ("TURNSTILE_SITE_KEY", "0x4AAAAAAA", "TURNSTILE_SITE_KEY"),
        ] {
            let mut settings = live();
            settings.insert(name, value.to_string());
            let failed: Vec<&str> = failed.split(' ').collect();
            assert_eq!(failing(&settings, &square_ok()), failed, "{name}={value}");
        }
        let mut test_keys = live();
        test_keys.insert("TURNSTILE_SITE_KEY", TURNSTILE_TEST_SITE_KEYS[0].into());
        test_keys.insert(
            "TURNSTILE_SECRET_KEY",
            "1x0000000000000000000000000000000AA".into(),
        );
        assert_eq!(failing(&test_keys, &square_ok()), ["TURNSTILE_SITE_KEY"]);
    }

    #[test]
    fn square_s_answers_decide_the_location_and_the_prices() {
        let unreachable = Facts {
            location_currency: Err("NOT_FOUND: Location `L123` not found.".into()),
            showings_in_another_currency: Vec::new(),
        };
        assert_eq!(
            failing(&live(), &unreachable),
            ["SQUARE_LOCATION_ID", "showing prices"]
        );
        let dollars = Facts {
            location_currency: Ok("GBP".into()),
            showings_in_another_currency: vec!["s1".into()],
        };
        let items = checklist(|name| live().get(name).cloned(), &dollars);
        let prices = items
            .iter()
            .find(|i| i.setting == "showing prices")
            .unwrap();
        assert!(!prices.ok && prices.detail.ends_with(": s1"), "{prices:?}");
    }

    #[test]
    fn a_local_run_with_the_stand_in_is_green() {
        let mut local = live();
        for (name, value) in [
            ("PUBLIC_URL", "http://127.0.0.1:8787"),
            ("SQUARE_BASE_URL", "http://127.0.0.1:8788"),
            ("SQUARE_SDK_URL", "http://127.0.0.1:8788/v1/square.js"),
            ("SQUARE_APPLICATION_ID", "sandbox-sq0idb-standin"),
            (
                "SQUARE_WEBHOOK_URL",
                "http://127.0.0.1:8787/webhooks/square",
            ),
            ("MAIL_FROM", "tickets@cinema.example"),
        ] {
            local.insert(name, value.into());
        }
        assert_eq!(failing(&local, &square_ok()), Vec::<&str>::new());
    }
}
