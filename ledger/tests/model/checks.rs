//! What must hold after every step of the model test.

use crate::reference::Reference;
use crate::{fail, order_id, Step};
use ledger::{Changes, HoldId, Ledger, OrderState, Snapshot, UnitId, UnitState};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// The ledger's state, with holds that expired but wait for a sweep read as
/// gone, equals the reference's; and its expiry and counts are right.
pub fn check_agreement(
    ledger: &Ledger,
    reference: &Reference,
    snap: &Snapshot,
) -> Result<(), TestCaseError> {
    let now = reference.latest_now_ms;
    prop_assert_eq!(ledger.latest_now_ms(), now);
    if let Err(broken) = ledger.check_invariants() {
        return Err(fail(format!("invariant broken: {broken}")));
    }
    let expired = |hold: &HoldId| {
        ledger
            .hold_record(hold)
            .is_some_and(|h| h.expires_at_ms <= now)
    };
    for (row, expected) in snap.units.iter().zip(&reference.units) {
        let effective = match &row.state {
            UnitState::Held(hold) if expired(hold) => UnitState::Available,
            state => state.clone(),
        };
        prop_assert_eq!(&effective, expected, "unit {}", row.name);
    }
    let live: Vec<_> = snap
        .holds
        .iter()
        .filter(|h| h.expires_at_ms > now)
        .map(|h| {
            (
                h.id.clone(),
                h.seats.clone(),
                h.started_at_ms,
                h.expires_at_ms,
                h.paying,
            )
        })
        .collect();
    let expected: Vec<_> = reference
        .holds
        .iter()
        .map(|(id, h)| {
            (
                id.clone(),
                units(&h.seats),
                h.started_at_ms,
                h.expires_at_ms,
                h.paying,
            )
        })
        .collect();
    prop_assert_eq!(live, expected);
    let orders: Vec<_> = snap
        .orders
        .iter()
        .map(|o| {
            (
                o.id.clone(),
                o.hold_id.clone(),
                o.seats.clone(),
                o.voided.clone(),
                o.state,
            )
        })
        .collect();
    let expected: Vec<_> = reference
        .orders
        .iter()
        .map(|(id, o)| {
            let voided: Vec<usize> = o.voided.iter().copied().collect();
            (
                id.clone(),
                o.hold.clone(),
                units(&o.seats),
                units(&voided),
                o.state,
            )
        })
        .collect();
    prop_assert_eq!(orders, expected);
    let backlog = snap.holds.iter().any(|h| h.expires_at_ms <= now);
    if backlog {
        prop_assert!(ledger.next_expiry().is_some_and(|e| e <= now));
    } else {
        let earliest = reference.holds.values().map(|h| h.expires_at_ms).min();
        prop_assert_eq!(ledger.next_expiry(), earliest);
    }
    let map = ledger.availability();
    prop_assert_eq!(map.version, snap.version);
    let public: Vec<_> = snap.units.iter().map(|u| u.state.public()).collect();
    prop_assert_eq!(map.units, public);
    Ok(())
}

fn units(seats: &[usize]) -> Vec<UnitId> {
    seats.iter().map(|&s| UnitId(s as u32)).collect()
}

/// Independently of `check_invariants`: no unit is claimed by two holds or
/// open orders, and each claimed unit's state names its claimant.
pub fn check_exclusive(snap: &Snapshot) -> Result<(), TestCaseError> {
    let mut claims: BTreeMap<UnitId, UnitState> = BTreeMap::new();
    let held = snap
        .holds
        .iter()
        .flat_map(|h| h.seats.iter().map(|&u| (u, UnitState::Held(h.id.clone()))));
    let owned = snap.orders.iter().flat_map(|o| {
        let state = match o.state {
            OrderState::Pending => Some(UnitState::Pending(o.id.clone())),
            OrderState::Confirmed => Some(UnitState::Sold(o.id.clone())),
            _ => None,
        };
        let live = o.seats.iter().filter(|u| !o.voided.contains(u));
        live.filter_map(move |&u| Some((u, state.clone()?)))
            .collect::<Vec<_>>()
    });
    for (unit, claimed) in held.chain(owned) {
        prop_assert_eq!(&snap.units[unit.index()].state, &claimed);
        prop_assert!(
            claims.insert(unit, claimed).is_none(),
            "unit {:?} claimed twice",
            unit
        );
    }
    for (i, row) in snap.units.iter().enumerate() {
        let claimable = !matches!(row.state, UnitState::Available | UnitState::Blocked);
        prop_assert_eq!(claimable, claims.contains_key(&UnitId(i as u32)));
    }
    Ok(())
}

/// Every changed row is listed, the version moves exactly when state does,
/// blocked seats never change, and only `confirm` makes a seat sold (or
/// `move_seat`, the one seat it moves to).
pub fn check_changes(
    before: &Snapshot,
    after: &Snapshot,
    changes: &Changes,
    step: &Step,
) -> Result<(), TestCaseError> {
    for (i, (b, a)) in before.units.iter().zip(&after.units).enumerate() {
        if b.state != a.state {
            prop_assert!(
                changes.units.contains(&UnitId(i as u32)),
                "unit {} not listed",
                b.name
            );
        }
        prop_assert_eq!(b.state == UnitState::Blocked, a.state == UnitState::Blocked);
        if let UnitState::Sold(order) = &a.state {
            let newly = b.state != a.state;
            let confirmed = matches!(step, Step::Confirm { order: o } if order_id(*o) == *order);
            let moved = matches!(step, Step::Move { order: o, .. } if order_id(*o) == *order)
                && matches!(b.state, UnitState::Available | UnitState::Held(_));
            prop_assert!(
                !newly || confirmed || moved,
                "{} sold by {:?}",
                a.name,
                step
            );
        }
    }
    let changed_holds = differing(&before.holds, &after.holds, |h| h.id.clone());
    prop_assert!(changed_holds.is_subset(&changes.holds));
    let changed_orders = differing(&before.orders, &after.orders, |o| o.id.clone());
    prop_assert!(changed_orders.is_subset(&changes.orders));
    let changed =
        before.units != after.units || !changed_holds.is_empty() || !changed_orders.is_empty();
    prop_assert_eq!(after.version, before.version + u64::from(changed));
    prop_assert_eq!(changes.is_empty(), !changed);
    prop_assert_eq!(changes.version, after.version);
    prop_assert_eq!(changes.latest_now_ms, after.latest_now_ms);
    Ok(())
}

/// Ids of records added, removed or changed between two sorted lists.
fn differing<R: PartialEq, K: Ord + Clone>(
    before: &[R],
    after: &[R],
    key: impl Fn(&R) -> K,
) -> BTreeSet<K> {
    let b: BTreeMap<K, &R> = before.iter().map(|r| (key(r), r)).collect();
    let a: BTreeMap<K, &R> = after.iter().map(|r| (key(r), r)).collect();
    let keys: BTreeSet<K> = b.keys().chain(a.keys()).cloned().collect();
    keys.into_iter().filter(|k| b.get(k) != a.get(k)).collect()
}
