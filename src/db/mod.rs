//! Every D1 query lives here. D1 is the record of showings, orders and
//! tickets; the seats' live state belongs to the Showtime objects.
//!
//! - this module: showings.
//! - [`orders`]: orders, tickets and the audit trail.
//! - [`refunds`]: refunds and the tickets they void.
//! - [`mail`]: the mail outbox.
//! - [`moves`]: a ticket staff moved to another seat.
//! - [`admin`]: what the admin pages read: sales, search, attention, export.
//! - [`reports`]: what the distributor return reads.

pub mod admin;
pub mod catalog;
pub mod codes;
pub mod door;
pub mod mail;
pub mod moves;
pub mod orders;
pub mod reconcile;
pub mod refunds;
pub mod reports;

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;
use worker::{D1Database, Env, Result};

use crate::showing::{Layout, Money, NewShowing};
use desk::window::Overrides;

/// The most showings one listing returns.
const LIST_LIMIT: u32 = 200;

pub fn database(env: &Env) -> Result<D1Database> {
    env.d1("DB")
}

/// A showing as listed to buyers and staff.
#[derive(Debug, Clone, Serialize)]
pub struct Showing {
    pub id: String,
    pub title: String,
    pub starts_at_ms: i64,
    pub price: Money,
    pub layout: Layout,
    /// The layout's immutable version (`GET /api/layouts/{version}`).
    pub layout_version: String,
    pub seat_count: u32,
    pub max_seats_per_hold: u32,
    pub hold_ttl_ms: u64,
    /// When staff cancelled it, and what buyers are told.
    pub cancelled_at_ms: Option<i64>,
    pub cancel_reason: Option<String>,
    pub created_at_ms: i64,
    /// Staff's own sales and door times (`None`: the default).
    pub windows: Overrides,
    /// Its price categories, the first the default.
    pub prices: Vec<crate::showing::PriceCategory>,
    pub film_id: Option<String>,
    pub screen_id: Option<String>,
    /// Its waiting room's admission rate, if it has one.
    pub admit_per_minute: Option<u32>,
}

/// A row of `showings` as D1 returns it. Numbers arrive as JSON numbers
/// (f64), so they are read as f64 and converted once, here.
#[derive(Deserialize)]
struct ShowingRow {
    id: String,
    title: String,
    starts_at_ms: f64,
    price_amount: f64,
    currency: String,
    layout_json: String,
    layout_version: Option<String>,
    seat_count: f64,
    max_seats_per_hold: f64,
    hold_ttl_ms: f64,
    cancelled_at_ms: Option<f64>,
    cancel_reason: Option<String>,
    created_at_ms: f64,
    sales_open_at_ms: Option<f64>,
    sales_close_at_ms: Option<f64>,
    door_close_at_ms: Option<f64>,
    prices_json: Option<String>,
    film_id: Option<String>,
    screen_id: Option<String>,
    admit_per_minute: Option<f64>,
}

impl ShowingRow {
    fn into_showing(self) -> Result<Showing> {
        let layout = serde_json::from_str(&self.layout_json)
            .map_err(|e| worker::Error::RustError(format!("showing {}: layout: {e}", self.id)))?;
        // A showing saved with one price has that one category.
        let prices = match &self.prices_json {
            Some(json) => serde_json::from_str(json).map_err(|e| {
                worker::Error::RustError(format!("showing {}: prices: {e}", self.id))
            })?,
            None => vec![crate::showing::PriceCategory {
                id: desk::STANDARD_PRICE.into(),
                name: "Standard".into(),
                amount: self.price_amount as u64,
            }],
        };
        // Every row has one since migration 0028; computed as a save would.
        let layout_version = self
            .layout_version
            .unwrap_or_else(|| crate::showing::layout_version(&self.layout_json));
        Ok(Showing {
            layout_version,
            id: self.id,
            title: self.title,
            starts_at_ms: self.starts_at_ms as i64,
            price: Money {
                amount: self.price_amount as u64,
                currency: self.currency,
            },
            layout,
            seat_count: self.seat_count as u32,
            max_seats_per_hold: self.max_seats_per_hold as u32,
            hold_ttl_ms: self.hold_ttl_ms as u64,
            cancelled_at_ms: self.cancelled_at_ms.map(|ms| ms as i64),
            cancel_reason: self.cancel_reason,
            created_at_ms: self.created_at_ms as i64,
            windows: Overrides {
                sales_open_at_ms: self.sales_open_at_ms.map(|ms| ms as i64),
                sales_close_at_ms: self.sales_close_at_ms.map(|ms| ms as i64),
                door_close_at_ms: self.door_close_at_ms.map(|ms| ms as i64),
            },
            prices,
            film_id: self.film_id,
            screen_id: self.screen_id,
            admit_per_minute: self.admit_per_minute.map(|n| n as u32),
        })
    }
}

