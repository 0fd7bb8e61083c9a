//! Saving a showing's edits: its object decides first (it refuses new
//! seats once any was held or sold), then D1's row follows. Staff edit a
//! showing, a screen's new layout reaches its showings that sold nothing,
//! and the cron sweep saves again one saved before objects kept a sales
//! window; making a showing shares what its object is told
//! ([`object_settings`]) and its film's title and screen's layout filled
//! in ([`resolve`]).

use desk::protocol::ShowingSetup;
use desk::Code;
use worker::{D1Database, Env};

use crate::api_error::ApiError;
use crate::db;
use crate::db::admin as admin_rows;
use crate::db::catalog as catalog_rows;
use crate::showing::{Layout, NewShowing, NewShowingRequest, Units};
use crate::showtime::client::ShowtimeClient;

/// Fills a showing's title from its film and its layout from its screen
/// where the body leaves them out; a film or screen that does not exist
/// is refused.
pub async fn resolve(env: &Env, body: &mut NewShowingRequest) -> Result<(), ApiError> {
    let db = db::database(env)?;
    if let Some(film_id) = &body.film_id {
        let film = catalog_rows::film(&db, film_id)
            .await?
            .ok_or_else(|| ApiError::new(Code::InvalidShowing, "film_id: no such film"))?;
        if body.title.as_deref().is_none_or(|t| t.trim().is_empty()) {
            body.title = film["title"].as_str().map(str::to_string);
        }
    }
    if let Some(screen_id) = &body.screen_id {
        let screen = catalog_rows::screen(&db, screen_id)
            .await?
            .ok_or_else(|| ApiError::new(Code::InvalidShowing, "screen_id: no such screen"))?;
        if body.layout.is_none() {
            body.layout = serde_json::from_value::<Layout>(screen["layout"].clone()).ok();
        }
    }
    Ok(())
}

/// What the showing's object is told of a showing made at
/// `created_at_ms`; its sales and door times are checked here.
pub fn object_settings(
    env: &Env,
    id: &str,
    showing: &NewShowing,
    units: Units,
    created_at_ms: i64,
) -> Result<ShowingSetup, ApiError> {
    let defaults = crate::settings::window_defaults(env);
    let windows = showing
        .windows(created_at_ms, defaults)
        .map_err(|e| ApiError::new(Code::InvalidShowing, e.detail))?;
    Ok(ShowingSetup {
        showing_id: id.to_string(),
        units,
        price: showing.price.clone(),
        categories: showing.categories.clone(),
        max_seats_per_hold: showing.max_seats_per_hold,
        hold_ttl_ms: showing.hold_ttl_ms,
        payment_cap_ms: showing.payment_cap_ms,
        sales: windows.sales(),
        waiting_room: showing.admit_per_minute.is_some(),
    })
}

/// Saves an edit of a showing: its object decides first (it refuses new
/// seats once any was held or sold), then D1's row follows.
pub async fn save_edit(
    env: &Env,
    db: &D1Database,
    sid: &str,
    showing: &NewShowing,
    created_at_ms: i64,
) -> Result<(), ApiError> {
    let existing = db::get_showing(db, sid)
        .await?
        .ok_or_else(|| ApiError::not_found("showing"))?;
    // The object forgets orders once closed; D1 never does.
    if !existing.layout.same_seats(&showing.layout) && admin_rows::has_orders(db, sid).await? {
        return Err(ApiError::new(Code::LayoutLocked,
            "the seats cannot change once any order was made; title, time, price and limits still can",
        ));
    }
    let units = showing
        .units()
        .map_err(|e| ApiError::new(Code::InvalidShowing, e.detail))?;
    let seat_count = units.for_sale();
    let settings = object_settings(env, sid, showing, units, created_at_ms)?;
    ShowtimeClient::new(env, sid)?.configure(settings).await?;
    admin_rows::update_showing(db, sid, showing, seat_count).await?;
    Ok(())
}

/// Saves a showing again as it is stored, with a screen's new layout if
/// given, as an edit of the showing would: its object is told everything
/// anew. `false` if its object refuses the layout (a seat is held
/// meanwhile).
pub async fn resave(env: &Env, sid: &str, layout: Option<&Layout>) -> Result<bool, ApiError> {
    let db = db::database(env)?;
    let Some(existing) = db::get_showing(&db, sid).await? else {
        return Ok(false);
    };
    let object = ShowtimeClient::new(env, sid)?;
    let payment_cap_ms = object.stats().await?["payment_cap_ms"]
        .as_u64()
        .unwrap_or(crate::showing::DEFAULT_PAYMENT_CAP_MS);
    let showing = NewShowing {
        title: existing.title.clone(),
        starts_at_ms: existing.starts_at_ms,
        price: existing.price.clone(),
        categories: existing.prices.clone(),
        layout: layout.cloned().unwrap_or_else(|| existing.layout.clone()),
        max_seats_per_hold: existing.max_seats_per_hold,
        hold_ttl_ms: existing.hold_ttl_ms,
        payment_cap_ms,
        windows: existing.windows,
        film_id: existing.film_id.clone(),
        screen_id: existing.screen_id.clone(),
        admit_per_minute: existing.admit_per_minute,
    };
    match save_edit(env, &db, sid, &showing, existing.created_at_ms).await {
        Ok(()) => Ok(true),
        Err(e) if e.code == Code::LayoutLocked.as_str() => Ok(false),
        Err(e) => Err(e),
    }
}
