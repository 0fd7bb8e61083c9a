//! A sell-out measured end to end (issue #39): thousands of buyers arrive
//! within 30 s for a showing of a few hundred seats, and each waits in
//! line, holds, pays or walks away ([`buyer`]). Three phases, each on a
//! fresh showing of the same room in the same stack:
//!
//! - `calm`: no rush. Buyers arrive one at a time at the admission rate,
//!   with no waiting room, until the showing sells out: what a hold costs
//!   when the object sees only the buyers a line would let in.
//! - `room`: the rush with the waiting room on. Sales open 10 s into the
//!   arrivals, so a third of the buyers join early and are placed at
//!   random.
//! - `no_room`: the same rush with no waiting room: everyone who came
//!   early tries at the opening, the rest as they arrive.
//!
//! Each phase reports when the showing sold out and when the last buyer
//! without a seat was told, hold latency, the requests the showing's
//! object got, the line's order against arrival order ([`fairness`]),
//! and the sold seats, tickets and payments after it ([`audit`]).

mod audit;
mod buyer;
mod fairness;
pub mod report;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use e2e::{Api, Stack};
use reqwest::Method;
use serde_json::json;

use crate::cpu::{Reading, Sampler, Server};
use crate::figures::Figures;
use crate::http::Http;
use crate::load::{quantile_ms, Kind};
use crate::room::Room;
use buyer::{Ending, Plan, Sale, Visit};

/// How the rush is set up (`--rush-*` options).
#[derive(Debug, Clone, Copy)]
pub struct RushSettings {
    pub buyers: usize,
    pub seats: u32,
    pub admit_per_minute: u32,
    /// How long a hold lasts: an abandoned hold's seats come back after it.
    pub hold_secs: u64,
}

/// Seats in each row of the rush's room.
pub const SEATS_PER_ROW: u32 = 20;
/// Every buyer of a rush arrives within this long.
pub const ARRIVALS: Duration = Duration::from_secs(30);
/// Sales open this long after the first buyers may arrive.
pub const OPENS_AFTER: Duration = Duration::from_secs(10);
/// A phase is stopped this long after the opening, whatever is left.
pub const PHASE_LIMIT: Duration = Duration::from_secs(600);
/// How often the sell-out is looked for in the object's counts.
const WATCH_EVERY: Duration = Duration::from_millis(250);
/// How often the server's CPU is sampled for a timeline.
const CPU_EVERY: Duration = Duration::from_millis(500);

/// The admission rate the product suggests for a showing whose buyers
/// have ten minutes to pay (`queue::rate`).
pub fn suggested_admit_per_minute() -> u32 {
    queue::rate::suggest(queue::rate::RateInputs::measured(10)).admit_per_minute
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Calm,
    Room,
    NoRoom,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Calm, Variant::Room, Variant::NoRoom];

    pub fn name(self) -> &'static str {
        match self {
            Variant::Calm => "calm",
            Variant::Room => "room",
            Variant::NoRoom => "no_room",
        }
    }

    /// As the report calls it.
    pub fn label(self) -> &'static str {
        match self {
            Variant::Calm => "calm",
            Variant::Room => "waiting room",
            Variant::NoRoom => "no waiting room",
        }
    }
}

/// The room: rows of [`SEATS_PER_ROW`], as many as `seats` fills.
pub fn room(settings: &RushSettings) -> Room {
    Room::new(settings.seats.div_ceil(SEATS_PER_ROW).max(1), SEATS_PER_ROW)
}

/// Every phase of the rush, each on a fresh showing; figures are named
/// `rush.{phase}.…`, and the ratios to the calm phase `rush.ratio.…`.
/// With `timeline`, every request of each phase is also written to
/// `{dir}/rush-run{n}-{phase}.csv`.
pub async fn measure(
    stack: &Stack,
    server: Server,
    settings: &RushSettings,
    timeline: Option<(&Path, usize)>,
) -> Figures {
    let mut figures = Figures::new();
    for variant in Variant::ALL {
        let phase = phase(stack, server, settings, variant, timeline).await;
        eprintln!("rush: {}: {}", variant.name(), one_line(&phase));
        figures.extend(
            phase
                .into_iter()
                .map(|(name, v)| (format!("rush.{}.{name}", variant.name()), v)),
        );
    }
    let get = |name: &str| figures.get(name).copied().unwrap_or(f64::NAN);
    let mut ratios = Figures::new();
    for variant in [Variant::Room, Variant::NoRoom] {
        for q in ["p50_ms", "p99_ms", "max_ms"] {
            let ratio = get(&format!("rush.{}.hold.{q}", variant.name()))
                / get(&format!("rush.calm.hold.{q}"));
            ratios.insert(format!("rush.ratio.{}.hold_{q}", variant.name()), ratio);
        }
    }
    figures.extend(ratios);
    figures
}

