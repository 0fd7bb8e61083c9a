//! An object deployed before the desk keeps everything after it: its
//! storage as it was written then (`tests/frozen/v0.sql`, see the README
//! beside it) loads into a desk that still knows every hold, owner,
//! idempotent answer, order and checkout, upgrades its tables once, and
//! finishes the checkout that was left pending.

mod support;

use desk::protocol::{Caller, HoldRef, Idempotency, NewHold};
use desk::{Effect, Reply, Request, Settings};
use support::Sqlite;

const DUMP: &str = include_str!("frozen/v0.sql");
const DUMP_V2: &str = include_str!("frozen/v2.sql");
const DUMP_V3: &str = include_str!("frozen/v3.sql");
const DUMP_V4: &str = include_str!("frozen/v4.sql");
/// The frozen run's clock: its last decision.
const THEN_MS: u64 = 1_796_070_079_550;
const PAID: &str = "d0a2472b80e867944c4e3c90bdca5d2ad700570e";
const DECLINED: &str = "d0a2472b80e86794d0cff7ce7813252fc417aa60";
const PENDING: &str = "d0a2472b80e8679438bccd77ff324112dd394d94";
const DECLINED_HOLD: &str = "ef704eda3015c42c32d8331b72df3edb";
const IDEMPOTENT_HOLD: &str = "a2118d04f638c08211fdc3f66963ea06";

fn buyer_of(db: &Sqlite, seats: &str) -> String {
    db.0.query_row(
        "SELECT buyer FROM hold_owners WHERE seats = ?",
        [seats],
        |r| r.get(0),
    )
    .expect("an owner")
}

fn reply(decision: &desk::Decision) -> Reply {
    decision
        .reply
        .clone()
        .expect("a reply")
        .expect("not refused")
}

