//! Cost of a hold, a confirm and a sweep as the venue grows (16 to 20,000
//! units), for the ledger and for the design study's baseline: a
//! conditional UPDATE per group in SQLite (`sqlite.rs`), on the same groups.
//!
//! Each measured iteration is one group of four seats: held, confirmed, or
//! released by a sweep. Setup and cleanup between batches are not timed.
//!
//! `best` times best available's choice of four seats together (the
//! ledger alone: the baseline has no such thing), in an empty room and in
//! one 95% taken, rows of 40 with two aisles.

mod sqlite;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ledger::{Best, Config, HoldId, Ledger, OrderId, SeatRow, Seating, MAX_UNITS};
use std::hint::black_box;
use std::time::{Duration, Instant};

const SIZES: [usize; 4] = [16, 500, 5_000, 20_000];
const GROUP: usize = 4;
/// Most groups handled between two untimed cleanups.
const BATCH: usize = 1_000;
const TTL_MS: u64 = 300_000;

/// A showing of `units` seats cut into groups of four, in a scattered order
/// so that consecutive holds touch distant parts of the venue.
pub struct Workload {
    pub names: Vec<String>,
    pub groups: Vec<Vec<String>>,
}

impl Workload {
    fn new(units: usize) -> Workload {
        let names: Vec<String> = (0..units)
            .map(|i| format!("R{}S{}", i / 40, i % 40))
            .collect();
        let mut groups: Vec<Vec<String>> = names.chunks(GROUP).map(|c| c.to_vec()).collect();
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        for i in (1..groups.len()).rev() {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            groups.swap(i, state as usize % (i + 1));
        }
        Workload { names, groups }
    }

    /// The batches that make up `iters` iterations: (first group, count).
    pub fn batches(&self, iters: u64) -> impl Iterator<Item = (usize, usize)> + '_ {
        let per_batch = self.groups.len().min(BATCH);
        let mut left = iters as usize;
        let mut next = 0;
        std::iter::from_fn(move || {
            if left == 0 {
                return None;
            }
            let count = per_batch.min(left);
            let start = if next + count > self.groups.len() {
                0
            } else {
                next
            };
            left -= count;
            next = start + count;
            Some((start, count))
        })
    }
}

fn ledger_for(work: &Workload) -> Ledger {
    let config = Config {
        hold_ttl_ms: TTL_MS,
        max_live_holds: MAX_UNITS as u32,
        max_released_per_sweep: MAX_UNITS as u32,
        max_closed_orders: 0,
        ..Config::default()
    };
    Ledger::new(config, &work.names, &[] as &[&str]).unwrap()
}

fn ids(count: usize) -> (Vec<HoldId>, Vec<OrderId>) {
    let holds = (0..count).map(|i| HoldId::new(format!("{i:032x}")).unwrap());
    let orders = (0..count).map(|i| OrderId::new(format!("{:032x}", i + (1 << 40))).unwrap());
    (holds.collect(), orders.collect())
}

fn ledger_hold(work: &Workload, iters: u64) -> Duration {
    let mut ledger = ledger_for(work);
    let (holds, _) = ids(work.groups.len());
    let mut timed = Duration::ZERO;
    for (start, count) in work.batches(iters) {
        let range = start..start + count;
        let clock = Instant::now();
        for g in range.clone() {
            let held = black_box(ledger.hold(1_000, &holds[g], &work.groups[g]));
            assert!(held.result.is_ok());
        }
        timed += clock.elapsed();
        for g in range {
            let _ = ledger.release(1_000, &holds[g]);
        }
    }
    timed
}