/// The phase's showing: the room, sales opening at `opens_in`, holds of
/// the set length, and a waiting room when `line`.
fn showing_body(settings: &RushSettings, line: bool, opens_in: Duration) -> serde_json::Value {
    let mut body = room(settings).showing("Rush");
    body["hold_ttl_ms"] = json!(settings.hold_secs * 1000);
    body["sales_open_at"] = json!(e2e::time_from_now(opens_in.as_millis() as i64));
    if line {
        body["waiting_room"] = json!({ "admit_per_minute": settings.admit_per_minute });
    }
    body
}

async fn phase(
    stack: &Stack,
    server: Server,
    settings: &RushSettings,
    variant: Variant,
    timeline: Option<(&Path, usize)>,
) -> Figures {
    let api = Api::new(stack);
    let line = variant == Variant::Room;
    // Arrivals start a second after the showing is made.
    let lead = Duration::from_secs(1)
        + if variant == Variant::Calm {
            Duration::ZERO
        } else {
            OPENS_AFTER
        };
    let sid: Arc<str> = api
        .create_showing(showing_body(settings, line, lead))
        .await
        .into();
    let opens_at = Instant::now() + lead;
    let sale = Arc::new(Sale {
        http: Http::with_idle(&stack.base_url, buyer::MAX_IN_FLIGHT),
        slots: tokio::sync::Semaphore::new(buyer::MAX_IN_FLIGHT),
        sid: sid.clone(),
        room: room(settings),
        line,
        opens_at,
        deadline: opens_at + PHASE_LIMIT,
    });
    let watch = Watch::start(Http::new(&stack.base_url), stack.admin_token.clone(), &sid);
    let (before, began) = (Reading::now(server), Instant::now());
    let sampler = timeline.map(|_| Sampler::start(server, CPU_EVERY, opens_at));
    let restarts_before = stack.log().matches("The Workers runtime crashed").count();
    let visits = match variant {
        Variant::Calm => calm_buyers(&sale, settings, &watch).await,
        Variant::Room | Variant::NoRoom => rush_buyers(&sale, settings).await,
    };
    let cpu = Reading::now(server).since(&before);
    let ended = Instant::now();
    if let Some((dir, run)) = timeline {
        let file = dir.join(format!("rush-run{run}-{}.csv", variant.name()));
        std::fs::create_dir_all(dir).expect("create the timeline directory");
        std::fs::write(file, timeline_csv(&visits, opens_at)).expect("write a timeline");
        if let Some(sampler) = sampler {
            let file = dir.join(format!("rush-run{run}-{}-cpu.csv", variant.name()));
            std::fs::write(file, sampler.stop(CPU_EVERY)).expect("write a CPU timeline");
        }
    }
    let watched = watch.stop().await;
    let stats = api.stats(&sid).await;
    let mut f = figures_of(&visits, opens_at, ended, &watched, settings, line);
    let object_answered = ["seat_maps_built", "summaries_answered"]
        .iter()
        .map(|k| stats[k].as_f64().unwrap_or(0.0))
        .sum::<f64>();
    let selling_until = watched.sold_out_at.unwrap_or(ended);
    let selling_s = selling_until.duration_since(opens_at).as_secs_f64();
    // Every request the showing's object answered while seats were on
    // sale, by count: holds and checkouts (one call each; a checkout may
    // read its order once more), the maps it built for the Worker's copy
    // (counted over the whole phase), and this benchmark's look at its
    // counts.
    let (sent, peak) = object_bound(&visits, selling_until);
    let watch_polls = selling_s / WATCH_EVERY.as_secs_f64();
    f.insert(
        "object.requests_per_s".into(),
        (sent as f64 + object_answered + watch_polls) / selling_s.max(1e-3),
    );
    f.insert("object.peak_per_s".into(), f64::from(peak));
    let cores = |cpu_s: f64| cpu_s / ended.duration_since(began).as_secs_f64();
    f.insert("cpu.server.cores".into(), cores(cpu.server.values().sum()));
    f.insert("cpu.load_generator.cores".into(), cores(cpu.load_generator));
    f.insert(
        "cpu.workerd_busiest_thread.cores".into(),
        cores(cpu.busiest_workerd_thread()),
    );
    f.insert(
        "admit_per_minute".into(),
        f64::from(settings.admit_per_minute),
    );
    let restarts = stack.log().matches("The Workers runtime crashed").count();
    f.insert(
        "runtime_restarts".into(),
        (restarts - restarts_before) as f64,
    );
    f.extend(audit::audit(stack, &api, &sid).await);
    let checks_failed = checks_failed(&f);
    f.insert("checks_failed".into(), checks_failed);
    f
}

