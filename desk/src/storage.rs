//! The object's SQLite storage: its tables, every kind of row a decision
//! writes ([`Write`], each turned into statements by [`Write::statements`]),
//! and loading a desk back from the rows ([`load`]). Only this module knows
//! the object's SQL; the shell executes what it is given.
//!
//! One row per seat, hold, order and checkout, so a decision writes only
//! the rows it changed, whatever the size of the venue. The meta row
//! `format` says which version of these tables an object has: objects set
//! up before it (format 0) lack the outbox and rate tables, those of
//! format 1 the hold's client network, those of format 2 keep it in a
//! table of its own (`hold_clients`), and those of formats 0 to 3 keep each
//! live hold's record in a table of its own (`holds`) beside its owner row;
//! they are brought up to date the first time they load
//! ([`Write::Upgrade`]). Format 5 keeps when each idempotent answer was
//! last replayed (`used_at_ms`), so the least recently used goes first,
//! and no longer keeps wrong door PINs (D1 counts them per network).
//! Format 6 keeps the tickets staff moved to another seat (`moves`),
//! format 7 the waiting list (`waitlist`), format 8 the discount codes on
//! holds (`hold_codes`) and the messages to the codes' objects not yet
//! answered (`code_messages`).

use ledger::{Ledger, UnitId, UnitState};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::Decision;

/// The version of the tables this code writes.
pub const FORMAT: u32 = 8;

pub const SHOWING: &str = "showing";
pub const LAST_ALARM: &str = "last_alarm_ms";
pub const FAILPOINT: &str = "failpoint_fired";
const FORMAT_KEY: &str = "format";

/// How long an `Idempotency-Key` answer is kept: an older row is never
/// loaded, and is deleted by the load and the alarm (`replays.rs` keeps
/// the rest of the table's bounds).
pub const REPLAY_TTL_MS: u64 = 24 * 3600 * 1000;
/// Largest answer kept: a granted hold of ten seats with the longest names
/// and categories is about 2 KB.
pub const MAX_REPLAY_BODY_BYTES: usize = 4 * 1024;

const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS units (idx INTEGER PRIMARY KEY, name TEXT NOT NULL, state TEXT NOT NULL, owner TEXT)",
    "CREATE TABLE IF NOT EXISTS orders (id TEXT PRIMARY KEY, record TEXT NOT NULL)",
    // A hold's row: who made it, from which network, its seats and prices,
    // and while it lives the ledger's record of it; kept for an hour after
    // it ends, to tell its buyer how.
    "CREATE TABLE IF NOT EXISTS hold_owners (hold_id TEXT PRIMARY KEY, buyer TEXT NOT NULL, seats TEXT NOT NULL, ended TEXT, ended_at_ms INTEGER, client TEXT, record TEXT)",
    "CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body TEXT NOT NULL, buyer TEXT NOT NULL, created_at_ms INTEGER NOT NULL, used_at_ms INTEGER)",
    "CREATE TABLE IF NOT EXISTS checkouts (order_id TEXT PRIMARY KEY, auth_key TEXT NOT NULL UNIQUE, record TEXT NOT NULL, due_at_ms INTEGER)",
    "CREATE TABLE IF NOT EXISTS outbox (order_id TEXT PRIMARY KEY, action TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS rate_buckets (client TEXT PRIMARY KEY, tokens_milli INTEGER NOT NULL, at_ms INTEGER NOT NULL)",
    // Each ticket staff moved, by ticket: the move as it was made.
    "CREATE TABLE IF NOT EXISTS moves (ticket_id TEXT PRIMARY KEY, record TEXT NOT NULL)",
    // Each person on the waiting list, and their offer (JSON).
    "CREATE TABLE IF NOT EXISTS waitlist (id TEXT PRIMARY KEY, record TEXT NOT NULL)",
    // The discount code on a hold (JSON), beside its owner row.
    "CREATE TABLE IF NOT EXISTS hold_codes (hold_id TEXT PRIMARY KEY, record TEXT NOT NULL)",
    // What the codes' objects are still to be told (JSON), by code and hold.
    "CREATE TABLE IF NOT EXISTS code_messages (id TEXT PRIMARY KEY, record TEXT NOT NULL)",
    "INSERT INTO meta (key, value) VALUES ('format', '8') ON CONFLICT (key) DO UPDATE SET value = excluded.value",
];

