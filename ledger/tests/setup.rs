//! Building a showing, the limits on it, and what a call hands back to
//! the Durable Object.

use ledger::{
    Config, HoldId, LayoutError, Ledger, OrderId, PublicState, SetupError, UnitId, UnitState,
    MAX_NOW_MS, MAX_UNITS,
};
use std::collections::BTreeSet;

const NONE: &[&str] = &[];

fn new(units: &[String], blocked: &[&str]) -> Result<Ledger, SetupError> {
    Ledger::new(Config::default(), units, blocked)
}

fn arena(units: usize) -> Vec<String> {
    (0..units).map(|i| format!("S{i}")).collect()
}

#[test]
fn each_layout_refusal_has_its_own_name() {
    let layout = |error| Err(SetupError::Layout(error));
    assert_eq!(new(&[], NONE), layout(LayoutError::NoUnits));
    let too_many = LayoutError::TooManyUnits {
        count: MAX_UNITS + 1,
        max: MAX_UNITS,
    };
    assert_eq!(new(&arena(MAX_UNITS + 1), NONE), layout(too_many));
    let long = "x".repeat(33);
    let invalid = LayoutError::InvalidUnitName { name: long.clone() };
    assert_eq!(new(&[long], NONE), layout(invalid));
    let twice = LayoutError::DuplicateUnitName { name: "A1".into() };
    assert_eq!(new(&["A1".into(), "A1".into()], NONE), layout(twice));
    let unknown = LayoutError::UnknownBlockedUnit { name: "B9".into() };
    assert_eq!(new(&["A1".into()], &["B9"]), layout(unknown));
    let config = Config {
        max_seats_per_hold: 0,
        ..Config::default()
    };
    assert!(matches!(
        Ledger::new(config, &["A1"], NONE),
        Err(SetupError::Config(_))
    ));
}

#[test]
fn a_twenty_thousand_seat_arena_works() {
    let names = arena(MAX_UNITS);
    let mut ledger = new(&names, &["S19999"]).unwrap();
    let hold = HoldId::new("0123456789abcdef0123456789abcdef").unwrap();
    let outcome = ledger.hold(5, &hold, &["S0", "S10000", "S19998"]);
    assert_eq!(outcome.result.unwrap().expires_at_ms, 300_005);
    let counts = ledger.counts();
    assert_eq!(
        (counts.available, counts.held, counts.blocked),
        (19_996, 3, 1)
    );
    let map = ledger.availability();
    assert_eq!(map.units.len(), MAX_UNITS);
    assert_eq!(map.units[10_000], PublicState::Held);
    assert_eq!(map.units[19_999], PublicState::Sold);
    ledger.check_invariants().unwrap();
}

#[test]
fn changes_name_exactly_the_rows_to_persist() {
    let mut ledger = new(&arena(8), NONE).unwrap();
    let (h1, o1) = (HoldId::new("h1").unwrap(), OrderId::new("o1").unwrap());
    let held = ledger.hold(0, &h1, &["S2", "S5"]).changes;
    assert_eq!(held.units, BTreeSet::from([UnitId(2), UnitId(5)]));
    assert_eq!(held.holds, BTreeSet::from([h1.clone()]));
    assert!(held.orders.is_empty());
    assert_eq!((held.version, ledger.version()), (1, 1));
    let refused = ledger.hold(0, &HoldId::new("h2").unwrap(), &["S2"]).changes;
    assert!(refused.is_empty());
    assert_eq!(refused.version, 1);
    let committed = ledger.commit(10, &h1, &o1, &["S5", "S2"]).changes;
    assert_eq!(committed.holds, BTreeSet::from([h1.clone()]));
    assert_eq!(committed.orders, BTreeSet::from([o1.clone()]));
    assert_eq!(committed.latest_now_ms, 10);
    assert!(
        ledger.hold_record(&h1).is_none(),
        "the hold row is to be deleted"
    );
    let order = ledger.order_record(&o1).unwrap();
    assert_eq!(order.seats, vec![UnitId(5), UnitId(2)]);
    assert_eq!(ledger.unit_state(UnitId(2)), Some(&UnitState::Pending(o1)));
}

#[test]
fn times_past_the_year_9999_are_read_as_its_last_millisecond() {
    let mut ledger = new(&arena(2), NONE).unwrap();
    let hold = HoldId::new("h1").unwrap();
    let granted = ledger.hold(u64::MAX, &hold, &["S0"]).result.unwrap();
    assert_eq!(granted.expires_at_ms, MAX_NOW_MS + 300_000);
    assert_eq!(ledger.latest_now_ms(), MAX_NOW_MS);
    assert_eq!(ledger.next_expiry(), Some(MAX_NOW_MS + 300_000));
}
