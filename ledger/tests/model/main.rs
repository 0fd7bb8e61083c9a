//! Model-based test: random sequences of up to 200 calls, with the clock
//! moving forwards and backwards and the ledger restored from its snapshot,
//! run on the ledger and on a plain reference (`reference.rs`). After every
//! step the answers, the state, the changes and the invariants must agree.
//!
//! 1,000 cases by default; `PROPTEST_CASES=100000 cargo test -p ledger
//! --release --test model` runs more.

mod checks;
mod reference;

use checks::{check_agreement, check_changes, check_exclusive};
use ledger::{Changes, Config, HoldId, Ledger, OrderId};
use proptest::collection::vec;
use proptest::prelude::*;
use reference::Reference;
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
struct Setup {
    config: Config,
    blocked: Vec<bool>,
}

/// Seats are drawn from the showing's units plus two it does not have.
#[derive(Clone, Debug)]
enum Step {
    Hold {
        hold: u8,
        seats: Vec<u8>,
    },
    Release {
        hold: u8,
    },
    Pay {
        hold: u8,
    },
    /// `seats: None` commits the seats last granted to that hold id, so that
    /// commits (lapsed or not) mostly succeed.
    Commit {
        hold: u8,
        order: u8,
        seats: Option<Vec<u8>>,
    },
    Confirm {
        order: u8,
    },
    Abandon {
        order: u8,
    },
    /// `seats: Err(mask)` refunds the order's seats picked by the mask's bits.
    Void {
        order: u8,
        seats: Result<Vec<u8>, u8>,
    },
    /// `from: Err(n)` moves the order's `n`th seat (modulo its size).
    Move {
        order: u8,
        from: Result<u8, u8>,
        to: u8,
    },
    Sweep,
    Forward {
        by_ms: u64,
    },
    Backward {
        by_ms: u64,
    },
    Restore,
}

const TICK_MS: u64 = 100;

fn setup() -> impl Strategy<Value = Setup> {
    // Times are whole ticks of 100 ms, so that calls often land exactly on
    // an expiry, and holds granted together expire together.
    let limits = (1..=4u32, 1..=30u64, 0..=30u64, 1..=8u32, 1..=2u32, 0..=4u32);
    (vec(prop::bool::weighted(0.1), 1..=24), limits).prop_map(
        |(blocked, (seats, ttl_ticks, extra_ticks, live, sweep, closed))| Setup {
            config: Config {
                max_seats_per_hold: seats,
                hold_ttl_ms: ttl_ticks * TICK_MS,
                payment_cap_ms: (ttl_ticks + extra_ticks) * TICK_MS,
                max_live_holds: live,
                max_released_per_sweep: sweep,
                max_closed_orders: closed,
            },
            blocked,
        },
    )
}

fn step() -> impl Strategy<Value = Step> {
    let seats = || vec(any::<u8>(), 0..=5);
    prop_oneof![
        6 => (any::<u8>(), seats()).prop_map(|(hold, seats)| Step::Hold { hold, seats }),
        1 => any::<u8>().prop_map(|hold| Step::Release { hold }),
        2 => any::<u8>().prop_map(|hold| Step::Pay { hold }),
        4 => (any::<u8>(), any::<u8>(), prop::option::weighted(0.2, seats()))
            .prop_map(|(hold, order, seats)| Step::Commit { hold, order, seats }),
        3 => any::<u8>().prop_map(|order| Step::Confirm { order }),
        1 => any::<u8>().prop_map(|order| Step::Abandon { order }),
        2 => (any::<u8>(), prop_oneof![seats().prop_map(Ok), any::<u8>().prop_map(Err)])
            .prop_map(|(order, seats)| Step::Void { order, seats }),
        2 => (any::<u8>(), prop_oneof![1 => any::<u8>().prop_map(Ok), 4 => any::<u8>().prop_map(Err)], any::<u8>())
            .prop_map(|(order, from, to)| Step::Move { order, from, to }),
        1 => Just(Step::Sweep),
        4 => prop_oneof![9 => 0..=20u64, 1 => 0..=10_000_000u64]
            .prop_map(|ticks| Step::Forward { by_ms: ticks * TICK_MS }),
        1 => (0..=40u64).prop_map(|ticks| Step::Backward { by_ms: ticks * TICK_MS }),
        1 => Just(Step::Restore),
    ]
}