/// A value bound to a statement.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Null,
    Integer(i64),
    Text(String),
}

impl From<&str> for SqlValue {
    fn from(text: &str) -> SqlValue {
        SqlValue::Text(text.to_string())
    }
}

impl From<String> for SqlValue {
    fn from(text: String) -> SqlValue {
        SqlValue::Text(text)
    }
}

impl From<u64> for SqlValue {
    fn from(n: u64) -> SqlValue {
        SqlValue::Integer(n as i64)
    }
}

impl<T: Into<SqlValue>> From<Option<T>> for SqlValue {
    fn from(value: Option<T>) -> SqlValue {
        value.map_or(SqlValue::Null, Into::into)
    }
}

/// One statement to execute, with its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    pub sql: &'static str,
    pub args: Vec<SqlValue>,
}

/// Why a hold ended, kept for its buyer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldEnd {
    Expired,
    Released,
    Committed,
}

impl HoldEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            HoldEnd::Expired => "expired",
            HoldEnd::Released => "released",
            HoldEnd::Committed => "committed",
        }
    }

    pub(crate) fn parse(text: &str) -> HoldEnd {
        match text {
            "released" => HoldEnd::Released,
            "committed" => HoldEnd::Committed,
            _ => HoldEnd::Expired,
        }
    }
}

/// Every kind of row the object writes, once each.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// The tables, made if missing, and the format row.
    CreateTables,
    /// An object's tables of an older format brought up to [`FORMAT`]:
    /// the owner rows gain their client column (copied from the
    /// `hold_clients` of format 2, which goes) and the live hold's record
    /// (from `holds`, which goes), then the missing tables.
    Upgrade {
        from: u32,
    },
    Meta {
        key: &'static str,
        value: String,
    },
    /// The ledger's version and latest instant, written with every change.
    Scalars {
        version: u64,
        latest_now_ms: u64,
    },
    /// Every seat row goes (the layout is being replaced).
    ClearUnits,
    Unit {
        idx: u32,
        name: String,
        state: &'static str,
        owner: Option<String>,
    },
    /// A live hold's record (JSON) on its owner row, or `None` when it
    /// ended. A new hold's record is written with its [`Write::Owner`].
    Hold {
        id: String,
        record: Option<String>,
    },
    /// The hold ended: its record goes from its owner row, and how and
    /// when it ended are kept.
    HoldEnded {
        id: String,
        how: HoldEnd,
        at_ms: u64,
    },
    Order {
        id: String,
        record: Option<String>,
    },
    Owner {
        hold_id: String,
        buyer: String,
        /// The network it was asked from ([`crate::rate::client_key`]).
        client: String,
        seats: Vec<String>,
        /// Each seat's price as held; stored in place of the seat names.
        prices: Vec<checkout::SeatPrice>,
        /// The ledger's record of the new hold (JSON): one row a hold.
        record: Option<String>,
    },
    ForgetOwner {
        hold_id: String,
    },
    /// The discount code on a hold (JSON), or `None` for none.
    HoldCode {
        hold_id: String,
        record: Option<String>,
    },
    /// A message for a code's object (JSON), or `None` once answered.
    CodeMessage {
        id: String,
        record: Option<String>,
    },
    /// A waiting list entry as it stands (JSON).
    WaitlistEntry {
        id: String,
        record: String,
    },
    /// An idempotent request's first answer.
    Replay {
        key: String,
        fingerprint: String,
        status: u16,
        body: String,
        buyer: String,
        at_ms: u64,
    },
    ForgetReplay {
        key: String,
    },
    /// An idempotent answer was replayed at `at_ms`.
    ReplayUsed {
        key: String,
        at_ms: u64,
    },
    /// Every idempotent answer made before `before_ms`, or too large to
    /// have been made by this code, goes: what a loaded desk never reads.
    ForgetStaleReplays {
        before_ms: u64,
    },
    Checkout {
        order_id: String,
        auth_key: String,
        record: String,
        due_at_ms: Option<u64>,
    },
    /// The checkout action waiting to be performed for an order (JSON), or
    /// `None` when there is none.
    Outbox {
        order_id: String,
        action: Option<String>,
    },
    RateBucket {
        client: String,
        tokens_milli: u64,
        at_ms: u64,
    },
    /// A finished checkout past its retention.
    ForgetCheckout {
        order_id: String,
    },
    /// A client forgotten to make room for another.
    ForgetRateBucket {
        client: String,
    },
    /// A ticket staff moved, and its move (JSON).
    Move {
        ticket_id: String,
        record: String,
    },
    /// The benchmark's table, for its write floor.
    BenchTable,
    /// The benchmark's write floor: one upsert of one row.
    BenchCounter,
}

