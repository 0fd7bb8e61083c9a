//! The cron sweep: what the showings' alarms and Square's webhooks should
//! have finished, found and finished; and the mail outbox, drained.

use worker::Env;

use crate::db;
use crate::db::orders as order_rows;
use crate::settings::Settings;
use crate::showtime::client::ShowtimeClient;

/// Most cancelled showings one sweep refunds for.
const CANCELS_PER_SWEEP: u32 = 5;
/// Most showings saved before objects kept a sales window that one sweep
/// tells their window.
const WINDOWS_PER_SWEEP: u32 = 20;

/// The cron sweep: every showing with an order pending for longer than
/// `SWEEP_MIN_AGE_MS` is told to resume its due checkouts (its own alarm
/// normally does), webhooks whose handling did not finish are handled,
/// refunds whose webhook never came are looked up, what
/// cancelled showings still owe is refunded, the
/// staff digest is queued when something has waited an hour, and mail
/// still due is sent.
pub async fn recovery_sweep(env: &Env, now_ms: u64) -> worker::Result<usize> {
    let min_age_ms = Settings::from_env(env).sweep_min_age_ms;
    if let Err(e) = crate::webhook_inbox::sweep(env, now_ms.saturating_sub(min_age_ms)).await {
        worker::console_error!("recovery sweep: webhooks: {}", e.detail);
    }
    if let Err(e) = crate::refunding::refund_sweep(env, now_ms).await {
        worker::console_error!("recovery sweep: refunds: {}", e.detail);
    }
    let db = db::database(env)?;
    let showings =
        order_rows::showings_with_stale_orders(&db, now_ms.saturating_sub(min_age_ms)).await?;
    for sid in &showings {
        let nudged = match ShowtimeClient::new(env, sid) {
            Ok(object) => object.recover().await,
            Err(e) => Err(e.into()),
        };
        if let Err(e) = nudged {
            worker::console_error!("recovery sweep: showing {sid}: {}", e.detail);
        }
    }
    // Cancelled showings: orders paid while the cancel was under way, or
    // beyond what the cancel itself refunded.
    for sid in db::cancels_unsettled(&db, CANCELS_PER_SWEEP).await? {
        if let Err(e) = crate::refunding::refund_cancelled(env, &db, &sid).await {
            worker::console_error!("recovery sweep: cancelled showing {sid}: {}", e.detail);
        }
        db::settle_cancel(&db, &sid, now_ms).await?;
    }
    // Showings saved before objects kept a sales window: re-saved once, so
    // that none sells on after its close.
    let from_ms = (now_ms as i64).saturating_sub(desk::window::MAX_AFTER_START_MS);
    for sid in db::showings_without_windows(&db, from_ms, WINDOWS_PER_SWEEP).await? {
        if let Err(e) = crate::showing_edit::resave(env, &sid, None).await {
            worker::console_error!(
                "recovery sweep: showing {sid}: window not sent: {}",
                e.detail
            );
        }
    }
    // Showings within 2 h 15 min of their start, each checked once.
    if let Err(e) = crate::reconciliation::sweep(env, now_ms).await {
        worker::console_error!("recovery sweep: reconciliation: {}", e.detail);
    }
    if let Err(e) = crate::mail::queue_digest(env, now_ms).await {
        worker::console_error!("recovery sweep: staff digest: {e}");
    }
    match crate::mail::drain(env, None, now_ms).await {
        Ok(d) if d.sent + d.retrying + d.failed > 0 => worker::console_log!(
            "recovery sweep: mail: {} sent, {} to retry, {} failed",
            d.sent,
            d.retrying,
            d.failed
        ),
        Ok(_) => {}
        Err(e) => worker::console_error!("recovery sweep: mail: {e}"),
    }
    Ok(showings.len())
}
