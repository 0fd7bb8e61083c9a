//! Arbitrary bytes as stored state: restore must refuse what it cannot
//! trust, never panic, and whatever it accepts must be whole, round-trip
//! exactly, and stay whole through every kind of call.

#![no_main]

use ledger::{Ledger, UnitId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(mut ledger) = Ledger::restore_from_bytes(bytes) else {
        return;
    };
    ledger.check_invariants().unwrap();
    assert_eq!(Ledger::restore(ledger.snapshot()).unwrap(), ledger);
    exercise(&mut ledger);
});

/// Calls every operation on every hold and order the restored state has.
fn exercise(ledger: &mut Ledger) {
    let now = ledger.latest_now_ms();
    let snapshot = ledger.snapshot();
    let name = |unit: &UnitId| snapshot.units[unit.index()].name.clone();
    for hold in &snapshot.holds {
        let seats: Vec<String> = hold.seats.iter().map(name).collect();
        let _ = ledger.start_payment(now, &hold.id);
        let _ = ledger.hold(now, &hold.id, &seats);
        ledger.check_invariants().unwrap();
    }
    for order in &snapshot.orders {
        let seats: Vec<String> = order.seats.iter().map(name).collect();
        let _ = ledger.commit(now, &order.hold_id, &order.id, &seats);
        let _ = ledger.confirm(now, &order.id);
        let _ = ledger.void(now, &order.id, &seats);
        let _ = ledger.abandon(now, &order.id);
        ledger.check_invariants().unwrap();
    }
    for hold in &snapshot.holds {
        let _ = ledger.release(now, &hold.id);
    }
    let _ = ledger.sweep(now.saturating_add(ledger.config().payment_cap_ms));
    ledger.check_invariants().unwrap();
    assert_eq!(Ledger::restore(ledger.snapshot()).unwrap(), *ledger);
}