fn stmt(sql: &'static str, args: Vec<SqlValue>) -> Vec<Statement> {
    vec![Statement { sql, args }]
}

impl Write {
    /// The statements that write this row, in order.
    pub fn statements(&self) -> Vec<Statement> {
        match self {
            Write::CreateTables => SCHEMA.iter().map(|sql| Statement { sql, args: vec![] }).collect(),
            Write::Upgrade { from } => {
                let mut sql: Vec<&'static str> = Vec::new();
                // Every format has had `hold_owners`; a hold's network is
                // kept on its owner row, so a hold writes one row, not two.
                if *from < 3 {
                    sql.push("ALTER TABLE hold_owners ADD COLUMN client TEXT");
                }
                if *from == 2 {
                    sql.push(
                        "UPDATE hold_owners SET client = (SELECT c.client FROM hold_clients c \
                         WHERE c.hold_id = hold_owners.hold_id)",
                    );
                    sql.push("DROP TABLE hold_clients");
                }
                // Each live hold's record moves onto its owner row. Every
                // hold has had an owner row; one without is given an empty
                // one rather than lose its seats.
                if *from < 4 {
                    sql.push("ALTER TABLE hold_owners ADD COLUMN record TEXT");
                    sql.push(
                        "INSERT INTO hold_owners (hold_id, buyer, seats) SELECT id, '', '[]' FROM holds \
                         WHERE id NOT IN (SELECT hold_id FROM hold_owners)",
                    );
                    sql.push(
                        "UPDATE hold_owners SET record = (SELECT h.record FROM holds h \
                         WHERE h.id = hold_owners.hold_id)",
                    );
                    sql.push("DROP TABLE holds");
                }
                if *from < 5 {
                    sql.push("ALTER TABLE idempotency ADD COLUMN used_at_ms INTEGER");
                    // Wrong door PINs are counted per network in D1 now.
                    sql.push("DROP TABLE IF EXISTS door_failures");
                    sql.push("DROP TABLE IF EXISTS door_failures_from");
                }
                sql.extend_from_slice(SCHEMA);
                sql.into_iter().map(|sql| Statement { sql, args: vec![] }).collect()
            }
            Write::Meta { key, value } => stmt(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                vec![(*key).into(), value.clone().into()],
            ),
            // Both scalars in one statement: every change writes them.
            Write::Scalars { version, latest_now_ms } => stmt(
                "INSERT INTO meta (key, value) VALUES ('version', ?), ('latest_now_ms', ?) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                vec![version.to_string().into(), latest_now_ms.to_string().into()],
            ),
            Write::ClearUnits => stmt("DELETE FROM units", vec![]),
            Write::Unit { idx, name, state, owner } => stmt(
                "INSERT INTO units (idx, name, state, owner) VALUES (?, ?, ?, ?) \
                 ON CONFLICT (idx) DO UPDATE SET state = excluded.state, owner = excluded.owner",
                vec![u64::from(*idx).into(), name.clone().into(), (*state).into(), owner.clone().into()],
            ),
            // A hold's record changed (it began paying). Its owner row was
            // written with it; should it be missing, an empty one keeps the
            // record rather than lose the seats.
            Write::Hold { id, record: Some(record) } => stmt(
                "INSERT INTO hold_owners (hold_id, buyer, seats, record) VALUES (?, '', '[]', ?) \
                 ON CONFLICT (hold_id) DO UPDATE SET record = excluded.record",
                vec![id.clone().into(), record.clone().into()],
            ),
            Write::Hold { id, record: None } => {
                stmt("UPDATE hold_owners SET record = NULL WHERE hold_id = ?", vec![id.clone().into()])
            }
            Write::HoldEnded { id, how, at_ms } => stmt(
                "UPDATE hold_owners SET record = NULL, ended = COALESCE(ended, ?), \
                 ended_at_ms = COALESCE(ended_at_ms, ?) WHERE hold_id = ?",
                vec![how.as_str().into(), (*at_ms).into(), id.clone().into()],
            ),
            Write::Order { id, record: Some(record) } => stmt(
                "INSERT INTO orders (id, record) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET record = excluded.record",
                vec![id.clone().into(), record.clone().into()],
            ),
            Write::Order { id, record: None } => stmt("DELETE FROM orders WHERE id = ?", vec![id.clone().into()]),
            Write::Owner {
                hold_id,
                buyer,
                client,
                seats,
                prices,
                record,
            } => {
                // Seat names alone for an unpriced hold, as rows were
                // written before seats had prices; else each seat's price.
                let stored = match prices.is_empty() {
                    true => to_json(seats),
                    false => to_json(prices),
                };
                stmt(
                    "INSERT INTO hold_owners (hold_id, buyer, seats, client, record) VALUES (?, ?, ?, ?, ?)",
                    vec![
                        hold_id.clone().into(),
                        buyer.clone().into(),
                        stored.into(),
                        client.clone().into(),
                        record.clone().into(),
                    ],
                )
            }
            Write::ForgetOwner { hold_id } => vec![
                Statement {
                    sql: "DELETE FROM hold_owners WHERE hold_id = ?",
                    args: vec![hold_id.clone().into()],
                },
                Statement {
                    sql: "DELETE FROM hold_codes WHERE hold_id = ?",
                    args: vec![hold_id.clone().into()],
                },
            ],
            Write::HoldCode { hold_id, record: Some(record) } => stmt(
                "INSERT INTO hold_codes (hold_id, record) VALUES (?, ?) \
                 ON CONFLICT (hold_id) DO UPDATE SET record = excluded.record",
                vec![hold_id.clone().into(), record.clone().into()],
            ),
            Write::HoldCode { hold_id, record: None } => {
                stmt("DELETE FROM hold_codes WHERE hold_id = ?", vec![hold_id.clone().into()])
            }
            Write::CodeMessage { id, record: Some(record) } => stmt(
                "INSERT INTO code_messages (id, record) VALUES (?, ?) \
                 ON CONFLICT (id) DO UPDATE SET record = excluded.record",
                vec![id.clone().into(), record.clone().into()],
            ),
            Write::CodeMessage { id, record: None } => {
                stmt("DELETE FROM code_messages WHERE id = ?", vec![id.clone().into()])
            }
            Write::WaitlistEntry { id, record } => stmt(
                "INSERT INTO waitlist (id, record) VALUES (?, ?) \
                 ON CONFLICT (id) DO UPDATE SET record = excluded.record",
                vec![id.clone().into(), record.clone().into()],
            ),
            Write::Replay { key, fingerprint, status, body, buyer, at_ms } => stmt(
                "INSERT INTO idempotency (key, fingerprint, status, body, buyer, created_at_ms) \
                 VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET fingerprint = \
                 excluded.fingerprint, status = excluded.status, body = excluded.body, \
                 buyer = excluded.buyer, created_at_ms = excluded.created_at_ms, used_at_ms = NULL",
                vec![
                    key.clone().into(),
                    fingerprint.clone().into(),
                    u64::from(*status).into(),
                    body.clone().into(),
                    buyer.clone().into(),
                    (*at_ms).into(),
                ],
            ),
            Write::ForgetReplay { key } => stmt("DELETE FROM idempotency WHERE key = ?", vec![key.clone().into()]),
            Write::ReplayUsed { key, at_ms } => stmt(
                "UPDATE idempotency SET used_at_ms = ? WHERE key = ?",
                vec![(*at_ms).into(), key.clone().into()],
            ),
            Write::ForgetStaleReplays { before_ms } => stmt(
                "DELETE FROM idempotency WHERE created_at_ms < ? OR length(body) > ?",
                vec![(*before_ms).into(), (MAX_REPLAY_BODY_BYTES as u64).into()],
            ),
            Write::Checkout { order_id, auth_key, record, due_at_ms } => stmt(
                "INSERT INTO checkouts (order_id, auth_key, record, due_at_ms) VALUES (?, ?, ?, ?) \
                 ON CONFLICT (order_id) DO UPDATE SET record = excluded.record, due_at_ms = excluded.due_at_ms",
                vec![order_id.clone().into(), auth_key.clone().into(), record.clone().into(), (*due_at_ms).into()],
            ),
            Write::Outbox { order_id, action: Some(action) } => stmt(
                "INSERT INTO outbox (order_id, action) VALUES (?, ?) ON CONFLICT (order_id) DO UPDATE SET action = excluded.action",
                vec![order_id.clone().into(), action.clone().into()],
            ),
            Write::Outbox { order_id, action: None } => {
                stmt("DELETE FROM outbox WHERE order_id = ?", vec![order_id.clone().into()])
            }
            Write::RateBucket { client, tokens_milli, at_ms } => stmt(
                "INSERT INTO rate_buckets (client, tokens_milli, at_ms) VALUES (?, ?, ?) \
                 ON CONFLICT (client) DO UPDATE SET tokens_milli = excluded.tokens_milli, at_ms = excluded.at_ms",
                vec![client.clone().into(), (*tokens_milli).into(), (*at_ms).into()],
            ),
            Write::ForgetCheckout { order_id } => {
                stmt("DELETE FROM checkouts WHERE order_id = ?", vec![order_id.clone().into()])
            }
            Write::ForgetRateBucket { client } => {
                stmt("DELETE FROM rate_buckets WHERE client = ?", vec![client.clone().into()])
            }
            Write::Move { ticket_id, record } => stmt(
                "INSERT INTO moves (ticket_id, record) VALUES (?, ?) \
                 ON CONFLICT (ticket_id) DO UPDATE SET record = excluded.record",
                vec![ticket_id.clone().into(), record.clone().into()],
            ),
            Write::BenchTable => stmt(
                "CREATE TABLE IF NOT EXISTS bench (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)",
                vec![],
            ),
            Write::BenchCounter => stmt(
                "INSERT INTO bench (id, n) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = n + 1",
                vec![],
            ),
        }
    }
}