fn cases() -> u32 {
    let from_env = std::env::var("PROPTEST_CASES").ok();
    from_env.and_then(|v| v.parse().ok()).unwrap_or(1_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn the_ledger_agrees_with_the_reference(setup in setup(), steps in vec(step(), 0..=200)) {
        run(setup, steps)?;
    }
}

/// Unit names, some with spaces as named slots have.
fn unit_names(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            if i % 5 == 4 {
                format!("Site {i}")
            } else {
                format!("R{i}")
            }
        })
        .collect()
}

struct World {
    ledger: Ledger,
    reference: Reference,
    clock_ms: u64,
    /// The seats last granted to each hold id, remembered after the hold ends.
    granted: BTreeMap<HoldId, Vec<String>>,
}

fn run(setup: Setup, steps: Vec<Step>) -> Result<(), TestCaseError> {
    let names = unit_names(setup.blocked.len());
    let blocked: Vec<&String> = names
        .iter()
        .zip(&setup.blocked)
        .filter(|(_, b)| **b)
        .map(|(n, _)| n)
        .collect();
    let ledger = Ledger::new(setup.config.clone(), &names, &blocked).unwrap();
    let reference = Reference::new(setup.config, names, &setup.blocked);
    let mut world = World {
        ledger,
        reference,
        clock_ms: 0,
        granted: BTreeMap::new(),
    };
    for step in &steps {
        let before = world.ledger.snapshot();
        let changes = world.apply(step)?;
        let after = world.ledger.snapshot();
        check_agreement(&world.ledger, &world.reference, &after)?;
        check_exclusive(&after)?;
        if let Some(changes) = changes {
            check_changes(&before, &after, &changes, step)?;
        }
        let restored = Ledger::restore(after).map_err(|e| fail(format!("restore: {e}")))?;
        prop_assert_eq!(&restored, &world.ledger);
    }
    Ok(())
}

fn fail(message: String) -> TestCaseError {
    TestCaseError::fail(message)
}

fn hold_id(n: u8) -> HoldId {
    HoldId::new(format!("h{}", n % 6)).unwrap()
}

fn order_id(n: u8) -> OrderId {
    OrderId::new(format!("o{}", n % 6)).unwrap()
}

impl World {
    fn seat_names(&self, picks: &[u8]) -> Vec<String> {
        let names = &self.reference.names;
        let pool = names.len() + 2;
        picks
            .iter()
            .map(|&p| {
                names
                    .get(p as usize % pool)
                    .cloned()
                    .unwrap_or(format!("Z{}", p % 2))
            })
            .collect()
    }

    fn order_seats(&self, order: &OrderId, mask: u8) -> Vec<String> {
        let Some(record) = self.reference.orders.get(order) else {
            return Vec::new();
        };
        let picked = record
            .seats
            .iter()
            .enumerate()
            .filter(|(i, _)| mask & (1 << i) != 0);
        picked
            .map(|(_, &s)| self.reference.names[s].clone())
            .collect()
    }

    /// The order's `n`th seat (modulo its size), or a seat it does not have.
    fn order_seat(&self, order: &OrderId, n: u8) -> String {
        match self.reference.orders.get(order) {
            Some(record) => {
                let seat = record.seats[n as usize % record.seats.len()];
                self.reference.names[seat].clone()
            }
            None => "Z0".to_string(),
        }
    }

