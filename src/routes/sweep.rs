//! The cron sweep: what the showings' alarms and Square's webhooks should
//! have finished, found and finished.

use worker::Env;

use crate::db;
use crate::db::orders as order_rows;
use crate::settings::Settings;
use crate::showtime::client::ShowtimeClient;

/// The cron sweep: every showing with an order pending for longer than
/// `SWEEP_MIN_AGE_MS` is told to resume its due checkouts (its own alarm
/// normally does), and refunds whose webhook never came are looked up.
pub async fn recovery_sweep(env: &Env, now_ms: u64) -> worker::Result<usize> {
    if let Err(e) = super::refunds::refund_sweep(env, now_ms).await {
        worker::console_error!("recovery sweep: refunds: {}", e.detail);
    }
    let db = db::database(env)?;
    let showings = order_rows::showings_with_stale_orders(
        &db,
        now_ms.saturating_sub(Settings::from_env(env).sweep_min_age_ms),
    )
    .await?;
    for sid in &showings {
        let nudged = match ShowtimeClient::new(env, sid) {
            Ok(object) => object.recover().await,
            Err(e) => Err(e.into()),
        };
        if let Err(e) = nudged {
            worker::console_error!("recovery sweep: showing {sid}: {}", e.detail);
        }
    }
    Ok(showings.len())
}
