//! The Markdown report: the machine, the command, a table per measure
//! (each figure the median of the runs with the lowest and highest in
//! brackets) and each target of issue #8, met or missed.

use std::fmt::Write;

use crate::figures::{spread, Figures, Spread};
use crate::measures::{Measure, Settings, CHECKOUT_ROOM, MAIN_ROOM, VENUES};

/// What the report says about where and how it was measured.
pub struct Context {
    pub machine: String,
    pub started: String,
    pub finished: String,
    pub command: String,
    pub minutes_per_run: f64,
}

/// A whole number with thousands separators: `20,000`.
pub(crate) fn count(n: u64) -> String {
    if n < 1000 {
        n.to_string()
    } else {
        number(n as f64)
    }
}

/// `1,234`, `56.7`, `8.90`: three significant figures or whole numbers.
pub(crate) fn number(v: f64) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let magnitude = v.abs();
    if magnitude >= 1000.0 {
        let whole = v.round() as i64;
        let digits = whole.abs().to_string();
        let mut grouped = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                grouped.push(',');
            }
            grouped.push(c);
        }
        if whole < 0 {
            grouped.insert(0, '-');
        }
        grouped
    } else if magnitude >= 100.0 {
        format!("{v:.0}")
    } else if magnitude >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub(crate) struct Runs<'a>(pub(crate) &'a [Figures]);

impl Runs<'_> {
    pub(crate) fn spread(&self, name: &str) -> Option<Spread> {
        spread(self.0, name)
    }

    /// `median (min–max)` of a figure, scaled (e.g. 100 for a percentage).
    fn cell_scaled(&self, name: &str, scale: f64, unit: &str) -> String {
        match self.spread(name) {
            Some(s) => format!(
                "{}{unit} ({}–{})",
                number(s.median * scale),
                number(s.min * scale),
                number(s.max * scale)
            ),
            None => "–".into(),
        }
    }

    pub(crate) fn cell(&self, name: &str) -> String {
        self.cell_scaled(name, 1.0, "")
    }

    /// Ratios keep three decimals, so a verdict is never hidden by rounding.
    pub(crate) fn ratio(&self, name: &str) -> String {
        match self.spread(name) {
            Some(s) => format!("{:.3}× ({:.3}–{:.3})", s.median, s.min, s.max),
            None => "–".into(),
        }
    }

    fn percent(&self, name: &str) -> String {
        self.cell_scaled(name, 100.0, " %")
    }

    /// How many runs have `name` within the bound.
    fn runs_within(&self, name: &str, ok: impl Fn(f64) -> bool) -> usize {
        self.0
            .iter()
            .filter(|run| run.get(name).is_some_and(|&v| ok(v)))
            .count()
    }
}

