//! The rush's part of the report: one table with a column per phase, and
//! its targets.

use std::fmt::Write;

use super::{room, RushSettings, Variant, ARRIVALS, OPENS_AFTER};
use crate::report::{count, table, verdict, Runs};

/// The rows of the table: label, then the figure's name under each phase.
const ROWS: &[(&str, &str)] = &[
    ("buyers", "buyers"),
    ("paid", "buyers.paid"),
    ("walked away from their hold", "buyers.abandoned"),
    ("told sold out while in line", "buyers.told_sold_out"),
    (
        "found no seat (admitted, or no line)",
        "buyers.found_no_seats",
    ),
    ("stuck (refused, or out of time)", "buyers.stuck"),
    ("admitted by the line", "buyers.admitted"),
    ("no free seat, s after opening", "all_taken_s"),
    ("sold out (no free seat, no hold), s", "sold_out_s"),
    ("last buyer without a seat told, s", "last_told_s"),
    ("everyone without a seat told, s", "everyone_told_s"),
    ("holds sent", "hold.count"),
    (
        "refused: seats taken meanwhile",
        "hold.refused.seats_unavailable",
    ),
    ("refused: fewer seats left", "hold.refused.not_enough_seats"),
    ("hold p50 ms", "hold.p50_ms"),
    ("hold p99 ms", "hold.p99_ms"),
    ("hold max ms", "hold.max_ms"),
    (
        "hold's wait for a client slot, p50 ms",
        "hold.slot_wait_p50_ms",
    ),
    (
        "hold's wait for a client slot, p99 ms",
        "hold.slot_wait_p99_ms",
    ),
    ("granted holds (201) p50 ms", "hold.p50_ms.201"),
    ("granted holds (201) p99 ms", "hold.p99_ms.201"),
    ("hold answers 201", "hold.answers.201"),
    ("hold answers 409", "hold.answers.409"),
    ("hold answers 403", "hold.answers.403"),
    ("hold unanswered", "hold.answers.0"),
    ("checkout p50 ms", "checkout.p50_ms"),
    ("checkout p99 ms", "checkout.p99_ms"),
    ("line polls", "queue.count"),
    ("line poll p50 ms", "queue.p50_ms"),
    ("line poll p99 ms", "queue.p99_ms"),
    ("line poll max ms", "queue.max_ms"),
    (
        "line poll's wait for a client slot, p99 ms",
        "queue.slot_wait_p99_ms",
    ),
    ("line polls in the busiest second", "queue.peak_per_s"),
    ("line polls unanswered", "queue.answers.0"),
    ("seat maps read (Worker's copy)", "seat_map.count"),
    ("object requests/s while on sale", "object.requests_per_s"),
    (
        "holds and checkouts in the busiest second",
        "object.peak_per_s",
    ),
    ("server CPU cores", "cpu.server.cores"),
    (
        "workerd's busiest thread, cores",
        "cpu.workerd_busiest_thread.cores",
    ),
    ("load generator CPU cores", "cpu.load_generator.cores"),
    ("times the dev server's runtime crashed", "runtime_restarts"),
    ("seats sold (object's map)", "seats_sold"),
    ("seats still held after", "seats_held_after"),
    ("live tickets (D1)", "live_tickets"),
    ("seats the buyers paid for", "buyers.seats_paid_for"),
    ("paid orders", "paid_orders"),
    ("payments captured (stand-in)", "payments_captured"),
    ("seats' worth captured", "seats_captured"),
    ("payments declined", "payments_declined"),
    ("authorizations left open", "authorizations_open"),
    ("seats ticketed twice", "seats_ticketed_twice"),
    ("tickets not matching the map", "tickets_not_matching_map"),
    ("buyers without a seat", "buyers.without_seats"),
    ("of them told", "buyers.told"),
    ("checks failed", "checks_failed"),
    ("joined after the opening", "fairness.joined_after_opening"),
    (
        "joined before it (placed at random)",
        "fairness.joined_early",
    ),
    (
        "early ones placed behind later ones",
        "fairness.early_placed_behind_later",
    ),
    ("pairs out of arrival order", "fairness.pairs_out_of_order"),
    (
        "of them more than a tick apart",
        "fairness.pairs_beyond_tick",
    ),
    ("most places from arrival rank", "fairness.max_displacement"),
    (
        "longest gap of a pair out of order, ms",
        "fairness.max_gap_ms",
    ),
];

