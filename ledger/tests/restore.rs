//! Restoring from stored rows: a valid snapshot round-trips exactly, and
//! each way stored state can be broken is refused with its own name.

use ledger::{
    Config, ConfigError, HoldId, InvariantError, LayoutError, Ledger, OrderId, OrderState,
    RestoreError, Snapshot, UnitId, UnitState,
};

fn hold_id(id: &str) -> HoldId {
    HoldId::new(id).unwrap()
}

fn order_id(id: &str) -> OrderId {
    OrderId::new(id).unwrap()
}

/// A showing with a live hold (h1: A1 A2), a sold order (o1: A3) and a
/// blocked seat (A5).
fn busy_ledger() -> Ledger {
    let config = Config {
        max_live_holds: 2,
        ..Config::default()
    };
    let mut ledger = Ledger::new(config, &["A1", "A2", "A3", "A4", "A5"], &["A5"]).unwrap();
    ledger
        .hold(1_000, &hold_id("h1"), &["A1", "A2"])
        .result
        .unwrap();
    ledger.hold(1_000, &hold_id("h2"), &["A3"]).result.unwrap();
    let outcome = ledger.commit(2_000, &hold_id("h2"), &order_id("o1"), &["A3"]);
    outcome.result.unwrap();
    ledger.confirm(3_000, &order_id("o1")).result.unwrap();
    ledger
}

#[test]
fn a_snapshot_round_trips_through_rows_and_bytes() {
    let ledger = busy_ledger();
    let snapshot = ledger.snapshot();
    assert_eq!(Ledger::restore(snapshot.clone()).unwrap(), ledger);
    let restored = Ledger::restore_from_bytes(&ledger.snapshot_to_bytes()).unwrap();
    assert_eq!(restored, ledger);
    // Rows read back from storage come in any order.
    let mut shuffled = snapshot;
    shuffled.holds.reverse();
    shuffled.orders.reverse();
    assert_eq!(Ledger::restore(shuffled).unwrap(), ledger);
}

/// A way to break a stored snapshot.
type Corruption<'a> = Box<dyn FnOnce(&mut Snapshot) + 'a>;

fn refused(corrupt: impl FnOnce(&mut Snapshot)) -> RestoreError {
    let mut snapshot = busy_ledger().snapshot();
    corrupt(&mut snapshot);
    Ledger::restore(snapshot).expect_err("a broken snapshot must be refused")
}

fn broken(error: InvariantError) -> RestoreError {
    RestoreError::Invariant(error)
}

#[test]
fn each_broken_rule_is_refused_with_its_own_name() {
    let h1 = hold_id("h1");
    let o1 = order_id("o1");
    let (a1, a4) = (UnitId(0), UnitId(3));
    let cases: Vec<(RestoreError, Corruption)> = vec![
        (
            RestoreError::Config(ConfigError::SeatsPerHoldOutOfRange { value: 0 }),
            Box::new(|s| s.config.max_seats_per_hold = 0),
        ),
        (
            RestoreError::Layout(LayoutError::DuplicateUnitName { name: "A1".into() }),
            Box::new(|s| s.units[1].name = "A1".into()),
        ),
        (
            broken(InvariantError::UnknownUnit { unit: UnitId(9) }),
            Box::new(|s| s.holds[0].seats.push(UnitId(9))),
        ),
        (
            broken(InvariantError::UnitNotHeldByItsHold {
                unit: a4,
                hold: h1.clone(),
            }),
            Box::new(|s| s.holds[0].seats.push(a4)),
        ),
        (
            broken(InvariantError::HeldUnitWithoutHold { unit: a4 }),
            Box::new(|s| s.units[3].state = UnitState::Held(hold_id("h9"))),
        ),
        (
            broken(InvariantError::DuplicateHold { hold: h1.clone() }),
            Box::new(|s| s.holds.push(s.holds[0].clone())),
        ),
        (
            broken(InvariantError::DuplicateUnitInRecord { unit: a1 }),
            Box::new(|s| s.holds[0].seats.push(a1)),
        ),
        (
            broken(InvariantError::HoldExpiryInconsistent { hold: h1.clone() }),
            Box::new(|s| s.holds[0].expires_at_ms += 1),
        ),
        (
            broken(InvariantError::HoldStartsInFuture { hold: h1.clone() }),
            Box::new(|s| s.latest_now_ms = 0),
        ),
        (
            broken(InvariantError::TooManyHolds { count: 2, max: 1 }),
            Box::new(|s| {
                s.config.max_live_holds = 1;
                s.units[3].state = UnitState::Held(hold_id("h3"));
                let mut second = s.holds[0].clone();
                (second.id, second.seats) = (hold_id("h3"), vec![a4]);
                s.holds.push(second);
            }),
        ),
        (
            broken(InvariantError::SoldUnitWithoutOrder { unit: a4 }),
            Box::new(|s| s.units[3].state = UnitState::Sold(order_id("o1"))),
        ),
        (
            broken(InvariantError::UnitNotInOrderState {
                unit: UnitId(2),
                order: o1.clone(),
            }),
            Box::new(|s| s.orders[0].state = OrderState::Pending),
        ),
        (
            broken(InvariantError::OrderStateInconsistent { order: o1.clone() }),
            Box::new(|s| s.orders[0].closed_at_version = Some(1)),
        ),
        (
            broken(InvariantError::VoidedSeatsInvalid { order: o1.clone() }),
            Box::new(|s| s.orders[0].voided = vec![a1]),
        ),
        (
            broken(InvariantError::ClockOutOfRange {
                latest_now_ms: u64::MAX,
            }),
            Box::new(|s| s.latest_now_ms = u64::MAX),
        ),
    ];
    for (expected, corrupt) in cases {
        assert_eq!(refused(corrupt), expected);
    }
}

#[test]
fn bytes_that_are_not_a_snapshot_are_refused() {
    assert!(matches!(
        Ledger::restore_from_bytes(b"{"),
        Err(RestoreError::Decode(_))
    ));
    let bad_id = String::from_utf8(busy_ledger().snapshot_to_bytes())
        .unwrap()
        .replace("\"h1\"", "\"h 1\"");
    let decoded = Ledger::restore_from_bytes(bad_id.as_bytes());
    assert!(matches!(decoded, Err(RestoreError::Decode(_))));
}
