//! The whole-stack benchmark (`npm run bench`, issue #8): starts the real
//! Worker under `wrangler dev` with the harness of `tests/e2e`, drives it
//! from here, and writes a Markdown report of:
//!
//! 1. two floors (a no-op and a one-write request to a Durable Object) and
//!    holds on one showing at 1, 50 and 200 clients;
//! 2. hold latency at 16, 500, 5,000 and 20,000 seats;
//! 3. holds with and without 1,000 viewers watching the seat map (over
//!    their sockets, and polling);
//! 4. whole checkouts per second through the Square stand-in;
//! 5. a sell-out (issue #39): thousands of buyers for a few hundred
//!    seats, with the waiting room on and off, and with no rush;
//! 6. the same against a reference (issue #17): the simplest seat booking
//!    on the same platform, in JavaScript (`bench/reference/`), in its own
//!    `wrangler dev` in the same run, with the product's holds of the
//!    same shape (one seat, a new buyer, showings of 60 seats).
//!
//! Every run starts a fresh stack; the report gives each figure's median
//! over the runs with the lowest and highest.
//!
//! - [`load`]: client tasks, a warm-up and a measured window, samples.
//! - [`clients`]: what each kind of simulated client does.
//! - [`measures`]: one run of every measure.
//! - [`figures`]: samples to named figures; medians over runs.
//! - [`report`]: the Markdown tables and the targets.
//! - [`reference`]: starting the reference's dev server.
//! - [`rush`]: the sell-out's buyers, its phases and what is checked after.
//! - [`cpu`], [`http`], [`room`]: CPU time from `/proc`, the HTTP client,
//!   and the rooms' layouts.

mod clients;
mod cpu;
mod figures;
mod http;
mod load;
mod measures;
mod reference;
mod report;
mod room;
mod rush;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;

use crate::figures::Figures;
use crate::load::Timing;
use crate::measures::Settings;

#[derive(Parser, Debug)]
#[command(about = "Benchmarks the whole stack under wrangler dev (see BENCHMARKS.md)")]
struct Args {
    /// Runs of the whole set, each on a fresh stack.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Seconds of warm-up before each measured window.
    #[arg(long, default_value_t = 2)]
    warm_up_secs: u64,
    /// Seconds measured per phase.
    #[arg(long, default_value_t = 6)]
    measure_secs: u64,
    /// Concurrent buyers for the venue sizes and the viewer measure.
    #[arg(long, default_value_t = 50)]
    buyers: usize,
    #[arg(long, default_value_t = 1000)]
    viewers: usize,
    /// Concurrent buyers paying in the checkout measure.
    #[arg(long, default_value_t = 50)]
    payers: usize,
    /// Buyers arriving within 30 s in the rush.
    #[arg(long, default_value_t = 5000)]
    rush_buyers: usize,
    /// Seats of the rush's showing (rows of 20).
    #[arg(long, default_value_t = 300)]
    rush_seats: u32,
    /// The rush's waiting room admits this many a minute (by default the
    /// rate the product suggests, `queue::rate`).
    #[arg(long)]
    admit_per_minute: Option<u32>,
    /// How long the rush's holds last: abandoned seats come back after it.
    #[arg(long, default_value_t = 60)]
    rush_hold_secs: u64,
    /// Only these measures (comma-separated: floors, reference, venues,
    /// viewers, checkouts, rush); all of them by default.
    #[arg(long, value_delimiter = ',')]
    only: Vec<measures::Measure>,
    /// Where the report (`report.md`) and every run's figures (`runs.json`) go.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also write each phase's timeline to `<out>/timeline/`: every answer
    /// (when it came, how long it took, its status) and the server's CPU
    /// every 100 ms, to line slow answers up with what the server did.
    #[arg(long)]
    timeline: bool,
    /// Measures nothing: starts the product (with this many one-seat
    /// showings of 60 seats) and the reference, prints their addresses and
    /// waits, for profiling by hand (bench/HISTORY.md, "Where a hold's time
    /// goes").
    #[arg(long)]
    serve: Option<usize>,
    /// In the reference measure, send the requests straight to each
    /// runtime's own socket, past the proxy `wrangler dev` puts in front
    /// (bench/HISTORY.md, "The multi-second stalls").
    #[arg(long)]
    direct: bool,
}

fn main() {
    let args = Args::parse();
    if let Some(showings) = args.serve {
        measures::serve(showings);
        return;
    }
    assert!(
        args.measure_secs >= 1 && args.runs >= 1,
        "at least one run of at least one second"
    );
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| e2e::repo_root().join("target/bench"));
    std::fs::create_dir_all(&out).expect("create the output directory");
    let settings = Settings {
        timing: Timing {
            warm_up: Duration::from_secs(args.warm_up_secs),
            measure: Duration::from_secs(args.measure_secs),
            timeline: args.timeline,
        },
        concurrencies: vec![1, 50, 200],
        buyers: args.buyers,
        viewers: args.viewers,
        payers: args.payers,
        rush: rush::RushSettings {
            buyers: args.rush_buyers,
            seats: args.rush_seats,
            admit_per_minute: args
                .admit_per_minute
                .unwrap_or_else(rush::suggested_admit_per_minute),
            hold_secs: args.rush_hold_secs,
        },
        direct: args.direct,
        out: out.clone(),
        measures: if args.only.is_empty() {
            measures::Measure::ALL.to_vec()
        } else {
            args.only.clone()
        },
    };

    let started_at = utc_now();
    let load_before = load_average();
    let began = Instant::now();
    let mut runs: Vec<Figures> = Vec::new();
    for run in 1..=args.runs {
        eprintln!("bench: run {run} of {}", args.runs);
        runs.push(measures::run_once(&settings, run));
        let json = serde_json::to_string_pretty(&runs).expect("figures are JSON");
        std::fs::write(out.join("runs.json"), json).expect("write runs.json");
    }
    let minutes_per_run = began.elapsed().as_secs_f64() / 60.0 / args.runs as f64;
    let context = report::Context {
        machine: format!(
            "{}; load average {} before, {} after",
            machine(),
            load_before,
            load_average()
        ),
        started: started_at,
        finished: utc_now(),
        command: command_line(),
        minutes_per_run,
    };
    let report = report::markdown(&runs, &settings, &context);
    std::fs::write(out.join("report.md"), &report).expect("write report.md");
    println!("{report}");
    eprintln!("bench: report in {}", out.join("report.md").display());
}

/// `npm run bench` with the arguments given, as a reader would rerun it.
fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        "npm run bench".into()
    } else {
        format!("npm run bench -- {}", args.join(" "))
    }
}

fn utc_now() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_default()
}

/// The CPU model, core count and memory, from `/proc`.
fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split(':').nth(1))
        .map(str::trim)
        .unwrap_or("unknown CPU")
        .to_string();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let mem_gib = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|l| l.split_whitespace().next()?.parse::<f64>().ok())
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0);
    format!("{cores} cores (`nproc`), \"{model}\" (from /proc/cpuinfo), {mem_gib:.0} GiB")
}
