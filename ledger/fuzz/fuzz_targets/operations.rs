//! Scripts of calls decoded from fuzz bytes: no call may panic, every call
//! must leave the invariants whole, list every row it changed, move the
//! version exactly when state changes, and only `confirm` may sell a seat.
//! The ledger must survive a snapshot round trip at every step.

#![no_main]

use arbitrary::Arbitrary;
use ledger::{Changes, Config, HoldId, Ledger, OrderId, Snapshot, UnitId, UnitState};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Script {
    units: u8,
    blocked: u32,
    limits: (u8, u16, u16, u8, u8, u8),
    steps: Vec<Step>,
}

#[derive(Arbitrary, Debug)]
enum Seat {
    /// A unit of the showing, or one of a few it does not have.
    Pick(u8),
    /// Any text at all, to reach the name checks.
    Raw(String),
}

#[derive(Arbitrary, Debug)]
enum Step {
    Hold(u8, Vec<Seat>),
    Release(u8),
    Pay(u8),
    Commit(u8, u8, Vec<Seat>),
    /// Commits the seats last granted to the hold id.
    CommitGranted(u8, u8),
    Confirm(u8),
    Abandon(u8),
    Void(u8, Vec<Seat>),
    Sweep,
    /// Moves the clock by this many 100 ms ticks, backwards when negative.
    Clock(i16),
    Restore,
}

fn config(limits: (u8, u16, u16, u8, u8, u8)) -> Config {
    let (seats, ttl, extra, live, sweep, closed) = limits;
    let ttl_ms = 100 * (1 + u64::from(ttl % 100));
    Config {
        max_seats_per_hold: 1 + u32::from(seats % 10),
        hold_ttl_ms: ttl_ms,
        payment_cap_ms: ttl_ms + 100 * u64::from(extra % 100),
        max_live_holds: 1 + u32::from(live % 16),
        max_released_per_sweep: 1 + u32::from(sweep % 4),
        max_closed_orders: u32::from(closed % 8),
    }
}

struct Run {
    ledger: Ledger,
    names: Vec<String>,
    clock_ms: u64,
    granted: Vec<(HoldId, Vec<String>)>,
}

fuzz_target!(|script: Script| {
    let count = 1 + script.units as usize % 32;
    let names: Vec<String> = (0..count).map(|i| format!("R{i}")).collect();
    let blocked: Vec<&String> = names
        .iter()
        .enumerate()
        .filter(|(i, _)| script.blocked & (1 << i) != 0)
        .map(|(_, n)| n)
        .collect();
    let ledger = Ledger::new(config(script.limits), &names, &blocked).unwrap();
    let mut run = Run {
        ledger,
        names,
        clock_ms: 0,
        granted: Vec::new(),
    };
    for step in &script.steps {
        let before = run.ledger.snapshot();
        let changes = run.apply(step);
        let after = run.ledger.snapshot();
        run.ledger.check_invariants().unwrap();
        if let Some(changes) = changes {
            check_changes(&before, &after, &changes, matches!(step, Step::Confirm(_)));
        }
        assert_eq!(Ledger::restore(after).unwrap(), run.ledger);
    }
});

fn hold_id(n: u8) -> HoldId {
    HoldId::new(format!("h{}", n % 8)).unwrap()
}

fn order_id(n: u8) -> OrderId {
    OrderId::new(format!("o{}", n % 8)).unwrap()
}

impl Run {
    fn seats(&self, seats: &[Seat]) -> Vec<String> {
        let pool = self.names.len() + 3;
        let name = |seat: &Seat| match seat {
            Seat::Pick(p) => self.names.get(*p as usize % pool).cloned(),
            Seat::Raw(text) => Some(text.clone()),
        };
        seats
            .iter()
            .map(|s| name(s).unwrap_or_else(|| "Z".into()))
            .collect()
    }

    fn apply(&mut self, step: &Step) -> Option<Changes> {
        let now = self.clock_ms;
        let changes = match step {
            Step::Hold(h, seats) => {
                let seats = self.seats(seats);
                let outcome = self.ledger.hold(now, &hold_id(*h), &seats);
                if let Ok(granted) = &outcome.result {
                    assert_eq!(granted.units.len(), seats.len());
                    for &unit in &granted.units {
                        let state = self.ledger.unit_state(unit);
                        assert_eq!(state, Some(&UnitState::Held(hold_id(*h))));
                    }
                    self.granted.push((hold_id(*h), seats));
                }
                outcome.changes
            }
            Step::Release(h) => self.ledger.release(now, &hold_id(*h)).changes,
            Step::Pay(h) => self.ledger.start_payment(now, &hold_id(*h)).changes,
            Step::Commit(h, o, seats) => {
                let seats = self.seats(seats);
                self.ledger
                    .commit(now, &hold_id(*h), &order_id(*o), &seats)
                    .changes
            }
            Step::CommitGranted(h, o) => {
                let hold = hold_id(*h);
                let last = self.granted.iter().rev().find(|(id, _)| *id == hold);
                let seats = last.map(|(_, s)| s.clone()).unwrap_or_default();
                self.ledger
                    .commit(now, &hold, &order_id(*o), &seats)
                    .changes
            }
            Step::Confirm(o) => self.ledger.confirm(now, &order_id(*o)).changes,
            Step::Abandon(o) => self.ledger.abandon(now, &order_id(*o)).changes,
            Step::Void(o, seats) => {
                let seats = self.seats(seats);
                self.ledger.void(now, &order_id(*o), &seats).changes
            }
            Step::Sweep => self.ledger.sweep(now),
            Step::Clock(ticks) => {
                let by_ms = 100 * u64::from(ticks.unsigned_abs());
                self.clock_ms = if *ticks < 0 {
                    now.saturating_sub(by_ms)
                } else {
                    now.saturating_add(by_ms)
                };
                return None;
            }
            Step::Restore => {
                let restored = Ledger::restore_from_bytes(&self.ledger.snapshot_to_bytes());
                self.ledger = restored.unwrap();
                return None;
            }
        };
        Some(changes)
    }
}

fn check_changes(before: &Snapshot, after: &Snapshot, changes: &Changes, confirm: bool) {
    for (i, (b, a)) in before.units.iter().zip(&after.units).enumerate() {
        if b.state != a.state {
            assert!(changes.units.contains(&UnitId(i as u32)));
            let sold = matches!(a.state, UnitState::Sold(_));
            assert!(!sold || confirm, "a seat became sold outside confirm");
        }
    }
    for hold in before.holds.iter().chain(&after.holds) {
        let b = before.holds.iter().find(|h| h.id == hold.id);
        let a = after.holds.iter().find(|h| h.id == hold.id);
        assert!(b == a || changes.holds.contains(&hold.id));
    }
    for order in before.orders.iter().chain(&after.orders) {
        let b = before.orders.iter().find(|o| o.id == order.id);
        let a = after.orders.iter().find(|o| o.id == order.id);
        assert!(b == a || changes.orders.contains(&order.id));
    }
    let same =
        before.units == after.units && before.holds == after.holds && before.orders == after.orders;
    assert_eq!(changes.is_empty(), same);
    assert_eq!(after.version, before.version + u64::from(!same));
}
