//! The settings the Worker and the showing objects decide with, read from
//! the environment (`wrangler.toml` vars, `.dev.vars`), once per isolate.
//! A setting that is missing or unreadable takes its default.

use worker::Env;

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
            },
            sweep_min_age_ms: number(env, "SWEEP_MIN_AGE_MS").unwrap_or(60_000),
            digest_after_ms: number(env, "DIGEST_AFTER_MS").unwrap_or(DIGEST_EVERY_MS),
        }
    }
}

/// When sales close and the door stops admitting by default, after a
/// showing's start (`SALES_CLOSE_MINUTES`, 15; `DOOR_CLOSE_MINUTES`, 120;
/// each at most a day); staff may set other times for one showing.
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
