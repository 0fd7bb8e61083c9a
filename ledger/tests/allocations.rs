//! Allocations: seats given to another channel until a release time,
//! larger than a hold may be, taken back a few at a time to be sold to
//! that channel, and let go by the sweep at the release time.

use ledger::{Config, HoldError, HoldId, Ledger, TakeError, UnitState};

fn id(name: &str) -> HoldId {
    HoldId::new(name.to_string()).unwrap()
}

fn room() -> Ledger {
    let names: Vec<String> = (1..=8).map(|n| format!("A{n}")).collect();
    let config = Config {
        max_seats_per_hold: 2,
        hold_ttl_ms: 1_000,
        ..Config::default()
    };
    Ledger::new(config, &names, &[] as &[&str]).unwrap()
}

fn state(ledger: &Ledger, seat: &str) -> UnitState {
    ledger.unit_state_by_name(seat).unwrap().clone()
}

#[test]
fn an_allocation_keeps_its_seats_from_buyers_until_its_release_time() {
    let mut ledger = room();
    let school = id("school");
    // Five seats: more than a hold may have.
    let seats = ["A1", "A2", "A3", "A4", "A5"];
    let granted = ledger.allocate(0, &school, &seats, 60_000).result.unwrap();
    assert_eq!((granted.units.len(), granted.expires_at_ms), (5, 60_000));
    assert_eq!(
        ledger.hold(10, &id("buyer"), &["A3"]).result,
        Err(HoldError::SeatsUnavailable {
            seats: vec!["A3".into()]
        })
    );
    // Nobody pays for an allocation as a hold.
    assert!(ledger.start_payment(10, &school).result.is_err());
    // Buyers' holds come and go on a TTL; the allocation stays.
    ledger.sweep(59_999);
    assert_eq!(state(&ledger, "A1"), UnitState::Held(school.clone()));

    // Two sold to the channel: moved to the sale's hold in one call.
    let sale = ledger.split_hold(20_000, &school, &id("sale"), &["A1", "A2"]);
    // The ledger's clock never runs back: the sweep saw 59,999.
    assert_eq!(sale.result.unwrap().expires_at_ms, 60_999);
    assert_eq!(
        ledger
            .split_hold(20_000, &school, &id("sale2"), &["A1", "A6"])
            .result,
        Err(TakeError::NotInHold {
            seats: vec!["A1".into(), "A6".into()]
        })
    );
    // A sale is a hold, as many seats as a hold may have.
    assert!(matches!(
        ledger
            .split_hold(20_000, &school, &id("sale3"), &["A3", "A4", "A5"])
            .result,
        Err(TakeError::Seats(HoldError::TooManySeats { .. }))
    ));
    ledger.check_invariants().unwrap();

    // At the release time the unsold three return to sale.
    ledger
        .commit(
            20_500,
            &id("sale"),
            &ledger::OrderId::new("order1".to_string()).unwrap(),
            &["A1", "A2"],
        )
        .result
        .unwrap();
    ledger.sweep(60_000);
    for seat in ["A3", "A4", "A5"] {
        assert_eq!(state(&ledger, seat), UnitState::Available, "{seat}");
    }
    assert!(matches!(state(&ledger, "A1"), UnitState::Pending(_)));
    ledger.check_invariants().unwrap();
}

#[test]
fn an_allocation_ends_after_it_begins_and_taking_all_its_seats_ends_it() {
    let mut ledger = room();
    assert_eq!(
        ledger.allocate(5_000, &id("past"), &["A1"], 5_000).result,
        Err(HoldError::BadReleaseTime)
    );
    let group = id("group");
    ledger
        .allocate(5_000, &group, &["A7", "A8"], 9_000)
        .result
        .unwrap();
    ledger
        .split_hold(6_000, &group, &id("sale"), &["A7", "A8"])
        .result
        .unwrap();
    assert_eq!(ledger.hold_record(&group), None);
    assert_eq!(
        ledger
            .split_hold(6_000, &group, &id("again"), &["A7"])
            .result,
        Err(TakeError::HoldNotFound)
    );
    ledger.check_invariants().unwrap();
}