pub(crate) fn to_json<T: Serialize>(value: &T) -> String {
    // Only the desk's own types are serialised, and they always can be.
    serde_json::to_string(value).expect("stored types serialise to JSON")
}

fn encode_unit(state: &UnitState) -> (&'static str, Option<String>) {
    match state {
        UnitState::Available => ("available", None),
        UnitState::Held(hold) => ("held", Some(hold.as_str().to_string())),
        UnitState::Pending(order) => ("pending", Some(order.as_str().to_string())),
        UnitState::Sold(order) => ("sold", Some(order.as_str().to_string())),
        UnitState::Blocked => ("blocked", None),
    }
}

pub(crate) fn unit_write(ledger: &Ledger, unit: UnitId) -> Write {
    let (state, owner) = encode_unit(ledger.unit_state(unit).unwrap_or(&UnitState::Available));
    Write::Unit {
        idx: unit.0,
        name: ledger.unit_name(unit).unwrap_or_default().to_string(),
        state,
        owner,
    }
}

pub(crate) fn all_units(ledger: &Ledger, d: &mut Decision) {
    for idx in 0..ledger.unit_count() {
        d.writes.push(unit_write(ledger, UnitId(idx as u32)));
    }
}

/// Reads rows: the shell runs `sql` on the object's storage and gives each
/// row as a value of `T` (integers may come as floats: JavaScript's numbers).
pub trait ReadRows {
    fn rows<T: DeserializeOwned>(&mut self, sql: &str) -> Result<Vec<T>, String>;
}