impl Showing {
    /// When it sells and when its door admits, with the cinema's defaults.
    pub fn windows(&self, defaults: desk::window::Defaults) -> desk::window::Windows {
        desk::window::Windows::unchecked(
            self.starts_at_ms,
            self.created_at_ms,
            self.windows,
            defaults,
        )
    }

    /// Its sales and door times for the pages, and where sales stand now.
    pub fn sales_json(&self, defaults: desk::window::Defaults, now_ms: i64) -> serde_json::Value {
        let windows = self.windows(defaults);
        serde_json::json!({
            "state": windows.sales().at(now_ms.max(0) as u64),
            "opens_at_ms": windows.sales_open_at_ms,
            "closes_at_ms": windows.sales_close_at_ms,
            "door_close_at_ms": windows.door_close_at_ms,
        })
    }
}

const SHOWING_COLUMNS: &str =
    "id, title, starts_at_ms, price_amount, currency, layout_json, layout_version, \
     seat_count, max_seats_per_hold, hold_ttl_ms, cancelled_at_ms, cancel_reason, created_at_ms, \
     sales_open_at_ms, sales_close_at_ms, door_close_at_ms, prices_json, film_id, screen_id, \
     admit_per_minute";

pub async fn insert_showing(
    db: &D1Database,
    id: &str,
    showing: &NewShowing,
    seat_count: usize,
    now_ms: i64,
) -> Result<()> {
    let layout_json = serde_json::to_string(&showing.layout)?;
    let (keep_layout, version) = layout_row(db, &layout_json, now_ms)?;
    let insert = db
        .prepare(
            "INSERT INTO showings (id, title, starts_at_ms, price_amount, currency, layout_json, \
         seat_count, max_seats_per_hold, hold_ttl_ms, created_at_ms, sales_open_at_ms, \
         sales_close_at_ms, door_close_at_ms, prices_json, film_id, screen_id, windows_sent, \
         layout_version, admit_per_minute) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, 1, ?17, ?18)",
        )
        .bind(&[
            id.into(),
            showing.title.as_str().into(),
            JsValue::from(showing.starts_at_ms as f64),
            JsValue::from(showing.price.amount as f64),
            showing.price.currency.as_str().into(),
            layout_json.into(),
            JsValue::from(seat_count as f64),
            JsValue::from(showing.max_seats_per_hold as f64),
            JsValue::from(showing.hold_ttl_ms as f64),
            JsValue::from(now_ms as f64),
            optional_ms(showing.windows.sales_open_at_ms),
            optional_ms(showing.windows.sales_close_at_ms),
            optional_ms(showing.windows.door_close_at_ms),
            serde_json::to_string(&showing.categories)?.into(),
            optional_text(&showing.film_id),
            optional_text(&showing.screen_id),
            version.into(),
            showing
                .admit_per_minute
                .map_or(JsValue::NULL, |n| JsValue::from(f64::from(n))),
        ])?;
    db.batch(vec![keep_layout, insert]).await?;
    Ok(())
}

/// The statement that keeps a layout under its version (once: a version's
/// layout never changes), and the version.
pub(crate) fn layout_row(
    db: &D1Database,
    layout_json: &str,
    now_ms: i64,
) -> Result<(worker::D1PreparedStatement, String)> {
    let version = crate::showing::layout_version(layout_json);
    let statement = db
        .prepare(
            "INSERT INTO layouts (version, layout_json, created_at_ms) VALUES (?1, ?2, ?3) \
             ON CONFLICT (version) DO NOTHING",
        )
        .bind(&[
            version.as_str().into(),
            layout_json.into(),
            JsValue::from(now_ms as f64),
        ])?;
    Ok((statement, version))
}

/// A layout by its version, as it was saved.
pub async fn get_layout(db: &D1Database, version: &str) -> Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        layout_json: String,
    }
    let row: Option<Row> = db
        .prepare("SELECT layout_json FROM layouts WHERE version = ?1")
        .bind(&[version.into()])?
        .first(None)
        .await?;
    Ok(row.map(|r| r.layout_json))
}

/// Optional text for a nullable column.
/// Every row `sql` answers with `params`, read as `T`.
pub async fn rows<T: serde::de::DeserializeOwned>(
    db: &D1Database,
    sql: &str,
    params: &[JsValue],
) -> Result<Vec<T>> {
    db.prepare(sql).bind(params)?.all().await?.results()
}

/// A whole number as D1 binds it (a JavaScript number: exact below 2^53,
/// which every id-free count and time here is).
pub fn num(n: u64) -> JsValue {
    JsValue::from(n as f64)
}