/// How many of the checks after a phase fail: every sold seat has one
/// live ticket and a captured payment, the buyers paid for as many, no
/// authorization is left open, everyone without a seat was told, and the
/// dev server's runtime never crashed meanwhile.
fn checks_failed(f: &Figures) -> f64 {
    let g = |name: &str| f.get(name).copied().unwrap_or(f64::NAN);
    let sold = g("seats_sold");
    let holds = [
        sold == g("live_tickets"),
        sold == g("seats_captured"),
        sold == g("buyers.seats_paid_for"),
        g("paid_orders") == g("payments_captured"),
        g("seats_ticketed_twice") == 0.0,
        g("tickets_not_matching_map") == 0.0,
        g("authorizations_open") == 0.0,
        g("runtime_restarts") == 0.0,
        g("buyers.told") == g("buyers.without_seats"),
    ];
    holds.iter().filter(|&&ok| !ok).count() as f64
}

/// The rush: every buyer arrives at random within [`ARRIVALS`], from
/// [`OPENS_AFTER`] before the opening.
async fn rush_buyers(sale: &Arc<Sale>, settings: &RushSettings) -> Vec<Visit> {
    let first = sale.opens_at - OPENS_AFTER;
    let tasks: Vec<_> = (0..settings.buyers)
        .map(|_| {
            let offset = ARRIVALS.mul_f64(fastrand::f64());
            tokio::spawn(buyer::visit(sale.clone(), Plan::draw(first + offset)))
        })
        .collect();
    let mut visits = Vec::with_capacity(tasks.len());
    for task in tasks {
        visits.push(task.await.expect("a buyer's task panicked"));
    }
    visits
}

/// No rush: one buyer every `60 / admit_per_minute` s from the opening
/// while a seat is free, until sold out: no free seat and no hold (or
/// every buyer has come).
async fn calm_buyers(sale: &Arc<Sale>, settings: &RushSettings, watch: &Watch) -> Vec<Visit> {
    let every = Duration::from_secs(60).div_f64(f64::from(settings.admit_per_minute));
    let mut tasks = Vec::new();
    for n in 0..settings.buyers {
        let at = sale.opens_at + every.mul_f64(n as f64);
        tokio::time::sleep_until(at.into()).await;
        if watch.sold_out() || Instant::now() >= sale.deadline {
            break;
        }
        // Nobody comes while every seat is taken (as to a showing listed
        // full), but they come again when seats of abandoned holds are
        // back: the showing sells out instead of keeping its last seats.
        if watch.none_free() {
            continue;
        }
        tasks.push(tokio::spawn(buyer::visit(sale.clone(), Plan::draw(at))));
    }
    let mut visits = Vec::with_capacity(tasks.len());
    for task in tasks {
        visits.push(task.await.expect("a buyer's task panicked"));
    }
    visits
}

/// What the watch saw of the object's seat counts.
#[derive(Debug, Default, Clone)]
struct Watched {
    /// The first look with no free seat.
    all_taken_at: Option<Instant>,
    /// The first look with no free seat and no hold: sold out, as the
    /// waiting room tells it (a payment under way counts as sold).
    sold_out_at: Option<Instant>,
    /// Free seats at the latest look.
    free: Option<u64>,
}

