//! The object's SQLite storage. Only this module knows its tables.
//!
//! One row per seat, per hold and per order, so that a decision writes only
//! the rows it changed ([`persist`]), whatever the size of the venue. Every
//! function here is synchronous: SQLite storage calls do not await, and
//! writes with no `await` between them commit together.

use ledger::{Changes, HoldRecord, Ledger, OrderRecord, Snapshot, UnitRow, UnitState};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use worker::{SqlCursor, SqlStorage, SqlStorageValue};

use crate::api_error::ApiError;
use crate::showing::Money;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS units (
  idx INTEGER PRIMARY KEY, name TEXT NOT NULL, state TEXT NOT NULL, owner TEXT);
CREATE TABLE IF NOT EXISTS holds (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS hold_owners (
  hold_id TEXT PRIMARY KEY, buyer TEXT NOT NULL, seats TEXT NOT NULL,
  ended TEXT, ended_at_ms INTEGER);
CREATE INDEX IF NOT EXISTS hold_owners_live ON hold_owners (buyer) WHERE ended IS NULL;
CREATE TABLE IF NOT EXISTS idempotency (
  key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL,
  body TEXT NOT NULL, buyer TEXT NOT NULL, created_at_ms INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (created_at_ms);
CREATE TABLE IF NOT EXISTS checkouts (
  order_id TEXT PRIMARY KEY, auth_key TEXT NOT NULL UNIQUE, record TEXT NOT NULL,
  due_at_ms INTEGER);
CREATE INDEX IF NOT EXISTS checkouts_due ON checkouts (due_at_ms) WHERE due_at_ms IS NOT NULL";

/// How long an `Idempotency-Key` answer is kept.
pub const IDEMPOTENCY_TTL_MS: u64 = 24 * 3600 * 1000;
/// How long an ended hold's owner row is kept, so its buyer can still be
/// told it expired.
const ENDED_HOLD_TTL_MS: u64 = 3600 * 1000;
/// Most stale rows one request deletes, so cleaning never makes a request slow.
const PURGE_BATCH: i64 = 20;
/// Most ended hold owners one alarm or sweep forgets: far more holds than
/// can end between two alarms of a busy showing.
const OWNER_PURGE_BATCH: i64 = 2_000;

/// The showing's facts the object needs besides its seats.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShowingMeta {
    pub showing_id: String,
    pub price: Money,
    pub config: ledger::Config,
}

/// Why a hold ended, kept for its buyer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HoldEnd {
    Expired,
    Released,
    Committed,
}

impl HoldEnd {
    fn as_str(self) -> &'static str {
        match self {
            HoldEnd::Expired => "expired",
            HoldEnd::Released => "released",
            HoldEnd::Committed => "committed",
        }
    }
}