pub fn optional_text(text: &Option<String>) -> JsValue {
    text.as_deref().map(JsValue::from).unwrap_or(JsValue::NULL)
}

/// An optional time for a nullable column.
pub fn optional_ms(ms: Option<i64>) -> JsValue {
    ms.map(|ms| JsValue::from(ms as f64))
        .unwrap_or(JsValue::NULL)
}

pub async fn get_showing(db: &D1Database, id: &str) -> Result<Option<Showing>> {
    let row: Option<ShowingRow> = db
        .prepare(format!(
            "SELECT {SHOWING_COLUMNS} FROM showings WHERE id = ?1"
        ))
        .bind(&[id.into()])?
        .first(None)
        .await?;
    row.map(ShowingRow::into_showing).transpose()
}

/// A showing's title and start alone: what a card payment's Square order
/// names its seats by, without reading (and parsing) its layout.
pub async fn title_and_start(db: &D1Database, id: &str) -> Result<Option<(String, i64)>> {
    #[derive(serde::Deserialize)]
    struct Row {
        title: String,
        starts_at_ms: f64,
    }
    let row: Option<Row> = db
        .prepare("SELECT title, starts_at_ms FROM showings WHERE id = ?1")
        .bind(&[id.into()])?
        .first(None)
        .await?;
    Ok(row.map(|r| (r.title, r.starts_at_ms as i64)))
}

/// Most showings a buyer is offered to exchange to.
const EXCHANGE_CHOICES: u32 = 20;

/// Other showings of the same film as `showing_id` that start after
/// `from_ms` and are not cancelled, soonest first: where its tickets may be
/// exchanged to. A showing with no film has none.
pub async fn same_film_showings(
    db: &D1Database,
    showing_id: &str,
    from_ms: u64,
) -> Result<Vec<Showing>> {
    let rows: Vec<ShowingRow> = db
        .prepare(format!(
            "SELECT {SHOWING_COLUMNS} FROM showings WHERE film_id = \
             (SELECT film_id FROM showings WHERE id = ?1) AND id <> ?1 \
             AND cancelled_at_ms IS NULL AND starts_at_ms > ?2 \
             ORDER BY starts_at_ms, id LIMIT {EXCHANGE_CHOICES}"
        ))
        .bind(&[showing_id.into(), num(from_ms)])?
        .all()
        .await?
        .results()?;
    rows.into_iter().map(ShowingRow::into_showing).collect()
}

/// Showings that start at or after `from_ms`, soonest first.
pub async fn upcoming_showings(db: &D1Database, from_ms: i64) -> Result<Vec<Showing>> {
    showings_starting_between(db, from_ms, i64::MAX).await
}

/// Showings that start from `from_ms` up to `until_ms`, soonest first.
pub async fn showings_starting_between(
    db: &D1Database,
    from_ms: i64,
    until_ms: i64,
) -> Result<Vec<Showing>> {
    let rows: Vec<ShowingRow> = db
        .prepare(format!(
            "SELECT {SHOWING_COLUMNS} FROM showings WHERE starts_at_ms >= ?1 AND starts_at_ms <= ?2 \
             ORDER BY starts_at_ms, id LIMIT {LIST_LIMIT}"
        ))
        .bind(&[
            JsValue::from(from_ms as f64),
            JsValue::from(until_ms as f64),
        ])?
        .all()
        .await?
        .results()?;
    rows.into_iter().map(ShowingRow::into_showing).collect()
}

