//! One phase's samples boiled down to named figures (`hold.p99_ms`,
//! `cpu.workerd.us_per_req`, …), and the figures of several runs boiled
//! down to a median with the lowest and highest.

use std::collections::{BTreeMap, BTreeSet};

use crate::load::{quantile_ms, Kind, Phase};

/// Named figures of one phase (or ratios between phases) of one run.
pub type Figures = BTreeMap<String, f64>;

/// Statuses whose latency and body size are reported on their own.
const TRACKED_STATUSES: [u16; 4] = [200, 201, 202, 409];

pub fn summarize(phase: &Phase) -> Figures {
    let mut figures = Figures::new();
    let seconds = phase.seconds;
    let kinds: BTreeSet<Kind> = phase.samples.iter().map(|s| s.kind).collect();
    for kind in kinds {
        let of_kind: Vec<_> = phase.samples.iter().filter(|s| s.kind == kind).collect();
        let mut put = |name: &str, value: f64| {
            figures.insert(format!("{}.{name}", kind.name()), value);
        };
        let count = of_kind.len() as f64;
        let mut micros: Vec<u32> = of_kind.iter().map(|s| s.micros).collect();
        micros.sort_unstable();
        put("count", count);
        put("rps", count / seconds);
        put("p50_ms", quantile_ms(&micros, 0.50));
        put("p99_ms", quantile_ms(&micros, 0.99));
        put("max_ms", quantile_ms(&micros, 1.0));
        // Answers that say when the server decided: how long they took to
        // get there, and how long the answer took to come back after.
        let (mut to_decision, mut after): (Vec<u32>, Vec<u32>) = of_kind
            .iter()
            .filter_map(|s| {
                let done = i64::from(s.done_ms);
                let started = done - i64::from(s.micros / 1000);
                let decided = s.server_ms?.clamp(started, done);
                let micros = |ms: i64| u32::try_from(ms * 1000).unwrap_or(u32::MAX);
                Some((micros(decided - started), micros(done - decided)))
            })
            .unzip();
        if !to_decision.is_empty() {
            to_decision.sort_unstable();
            after.sort_unstable();
            put("to_decision_p99_ms", quantile_ms(&to_decision, 0.99));
            put("after_decision_p50_ms", quantile_ms(&after, 0.50));
            put("after_decision_p99_ms", quantile_ms(&after, 0.99));
        }
        let statuses: BTreeSet<u16> = of_kind.iter().map(|s| s.status).collect();
        for status in statuses {
            let with: Vec<_> = of_kind.iter().filter(|s| s.status == status).collect();
            put(&format!("share.{status}"), with.len() as f64 / count);
            put(&format!("rate.{status}"), with.len() as f64 / seconds);
            if TRACKED_STATUSES.contains(&status) {
                let mut micros: Vec<u32> = with.iter().map(|s| s.micros).collect();
                micros.sort_unstable();
                put(&format!("p99_ms.{status}"), quantile_ms(&micros, 0.99));
                let bytes: f64 = with.iter().map(|s| f64::from(s.bytes)).sum();
                put(&format!("bytes.{status}"), bytes / with.len() as f64);
            }
        }
    }
    let requests = phase.samples.iter().filter(|s| s.kind.is_request()).count();
    figures.insert("all.rps".into(), requests as f64 / seconds);
    let requests = requests.max(1) as f64;
    figures.insert("all.silence_ms".into(), longest_silence_ms(phase));
    let per_request_us = |cpu_s: f64| cpu_s * 1e6 / requests;
    let mut cpu = |name: &str, cpu_s: f64| {
        figures.insert(format!("cpu.{name}.us_per_req"), per_request_us(cpu_s));
        figures.insert(format!("cpu.{name}.cores"), cpu_s / seconds);
    };
    let program = |name: &str| phase.cpu.server.get(name).copied().unwrap_or(0.0);
    let total: f64 = phase.cpu.server.values().sum();
    let (workerd, proxy) = (program("workerd"), program("workerd-proxy"));
    // The workerd that runs the Worker and its objects; wrangler's proxy in
    // front of it; and the rest of wrangler (Node, esbuild).
    cpu("workerd", workerd);
    cpu("proxy", proxy);
    cpu("node", total - workerd - proxy);
    cpu("server", total);
    cpu("load_generator", phase.cpu.load_generator);
    for (program, &cpu_s) in &phase.cpu.server {
        cpu(&format!("program.{program}"), cpu_s);
    }
    // The Worker's workerd runs the isolate's JavaScript and Wasm on one
    // thread at a time: its busiest thread shows how close that is to a
    // whole core.
    cpu("workerd_busiest_thread", phase.cpu.busiest_workerd_thread());
    figures
}

/// The longest stretch of the window in which no answer came at all: a
/// stall of the whole server, which tail latency alone does not tell from
/// slow answers spread out.
fn longest_silence_ms(phase: &Phase) -> f64 {
    let mut done: Vec<u32> = phase
        .samples
        .iter()
        .filter(|s| s.kind.is_request())
        .map(|s| s.done_ms)
        .collect();
    done.sort_unstable();
    let window_ms = (phase.seconds * 1000.0) as u32;
    let mut last = 0;
    let mut longest = 0;
    for at in done.into_iter().chain([window_ms]) {
        longest = longest.max(at.saturating_sub(last));
        last = at;
    }
    f64::from(longest)
}

/// Prefixes every figure's name with `phase.`, to merge phases into a run.
pub fn under(phase: &str, figures: Figures) -> Figures {
    figures
        .into_iter()
        .map(|(name, value)| (format!("{phase}.{name}"), value))
        .collect()
}

/// A figure over several runs: the median, the lowest and the highest.
#[derive(Debug, Clone, Copy)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

/// The spread of `name` over the runs that have it (`None` if none has).
pub fn spread(runs: &[Figures], name: &str) -> Option<Spread> {
    let mut values: Vec<f64> = runs
        .iter()
        .filter_map(|run| run.get(name).copied())
        .filter(|v| v.is_finite())
        .collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let median = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    Some(Spread {
        median,
        min: values[0],
        max: values[n - 1],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_is_the_median_and_the_extremes() {
        let runs: Vec<Figures> = [3.0, 1.0, 2.0]
            .iter()
            .map(|&v| Figures::from([("x".to_string(), v)]))
            .collect();
        let s = spread(&runs, "x").unwrap();
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        assert!(spread(&runs, "y").is_none());
    }

    #[test]
    fn the_longest_silence_counts_the_window_edges_too() {
        let answer = |done_ms| crate::load::Sample {
            kind: Kind::Noop,
            status: 200,
            micros: 1000,
            bytes: 0,
            done_ms,
            seq: None,
            server_ms: None,
        };
        let phase = |done: &[u32]| Phase {
            samples: done.iter().map(|&ms| answer(ms)).collect(),
            seconds: 1.0,
            cpu: Default::default(),
            timeline: Vec::new(),
        };
        // Answers at 100, 150 and 700 ms of a 1 s window: 150 to 700 is
        // longest; with none, the whole window is silent.
        assert_eq!(longest_silence_ms(&phase(&[700, 100, 150])), 550.0);
        assert_eq!(longest_silence_ms(&phase(&[400, 500])), 500.0);
        assert_eq!(longest_silence_ms(&phase(&[])), 1000.0);
    }
}