pub fn section(out: &mut String, runs: &Runs, settings: &RushSettings) {
    let room = room(settings);
    let _ = writeln!(
        out,
        "### Rush\n\n{} buyers arrive at random within {} s for one showing of {} seats ({} rows \
         of {}, $12 a seat, holds lasting {} s); sales open {} s after the first may arrive. \
         Each buyer wants 1 to 4 seats, half of them best available (`{{\"best\": n}}`), half \
         picked from the Worker's copy of the map; one in ten has a card declined once, one in \
         twenty walks away from its hold. A buyer who finds no free seat while seats are held \
         reads the map every 10 s, as a sold-out page does, and tries again once it shows a free seat. **calm**: no rush, no waiting room; \
         one buyer every 60/{} s from the opening while a seat is free, until sold out (no free seat, no hold). **waiting room**: the \
         rush with the line admitting {} a minute; buyers poll it as `waitInLine()` does. \
         **no waiting room**: the same rush, everyone who came early trying at the opening. \
         The load generator has at most {} requests in flight (`wrangler dev`'s proxy ran out \
         of file descriptors with 5,000 buyers holding a connection each); latencies are round \
         trips from when a request left, and the wait for a slot is shown apart. \
         Times are from the opening; object requests count the holds, checkouts and maps the \
         showing's object answered, and the benchmark's own look at its counts every 250 ms, \
         over the time seats were on sale.\n",
        count(settings.buyers as u64),
        ARRIVALS.as_secs(),
        count(room.seats().into()),
        room.rows,
        room.per_row,
        settings.hold_secs,
        OPENS_AFTER.as_secs(),
        settings.admit_per_minute,
        count(settings.admit_per_minute.into()),
        count(super::buyer::MAX_IN_FLIGHT as u64),
    );
    let rows: Vec<Vec<String>> = ROWS
        .iter()
        .filter(|(_, name)| {
            Variant::ALL
                .iter()
                .any(|v| runs.spread(&format!("rush.{}.{name}", v.name())).is_some())
        })
        .map(|(label, name)| {
            let mut row = vec![label.to_string()];
            row.extend(
                Variant::ALL
                    .iter()
                    .map(|v| cell(runs, &format!("rush.{}.{name}", v.name()))),
            );
            row
        })
        .collect();
    table(out, &["", "calm", "waiting room", "no waiting room"], &rows);
    let _ = writeln!(
        out,
        "Hold latency against the calm phase, each computed within a run: with the waiting room \
         p50 {}, p99 {}, max {}; without it p50 {}, p99 {}, max {}.\n",
        runs.ratio("rush.ratio.room.hold_p50_ms"),
        runs.ratio("rush.ratio.room.hold_p99_ms"),
        runs.ratio("rush.ratio.room.hold_max_ms"),
        runs.ratio("rush.ratio.no_room.hold_p50_ms"),
        runs.ratio("rush.ratio.no_room.hold_p99_ms"),
        runs.ratio("rush.ratio.no_room.hold_max_ms"),
    );
}

/// A figure's median and range, whole numbers (counts) as such.
fn cell(runs: &Runs, name: &str) -> String {
    match runs.spread(name) {
        Some(s) if [s.median, s.min, s.max].iter().all(|v| v.fract() == 0.0) => {
            let n = |v: f64| count(v.max(0.0) as u64);
            match s.min == s.max {
                true => n(s.median),
                false => format!("{} ({}–{})", n(s.median), n(s.min), n(s.max)),
            }
        }
        _ => runs.cell(name),
    }
}

/// The rush's rows of the targets table.
pub fn targets(runs: &Runs) -> Vec<Vec<String>> {
    let capacity = f64::from(queue::rate::MEASURED_REQUESTS_PER_SECOND);
    let mut rows = vec![
        vec![
            "rush, waiting room: admitted buyers' hold p99 ≤ 1.2 × calm".into(),
            runs.ratio("rush.ratio.room.hold_p99_ms"),
            verdict(runs, "rush.ratio.room.hold_p99_ms", |v| v <= 1.2),
        ],
        vec![
            format!(
                "rush, waiting room: object requests/s under its measured capacity ({capacity})"
            ),
            cell(runs, "rush.room.object.requests_per_s"),
            verdict(runs, "rush.room.object.requests_per_s", |v| v < capacity),
        ],
        vec![
            "rush, waiting room: joined after opening, pairs out of order beyond the tick = 0"
                .into(),
            cell(runs, "rush.room.fairness.pairs_beyond_tick"),
            verdict(runs, "rush.room.fairness.pairs_beyond_tick", |v| v == 0.0),
        ],
    ];
    for v in Variant::ALL {
        let name = format!("rush.{}.checks_failed", v.name());
        rows.push(vec![
            format!(
                "rush, {}: sold = live tickets = captured, no seat twice, no authorization \
                 open, everyone without a seat told (checks failed = 0)",
                v.label()
            ),
            cell(runs, &name),
            verdict(runs, &name, |f| f == 0.0),
        ]);
    }
    rows
}