    /// Runs one step on both ledgers, checks the answers agree, and returns
    /// the ledger's changes (none for steps that only move the clock).
    fn apply(&mut self, step: &Step) -> Result<Option<Changes>, TestCaseError> {
        let (ledger, now) = (&mut self.ledger, self.clock_ms);
        let changes = match step {
            Step::Hold { hold, seats } => {
                let (id, seats) = (hold_id(*hold), self.seat_names(seats));
                let outcome = self.ledger.hold(now, &id, &seats);
                prop_assert_eq!(&outcome.result, &self.reference.hold(now, &id, &seats));
                if outcome.result.is_ok() {
                    self.granted.insert(id, seats);
                }
                outcome.changes
            }
            Step::Release { hold } => {
                let outcome = ledger.release(now, &hold_id(*hold));
                prop_assert_eq!(
                    &outcome.result,
                    &self.reference.release(now, &hold_id(*hold))
                );
                outcome.changes
            }
            Step::Pay { hold } => {
                let outcome = ledger.start_payment(now, &hold_id(*hold));
                let expected = self.reference.start_payment(now, &hold_id(*hold));
                prop_assert_eq!(&outcome.result, &expected);
                outcome.changes
            }
            Step::Commit { hold, order, seats } => {
                let (hold, order) = (hold_id(*hold), order_id(*order));
                let seats = match seats {
                    Some(picks) => self.seat_names(picks),
                    None => self.granted.get(&hold).cloned().unwrap_or_default(),
                };
                let outcome = self.ledger.commit(now, &hold, &order, &seats);
                let expected = self.reference.commit(now, &hold, &order, &seats);
                prop_assert_eq!(&outcome.result, &expected);
                outcome.changes
            }
            Step::Confirm { order } => {
                let outcome = ledger.confirm(now, &order_id(*order));
                prop_assert_eq!(
                    &outcome.result,
                    &self.reference.confirm(now, &order_id(*order))
                );
                outcome.changes
            }
            Step::Abandon { order } => {
                let outcome = ledger.abandon(now, &order_id(*order));
                prop_assert_eq!(
                    &outcome.result,
                    &self.reference.abandon(now, &order_id(*order))
                );
                outcome.changes
            }
            Step::Void { order, seats } => {
                let order = order_id(*order);
                let seats = match seats {
                    Ok(picks) => self.seat_names(picks),
                    Err(mask) => self.order_seats(&order, *mask),
                };
                let outcome = self.ledger.void(now, &order, &seats);
                prop_assert_eq!(&outcome.result, &self.reference.void(now, &order, &seats));
                outcome.changes
            }
            Step::Move { order, from, to } => {
                let order = order_id(*order);
                let from = match from {
                    Ok(pick) => self.seat_names(&[*pick]).remove(0),
                    Err(n) => self.order_seat(&order, *n),
                };
                let to = self.seat_names(&[*to]).remove(0);
                let outcome = self.ledger.move_seat(now, &order, &from, &to);
                let expected = self.reference.move_seat(now, &order, &from, &to);
                prop_assert_eq!(&outcome.result, &expected);
                outcome.changes
            }
            Step::Sweep => {
                self.reference.begin(now);
                ledger.sweep(now)
            }
            Step::Forward { by_ms } => return self.move_clock(now.saturating_add(*by_ms)),
            Step::Backward { by_ms } => return self.move_clock(now.saturating_sub(*by_ms)),
            Step::Restore => {
                let bytes = ledger.snapshot_to_bytes();
                let restored = Ledger::restore_from_bytes(&bytes);
                let restored = restored.map_err(|e| fail(format!("restore_from_bytes: {e}")))?;
                prop_assert_eq!(&restored, &self.ledger);
                self.ledger = restored;
                return Ok(None);
            }
        };
        Ok(Some(changes))
    }

    fn move_clock(&mut self, to_ms: u64) -> Result<Option<Changes>, TestCaseError> {
        self.clock_ms = to_ms;
        Ok(None)
    }
}