/// Looks at the showing's counts (`GET /api/admin/showings/{id}/stats`,
/// the object's own, not the Worker's copy) every [`WATCH_EVERY`].
struct Watch {
    stop: Arc<AtomicBool>,
    seen: Arc<Mutex<Watched>>,
    task: tokio::task::JoinHandle<()>,
}

impl Watch {
    fn start(http: Http, admin_token: String, sid: &str) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let seen = Arc::new(Mutex::new(Watched::default()));
        let path = format!("/api/admin/showings/{sid}/stats");
        let (stopped, watched) = (stop.clone(), seen.clone());
        let task = tokio::spawn(async move {
            let auth = format!("Bearer {admin_token}");
            while !stopped.load(Ordering::Relaxed) {
                let at = Instant::now();
                let answer = http
                    .send_with(Method::GET, &path, None, None, &[("authorization", &auth)])
                    .await;
                let counts = answer
                    .ok()
                    .and_then(|a| serde_json::from_slice::<serde_json::Value>(&a.body).ok())
                    .map(|stats| stats["seats"].clone());
                watched.lock().expect("the watch's figures").saw(at, counts);
                tokio::time::sleep_until((at + WATCH_EVERY).into()).await;
            }
        });
        Watch { stop, seen, task }
    }

    fn none_free(&self) -> bool {
        self.seen.lock().expect("the watch's figures").free == Some(0)
    }

    fn sold_out(&self) -> bool {
        self.seen
            .lock()
            .expect("the watch's figures")
            .sold_out_at
            .is_some()
    }

    async fn stop(self) -> Watched {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.task.await;
        self.seen.lock().expect("the watch's figures").clone()
    }
}

impl Watched {
    /// One look at the counts (`None`: no answer).
    fn saw(&mut self, at: Instant, counts: Option<serde_json::Value>) {
        let Some(counts) = counts else { return };
        let n = |k: &str| counts[k].as_u64().unwrap_or(u64::MAX);
        self.free = Some(n("available"));
        if n("available") == 0 && self.all_taken_at.is_none() {
            self.all_taken_at = Some(at);
        }
        if n("available") == 0 && n("held") == 0 && self.sold_out_at.is_none() {
            self.sold_out_at = Some(at);
        }
    }
}

/// The phase's figures from every buyer's visit.
fn figures_of(
    visits: &[Visit],
    opens_at: Instant,
    ended: Instant,
    watched: &Watched,
    settings: &RushSettings,
    line: bool,
) -> Figures {
    let mut f = Figures::new();
    let since_opening = |at: Instant| {
        if at >= opens_at {
            at.duration_since(opens_at).as_secs_f64()
        } else {
            -opens_at.duration_since(at).as_secs_f64()
        }
    };
    let ended_by = |e: Ending| visits.iter().filter(|v| v.ending == e).count() as f64;
    f.insert("buyers".into(), visits.len() as f64);
    for (name, ending) in [
        ("paid", Ending::Paid),
        ("abandoned", Ending::Abandoned),
        ("told_sold_out", Ending::ToldSoldOut),
        ("found_no_seats", Ending::FoundNoSeats),
        ("stuck", Ending::Stuck),
    ] {
        f.insert(format!("buyers.{name}"), ended_by(ending));
    }
    // Everyone who got no seat should have been told so.
    let waiting = visits
        .iter()
        .filter(|v| !matches!(v.ending, Ending::Paid | Ending::Abandoned))
        .count();
    f.insert("buyers.without_seats".into(), waiting as f64);
    f.insert(
        "buyers.told".into(),
        ended_by(Ending::ToldSoldOut) + ended_by(Ending::FoundNoSeats),
    );
    f.insert(
        "buyers.admitted".into(),
        visits.iter().filter(|v| v.admitted_at.is_some()).count() as f64,
    );
    let paid_seats: u32 = visits
        .iter()
        .filter(|v| v.ending == Ending::Paid)
        .map(|v| v.seats_held)
        .sum();
    f.insert("buyers.seats_paid_for".into(), f64::from(paid_seats));
    let phase_s = since_opening(ended);
    f.insert("phase_s".into(), phase_s);
    f.insert(
        "sold_out_s".into(),
        watched.sold_out_at.map_or(f64::NAN, since_opening),
    );
    f.insert(
        "all_taken_s".into(),
        watched.all_taken_at.map_or(f64::NAN, since_opening),
    );
    let last_told = visits.iter().filter_map(|v| v.told_at).max();
    f.insert(
        "everyone_told_s".into(),
        match last_told {
            Some(at) if waiting as f64 == f["buyers.told"] => since_opening(at),
            _ => f64::NAN,
        },
    );
    f.insert(
        "last_told_s".into(),
        last_told.map_or(f64::NAN, since_opening),
    );
    requests(&mut f, visits, opens_at, ended);
    if line {
        let tick_ms = 60_000.0 / f64::from(settings.admit_per_minute);
        line_order(&mut f, visits, tick_ms);
    }
    f
}