fn status(desk: &mut desk::Desk, order_id: &str) -> String {
    match reply(&desk.handle_request(
        THEN_MS + 1,
        Request::OrderStatus {
            order_id: order_id.into(),
        },
    )) {
        Reply::Order(order) => order.status.name().to_string(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_showing_stored_before_the_desk_keeps_its_holds_orders_and_checkouts() {
    let db = Sqlite::from_dump(DUMP);
    let mut desk = db.load(Settings::default());
    assert_eq!(db.count("outbox"), 0, "the upgrade made the new tables");
    let format: String =
        db.0.query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(format, desk::storage::FORMAT.to_string());

    // Seats: A1 A2 sold, A5 A6 pending, B1 held while paying, B7 B8 held.
    let codes = match reply(&desk.handle_request(THEN_MS + 1, Request::SeatCodes)) {
        Reply::Codes(codes) => codes,
        other => panic!("{other:?}"),
    };
    assert_eq!(codes.version, 12);
    assert_eq!(codes.codes, "ssaassaahaaaaahh");

    // Orders and checkouts.
    assert_eq!(status(&mut desk, PAID), "paid");
    assert_eq!(status(&mut desk, DECLINED), "declined");
    assert_eq!(status(&mut desk, PENDING), "pending");

    // Holds and their owners.
    let ana = buyer_of(&db, r#"["B1"]"#);
    let held = desk.handle_request(
        THEN_MS + 2,
        Request::GetHold(HoldRef {
            buyer: ana.clone(),
            token: DECLINED_HOLD.into(),
        }),
    );
    match reply(&held) {
        Reply::Hold(view) => assert_eq!(
            (view.state.as_str(), view.seats),
            ("paying", vec!["B1".to_string()])
        ),
        other => panic!("{other:?}"),
    }
    let stranger = desk.handle_request(
        THEN_MS + 2,
        Request::GetHold(HoldRef {
            buyer: "someone".into(),
            token: DECLINED_HOLD.into(),
        }),
    );
    assert_eq!(
        stranger.reply.unwrap().unwrap_err().code,
        desk::Code::HoldNotFound
    );
    let bea = buyer_of(&db, r#"["B7","B8"]"#);
    let replay = desk.handle_request(
        THEN_MS + 3,
        Request::Hold(NewHold {
            prices: Default::default(),
            caller: Caller {
                buyer: bea.clone(),
                client: "1.2.3.4".into(),
            },
            seats: vec!["B7".into(), "B8".into()],
            idempotency: Some(Idempotency {
                key: "freeze-key-1".into(),
                fingerprint: "4c82838b67681e7111b80ed7d100f19811276ec80e00271dc2f9ea60920fdc2a"
                    .into(),
            }),
            token: "0".repeat(32),
            best: None,
            admitted: false,
        }),
    );
    match reply(&replay) {
        Reply::Replayed { status, body } => {
            assert_eq!(status, 201);
            assert!(body.contains(IDEMPOTENT_HOLD), "{body}");
        }
        other => panic!("{other:?}"),
    }
    let released = buyer_of(&db, r#"["B5"]"#);
    let token_unknown = desk.handle_request(
        THEN_MS + 4,
        Request::GetHold(HoldRef {
            buyer: released,
            token: "1".repeat(32),
        }),
    );
    assert!(token_unknown.reply.unwrap().is_err());

    // The pending checkout is resumed when its retry is due, after a restart too.
    let due = desk.poll_timeout().expect("the pending checkout is due");
    assert_eq!(due, 1_796_070_139_609);
    let mut desk = db.load(Settings::default());
    let resumed = desk.handle_timeout(due);
    db.apply(&resumed.writes);
    let asks: Vec<&Effect> = resumed
        .effects
        .iter()
        .filter(|e| matches!(e, Effect::Square { .. }))
        .collect();
    assert_eq!(asks.len(), 1, "{:?}", resumed.effects);
    match asks[0] {
        Effect::Square { order_id, call, .. } => {
            assert_eq!(order_id, PENDING);
            assert!(call.path.starts_with("/v2/payments/"), "{call:?}");
        }
        _ => unreachable!(),
    }
    assert_eq!(
        db.count("outbox"),
        1,
        "the step waits in the outbox until answered"
    );
}

fn new_hold(buyer: &str, client: &str, seats: &[&str]) -> Request {
    Request::Hold(NewHold {
        prices: Default::default(),
        caller: Caller {
            buyer: buyer.into(),
            client: client.into(),
        },
        seats: seats.iter().map(|s| s.to_string()).collect(),
        idempotency: None,
        token: format!("{:0>32}", buyer.len() * 1000 + seats.len()),
        best: None,
        admitted: false,
    })
}

fn has_table(db: &Sqlite, name: &str) -> bool {
    db.0.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE name = ?",
        [name],
        |r| r.get::<_, i64>(0),
    )
    .unwrap()
        > 0
}

fn refusal(decision: &desk::Decision) -> Option<desk::Code> {
    decision.reply.clone()?.err().map(|r| r.code)
}

/// Format 2 kept each hold's network in a table of its own; format 3 keeps
/// it on the owner row. The seat cap per network must count holds made
/// before the upgrade, and the upgrade must run once only.
#[test]
fn a_showing_stored_in_format_two_keeps_each_holds_network_on_its_owner_row() {
    let db = Sqlite::from_dump(DUMP_V2);
    let settings = Settings {
        hold_rate: desk::RateLimit {
            seats_held: 3,
            ..desk::RateLimit::default()
        },
        ..Settings::default()
    };
    let mut desk = db.load(settings.clone());
    let mut stmt =
        db.0.prepare("SELECT buyer, client FROM hold_owners ORDER BY buyer")
            .unwrap();
    let owners: Vec<(String, Option<String>)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let owned = |buyer: &str, client: &str| (buyer.to_string(), Some(client.to_string()));
    assert_eq!(
        owners,
        vec![
            owned("ana", "198.51.100.7"),
            owned("bea", "2001:db8:1:2::/64"),
            owned("cai", "203.0.113.5"),
        ]
    );
    assert!(!has_table(&db, "hold_clients"), "the old table is dropped");
    assert_eq!(db.count("rate_buckets"), 3, "the stored buckets are kept");

    // ana's network holds A1 A2 from before the upgrade: one more seat, not two.
    let now = 1_800_000_000_100;
    let two = desk.handle_request(now, new_hold("dov", "198.51.100.7", &["A3", "A4"]));
    assert_eq!(refusal(&two), Some(desk::Code::TooManySeatsHeld));
    // A second load finds nothing to upgrade (a second ALTER would fail).
    let mut desk = db.load(settings);
    let one = desk.handle_request(now + 1, new_hold("dov", "198.51.100.7", &["A3"]));
    assert_eq!(refusal(&one), None, "{:?}", one.reply);
    db.apply(&one.writes);
    let client: String =
        db.0.query_row(
            "SELECT client FROM hold_owners WHERE buyer = 'dov'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        client, "198.51.100.7",
        "a new hold keeps its network on its row"
    );
}

fn hold_state(desk: &mut desk::Desk, now: u64, buyer: &str, token: &str) -> (String, Vec<String>) {
    let asked = desk.handle_request(
        now,
        Request::GetHold(HoldRef {
            buyer: buyer.into(),
            token: token.into(),
        }),
    );
    match reply(&asked) {
        Reply::Hold(view) => (view.state, view.seats),
        other => panic!("{other:?}"),
    }
}

/// Format 3 kept each live hold's record in `holds`, beside its owner row;
/// format 4 keeps it on the owner row, so a hold writes one row, not two.
/// Every live hold must survive the move, ended ones must still say how
/// they ended, and the upgrade must run once only.
#[test]
fn a_showing_stored_in_format_three_keeps_its_live_holds_on_their_owner_rows() {
    let db = Sqlite::from_dump(DUMP_V3);
    let then = 1_800_000_400_004;
    let mut desk = db.load(Settings::default());
    let live: Vec<(String, Option<String>)> = {
        let mut stmt =
            db.0.prepare("SELECT buyer, record FROM hold_owners ORDER BY buyer")
                .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let buyers: Vec<(&str, bool)> = live
        .iter()
        .map(|(buyer, record)| (buyer.as_str(), record.is_some()))
        .collect();
    assert_eq!(
        buyers,
        vec![("ana", true), ("bea", false), ("cai", true), ("eve", false)],
        "the live holds' records are on their rows, the ended ones have none"
    );
    assert!(!has_table(&db, "holds"), "the old table is dropped");

    let codes =
        |desk: &mut desk::Desk, now| match reply(&desk.handle_request(now, Request::SeatCodes)) {
            Reply::Codes(codes) => codes.codes,
            other => panic!("{other:?}"),
        };
    assert_eq!(codes(&mut desk, then), "hhaaaaha", "A1 A2 and B3 are held");
    let ana = "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
    assert_eq!(
        hold_state(&mut desk, then, "ana", ana),
        ("held".to_string(), vec!["A1".to_string(), "A2".to_string()])
    );
    let bea = "b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1";
    assert_eq!(hold_state(&mut desk, then, "bea", bea).0, "released");
    let eve = "e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0";
    assert_eq!(hold_state(&mut desk, then, "eve", eve).0, "expired");

    // A second load finds nothing to upgrade (a second ALTER would fail),
    // and the same holds.
    let mut desk = db.load(Settings::default());
    assert_eq!(codes(&mut desk, then), "hhaaaaha");

    // A new hold is one row, its record on it; releasing one is one row.
    let dov = desk.handle_request(then + 1, new_hold("dov", "192.0.2.1", &["B4"]));
    assert_eq!(refusal(&dov), None, "{:?}", dov.reply);
    let tables: Vec<&str> = dov.writes.iter().map(kind).collect();
    assert_eq!(tables, vec!["unit", "scalars", "owner"], "{:?}", dov.writes);
    db.apply(&dov.writes);
    let released = desk.handle_request(
        then + 2,
        Request::ReleaseHold(HoldRef {
            buyer: "ana".into(),
            token: ana.into(),
        }),
    );
    let tables: Vec<&str> = released.writes.iter().map(kind).collect();
    assert_eq!(
        tables,
        vec!["unit", "unit", "hold ended", "scalars"],
        "{:?}",
        released.writes
    );
    db.apply(&released.writes);
    let mut desk = db.load(Settings::default());
    assert_eq!(codes(&mut desk, then + 3), "aaaaaahh", "B3 and B4 are held");
    assert_eq!(hold_state(&mut desk, then + 3, "ana", ana).0, "released");
}

fn kind(write: &desk::Write) -> &'static str {
    match write {
        desk::Write::Unit { .. } => "unit",
        desk::Write::Scalars { .. } => "scalars",
        desk::Write::Owner { .. } => "owner",
        desk::Write::Hold { .. } => "hold",
        desk::Write::HoldEnded { .. } => "hold ended",
        desk::Write::RateBucket { .. } => "rate bucket",
        _ => "other",
    }
}

/// Format 4 kept every idempotent answer, of any size and age, and loaded
/// them all; format 5 loads only those a replay could still give, deletes
/// the rest, and keeps when each was last replayed. The dump holds a day-old
/// answer, a 20 KB refusal quoting its whole input (as format 4 kept), a
/// granted hold and a `seats_unavailable` with the map of its moment.
#[test]
fn a_showing_stored_in_format_four_loads_only_the_answers_a_replay_could_give() {
    let db = Sqlite::from_dump(DUMP_V4);
    let then = 1_800_000_000_000 + 5_400_000;
    let mut desk = db.load_at(Settings::default(), then);
    let kept: Vec<String> = {
        let mut stmt =
            db.0.prepare("SELECT key FROM idempotency ORDER BY key")
                .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(
        kept,
        ["ana-key", "bob-key"],
        "the stale and the oversized rows are gone"
    );
    let replay = |desk: &mut desk::Desk, buyer: &str, key: &str, seats: &[&str]| {
        let hold = Request::Hold(NewHold {
            caller: Caller {
                buyer: buyer.into(),
                client: "192.0.2.4".into(),
            },
            seats: seats.iter().map(|s| s.to_string()).collect(),
            idempotency: Some(Idempotency {
                key: key.into(),
                fingerprint: format!("{key}-body"),
            }),
            prices: Default::default(),
            token: format!("{:0>32}", hex::encode(buyer)),
            best: None,
            admitted: false,
        });
        let decided = desk.handle_request(then, hold);
        db.apply(&decided.writes);
        match reply(&decided) {
            Reply::Replayed { status, body } => (
                status,
                serde_json::from_str::<serde_json::Value>(&body).unwrap(),
            ),
            other => panic!("{other:?}"),
        }
    };
    let (status, body) = replay(&mut desk, "ana", "ana-key", &["A1", "A2"]);
    assert_eq!(
        (status, body["seats"].clone()),
        (201, serde_json::json!(["A1", "A2"]))
    );
    let (status, body) = replay(&mut desk, "bob", "bob-key", &["A1"]);
    assert_eq!(
        (status, body["error"].as_str()),
        (409, Some("seats_unavailable"))
    );
    assert_eq!(
        body["availability"]["codes"], "aaaaaaaa",
        "the map as it is now: ana's hold has ended since"
    );
    let used: i64 =
        db.0.query_row(
            "SELECT used_at_ms FROM idempotency WHERE key = 'bob-key'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(used as u64, then, "a replay marks its answer used");
    // A second load finds nothing to upgrade (a second ALTER would fail).
    let mut desk = db.load_at(Settings::default(), then);
    let (status, _) = replay(&mut desk, "ana", "ana-key", &["A1", "A2"]);
    assert_eq!(status, 201);
}