/// Showings yet to end whose object has not been told its sales window
/// (saved before objects kept one), at most `limit`.
pub async fn showings_without_windows(
    db: &D1Database,
    from_ms: i64,
    limit: u32,
) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
    }
    let rows: Vec<Row> = db
        .prepare(
            "SELECT id FROM showings WHERE windows_sent = 0 AND starts_at_ms >= ?1 \
             AND cancelled_at_ms IS NULL ORDER BY starts_at_ms LIMIT ?2",
        )
        .bind(&[JsValue::from(from_ms as f64), limit.into()])?
        .all()
        .await?
        .results()?;
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// Cancelled showings whose orders are not all refunded yet, oldest first.
pub async fn cancels_unsettled(db: &D1Database, limit: u32) -> Result<Vec<String>> {
    #[derive(Deserialize)]
    struct Row {
        id: String,
    }
    let rows: Vec<Row> = db
        .prepare(
            "SELECT id FROM showings WHERE cancelled_at_ms IS NOT NULL \
             AND cancel_settled_at_ms IS NULL ORDER BY cancelled_at_ms LIMIT ?1",
        )
        .bind(&[limit.into()])?
        .all()
        .await?
        .results()?;
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// The cancelled showing has no paid or pending online order left: the sweep
/// stops looking at it.
pub async fn settle_cancel(db: &D1Database, id: &str, now_ms: u64) -> Result<()> {
    db.prepare(
        "UPDATE showings SET cancel_settled_at_ms = ?1 WHERE id = ?2 \
         AND NOT EXISTS (SELECT 1 FROM orders WHERE showing_id = ?2 \
         AND status IN ('paid', 'pending') AND channel = 'online')",
    )
    .bind(&[JsValue::from(now_ms as f64), id.into()])?
    .run()
    .await?;
    Ok(())
}

/// Wrong credentials sent by `client` since `since_ms`.
pub async fn wrong_guesses_since(db: &D1Database, client: &str, since_ms: u64) -> Result<u64> {
    #[derive(Deserialize)]
    struct Row {
        n: f64,
    }
    let row: Option<Row> = db
        .prepare("SELECT COUNT(*) AS n FROM credential_failures WHERE client = ?1 AND at_ms >= ?2")
        .bind(&[client.into(), (since_ms as f64).into()])?
        .first(None)
        .await?;
    Ok(row.map_or(0, |r| r.n as u64))
}

/// Notes a wrong credential from `client`, forgetting those older than
/// `forget_before_ms` (of every client) in the same batch.
pub async fn note_wrong_guess(
    db: &D1Database,
    client: &str,
    now_ms: u64,
    forget_before_ms: u64,
) -> Result<()> {
    db.batch(vec![
        db.prepare("DELETE FROM credential_failures WHERE at_ms < ?1")
            .bind(&[(forget_before_ms as f64).into()])?,
        db.prepare("INSERT INTO credential_failures (client, at_ms) VALUES (?1, ?2)")
            .bind(&[client.into(), (now_ms as f64).into()])?,
    ])
    .await?;
    Ok(())
}

/// The staff sign-out epoch (see migrations/0017_staff_epoch.sql).
pub async fn staff_epoch(db: &D1Database) -> Result<u64> {
    Ok(staff_standing(db, "").await?.0)
}

/// The staff sign-out epoch, and whether the session with this nonce was
/// signed out on its own (migrations/0022_staff_signouts.sql): one read
/// for every request made with a staff cookie.
pub async fn staff_standing(db: &D1Database, nonce: &str) -> Result<(u64, bool)> {
    #[derive(Deserialize)]
    struct Row {
        epoch: f64,
        signed_out: f64,
    }
    let row: Option<Row> = db
        .prepare(
            "SELECT epoch, EXISTS (SELECT 1 FROM staff_signouts WHERE nonce = ?1) AS signed_out \
             FROM staff_epoch WHERE id = 1",
        )
        .bind(&[nonce.into()])?
        .first(None)
        .await?;
    Ok(row.map_or((0, false), |r| (r.epoch as u64, r.signed_out != 0.0)))
}

/// Ends one staff session: its nonce is kept until the session would have
/// ended by itself; sign-outs older than that are cleared on the way, so
/// the table holds at most a working day of them.
pub async fn sign_out_staff_session(
    db: &D1Database,
    nonce: &str,
    ends_at_ms: u64,
    now_ms: u64,
) -> Result<()> {
    db.batch(vec![
        db.prepare("DELETE FROM staff_signouts WHERE until_ms <= ?1")
            .bind(&[(now_ms as f64).into()])?,
        db.prepare("INSERT OR IGNORE INTO staff_signouts (nonce, until_ms) VALUES (?1, ?2)")
            .bind(&[nonce.into(), (ends_at_ms as f64).into()])?,
    ])
    .await?;
    Ok(())
}

/// Ends every staff session.
pub async fn advance_staff_epoch(db: &D1Database) -> Result<()> {
    db.prepare("UPDATE staff_epoch SET epoch = epoch + 1 WHERE id = 1")
        .run()
        .await?;
    Ok(())
}

pub async fn set_door_pin_hash(db: &D1Database, showing_id: &str, hash: &str) -> Result<bool> {
    let result = db
        .prepare("UPDATE showings SET door_pin_hash = ?1 WHERE id = ?2")
        .bind(&[hash.into(), showing_id.into()])?
        .run()
        .await?;
    Ok(result.meta()?.and_then(|m| m.changes).unwrap_or(0) == 1)
}

pub async fn door_pin_hash(db: &D1Database, showing_id: &str) -> Result<Option<String>> {
    #[derive(Deserialize)]
    struct Row {
        door_pin_hash: Option<String>,
    }
    let row: Option<Row> = db
        .prepare("SELECT door_pin_hash FROM showings WHERE id = ?1")
        .bind(&[showing_id.into()])?
        .first(None)
        .await?;
    Ok(row.and_then(|r| r.door_pin_hash))
}
