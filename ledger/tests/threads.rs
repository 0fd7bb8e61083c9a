//! Many buyers at once, through one lock, as the Durable Object serializes
//! requests: one seat goes to exactly one of them, and a group is held
//! whole or not at all.

use ledger::{Config, HoldError, HoldId, Ledger, UnitState};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread;

const BUYERS: usize = 200;

fn showing(seats: usize) -> Arc<Mutex<Ledger>> {
    let names: Vec<String> = (1..=seats).map(|n| format!("A{n}")).collect();
    let config = Config {
        max_live_holds: BUYERS as u32,
        ..Config::default()
    };
    let ledger = Ledger::new(config, &names, &[] as &[&str]).unwrap();
    Arc::new(Mutex::new(ledger))
}

#[test]
fn two_hundred_buyers_for_one_seat_make_exactly_one_hold() {
    let ledger = showing(1);
    let start = Arc::new(Barrier::new(BUYERS));
    let buyers: Vec<_> = (0..BUYERS)
        .map(|i| {
            let (ledger, start) = (ledger.clone(), start.clone());
            thread::spawn(move || {
                start.wait();
                let id = HoldId::new(format!("buyer-{i}")).unwrap();
                ledger.lock().unwrap().hold(1_000, &id, &["A1"]).result
            })
        })
        .collect();
    let results: Vec<_> = buyers.into_iter().map(|b| b.join().unwrap()).collect();
    let granted = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(granted, 1);
    let refused = HoldError::SeatsUnavailable {
        seats: vec!["A1".to_string()],
    };
    assert!(results
        .iter()
        .all(|r| r.is_ok() || *r == Err(refused.clone())));
    assert_eq!(ledger.lock().unwrap().counts().held, 1);
}

/// A small deterministic generator, so a failure can be replayed.
fn next_random(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn random_group(state: &mut u64, seats: usize) -> Vec<String> {
    let size = 1 + next_random(state) as usize % 4;
    let mut group: Vec<String> = Vec::new();
    while group.len() < size {
        let seat = format!("A{}", 1 + next_random(state) as usize % seats);
        if !group.contains(&seat) {
            group.push(seat);
        }
    }
    group
}

/// Every hold has all its seats and no seat is in two holds.
fn assert_whole_and_exclusive(ledger: &Ledger) {
    ledger.check_invariants().unwrap();
    let mut owner = BTreeMap::new();
    for row in ledger.snapshot().holds {
        for &unit in &row.seats {
            assert_eq!(
                ledger.unit_state(unit),
                Some(&UnitState::Held(row.id.clone()))
            );
            assert!(
                owner.insert(unit, row.id.clone()).is_none(),
                "a seat in two holds"
            );
        }
    }
    assert_eq!(owner.len(), ledger.counts().held as usize);
}

#[test]
fn overlapping_groups_are_held_whole_or_not_at_all() {
    const SEATS: usize = 40;
    let ledger = showing(SEATS);
    let done = Arc::new(AtomicBool::new(false));
    let observer = {
        let (ledger, done) = (ledger.clone(), done.clone());
        thread::spawn(move || {
            let mut looks = 0;
            while !done.load(Ordering::Relaxed) || looks == 0 {
                assert_whole_and_exclusive(&ledger.lock().unwrap());
                looks += 1;
                thread::yield_now();
            }
            looks
        })
    };
    let buyers: Vec<_> = (0..BUYERS)
        .map(|i| {
            let ledger = ledger.clone();
            thread::spawn(move || buy_and_maybe_release(&ledger, i as u64, SEATS))
        })
        .collect();
    let mut kept = Vec::new();
    for buyer in buyers {
        kept.extend(buyer.join().unwrap());
    }
    done.store(true, Ordering::Relaxed);
    assert!(observer.join().unwrap() > 0);
    let ledger = ledger.lock().unwrap();
    assert_whole_and_exclusive(&ledger);
    for (id, group) in kept {
        for seat in group {
            let state = ledger.unit_state_by_name(&seat).unwrap();
            assert_eq!(state, &UnitState::Held(id.clone()));
        }
    }
}

/// Tries a few random groups; releases some of the holds it gets, and
/// returns the ones it kept.
fn buy_and_maybe_release(
    ledger: &Mutex<Ledger>,
    buyer: u64,
    seats: usize,
) -> Vec<(HoldId, Vec<String>)> {
    let mut state = 0x9E37_79B9_7F4A_7C15 ^ (buyer + 1);
    let mut kept = Vec::new();
    for attempt in 0..3 {
        let id = HoldId::new(format!("b{buyer}-{attempt}")).unwrap();
        let group = random_group(&mut state, seats);
        let mut ledger = ledger.lock().unwrap();
        let outcome = ledger.hold(1_000, &id, &group);
        match outcome.result {
            Ok(_) if next_random(&mut state).is_multiple_of(2) => {
                ledger.release(1_000, &id).result.unwrap();
            }
            Ok(_) => kept.push((id, group)),
            Err(HoldError::SeatsUnavailable { seats }) => {
                assert!(!seats.is_empty() && seats.iter().all(|s| group.contains(s)));
                assert!(outcome.changes.is_empty(), "a refused hold changed nothing");
            }
            Err(other) => panic!("unexpected refusal {other:?}"),
        }
    }
    kept
}