thread_local! {
    /// Rows written since the last [`take_rows_written`]: the object reports
    /// it per decision, which shows that writes follow the seats changed,
    /// not the size of the venue.
    static ROWS_WRITTEN: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Rows written since the last call, and starts counting afresh.
pub fn take_rows_written() -> u64 {
    ROWS_WRITTEN.with(|n| n.replace(0))
}

fn exec(
    sql: &SqlStorage,
    query: &str,
    args: impl Into<Option<Vec<SqlStorageValue>>>,
) -> Result<SqlCursor, ApiError> {
    let cursor = sql.exec(query, args)?;
    ROWS_WRITTEN.with(|n| n.set(n.get() + cursor.rows_written() as u64));
    Ok(cursor)
}

fn int(n: u64) -> SqlStorageValue {
    SqlStorageValue::Integer(n as i64)
}

fn rows<T: DeserializeOwned>(
    sql: &SqlStorage,
    query: &str,
    args: Vec<SqlStorageValue>,
) -> Result<Vec<T>, ApiError> {
    Ok(exec(sql, query, args)?.to_array()?)
}

fn to_json<T: Serialize>(value: &T) -> Result<String, ApiError> {
    serde_json::to_string(value).map_err(|e| ApiError::internal(e.to_string()))
}

fn from_json<T: DeserializeOwned>(text: &str) -> Result<T, ApiError> {
    serde_json::from_str(text).map_err(|e| ApiError::internal(format!("stored row: {e}")))
}

#[derive(Deserialize)]
struct Text {
    value: String,
}

pub fn get_meta(sql: &SqlStorage, key: &str) -> Result<Option<String>, ApiError> {
    let found: Vec<Text> = rows(
        sql,
        "SELECT value FROM meta WHERE key = ?",
        vec![key.into()],
    )?;
    Ok(found.into_iter().next().map(|t| t.value))
}

pub fn set_meta(sql: &SqlStorage, key: &str, value: &str) -> Result<(), ApiError> {
    exec(
        sql,
        "INSERT INTO meta (key, value) VALUES (?, ?) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        vec![key.into(), value.into()],
    )?;
    Ok(())
}

fn encode_unit(state: &UnitState) -> (&'static str, Option<&str>) {
    match state {
        UnitState::Available => ("available", None),
        UnitState::Held(hold) => ("held", Some(hold.as_str())),
        UnitState::Pending(order) => ("pending", Some(order.as_str())),
        UnitState::Sold(order) => ("sold", Some(order.as_str())),
        UnitState::Blocked => ("blocked", None),
    }
}

fn decode_unit(state: &str, owner: Option<String>) -> Result<UnitState, ApiError> {
    let bad = || ApiError::internal(format!("stored seat state {state:?} is not valid"));
    let owner = || owner.clone().ok_or_else(bad);
    Ok(match state {
        "available" => UnitState::Available,
        "blocked" => UnitState::Blocked,
        "held" => UnitState::Held(ledger::HoldId::new(owner()?).map_err(|_| bad())?),
        "pending" => UnitState::Pending(ledger::OrderId::new(owner()?).map_err(|_| bad())?),
        "sold" => UnitState::Sold(ledger::OrderId::new(owner()?).map_err(|_| bad())?),
        _ => return Err(bad()),
    })
}

/// The stored showing, or `None` when this object was never set up.
pub fn load(sql: &SqlStorage) -> Result<Option<(Ledger, ShowingMeta)>, ApiError> {
    // Reading must not write: asking about a showing that does not exist
    // leaves no storage behind.
    let tables: Vec<Text> = rows(
        sql,
        "SELECT name AS value FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
        vec![],
    )?;
    if tables.is_empty() {
        return Ok(None);
    }
    let Some(meta) = get_meta(sql, "showing")? else {
        return Ok(None);
    };
    // Tables added since this showing was created.
    create_tables(sql)?;
    let meta: ShowingMeta = from_json(&meta)?;
    let number = |key| -> Result<u64, ApiError> {
        Ok(get_meta(sql, key)?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
    };
    #[derive(Deserialize)]
    struct Unit {
        name: String,
        state: String,
        owner: Option<String>,
    }
    #[derive(Deserialize)]
    struct Record {
        record: String,
    }
    let units: Vec<Unit> = rows(
        sql,
        "SELECT name, state, owner FROM units ORDER BY idx",
        vec![],
    )?;
    let units = units
        .into_iter()
        .map(|u| {
            Ok(UnitRow {
                state: decode_unit(&u.state, u.owner)?,
                name: u.name,
            })
        })
        .collect::<Result<_, ApiError>>()?;
    let holds: Vec<Record> = rows(sql, "SELECT record FROM holds", vec![])?;
    let orders: Vec<Record> = rows(sql, "SELECT record FROM orders", vec![])?;
    let snapshot = Snapshot {
        config: meta.config.clone(),
        version: number("version")?,
        latest_now_ms: number("latest_now_ms")?,
        units,
        holds: holds
            .iter()
            .map(|r| from_json(&r.record))
            .collect::<Result<_, _>>()?,
        orders: orders
            .iter()
            .map(|r| from_json(&r.record))
            .collect::<Result<_, _>>()?,
    };
    let ledger = Ledger::restore(snapshot)
        .map_err(|e| ApiError::internal(format!("stored seats refused: {e}")))?;
    Ok(Some((ledger, meta)))
}

/// Writes a new showing: its facts and one row per seat.
fn create_tables(sql: &SqlStorage) -> Result<(), ApiError> {
    for statement in SCHEMA.split(';').filter(|s| !s.trim().is_empty()) {
        sql.exec(statement, None)?;
    }
    Ok(())
}

pub fn create(sql: &SqlStorage, ledger: &Ledger, meta: &ShowingMeta) -> Result<(), ApiError> {
    create_tables(sql)?;
    for idx in 0..ledger.unit_count() {
        let unit = ledger::UnitId(idx as u32);
        let name = ledger.unit_name(unit).unwrap_or_default();
        let state = ledger.unit_state(unit).unwrap_or(&UnitState::Available);
        let (state, owner) = encode_unit(state);
        exec(
            sql,
            "INSERT INTO units (idx, name, state, owner) VALUES (?, ?, ?, ?)",
            vec![int(idx as u64), name.into(), state.into(), owner.into()],
        )?;
    }
    set_meta(sql, "showing", &to_json(meta)?)?;
    set_meta(sql, "version", &ledger.version().to_string())?;
    set_meta(sql, "latest_now_ms", &ledger.latest_now_ms().to_string())?;
    Ok(())
}

/// Saves an edited showing: its facts, and when the seats changed, every
/// seat row anew.
pub fn reconfigure(
    sql: &SqlStorage,
    ledger: &Ledger,
    meta: &ShowingMeta,
    relayout: bool,
) -> Result<(), ApiError> {
    if relayout {
        exec(sql, "DELETE FROM units", vec![])?;
        create(sql, ledger, meta)
    } else {
        set_meta(sql, "showing", &to_json(meta)?)
    }
}

/// Writes the rows one decision changed. A hold that is gone from the
/// ledger ended as `hold_end` says (or expired, if the decision was about
/// something else and the hold merely ran out).
pub fn persist(
    sql: &SqlStorage,
    ledger: &Ledger,
    changes: &Changes,
    ended: &dyn Fn(&ledger::HoldId) -> HoldEnd,
    now_ms: u64,
) -> Result<(), ApiError> {
    if changes.is_empty() {
        return Ok(());
    }
    for &unit in &changes.units {
        let state = ledger.unit_state(unit).unwrap_or(&UnitState::Available);
        let (state, owner) = encode_unit(state);
        exec(
            sql,
            "UPDATE units SET state = ?, owner = ? WHERE idx = ?",
            vec![state.into(), owner.into(), int(u64::from(unit.0))],
        )?;
    }
    for hold in &changes.holds {
        persist_hold(sql, hold, ledger.hold_record(hold), ended(hold), now_ms)?;
    }
    for order in &changes.orders {
        persist_order(sql, order, ledger.order_record(order))?;
    }
    // Both scalars in one statement: every change writes them.
    exec(
        sql,
        "INSERT INTO meta (key, value) VALUES ('version', ?), ('latest_now_ms', ?) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        vec![
            changes.version.to_string().into(),
            changes.latest_now_ms.to_string().into(),
        ],
    )?;
    Ok(())
}

fn persist_hold(
    sql: &SqlStorage,
    id: &ledger::HoldId,
    record: Option<&HoldRecord>,
    ended: HoldEnd,
    now_ms: u64,
) -> Result<(), ApiError> {
    match record {
        Some(record) => exec(
            sql,
            "INSERT INTO holds (id, record) VALUES (?, ?) \
             ON CONFLICT (id) DO UPDATE SET record = excluded.record",
            vec![id.as_str().into(), to_json(record)?.into()],
        )?,
        None => {
            exec(
                sql,
                "DELETE FROM holds WHERE id = ?",
                vec![id.as_str().into()],
            )?;
            exec(
                sql,
                "UPDATE hold_owners SET ended = ?, ended_at_ms = ? \
                 WHERE hold_id = ? AND ended IS NULL",
                vec![ended.as_str().into(), int(now_ms), id.as_str().into()],
            )?
        }
    };
    Ok(())
}

fn persist_order(
    sql: &SqlStorage,
    id: &ledger::OrderId,
    record: Option<&OrderRecord>,
) -> Result<(), ApiError> {
    match record {
        Some(record) => exec(
            sql,
            "INSERT INTO orders (id, record) VALUES (?, ?) \
             ON CONFLICT (id) DO UPDATE SET record = excluded.record",
            vec![id.as_str().into(), to_json(record)?.into()],
        )?,
        None => exec(
            sql,
            "DELETE FROM orders WHERE id = ?",
            vec![id.as_str().into()],
        )?,
    };
    Ok(())
}

/// Who made a hold, for checking that only they can see or release it.
#[derive(Debug, Deserialize)]
pub struct Owner {
    pub buyer: String,
    pub seats: String,
    pub ended: Option<String>,
}

pub fn record_owner(
    sql: &SqlStorage,
    hold: &ledger::HoldId,
    buyer: &str,
    seats: &[String],
) -> Result<(), ApiError> {
    exec(
        sql,
        "INSERT INTO hold_owners (hold_id, buyer, seats) VALUES (?, ?, ?)",
        vec![hold.as_str().into(), buyer.into(), to_json(&seats)?.into()],
    )?;
    Ok(())
}

/// Forgets owners of holds that ended long ago. Run by the alarm and the
/// cron sweep rather than by every hold, which it would slow.
pub fn purge_owners(sql: &SqlStorage, now_ms: u64) -> Result<(), ApiError> {
    exec(
        sql,
        "DELETE FROM hold_owners WHERE hold_id IN (SELECT hold_id FROM hold_owners \
         WHERE ended_at_ms < ? LIMIT ?)",
        vec![
            int(now_ms.saturating_sub(ENDED_HOLD_TTL_MS)),
            SqlStorageValue::Integer(OWNER_PURGE_BATCH),
        ],
    )?;
    Ok(())
}

pub fn owner(sql: &SqlStorage, hold: &ledger::HoldId) -> Result<Option<Owner>, ApiError> {
    let found: Vec<Owner> = rows(
        sql,
        "SELECT buyer, seats, ended FROM hold_owners WHERE hold_id = ?",
        vec![hold.as_str().into()],
    )?;
    Ok(found.into_iter().next())
}

/// The hold ids a buyer made that have not ended (some may have expired
/// without a sweep yet; the ledger decides which are live).
pub fn open_holds_of(sql: &SqlStorage, buyer: &str) -> Result<Vec<String>, ApiError> {
    #[derive(Deserialize)]
    struct Id {
        hold_id: String,
    }
    let found: Vec<Id> = rows(
        sql,
        "SELECT hold_id FROM hold_owners WHERE buyer = ? AND ended IS NULL LIMIT 16",
        vec![buyer.into()],
    )?;
    Ok(found.into_iter().map(|i| i.hold_id).collect())
}

/// A stored answer to an idempotent request.
#[derive(Debug, Deserialize)]
pub struct Recorded {
    pub fingerprint: String,
    pub status: u16,
    pub body: String,
    pub buyer: String,
    pub created_at_ms: f64,
}

pub fn recorded_answer(
    sql: &SqlStorage,
    key: &str,
    now_ms: u64,
) -> Result<Option<Recorded>, ApiError> {
    let found: Vec<Recorded> = rows(
        sql,
        "SELECT fingerprint, status, body, buyer, created_at_ms FROM idempotency WHERE key = ?",
        vec![key.into()],
    )?;
    let fresh = |r: &Recorded| (r.created_at_ms as u64).saturating_add(IDEMPOTENCY_TTL_MS) > now_ms;
    Ok(found.into_iter().next().filter(fresh))
}

pub fn record_answer(
    sql: &SqlStorage,
    key: &str,
    fingerprint: &str,
    status: u16,
    body: &str,
    buyer: &str,
    now_ms: u64,
) -> Result<(), ApiError> {
    exec(
        sql,
        "DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency \
         WHERE created_at_ms < ? LIMIT ?)",
        vec![
            int(now_ms.saturating_sub(IDEMPOTENCY_TTL_MS)),
            SqlStorageValue::Integer(PURGE_BATCH),
        ],
    )?;
    exec(
        sql,
        "INSERT INTO idempotency (key, fingerprint, status, body, buyer, created_at_ms) \
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET fingerprint = \
         excluded.fingerprint, status = excluded.status, body = excluded.body, \
         buyer = excluded.buyer, created_at_ms = excluded.created_at_ms",
        vec![
            key.into(),
            fingerprint.into(),
            int(u64::from(status)),
            body.into(),
            buyer.into(),
            int(now_ms),
        ],
    )?;
    Ok(())
}

/// A checkout as stored: the machine's state, found by order id or by its
/// authorization key (the same hold and card always find the same order).
pub fn get_checkout(
    sql: &SqlStorage,
    order_id: &str,
) -> Result<Option<checkout::Checkout>, ApiError> {
    #[derive(Deserialize)]
    struct Record {
        record: String,
    }
    let found: Vec<Record> = rows(
        sql,
        "SELECT record FROM checkouts WHERE order_id = ?",
        vec![order_id.into()],
    )?;
    found.first().map(|r| from_json(&r.record)).transpose()
}

pub fn checkout_by_key(sql: &SqlStorage, auth_key: &str) -> Result<Option<String>, ApiError> {
    #[derive(Deserialize)]
    struct Id {
        order_id: String,
    }
    let found: Vec<Id> = rows(
        sql,
        "SELECT order_id FROM checkouts WHERE auth_key = ?",
        vec![auth_key.into()],
    )?;
    Ok(found.into_iter().next().map(|r| r.order_id))
}

/// Saves a checkout before any of its actions are performed.
pub fn put_checkout(sql: &SqlStorage, checkout: &checkout::Checkout) -> Result<(), ApiError> {
    let due = checkout
        .poll_timeout()
        .map(int)
        .unwrap_or(SqlStorageValue::Null);
    exec(
        sql,
        "INSERT INTO checkouts (order_id, auth_key, record, due_at_ms) VALUES (?, ?, ?, ?) \
         ON CONFLICT (order_id) DO UPDATE SET record = excluded.record, due_at_ms = excluded.due_at_ms",
        vec![
            checkout.order().order_id.as_str().into(),
            checkout.authorization_key().into(),
            to_json(checkout)?.into(),
            due,
        ],
    )?;
    Ok(())
}

/// Unfinished checkouts whose next step is due by `now_ms`, soonest first.
pub fn due_checkouts(sql: &SqlStorage, now_ms: u64) -> Result<Vec<String>, ApiError> {
    #[derive(Deserialize)]
    struct Id {
        order_id: String,
    }
    let found: Vec<Id> = rows(
        sql,
        "SELECT order_id FROM checkouts WHERE due_at_ms <= ? ORDER BY due_at_ms LIMIT 20",
        vec![int(now_ms)],
    )?;
    Ok(found.into_iter().map(|r| r.order_id).collect())
}

/// When the next unfinished checkout is due.
pub fn next_checkout_due(sql: &SqlStorage) -> Result<Option<u64>, ApiError> {
    #[derive(Deserialize)]
    struct Due {
        due: Option<f64>,
    }
    let found: Vec<Due> = rows(
        sql,
        "SELECT MIN(due_at_ms) AS due FROM checkouts WHERE due_at_ms IS NOT NULL",
        vec![],
    )?;
    Ok(found.first().and_then(|d| d.due).map(|d| d as u64))
}

/// The write floor of the benchmark: one upsert into a one-row table that
/// only objects used by the benchmark have. The table is made on the first
/// call, so every later call is exactly one statement.
pub fn bench_write(sql: &SqlStorage) -> Result<(), ApiError> {
    const UPSERT: &str = "INSERT INTO bench (id, n) VALUES (1, 1) \
                          ON CONFLICT (id) DO UPDATE SET n = n + 1";
    if exec(sql, UPSERT, None).is_err() {
        sql.exec(
            "CREATE TABLE IF NOT EXISTS bench (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
            None,
        )?;
        exec(sql, UPSERT, None)?;
    }
    Ok(())
}
