//! The design study's baseline in an in-memory SQLite: one conditional
//! UPDATE per group inside a transaction, committed only if it changed as
//! many rows as the group has seats. Indexes on the hold id and on expiry
//! give the confirm and the sweep what a real deployment would have. The
//! expiry index leaves `state` out on purpose: with it, SQLite's planner
//! answers the hold's `state = 'available'` from that index and scans every
//! free seat instead of looking the four seats up by primary key.

use crate::{Workload, TTL_MS};
use rusqlite::{params, Connection};
use std::hint::black_box;
use std::time::{Duration, Instant};

const SHOW: i64 = 7;

const HOLD: &str = "UPDATE seats SET state = 'held', hold_id = ?1, held_until = ?2 \
     WHERE show_id = ?3 AND seat_id IN (?4, ?5, ?6, ?7) AND state = 'available'";
const CONFIRM: &str = "UPDATE seats SET state = 'sold', order_id = ?1 \
     WHERE show_id = ?2 AND hold_id = ?3 AND state = 'held'";
const SWEEP: &str = "UPDATE seats SET state = 'available', hold_id = NULL, held_until = NULL \
     WHERE show_id = ?1 AND held_until <= ?2 AND state = 'held'";
const RESET: &str = "UPDATE seats SET state = 'available', hold_id = NULL, held_until = NULL, \
     order_id = NULL WHERE show_id = ?1 AND state <> 'available'";

fn open(work: &Workload) -> Connection {
    let db = Connection::open_in_memory().unwrap();
    db.execute_batch(
        "CREATE TABLE seats (show_id INTEGER NOT NULL, seat_id TEXT NOT NULL,
             state TEXT NOT NULL DEFAULT 'available', hold_id TEXT, held_until INTEGER,
             order_id TEXT, PRIMARY KEY (show_id, seat_id));
         CREATE INDEX seats_by_hold ON seats (show_id, hold_id);
         CREATE INDEX seats_by_expiry ON seats (show_id, held_until);",
    )
    .unwrap();
    let tx = db.unchecked_transaction().unwrap();
    for name in &work.names {
        tx.execute(
            "INSERT INTO seats (show_id, seat_id) VALUES (?1, ?2)",
            params![SHOW, name],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    db
}

/// Holds one group all or nothing; true if every seat was taken.
fn hold_group(db: &Connection, hold_id: &str, until_ms: i64, seats: &[String]) -> bool {
    let tx = db.unchecked_transaction().unwrap();
    let changed = tx
        .prepare_cached(HOLD)
        .unwrap()
        .execute(params![
            hold_id, until_ms, SHOW, seats[0], seats[1], seats[2], seats[3]
        ])
        .unwrap();
    if changed == seats.len() {
        tx.commit().unwrap();
        true
    } else {
        tx.rollback().unwrap();
        false
    }
}

fn reset(db: &Connection) {
    db.prepare_cached(RESET)
        .unwrap()
        .execute(params![SHOW])
        .unwrap();
}

fn hold_ids(work: &Workload) -> Vec<String> {
    (0..work.groups.len())
        .map(|i| format!("{i:032x}"))
        .collect()
}

pub fn hold(work: &Workload, iters: u64) -> Duration {
    let db = open(work);
    let ids = hold_ids(work);
    let mut timed = Duration::ZERO;
    for (start, count) in work.batches(iters) {
        let batch = || ids[start..start + count].iter().zip(&work.groups[start..]);
        let clock = Instant::now();
        for (id, seats) in batch() {
            black_box(hold_group(&db, id, TTL_MS as i64, seats));
        }
        timed += clock.elapsed();
        reset(&db);
    }
    timed
}

pub fn confirm(work: &Workload, iters: u64) -> Duration {
    let db = open(work);
    let ids = hold_ids(work);
    let mut timed = Duration::ZERO;
    for (start, count) in work.batches(iters) {
        let batch = || ids[start..start + count].iter().zip(&work.groups[start..]);
        for (id, seats) in batch() {
            assert!(hold_group(&db, id, TTL_MS as i64, seats));
        }
        let clock = Instant::now();
        for (id, seats) in batch() {
            let tx = db.unchecked_transaction().unwrap();
            let confirm = tx.prepare_cached(CONFIRM);
            let sold = confirm.unwrap().execute(params![id, SHOW, id]).unwrap();
            assert_eq!(sold, seats.len());
            tx.commit().unwrap();
        }
        timed += clock.elapsed();
        reset(&db);
    }
    timed
}

pub fn sweep(work: &Workload, iters: u64) -> Duration {
    let db = open(work);
    let ids = hold_ids(work);
    let mut timed = Duration::ZERO;
    let mut now_ms = 1_000_i64;
    for (start, count) in work.batches(iters) {
        let until_ms = now_ms + TTL_MS as i64;
        for (id, seats) in ids[start..start + count].iter().zip(&work.groups[start..]) {
            assert!(hold_group(&db, id, until_ms, seats));
        }
        now_ms += TTL_MS as i64;
        let clock = Instant::now();
        let released = db
            .prepare_cached(SWEEP)
            .unwrap()
            .execute(params![SHOW, now_ms])
            .unwrap();
        timed += clock.elapsed();
        assert_eq!(released, count * work.groups[0].len());
    }
    timed
}
