//! The load generator: a number of client tasks run for a warm-up and a
//! measured window; every request that ends inside the window is kept as a
//! [`Sample`] (counting by the end keeps slow requests, such as checkouts
//! that take seconds, from being undercounted). The CPU time of the dev
//! server's processes and of this process is read at the window's edges.

use std::future::Future;
use std::time::{Duration, Instant};

use crate::cpu::{CpuUse, Reading, Server};

/// How long a phase warms up, then measures.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub warm_up: Duration,
    pub measure: Duration,
    /// Also read the server's CPU every [`TIMELINE_STEP`], to line slow
    /// answers up with what the server was doing.
    pub timeline: bool,
}

/// How often a phase's timeline reads the server's CPU.
pub const TIMELINE_STEP: Duration = Duration::from_millis(100);

/// What a request was, so one phase can mix kinds and report each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A request the Worker answers without any object.
    Worker,
    Noop,
    Write,
    Hold,
    Release,
    SeatMap,
    Checkout,
    /// The reference's one-seat booking.
    Book,
    /// A join or poll of a showing's waiting room (`POST …/queue`).
    Queue,
    /// A map pushed to a watching page's socket: a message, not a request
    /// (its time is not a latency, and it is not counted in `all`).
    Push,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Worker => "worker",
            Kind::Noop => "noop",
            Kind::Write => "write",
            Kind::Hold => "hold",
            Kind::Release => "release",
            Kind::SeatMap => "seat_map",
            Kind::Checkout => "checkout",
            Kind::Book => "book",
            Kind::Queue => "queue",
            Kind::Push => "push",
        }
    }

    /// A request and its answer, not a message pushed.
    pub fn is_request(self) -> bool {
        self != Kind::Push
    }
}

/// One finished request. Status 0 means no answer (a transport error).
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub kind: Kind,
    pub status: u16,
    pub micros: u32,
    pub bytes: u32,
    /// When the answer came, in ms since the measured window began.
    pub done_ms: u32,
    /// Where a one-seat request was in its phase's stream of seats (the
    /// showing is `seq / 60`), for the timeline; `None` elsewhere.
    pub seq: Option<u32>,
    /// When the server says it decided, by its own clock, in ms since the
    /// window began (negative in the warm-up): where a slow answer spent
    /// its time, before the decision or after it. `None` if the answer
    /// does not say.
    pub server_ms: Option<i64>,
}

/// A client task's view of the phase: whether to go on, and where its
/// samples go.
pub struct Recorder {
    window_start: Instant,
    /// The same instant by the wall clock, in ms since the Unix epoch: the
    /// server's timestamps are wall-clock times.
    window_start_unix_ms: i64,
    end: Instant,
    samples: Vec<Sample>,
}

impl Recorder {
    pub fn running(&self) -> bool {
        Instant::now() < self.end
    }

    /// When the phase ends; clients that sleep between requests wake by then.
    pub fn end(&self) -> Instant {
        self.end
    }

    pub fn record(&mut self, kind: Kind, status: u16, started: Instant, bytes: usize) {
        self.record_seq(kind, status, started, bytes, None, None);
    }

    /// [`Recorder::record`] of a request with a place in a stream of seats.
    pub fn record_seq(
        &mut self,
        kind: Kind,
        status: u16,
        started: Instant,
        bytes: usize,
        seq: Option<u32>,
        server_unix_ms: Option<u64>,
    ) {
        let now = Instant::now();
        if now >= self.window_start && now <= self.end {
            self.samples.push(Sample {
                kind,
                status,
                micros: u32::try_from(now.duration_since(started).as_micros()).unwrap_or(u32::MAX),
                bytes: u32::try_from(bytes).unwrap_or(u32::MAX),
                done_ms: now.duration_since(self.window_start).as_millis() as u32,
                seq,
                server_ms: server_unix_ms
                    .and_then(|ms| i64::try_from(ms).ok())
                    .map(|ms| ms - self.window_start_unix_ms),
            });
        }
    }
}

/// The samples of one phase and what its window cost in CPU time.
pub struct Phase {
    pub samples: Vec<Sample>,
    pub seconds: f64,
    pub cpu: CpuUse,
    /// With [`Timing::timeline`]: the server's CPU in each step of the
    /// window, by the step's end in ms since the window began.
    pub timeline: Vec<(u32, CpuUse)>,
}

/// Runs `clients` tasks made by `client(index, recorder)`; each loops until
/// [`Recorder::running`] says stop and hands its recorder back.
pub async fn run<F, Fut>(server: Server, timing: Timing, clients: usize, client: F) -> Phase
where
    F: Fn(usize, Recorder) -> Fut,
    Fut: Future<Output = Recorder> + Send + 'static,
{
    let window_start = Instant::now() + timing.warm_up;
    let end = window_start + timing.measure;
    let window_start_unix_ms = unix_ms_at(window_start);
    let tasks: Vec<_> = (0..clients)
        .map(|i| {
            let recorder = Recorder {
                window_start,
                window_start_unix_ms,
                end,
                samples: Vec::new(),
            };
            tokio::spawn(client(i, recorder))
        })
        .collect();
    tokio::time::sleep_until(window_start.into()).await;
    let first = Reading::now(server);
    let mut timeline = Vec::new();
    if timing.timeline {
        let mut before = Reading::now(server);
        let mut at = window_start + TIMELINE_STEP;
        while at < end {
            tokio::time::sleep_until(at.into()).await;
            let now = Reading::now(server);
            let ms = at.duration_since(window_start).as_millis() as u32;
            timeline.push((ms, now.since(&before)));
            before = now;
            at += TIMELINE_STEP;
        }
    }
    tokio::time::sleep_until(end.into()).await;
    let last = Reading::now(server);
    let mut samples = Vec::new();
    for task in tasks {
        let recorder = task.await.expect("a client task panicked");
        samples.extend(recorder.samples);
    }
    Phase {
        samples,
        seconds: timing.measure.as_secs_f64(),
        cpu: last.since(&first),
        timeline,
    }
}

/// `at` (now or later) by the wall clock, in ms since the Unix epoch.
fn unix_ms_at(at: Instant) -> i64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970");
    let ahead = at.saturating_duration_since(Instant::now());
    i64::try_from((now + ahead).as_millis()).expect("ms since 1970 fit in i64")
}

/// The `q`-quantile (0..=1) of sorted latencies, nearest rank, in ms.
pub fn quantile_ms(sorted_micros: &[u32], q: f64) -> f64 {
    if sorted_micros.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted_micros.len() as f64).ceil() as usize;
    let idx = rank.clamp(1, sorted_micros.len()) - 1;
    f64::from(sorted_micros[idx]) / 1000.0
}

/// Waits a little after a transport error, so a refused connection does
/// not spin.
pub async fn back_off() {
    tokio::time::sleep(Duration::from_millis(50)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let micros: Vec<u32> = (1..=100).map(|ms| ms * 1000).collect();
        assert_eq!(quantile_ms(&micros, 0.5), 50.0);
        assert_eq!(quantile_ms(&micros, 0.99), 99.0);
        assert_eq!(quantile_ms(&micros, 1.0), 100.0);
        assert_eq!(quantile_ms(&micros[..1], 0.99), 1.0);
        assert!(quantile_ms(&[], 0.5).is_nan());
    }
}