#[derive(Deserialize)]
pub(crate) struct MetaRow {
    pub key: String,
    pub value: String,
}

#[derive(Deserialize)]
pub(crate) struct UnitRow {
    pub name: String,
    pub state: String,
    pub owner: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct RecordRow {
    pub record: String,
}

#[derive(Deserialize)]
pub(crate) struct OwnerRow {
    pub hold_id: String,
    pub buyer: String,
    pub seats: String,
    pub ended: Option<String>,
    pub ended_at_ms: Option<f64>,
    /// Missing for holds made before clients were kept.
    pub client: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct HoldCodeRow {
    pub hold_id: String,
    pub record: String,
}

#[derive(Deserialize)]
pub(crate) struct ReplayRow {
    pub key: String,
    pub fingerprint: String,
    pub status: f64,
    pub body: String,
    pub buyer: String,
    pub created_at_ms: f64,
    /// When it was last replayed; its creation for a row never replayed.
    pub used_at_ms: f64,
}

#[derive(Deserialize)]
pub(crate) struct OutboxRow {
    pub order_id: String,
    pub action: String,
}

#[derive(Deserialize)]
pub(crate) struct BucketRow {
    pub client: String,
    pub tokens_milli: f64,
    pub at_ms: f64,
}

/// Everything an object stored, as rows.
pub struct Stored {
    /// When it was read: the idempotent answers of the day before it
    /// were left unread.
    pub(crate) read_at_ms: u64,
    pub(crate) format: u32,
    pub(crate) meta: Vec<MetaRow>,
    pub(crate) units: Vec<UnitRow>,
    pub(crate) holds: Vec<RecordRow>,
    pub(crate) orders: Vec<RecordRow>,
    pub(crate) owners: Vec<OwnerRow>,
    pub(crate) replays: Vec<ReplayRow>,
    pub(crate) checkouts: Vec<RecordRow>,
    pub(crate) outbox: Vec<OutboxRow>,
    pub(crate) buckets: Vec<BucketRow>,
    /// The tickets moved (none before format 6).
    pub(crate) moves: Vec<RecordRow>,
    /// The waiting list (none before format 7).
    pub(crate) waitlist: Vec<RecordRow>,
    /// The discount codes on holds, and the messages for the codes'
    /// objects (none before format 8).
    pub(crate) hold_codes: Vec<HoldCodeRow>,
    pub(crate) code_messages: Vec<RecordRow>,
}

impl Stored {
    pub(crate) fn meta(&self, key: &str) -> Option<&str> {
        self.meta
            .iter()
            .find(|m| m.key == key)
            .map(|m| m.value.as_str())
    }