/// Latency and answers of each kind of request, and the busiest second.
fn requests(f: &mut Figures, visits: &[Visit], opens_at: Instant, ended: Instant) {
    for error in visits.iter().flat_map(|v| v.refusals.iter()) {
        *f.entry(format!("hold.refused.{error}")).or_default() += 1.0;
    }
    let all: Vec<_> = visits.iter().flat_map(|v| v.requests.iter()).collect();
    let secs = ended.duration_since(opens_at).as_secs_f64().max(1.0);
    for kind in [Kind::Queue, Kind::Hold, Kind::Checkout, Kind::SeatMap] {
        let of_kind: Vec<_> = all.iter().filter(|r| r.kind == kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        let name = kind.name();
        let mut micros: Vec<u32> = of_kind.iter().map(|r| r.micros).collect();
        micros.sort_unstable();
        f.insert(format!("{name}.count"), of_kind.len() as f64);
        f.insert(format!("{name}.p50_ms"), quantile_ms(&micros, 0.5));
        f.insert(format!("{name}.p99_ms"), quantile_ms(&micros, 0.99));
        f.insert(format!("{name}.max_ms"), quantile_ms(&micros, 1.0));
        f.insert(format!("{name}.rps"), of_kind.len() as f64 / secs);
        let mut waits: Vec<u32> = of_kind.iter().map(|r| r.slot_micros).collect();
        waits.sort_unstable();
        f.insert(format!("{name}.slot_wait_p50_ms"), quantile_ms(&waits, 0.5));
        f.insert(
            format!("{name}.slot_wait_p99_ms"),
            quantile_ms(&waits, 0.99),
        );
        let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
        for r in &of_kind {
            *statuses.entry(r.status).or_default() += 1;
        }
        for (status, n) in statuses {
            f.insert(format!("{name}.answers.{status}"), n as f64);
        }
        // A granted hold's own latency, apart from the refusals of those
        // who found the seats gone.
        let mut granted: Vec<u32> = of_kind
            .iter()
            .filter(|r| r.status == 201)
            .map(|r| r.micros)
            .collect();
        if !granted.is_empty() {
            granted.sort_unstable();
            f.insert(format!("{name}.p50_ms.201"), quantile_ms(&granted, 0.5));
            f.insert(format!("{name}.p99_ms.201"), quantile_ms(&granted, 0.99));
        }
        // Requests sent in each second from the first: the busiest.
        let first = of_kind.iter().map(|r| r.at).min().expect("not empty");
        let mut per_second = std::collections::BTreeMap::<u64, u32>::new();
        for r in &of_kind {
            *per_second
                .entry(r.at.duration_since(first).as_secs())
                .or_default() += 1;
        }
        let peak = per_second.values().copied().max().unwrap_or(0);
        f.insert(format!("{name}.peak_per_s"), f64::from(peak));
    }
}

/// How the line's order departs from arrival order, among those who
/// joined after the opening; and whether the early ones all stand before
/// them.
fn line_order(f: &mut Figures, visits: &[Visit], tick_ms: f64) {
    let origin = visits.iter().filter_map(|v| v.arrived_at).min();
    let Some(origin) = origin else { return };
    let joiners: Vec<fairness::Joiner> = visits
        .iter()
        .filter(|v| !v.early)
        .filter_map(|v| {
            Some(fairness::Joiner {
                sent_ms: v.arrived_at?.duration_since(origin).as_secs_f64() * 1000.0,
                place: v.place?,
            })
        })
        .collect();
    let d = fairness::departure(&joiners, tick_ms);
    f.insert("fairness.joined_after_opening".into(), d.joiners as f64);
    f.insert(
        "fairness.pairs_out_of_order".into(),
        d.pairs_out_of_order as f64,
    );
    f.insert(
        "fairness.pairs_beyond_tick".into(),
        d.pairs_beyond_tick as f64,
    );
    f.insert(
        "fairness.max_displacement".into(),
        f64::from(d.max_displacement),
    );
    f.insert("fairness.max_gap_ms".into(), d.max_gap_ms);
    f.insert("fairness.tick_ms".into(), tick_ms);
    let early = visits.iter().filter(|v| v.early).count() as u32;
    f.insert("fairness.joined_early".into(), f64::from(early));
    let early_behind = visits
        .iter()
        .filter(|v| v.early && v.place.is_some_and(|p| p > early))
        .count();
    f.insert(
        "fairness.early_placed_behind_later".into(),
        early_behind as f64,
    );
}

/// Holds and checkouts sent until `until`, and the most sent in one
/// second: the requests buyers send the showing's object itself.
fn object_bound(visits: &[Visit], until: Instant) -> (usize, u32) {
    let sent: Vec<Instant> = visits
        .iter()
        .flat_map(|v| v.requests.iter())
        .filter(|r| matches!(r.kind, Kind::Hold | Kind::Checkout) && r.at <= until)
        .map(|r| r.at)
        .collect();
    let Some(&first) = sent.iter().min() else {
        return (0, 0);
    };
    let mut per_second = std::collections::BTreeMap::<u64, u32>::new();
    for at in &sent {
        *per_second
            .entry(at.duration_since(first).as_secs())
            .or_default() += 1;
    }
    (sent.len(), per_second.values().copied().max().unwrap_or(0))
}

/// Every request of the phase: when it was sent (ms from the opening),
/// how long it took, what it was, its answer, and which buyer sent it.
fn timeline_csv(visits: &[Visit], opens_at: Instant) -> String {
    let mut csv = String::from("sent_ms,latency_ms,kind,status,buyer\n");
    let mut rows: Vec<(f64, &buyer::Sent, usize)> = visits
        .iter()
        .enumerate()
        .flat_map(|(n, v)| v.requests.iter().map(move |r| (r, n)))
        .map(|(r, n)| {
            let sent_ms = match r.at.checked_duration_since(opens_at) {
                Some(after) => after.as_secs_f64() * 1000.0,
                None => -(opens_at.duration_since(r.at).as_secs_f64() * 1000.0),
            };
            (sent_ms, r, n)
        })
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    for (sent_ms, r, n) in rows {
        csv.push_str(&format!(
            "{sent_ms:.0},{:.1},{},{},{n}\n",
            f64::from(r.micros) / 1000.0,
            r.kind.name(),
            r.status
        ));
    }
    csv
}

/// A phase's headline, for the progress log.
fn one_line(f: &Figures) -> String {
    let g = |name: &str| f.get(name).copied().unwrap_or(f64::NAN);
    format!(
        "{} buyers, {} paid, {} told of {} without seats; sold out at {:.1} s, last told at {:.1} s; \
         hold p50 {:.0} ms p99 {:.0} ms max {:.0} ms ({} holds); queue p99 {:.0} ms peak {}/s; \
         object {:.0} req/s; sold {} tickets {} captured seats {} twice {} open auths {}; \
         out of order beyond tick {}",
        g("buyers"),
        g("buyers.paid"),
        g("buyers.told"),
        g("buyers.without_seats"),
        g("sold_out_s"),
        g("last_told_s"),
        g("hold.p50_ms"),
        g("hold.p99_ms"),
        g("hold.max_ms"),
        g("hold.count"),
        g("queue.p99_ms"),
        g("queue.peak_per_s"),
        g("object.requests_per_s"),
        g("seats_sold"),
        g("live_tickets"),
        g("seats_captured"),
        g("seats_ticketed_twice"),
        g("authorizations_open"),
        g("fairness.pairs_beyond_tick"),
    )
}