fn ledger_confirm(work: &Workload, iters: u64) -> Duration {
    let mut ledger = ledger_for(work);
    let (holds, orders) = ids(work.groups.len());
    let mut timed = Duration::ZERO;
    for (start, count) in work.batches(iters) {
        let range = start..start + count;
        for g in range.clone() {
            let _ = ledger.hold(1_000, &holds[g], &work.groups[g]);
            let _ = ledger.commit(1_000, &holds[g], &orders[g], &work.groups[g]);
        }
        let clock = Instant::now();
        for g in range.clone() {
            let sold = black_box(ledger.confirm(1_000, &orders[g]));
            assert!(sold.result.is_ok());
        }
        timed += clock.elapsed();
        for g in range {
            // With no closed orders remembered, the refund frees the order id.
            let _ = ledger.void(1_000, &orders[g], &work.groups[g]);
        }
    }
    timed
}

fn ledger_sweep(work: &Workload, iters: u64) -> Duration {
    let mut ledger = ledger_for(work);
    let (holds, _) = ids(work.groups.len());
    let mut timed = Duration::ZERO;
    let mut now_ms = 1_000;
    for (start, count) in work.batches(iters) {
        for (id, seats) in holds[start..start + count]
            .iter()
            .zip(&work.groups[start..])
        {
            let _ = ledger.hold(now_ms, id, seats);
        }
        now_ms += TTL_MS;
        let clock = Instant::now();
        black_box(ledger.sweep(now_ms));
        timed += clock.elapsed();
    }
    timed
}

/// A room of `work`'s seats in rows of 40, aisles after seats 10 and 30,
/// with `taken_percent` of its seats held in a scattered pattern.
fn room_for(work: &Workload, taken_percent: u64) -> Ledger {
    let mut ledger = ledger_for(work);
    let rows = work.names.len().div_ceil(40);
    let seating = Seating {
        rows: (0..rows)
            .map(|r| {
                let seats = (work.names.len() - r * 40).min(40) as u32;
                SeatRow {
                    seats,
                    aisles_after: [10, 30].into_iter().filter(|&a| a < seats).collect(),
                }
            })
            .collect(),
        ..Seating::default()
    };
    ledger.set_seating(Some(&seating)).unwrap();
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let taken: Vec<&String> = work
        .names
        .iter()
        .filter(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % 100 < taken_percent
        })
        .collect();
    let (holds, _) = ids(taken.len().div_ceil(GROUP));
    for (chunk, id) in taken.chunks(GROUP).zip(&holds) {
        ledger.hold(1_000, id, chunk).result.unwrap();
    }
    ledger
}

fn best(c: &mut Criterion) {
    let mut group = c.benchmark_group("best");
    group.throughput(Throughput::Elements(1));
    let four = Best {
        count: 4,
        together: true,
        accessible: false,
        counter: false,
        zone: None,
    };
    for units in SIZES {
        let work = Workload::new(units);
        for (name, taken) in [("empty", 0), ("95% taken", 95)] {
            let ledger = room_for(&work, taken);
            group.bench_with_input(BenchmarkId::new(name, units), &ledger, |b, ledger| {
                b.iter(|| black_box(ledger.best_seats(1_000, &four)))
            });
        }
    }
    group.finish();
}

type Runner = fn(&Workload, u64) -> Duration;

fn compare(c: &mut Criterion, name: &str, ledger: Runner, sqlite: Runner) {
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Elements(1));
    for units in SIZES {
        let work = Workload::new(units);
        group.bench_with_input(BenchmarkId::new("ledger", units), &work, |b, work| {
            b.iter_custom(|iters| ledger(work, iters))
        });
        group.bench_with_input(BenchmarkId::new("sqlite", units), &work, |b, work| {
            b.iter_custom(|iters| sqlite(work, iters))
        });
    }
    group.finish();
}

fn holds(c: &mut Criterion) {
    compare(c, "hold", ledger_hold, sqlite::hold);
    compare(c, "confirm", ledger_confirm, sqlite::confirm);
    compare(c, "sweep", ledger_sweep, sqlite::sweep);
    best(c);
}

criterion_group!(benches, holds);
criterion_main!(benches);