    pub(crate) fn number(&self, key: &str) -> u64 {
        self.meta(key).and_then(|v| v.parse().ok()).unwrap_or(0)
    }
}

/// Reads an object's rows at `now_ms`, or `None` when it was never set
/// up. Reading writes nothing, so asking about a showing that does not
/// exist leaves no storage behind. Idempotent answers past the replay
/// window, or larger than an answer may be, are not read at all, so rows
/// that could never be replayed cost a load nothing.
pub fn load(read: &mut impl ReadRows, now_ms: u64) -> Result<Option<Stored>, String> {
    #[derive(Deserialize)]
    struct Name {
        #[allow(dead_code)]
        name: String,
    }
    let tables: Vec<Name> =
        read.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'meta'")?;
    if tables.is_empty() {
        return Ok(None);
    }
    let meta: Vec<MetaRow> = read.rows("SELECT key, value FROM meta")?;
    if !meta.iter().any(|m| m.key == SHOWING) {
        return Ok(None);
    }
    let format = meta
        .iter()
        .find(|m| m.key == FORMAT_KEY)
        .and_then(|m| m.value.parse().ok())
        .unwrap_or(0);
    let replays_since = now_ms.saturating_sub(REPLAY_TTL_MS);
    let used_at = match format >= 5 {
        true => "COALESCE(used_at_ms, created_at_ms)",
        false => "created_at_ms",
    };
    let replays = format!(
        "SELECT key, fingerprint, status, body, buyer, created_at_ms, {used_at} AS used_at_ms \
         FROM idempotency WHERE created_at_ms >= {replays_since} AND length(body) <= {}",
        MAX_REPLAY_BODY_BYTES
    );
    let mut stored = Stored {
        read_at_ms: now_ms,
        format,
        meta,
        units: read.rows("SELECT name, state, owner FROM units ORDER BY idx")?,
        holds: if format >= 4 {
            read.rows("SELECT record FROM hold_owners WHERE record IS NOT NULL")?
        } else {
            read.rows("SELECT record FROM holds")?
        },
        orders: read.rows("SELECT record FROM orders")?,
        owners: Vec::new(),
        replays: read.rows(&replays)?,
        checkouts: read.rows("SELECT record FROM checkouts")?,
        outbox: Vec::new(),
        buckets: Vec::new(),
        moves: Vec::new(),
        waitlist: Vec::new(),
        hold_codes: Vec::new(),
        code_messages: Vec::new(),
    };
    if format >= 6 {
        stored.moves = read.rows("SELECT record FROM moves")?;
    }
    if format >= 7 {
        stored.waitlist = read.rows("SELECT record FROM waitlist")?;
    }
    if format >= 8 {
        stored.hold_codes = read.rows("SELECT hold_id, record FROM hold_codes")?;
        stored.code_messages = read.rows("SELECT record FROM code_messages")?;
    }
    if format >= 1 {
        stored.outbox = read.rows("SELECT order_id, action FROM outbox")?;
        stored.buckets = read.rows("SELECT client, tokens_milli, at_ms FROM rate_buckets")?;
    }
    stored.owners = if format >= 3 {
        read.rows("SELECT hold_id, buyer, seats, ended, ended_at_ms, client FROM hold_owners")?
    } else if format == 2 {
        read.rows(
            "SELECT o.hold_id, o.buyer, o.seats, o.ended, o.ended_at_ms, c.client \
             FROM hold_owners o LEFT JOIN hold_clients c ON c.hold_id = o.hold_id",
        )?
    } else {
        read.rows(
            "SELECT hold_id, buyer, seats, ended, ended_at_ms, NULL AS client FROM hold_owners",
        )?
    };
    Ok(Some(stored))
}

pub(crate) fn from_json<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("stored row: {e}"))
}

pub(crate) fn decode_unit(state: &str, owner: Option<String>) -> Result<UnitState, String> {
    let bad = || format!("stored seat state {state:?} is not valid");
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