pub(crate) fn table(out: &mut String, header: &[&str], rows: &[Vec<String>]) {
    let _ = writeln!(out, "| {} |", header.join(" | "));
    let align: Vec<&str> = header
        .iter()
        .enumerate()
        .map(|(i, _)| if i == 0 { "---" } else { "---:" })
        .collect();
    let _ = writeln!(out, "| {} |", align.join(" | "));
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

pub fn markdown(runs: &[Figures], settings: &Settings, context: &Context) -> String {
    let runs = Runs(runs);
    let mut out = String::new();
    let timing = settings.timing;
    let _ = writeln!(
        out,
        "- Machine: {}\n- Date: {} to {} UTC, {} runs, about {:.1} minutes a run.\n\
         - Command: `{}`\n- Each phase: {} s of warm-up, then {} s measured; a request counts \
         when it ends inside the measured window. Each figure is the median of the \
         runs, with the lowest and highest in brackets. Latencies are round trips seen by the \
         load generator; CPU time is user plus system time from `/proc/<pid>/stat`, over the \
         measured window, divided by the requests answered in it, of: the workerd process \
         that runs the Worker and its objects (\"workerd\"); the second workerd process that \
         `wrangler dev` puts in front of it as a proxy, which every request also passes \
         through (\"proxy\"); wrangler's Node process (\"Node\"); and the load generator's \
         own process, which also runs the Square stand-in.\n",
        context.machine,
        context.started,
        context.finished,
        runs.0.len(),
        context.minutes_per_run,
        context.command,
        timing.warm_up.as_secs_f64(),
        timing.measure.as_secs_f64(),
    );
    let ran = |measure| settings.measures.contains(&measure);
    if ran(Measure::Floors) {
        floors_and_holds(&mut out, &runs, settings);
    }
    if ran(Measure::Reference) {
        against_the_reference(&mut out, &runs, settings);
    }
    if ran(Measure::Venues) {
        venues(&mut out, &runs, settings);
    }
    if ran(Measure::Viewers) {
        viewers(&mut out, &runs, settings);
    }
    if ran(Measure::Checkouts) {
        checkouts(&mut out, &runs, settings);
    }
    if ran(Measure::Rush) {
        crate::rush::report::section(&mut out, &runs, &settings.rush);
    }
    targets(&mut out, &runs, settings);
    out
}

fn answers(runs: &Runs, phase: &str, kind: &str) -> String {
    let mut parts = Vec::new();
    for status in [200, 201, 204, 409, 429, 500, 0] {
        let name = format!("{phase}.{kind}.share.{status}");
        if let Some(s) = runs.spread(&name) {
            parts.push(format!("{status}: {} %", number(s.median * 100.0)));
        }
    }
    parts.join(", ")
}

fn cpu_cells(runs: &Runs, phase: &str) -> Vec<String> {
    ["workerd", "proxy", "node", "load_generator"]
        .iter()
        .map(|who| runs.cell(&format!("{phase}.cpu.{who}.us_per_req")))
        .collect()
}

fn floors_and_holds(out: &mut String, runs: &Runs, settings: &Settings) {
    let _ = writeln!(
        out,
        "### Floors and holds\n\nOne showing of {} seats ({} rows of {}). Floors: `POST \
         /api/bench/showings/{{id}}/noop` (the object answers a tiny JSON) and `…/write` (one \
         SQLite upsert), through the same Worker → stub → object path as a hold. Holds: each \
         client is one buyer (its own session cookie) that holds two adjacent seats picked at \
         random and, when granted (201), releases them at once (`DELETE`), then holds again; \
         a 409 (seats taken) is a full round trip too. holds/s counts hold requests only; the \
         CPU columns divide by every request of the phase (holds and releases). No \
         `Idempotency-Key` is sent, as the web app sends none.\n",
        count(MAIN_ROOM.seats().into()),
        MAIN_ROOM.rows,
        MAIN_ROOM.per_row
    );
    let mut rows = Vec::new();
    for c in &settings.concurrencies {
        for (label, phase, kind) in [
            ("no-op floor", format!("noop.c{c}"), "noop"),
            ("one-write floor", format!("write.c{c}"), "write"),
            ("hold", format!("hold.c{c}"), "hold"),
            ("(its releases)", format!("hold.c{c}"), "release"),
        ] {
            let mut row = vec![
                label.to_string(),
                c.to_string(),
                runs.cell(&format!("{phase}.{kind}.rps")),
                runs.cell(&format!("{phase}.{kind}.p50_ms")),
                runs.cell(&format!("{phase}.{kind}.p99_ms")),
                answers(runs, &phase, kind),
            ];
            if kind == "release" {
                row.extend(["″"; 4].map(String::from));
            } else {
                row.extend(cpu_cells(runs, &phase));
            }
            rows.push(row);
        }
    }
    table(
        out,
        &[
            "request",
            "clients",
            "requests/s",
            "p50 ms",
            "p99 ms",
            "answers",
            "workerd CPU µs/req",
            "proxy CPU µs/req",
            "Node CPU µs/req",
            "load generator CPU µs/req",
        ],
        &rows,
    );
    let rows: Vec<Vec<String>> = settings
        .concurrencies
        .iter()
        .map(|c| {
            let r = |name: &str| runs.ratio(&format!("ratio.c{c}.{name}"));
            vec![
                c.to_string(),
                r("holds_per_write"),
                r("requests_per_write"),
                r("p99_per_write"),
                r("p99_per_noop"),
                r("cpu_per_write"),
                r("write_per_noop"),
            ]
        })
        .collect();
    let _ = writeln!(out, "Ratios, each computed within a run:\n");
    table(
        out,
        &[
            "clients",
            "holds/s ÷ write floor req/s",
            "(holds + releases)/s ÷ write floor req/s",
            "hold p99 ÷ write floor p99",
            "hold p99 ÷ no-op floor p99",
            "server CPU per request, hold ÷ write floor",
            "write floor ÷ no-op floor req/s",
        ],
        &rows,
    );
    let mut rows = Vec::new();
    for c in &settings.concurrencies {
        for phase in [
            format!("noop.c{c}"),
            format!("write.c{c}"),
            format!("hold.c{c}"),
        ] {
            rows.push(vec![
                phase.replace(".c", " at "),
                runs.cell(&format!("{phase}.cpu.workerd.cores")),
                runs.cell(&format!("{phase}.cpu.workerd_busiest_thread.cores")),
                runs.cell(&format!("{phase}.cpu.proxy.cores")),
                runs.cell(&format!("{phase}.cpu.node.cores")),
                runs.cell(&format!("{phase}.cpu.load_generator.cores")),
            ]);
        }
    }
    let _ = writeln!(
        out,
        "CPU cores busy during each phase (CPU seconds per second; the machine has 2). \
         The Worker and its objects run in one isolate of one workerd process, whose \
         JavaScript and Wasm run on one thread at a time; its busiest thread is shown on \
         its own:\n"
    );
    table(
        out,
        &[
            "phase",
            "workerd",
            "its busiest thread",
            "proxy",
            "Node",
            "load generator",
        ],
        &rows,
    );
}

fn against_the_reference(out: &mut String, runs: &Runs, settings: &Settings) {
    let _ = writeln!(
        out,
        "### Against the reference\n\nThe reference (`bench/reference/`, issue #17) is the \
         simplest seat booking on the same platform, in JavaScript: a Worker and a \
         SQLite-backed object per showing that books a seat with one SELECT and one UPDATE, \
         serving its page from static assets as Cloudflare's seat-booking tutorial does. \
         Its floors are a no-op and one upsert through the same Worker → object path. It runs \
         in a `wrangler dev` of its own, started in the same run as the product's, measured \
         with the same load generator. Bookings and holds have the same shape: one seat, for \
         a new buyer (no cookie), the next seat of a showing of 60 until it is full, then \
         the next showing. \"Longest silence\" is the longest stretch of the window in \
         which no answer came at all. The CPU columns are the dev server's of the target \
         measured.\n"
    );
    let mut rows = Vec::new();
    for c in &settings.concurrencies {
        for (label, phase, kind) in [
            (
                "JS no-op floor, no static assets",
                format!("ref_bare_noop.c{c}"),
                "noop",
            ),
            ("JS no-op floor", format!("ref_noop.c{c}"), "noop"),
            ("no-op floor", format!("noop.c{c}"), "noop"),
            ("JS one-write floor", format!("ref_write.c{c}"), "write"),
            ("one-write floor", format!("write.c{c}"), "write"),
            ("JS booking (reference)", format!("ref_book.c{c}"), "book"),
            ("hold of one seat", format!("hold1.c{c}"), "hold"),
            ("its Worker half", format!("hold1_worker.c{c}"), "hold"),
        ] {
            rows.push(vec![
                label.to_string(),
                c.to_string(),
                runs.cell(&format!("{phase}.{kind}.rps")),
                runs.cell(&format!("{phase}.{kind}.p50_ms")),
                runs.cell(&format!("{phase}.{kind}.p99_ms")),
                runs.cell(&format!("{phase}.{kind}.max_ms")),
                runs.cell(&format!("{phase}.all.silence_ms")),
                answers(runs, &phase, kind),
                runs.cell(&format!("{phase}.cpu.workerd.us_per_req")),
                runs.cell(&format!("{phase}.cpu.server.us_per_req")),
            ]);
        }
    }
    table(
        out,
        &[
            "request",
            "clients",
            "requests/s",
            "p50 ms",
            "p99 ms",
            "max ms",
            "longest silence ms",
            "answers",
            "workerd CPU µs/req",
            "server CPU µs/req",
        ],
        &rows,
    );
    let _ = writeln!(out, "Ratios, each computed within a run:\n");
    by_clients(
        out,
        settings,
        &[
            "holds/s ÷ bookings/s (target ≥ 1)",
            "hold p99 ÷ booking p99 (target ≤ 1)",
            "no-op floor ÷ JS no-op (target ≥ 0.9)",
            "write floor ÷ JS write (target ≥ 0.9)",
            "JS no-op ÷ JS no-op without static assets",
        ],
        |c| {
            [
                "hold1_per_book",
                "hold1_p99_per_book",
                "noop_per_js",
                "write_per_js",
                "js_noop_per_bare",
            ]
            .iter()
            .map(|name| runs.ratio(&format!("ratio.c{c}.{name}")))
            .collect()
        },
    );
    let _ = writeln!(
        out,
        "Where a one-seat answer's time goes: each answer says when it was decided by the \
         runtime's clock (the reference's `at`, taken in its Worker once the object answered; \
         a granted hold's `expires_at_ms - expires_in_ms`, taken in the object; the Worker \
         half's, taken in its Worker once the object answered), which splits its round trip \
         into the way there and the way back. p99 in ms.\n"
    );
    by_clients(
        out,
        settings,
        &[
            "booking: to the decision",
            "after it",
            "hold: to the decision",
            "after it",
            "Worker half: to the decision",
            "after it",
        ],
        |c| {
            let mut cells = Vec::new();
            for (phase, kind) in [
                ("ref_book", "book"),
                ("hold1", "hold"),
                ("hold1_worker", "hold"),
            ] {
                for part in ["to_decision_p99_ms", "after_decision_p99_ms"] {
                    cells.push(runs.cell(&format!("{phase}.c{c}.{kind}.{part}")));
                }
            }
            cells
        },
    );
    let _ = writeln!(
        out,
        "Where a hold's CPU goes: the Worker's runtime (workerd) CPU per request of a hold, \
         of its Worker half (the same requests, with an empty call to the object in place of \
         the hold), and the difference, which is the object's own work for a hold. Under \
         `wrangler dev` the Worker and its objects share one isolate, so this is as far as \
         they can be told apart.\n"
    );
    by_clients(
        out,
        settings,
        &[
            "hold µs/req",
            "Worker half µs/req",
            "object's own work µs/hold",
        ],
        |c| {
            [
                format!("hold1.c{c}.cpu.workerd.us_per_req"),
                format!("hold1_worker.c{c}.cpu.workerd.us_per_req"),
                format!("split.c{c}.object_us_per_hold"),
            ]
            .iter()
            .map(|name| runs.cell(name))
            .collect()
        },
    );
}

/// A table with a row for each number of clients: its count, then `cells`.
fn by_clients(
    out: &mut String,
    settings: &Settings,
    headers: &[&str],
    cells: impl Fn(usize) -> Vec<String>,
) {
    let rows: Vec<Vec<String>> = settings
        .concurrencies
        .iter()
        .map(|&c| {
            let mut row = vec![c.to_string()];
            row.extend(cells(c));
            row
        })
        .collect();
    let mut all = vec!["clients"];
    all.extend_from_slice(headers);
    table(out, &all, &rows);
}

fn venues(out: &mut String, runs: &Runs, settings: &Settings) {
    let _ = writeln!(
        out,
        "### Venue size\n\n{} buyers holding and releasing random pairs as above, on a fresh \
         showing of each size. In the small rooms most pairs are taken, so most answers are \
         409 (which carries the compact seat map, one letter a seat: its size is in the last \
         columns).\n",
        settings.buyers
    );
    let rows: Vec<Vec<String>> = VENUES
        .iter()
        .map(|room| {
            let p = format!("seats{}", room.seats());
            vec![
                format!(
                    "{} ({}×{})",
                    count(room.seats().into()),
                    room.rows,
                    room.per_row
                ),
                runs.cell(&format!("{p}.hold.rps")),
                runs.cell(&format!("{p}.hold.p50_ms")),
                runs.cell(&format!("{p}.hold.p99_ms")),
                runs.ratio(&format!("ratio.{p}.p99_per_16")),
                runs.percent(&format!("{p}.hold.share.201")),
                runs.cell(&format!("{p}.hold.p99_ms.201")),
                runs.cell(&format!("{p}.hold.p99_ms.409")),
                runs.cell(&format!("{p}.hold.bytes.409")),
                runs.cell(&format!("{p}.cpu.server.us_per_req")),
            ]
        })
        .collect();
    table(
        out,
        &[
            "seats",
            "holds/s",
            "p50 ms",
            "p99 ms",
            "p99 ÷ 16 seats",
            "granted (201)",
            "p99 of 201s ms",
            "p99 of 409s ms",
            "409 body bytes",
            "server CPU µs/req",
        ],
        &rows,
    );
}

fn viewers(out: &mut String, runs: &Runs, settings: &Settings) {
    let _ = writeln!(
        out,
        "### Viewers\n\n{} buyers as above on a fresh {}-seat showing: alone; then (on \
         another fresh showing) with {} viewers watching as the seat map page does, each with \
         its socket open (`/api/showings/{{id}}/live`, opened before the phase, {} at a time), \
         reading the pushes and sending \"ping\" every 30 s; then (on a third) with {} \
         viewers whose network blocks sockets, each polling the seat map every 10 s from a \
         random start (about {} requests/s of `GET /api/showings/{{id}}/seats?format=codes`, \
         the compact map the Worker keeps for up to a second).\n",
        settings.buyers,
        count(MAIN_ROOM.seats().into()),
        count(settings.viewers as u64),
        crate::measures::OPEN_AT_ONCE,
        count(settings.viewers as u64),
        settings.viewers / 10
    );
    let phases = [
        ("viewers0".to_string(), "none".to_string()),
        (
            format!("viewers{}", settings.viewers),
            format!("{} watching", count(settings.viewers as u64)),
        ),
        (
            format!("polling{}", settings.viewers),
            format!("{} polling", count(settings.viewers as u64)),
        ),
    ];
    let rows: Vec<Vec<String>> = phases
        .iter()
        .map(|(p, label)| {
            vec![
                label.clone(),
                runs.cell(&format!("{p}.hold.rps")),
                runs.cell(&format!("{p}.hold.p50_ms")),
                runs.cell(&format!("{p}.hold.p99_ms")),
                runs.cell(&format!("{p}.push.rps")),
                runs.cell(&format!("{p}.push.bytes.200")),
                runs.cell(&format!("{p}.seat_map.rps")),
                runs.cell(&format!("{p}.seat_map.p99_ms")),
                runs.cell(&format!("{p}.seat_map.bytes.200")),
                runs.cell(&format!("{p}.object_maps_per_s")),
                runs.cell(&format!("{p}.cpu.server.cores")),
            ]
        })
        .collect();
    table(
        out,
        &[
            "viewers",
            "holds/s",
            "hold p50 ms",
            "hold p99 ms",
            "pushes/s received",
            "push bytes",
            "seat maps/s",
            "seat map p99 ms",
            "seat map bytes",
            "maps/s the object built",
            "server CPU cores",
        ],
        &rows,
    );
    let _ = writeln!(
        out,
        "With ÷ without viewers: watching, hold p50 {}, hold p99 {}; polling, hold p50 {}, hold \
         p99 {}. Opening the {} sockets took {} s. Server CPU a viewer costs each second, \
         estimated as the CPU with viewers less the holds and releases at their CPU cost \
         without viewers: watching {} µs, polling {} µs ({} µs a seat map).\n",
        runs.ratio("ratio.viewers.p50_ms"),
        runs.ratio("ratio.viewers.p99_ms"),
        runs.ratio("ratio.polling.p50_ms"),
        runs.ratio("ratio.polling.p99_ms"),
        count(settings.viewers as u64),
        runs.cell(&format!("viewers{}.open_s", settings.viewers)),
        runs.cell("viewers.est_cpu_us_per_viewer_s"),
        runs.cell("polling.est_cpu_us_per_viewer_s"),
        runs.cell("polling.est_cpu_us_per_seat_map")
    );
    let w = format!("worker.c{}", settings.buyers);
    let _ = writeln!(
        out,
        "For comparison, a request the Worker answers alone (`POST /api/bench/worker`, no \
         object), {} clients: {} requests/s, p50 {} ms; server CPU {} µs a request (workerd {}, \
         proxy {}).\n",
        settings.buyers,
        runs.cell(&format!("{w}.worker.rps")),
        runs.cell(&format!("{w}.worker.p50_ms")),
        runs.cell(&format!("{w}.cpu.server.us_per_req")),
        runs.cell(&format!("{w}.cpu.workerd.us_per_req")),
        runs.cell(&format!("{w}.cpu.proxy.us_per_req")),
    );
}

fn checkouts(out: &mut String, runs: &Runs, settings: &Settings) {
    let p = format!("checkout.c{}", settings.payers);
    let _ = writeln!(
        out,
        "### Checkouts\n\n{} buyers, each with a row of a {}-seat showing to itself (so they \
         never collide): hold the next pair, then `POST …/checkout` with the stand-in's \
         approved card `cnon:card-nonce-ok`; the Worker authorizes at the Square stand-in \
         (no faults), writes the order and tickets to D1 and captures. A paid order is a \
         201; a 202 is finished in the background.\n",
        settings.payers,
        count(CHECKOUT_ROOM.seats().into())
    );
    let row = vec![
        settings.payers.to_string(),
        runs.cell(&format!("{p}.checkout.rate.201")),
        runs.cell(&format!("{p}.checkout.rate.202")),
        answers(runs, &p, "checkout"),
        runs.cell(&format!("{p}.checkout.p50_ms")),
        runs.cell(&format!("{p}.checkout.p99_ms")),
        runs.cell(&format!("{p}.hold.p50_ms")),
        runs.cell(&format!("{p}.cpu_ms_per_paid")),
        runs.cell(&format!("{p}.cpu.server.cores")),
        runs.cell(&format!("{p}.cpu.workerd_busiest_thread.cores")),
    ];
    table(
        out,
        &[
            "buyers",
            "paid orders/s (201)",
            "pending (202)/s",
            "checkout answers",
            "checkout p50 ms",
            "checkout p99 ms",
            "hold p50 ms",
            "server CPU ms per paid order",
            "server CPU cores",
            "workerd's busiest thread, cores",
        ],
        &[row],
    );
}

pub(crate) fn verdict(runs: &Runs, name: &str, ok: impl Fn(f64) -> bool + Copy) -> String {
    let median_ok = runs.spread(name).is_some_and(|s| ok(s.median));
    let within = runs.runs_within(name, ok);
    format!(
        "{} ({within} of {} runs)",
        if median_ok { "met" } else { "**missed**" },
        runs.0.len()
    )
}

fn targets(out: &mut String, runs: &Runs, settings: &Settings) {
    let _ = writeln!(out, "### Targets\n");
    let ran = |measure| settings.measures.contains(&measure);
    let mut rows = Vec::new();
    if ran(Measure::Floors) {
        floor_targets(&mut rows, runs, settings);
    }
    if ran(Measure::Venues) {
        let largest = VENUES[VENUES.len() - 1].seats();
        let name = format!("ratio.seats{largest}.p99_per_16");
        rows.push(vec![
            format!("{} seats: hold p99 ≤ 1.5 × 16 seats", count(largest.into())),
            runs.ratio(&name),
            verdict(runs, &name, |v| v <= 1.5),
        ]);
    }
    if ran(Measure::Viewers) {
        rows.push(vec![
            format!(
                "{} viewers (watching) add ≤ 10 % to hold p99",
                count(settings.viewers as u64)
            ),
            runs.ratio("ratio.viewers.p99_ms"),
            verdict(runs, "ratio.viewers.p99_ms", |v| v <= 1.1),
        ]);
    }
    if ran(Measure::Rush) {
        rows.extend(crate::rush::report::targets(runs));
    }
    table(out, &["target", "measured", "verdict (median)"], &rows);
}

fn floor_targets(rows: &mut Vec<Vec<String>>, runs: &Runs, settings: &Settings) {
    for c in &settings.concurrencies {
        let name = format!("ratio.c{c}.holds_per_write");
        rows.push(vec![
            format!("holds/s ≥ 0.8 × write floor, {c} clients"),
            runs.ratio(&name),
            verdict(runs, &name, |v| v >= 0.8),
        ]);
        let name = format!("ratio.c{c}.requests_per_write");
        rows.push(vec![
            format!("(holds + releases)/s ≥ 0.8 × write floor, {c} clients"),
            runs.ratio(&name),
            verdict(runs, &name, |v| v >= 0.8),
        ]);
    }
    let name = "hold.c50.hold.p99_ms";
    rows.push(vec![
        "hold p99 ≤ 300 ms at 50 clients".into(),
        format!("{} ms", runs.cell(name)),
        verdict(runs, name, |v| v <= 300.0),
    ]);
    for c in [50, 200] {
        let name = format!("ratio.c{c}.p99_per_write");
        rows.push(vec![
            format!("hold p99 ≤ 1.3 × write floor p99, {c} clients"),
            runs.ratio(&name),
            verdict(runs, &name, |v| v <= 1.3),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(count(16), "16");
        assert_eq!(count(20_000), "20,000");
        assert_eq!(number(0.1234), "0.12");
        assert_eq!(number(56.78), "56.8");
        assert_eq!(number(1234.5), "1,235");
        assert_eq!(number(f64::NAN), "–");
    }
}
