//! One run of every measure on a fresh stack: the floors and holds at each
//! concurrency, holds by venue size, holds with viewers polling, whole
//! checkouts, and a sell-out rush ([`crate::rush`]). Each measure gets a showing of its own, so one measure's
//! leftovers (ended holds, sold seats) never weigh on another's.

use std::sync::Arc;

use e2e::{Api, Stack, StackOptions};

use crate::clients;
use crate::cpu::Server;
use crate::figures::{summarize, under, Figures};
use crate::http::Http;
use crate::load::{self, Kind, Phase, Timing};
use crate::room::Room;

/// The room of the floors-and-holds and viewer measures: 20 rows of 100.
pub const MAIN_ROOM: Room = Room::new(20, 100);
/// The venue sizes: 16 (the demo room), 500, 5,000 and 20,000 seats.
pub const VENUES: [Room; 4] = [
    Room::new(2, 8),
    Room::new(20, 25),
    Room::new(50, 100),
    Room::new(100, 200),
];
/// Checkouts: each payer has a row of 100 to itself.
pub const CHECKOUT_ROOM: Room = Room::new(50, 100);

/// The measures of a run, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Measure {
    Floors,
    Reference,
    Venues,
    Viewers,
    Checkouts,
    Rush,
}

impl Measure {
    pub const ALL: [Measure; 6] = [
        Measure::Floors,
        Measure::Reference,
        Measure::Venues,
        Measure::Viewers,
        Measure::Checkouts,
        Measure::Rush,
    ];
}

/// Showings made for each one-seat phase of the product: more than any
/// phase fills at 60 seats each.
const ONE_SEAT_SHOWINGS: usize = 120;

#[derive(Debug, Clone)]
pub struct Settings {
    pub timing: Timing,
    /// Concurrent clients for the floors and holds.
    pub concurrencies: Vec<usize>,
    /// Concurrent buyers for the venue sizes and the viewer measure.
    pub buyers: usize,
    pub viewers: usize,
    pub payers: usize,
    pub rush: crate::rush::RushSettings,
    /// Past the proxies, in the reference measure (`--direct`).
    pub direct: bool,
    pub measures: Vec<Measure>,
    /// Where the report goes; timelines go to its `timeline/`.
    pub out: std::path::PathBuf,
}

/// Writes a phase's answers (`run{n}-{phase}-answers.csv`: when each came
/// and how long it took, in ms since the window began, and its status) and
/// the server's CPU cores busy in each step (`…-cpu.csv`), to line slow
/// answers up with what the server was doing.
fn write_timeline(out: &std::path::Path, run: usize, name: &str, phase: &Phase) {
    let dir = out.join("timeline");
    std::fs::create_dir_all(&dir).expect("create the timeline directory");
    let mut answers = String::from("done_ms,latency_ms,status,kind,seq,server_ms\n");
    let mut samples = phase.samples.clone();
    samples.sort_by_key(|s| s.done_ms);
    for s in &samples {
        let seq = s.seq.map(|n| n.to_string()).unwrap_or_default();
        let server_ms = s.server_ms.map(|n| n.to_string()).unwrap_or_default();
        answers.push_str(&format!(
            "{},{:.1},{},{},{seq},{server_ms}\n",
            s.done_ms,
            f64::from(s.micros) / 1000.0,
            s.status,
            s.kind.name()
        ));
    }
    let cpu = crate::cpu::timeline_csv(
        phase
            .timeline
            .iter()
            .map(|(at_ms, used)| (f64::from(*at_ms), used)),
        crate::load::TIMELINE_STEP,
    );
    // Phase names have dots (`hold1.c200`), so the names are written out
    // whole rather than given an extension.
    let file = |what: &str| dir.join(format!("run{run}-{name}-{what}.csv"));
    std::fs::write(file("answers"), answers).expect("write a timeline");
    std::fs::write(file("cpu"), cpu).expect("write a timeline");
}

/// The product as the benchmark runs it: its bench routes on, and, as
/// the reference and production have, no `/__scheduled` route.
fn bench_options() -> StackOptions {
    StackOptions::default()
        .var("SHOWTIME_BENCH", "1")
        .without_scheduled_route()
}

/// Starts the product with `showings` one-seat showings and the
/// reference, prints where they are, and waits until stopped.
pub fn serve(showings: usize) {
    let stack = Stack::start_with(bench_options());
    let reference = crate::reference::Reference::start(crate::reference::WITH_ASSETS);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let api = Api::new(&stack);
    let room = Room::new(1, clients::SEATS_PER_SHOWING as u32);
    let mut ids = Vec::new();
    for _ in 0..showings {
        ids.push(runtime.block_on(api.create_showing(room.showing("One seat"))));
    }
    let big = runtime.block_on(api.create_showing(MAIN_ROOM.showing("Big")));
    // A showing with a waiting room whose sales open in an hour: a join
    // to it is an early one (`bench/profile.mjs --what join`).
    let mut early = room.showing("Queued");
    early["sales_open_at"] = serde_json::json!(e2e::time_from_now(3_600_000));
    early["waiting_room"] = serde_json::json!({ "admit_per_minute": 600 });
    let queued = runtime.block_on(api.create_showing(early));
    println!("product {}", stack.base_url);
    println!("product inspector {}", stack.inspector_port);
    println!("big {big}");
    println!("queued {queued}");
    println!("reference {}", reference.base_url);
    println!("reference inspector {}", reference.inspector_port);
    println!("showings {}", ids.join(","));
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}

/// Starts a stack, runs every measure once, stops the stack.
pub fn run_once(settings: &Settings, run: usize) -> Figures {
    let stack = Stack::start_with(bench_options());
    let server = Server {
        pgid: stack
            .server_process_group()
            .expect("the dev server is running"),
        port: stack
            .base_url
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("the dev server's port"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut figures = runtime.block_on(measure_all(&stack, server, settings, run));
    add_ratios(&mut figures, settings);
    figures
}

struct Bench<'a> {
    stack: &'a Stack,
    api: Api,
    http: Http,
    server: Server,
    settings: &'a Settings,
    run: usize,
    figures: Figures,
}

impl Bench<'_> {
    fn keep(&mut self, name: &str, phase: Phase) {
        if self.settings.timing.timeline {
            write_timeline(&self.settings.out, self.run, name, &phase);
        }
        let figures = summarize(&phase);
        eprintln!("run {}: {name}: {}", self.run, one_line(&figures));
        let unanswered = phase.samples.iter().filter(|s| s.status == 0).count();
        assert!(
            unanswered * 10 <= phase.samples.len(),
            "run {}: {name}: {unanswered} of {} requests got no answer: the dev server \
             stopped or hung (another program may have stopped it); its log ends:\n{}",
            self.run,
            phase.samples.len(),
            self.stack.log_tail()
        );
        self.figures.extend(under(name, figures));
    }

    async fn showing(&self, room: Room, title: &str) -> Arc<str> {
        self.api.create_showing(room.showing(title)).await.into()
    }
}

async fn measure_all(stack: &Stack, server: Server, settings: &Settings, run: usize) -> Figures {
    let mut bench = Bench {
        stack,
        api: Api::new(stack),
        http: Http::new(&stack.base_url),
        server,
        settings,
        run,
        figures: Figures::new(),
    };
    for measure in &settings.measures {
        match measure {
            Measure::Floors => floors_and_holds(&mut bench).await,
            Measure::Reference => against_the_reference(&mut bench).await,
            Measure::Venues => venue_sizes(&mut bench).await,
            Measure::Viewers => viewers(&mut bench).await,
            Measure::Checkouts => checkouts(&mut bench).await,
            Measure::Rush => {
                let timeline = settings
                    .timing
                    .timeline
                    .then(|| settings.out.join("timeline"));
                let timeline = timeline.as_deref().map(|dir| (dir, run));
                let figures = crate::rush::measure(stack, server, &settings.rush, timeline).await;
                bench.figures.extend(figures);
            }
        }
    }
    bench.figures
}

/// The two floors and holds on one showing, at each concurrency in turn,
/// so that drift in the machine's load touches all three alike.
async fn floors_and_holds(bench: &mut Bench<'_>) {
    let (http, timing, server) = (bench.http.clone(), bench.settings.timing, bench.server);
    // The floors' object is never set up as a showing: the request reaches
    // it, and it answers without loading anything.
    let floor_object = format!("{:016x}", fastrand::u64(..));
    let noop: Arc<str> = format!("/api/bench/showings/{floor_object}/noop").into();
    let write: Arc<str> = format!("/api/bench/showings/{floor_object}/write").into();
    let sid = bench.showing(MAIN_ROOM, "Floors and holds").await;
    for clients in bench.settings.concurrencies.clone() {
        let phase = load::run(server, timing, clients, |_, rec| {
            clients::floor(http.clone(), noop.clone(), Kind::Noop, rec)
        })
        .await;
        bench.keep(&format!("noop.c{clients}"), phase);
        let phase = load::run(server, timing, clients, |_, rec| {
            clients::floor(http.clone(), write.clone(), Kind::Write, rec)
        })
        .await;
        bench.keep(&format!("write.c{clients}"), phase);
        let phase = load::run(server, timing, clients, |_, rec| {
            clients::buyer(http.clone(), sid.clone(), MAIN_ROOM, rec)
        })
        .await;
        bench.keep(&format!("hold.c{clients}"), phase);
    }
}

/// The reference's floors and bookings, then the product's holds of the
/// same shape (one seat, a new buyer, showings of 60 seats in turn), at
/// each concurrency in turn.
async fn against_the_reference(bench: &mut Bench<'_>) {
    use crate::reference::{Reference, BARE, WITH_ASSETS};
    let reference = Reference::start(WITH_ASSETS);
    let bare = Reference::start(BARE);
    let (mut http, timing, server) = (bench.http.clone(), bench.settings.timing, bench.server);
    let (js, js_bare) = if bench.settings.direct {
        let direct = |server, health| {
            let port = crate::cpu::runtime_entry_port(server, health)
                .expect("the runtime's own entry port");
            Http::new(&format!("http://127.0.0.1:{port}"))
        };
        http = direct(server, "/api/health");
        (
            direct(reference.server, "/health"),
            direct(bare.server, "/health"),
        )
    } else {
        (Http::new(&reference.base_url), Http::new(&bare.base_url))
    };
    let room = Room::new(1, clients::SEATS_PER_SHOWING as u32);
    for clients in bench.settings.concurrencies.clone() {
        let tag = format!("{:016x}", fastrand::u64(..));
        for (name, kind) in [("noop", Kind::Noop), ("write", Kind::Write)] {
            let path: Arc<str> = format!("/{name}/floor-{tag}").into();
            let phase = load::run(reference.server, timing, clients, |_, rec| {
                clients::floor(js.clone(), path.clone(), kind, rec)
            })
            .await;
            bench.keep(&format!("ref_{name}.c{clients}"), phase);
        }
        let path: Arc<str> = format!("/noop/floor-{tag}").into();
        let phase = load::run(bare.server, timing, clients, |_, rec| {
            clients::floor(js_bare.clone(), path.clone(), Kind::Noop, rec)
        })
        .await;
        bench.keep(&format!("ref_bare_noop.c{clients}"), phase);
        let stream = Arc::new(clients::SeatStream::reference(&tag, ONE_SEAT_SHOWINGS));
        let phase = load::run(reference.server, timing, clients, |_, rec| {
            clients::one_seat(js.clone(), stream.clone(), Kind::Book, rec)
        })
        .await;
        bench.keep(&format!("ref_book.c{clients}"), phase);

        let mut showings = Vec::new();
        for _ in 0..ONE_SEAT_SHOWINGS {
            showings.push(bench.showing(room, "One seat").await);
        }
        let stream = Arc::new(clients::SeatStream::product(&showings));
        let phase = load::run(server, timing, clients, |_, rec| {
            clients::one_seat(http.clone(), stream.clone(), Kind::Hold, rec)
        })
        .await;
        bench.keep(&format!("hold1.c{clients}"), phase);
        let stream = Arc::new(clients::SeatStream::worker_half(&showings));
        let phase = load::run(server, timing, clients, |_, rec| {
            clients::one_seat(http.clone(), stream.clone(), Kind::Hold, rec)
        })
        .await;
        bench.keep(&format!("hold1_worker.c{clients}"), phase);
    }
    eprintln!(
        "run {}: reference server log ends:\n{}",
        bench.run,
        reference.log_tail()
    );
}

async fn venue_sizes(bench: &mut Bench<'_>) {
    let (http, timing, server) = (bench.http.clone(), bench.settings.timing, bench.server);
    for room in VENUES {
        let sid = bench.showing(room, "Venue size").await;
        let phase = load::run(server, timing, bench.settings.buyers, |_, rec| {
            clients::buyer(http.clone(), sid.clone(), room, rec)
        })
        .await;
        bench.keep(&format!("seats{}", room.seats()), phase);
    }
}

/// How many watching sockets open at once before the live phase.
pub const OPEN_AT_ONCE: usize = 50;

/// The same buyers on three fresh showings of the same room: alone, with
/// the viewers watching over their sockets (as the seat map page does),
/// and with the viewers polling (a page whose network blocks sockets).
async fn viewers(bench: &mut Bench<'_>) {
    let (http, timing, server) = (bench.http.clone(), bench.settings.timing, bench.server);
    let buyers = bench.settings.buyers;
    // What any request costs when only the Worker answers it: a cached
    // seat map can cost no less.
    let worker: Arc<str> = "/api/bench/worker".into();
    let phase = load::run(server, timing, buyers, |_, rec| {
        clients::floor(http.clone(), worker.clone(), Kind::Worker, rec)
    })
    .await;
    bench.keep(&format!("worker.c{buyers}"), phase);
    let n = bench.settings.viewers;
    for (name, viewers, live) in [
        ("viewers0".to_string(), 0, false),
        (format!("viewers{n}"), n, true),
        (format!("polling{n}"), n, false),
    ] {
        let sid = bench.showing(MAIN_ROOM, "Viewers").await;
        let sockets = if live {
            let (sockets, took) = clients::open_watchers(&http, &sid, viewers, OPEN_AT_ONCE).await;
            bench
                .figures
                .insert(format!("{name}.open_s"), took.as_secs_f64());
            sockets
        } else {
            Vec::new()
        };
        let sockets = std::sync::Mutex::new(sockets.into_iter().map(Some).collect::<Vec<_>>());
        let phase = load::run(server, timing, buyers + viewers, |i, rec| {
            let (http, sid) = (http.clone(), sid.clone());
            let socket = match i.checked_sub(buyers) {
                Some(v) if live => sockets.lock().unwrap()[v].take(),
                _ => None,
            };
            async move {
                match socket {
                    _ if i < buyers => clients::buyer(http, sid, MAIN_ROOM, rec).await,
                    Some(socket) => clients::live_viewer(socket, rec).await,
                    None => clients::viewer(http, sid, rec).await,
                }
            }
        })
        .await;
        bench.keep(&name, phase);
        // How many seat maps the object itself built over the whole phase
        // (warm-up too): the rest came from the Worker's copy.
        let built = bench.api.stats(&sid).await["seat_maps_built"]
            .as_f64()
            .unwrap_or(f64::NAN);
        let secs = (timing.warm_up + timing.measure).as_secs_f64();
        bench
            .figures
            .insert(format!("{name}.object_maps_per_s"), built / secs);
    }
}

async fn checkouts(bench: &mut Bench<'_>) {
    let (http, timing, server) = (bench.http.clone(), bench.settings.timing, bench.server);
    let sid = bench.showing(CHECKOUT_ROOM, "Checkouts").await;
    let payers = bench.settings.payers;
    let phase = load::run(server, timing, payers, |i, rec| {
        clients::payer(http.clone(), sid.clone(), CHECKOUT_ROOM, i as u32, rec)
    })
    .await;
    bench.keep(&format!("checkout.c{payers}"), phase);
}

/// Ratios between phases of the same run (hold to floor, size to 16
/// seats, with viewers to without), so each run gives its own ratio.
fn add_ratios(figures: &mut Figures, settings: &Settings) {
    let get = |f: &Figures, name: &str| f.get(name).copied().unwrap_or(f64::NAN);
    let mut ratios = Figures::new();
    for c in &settings.concurrencies {
        let (hold, write, noop) = (
            format!("hold.c{c}"),
            format!("write.c{c}"),
            format!("noop.c{c}"),
        );
        let pairs = [
            (
                "holds_per_write",
                format!("{hold}.hold.rps"),
                format!("{write}.write.rps"),
            ),
            (
                "requests_per_write",
                format!("{hold}.all.rps"),
                format!("{write}.write.rps"),
            ),
            (
                "write_per_noop",
                format!("{write}.write.rps"),
                format!("{noop}.noop.rps"),
            ),
            (
                "p99_per_write",
                format!("{hold}.hold.p99_ms"),
                format!("{write}.write.p99_ms"),
            ),
            (
                "p99_per_noop",
                format!("{hold}.hold.p99_ms"),
                format!("{noop}.noop.p99_ms"),
            ),
            (
                "cpu_per_write",
                format!("{hold}.cpu.server.us_per_req"),
                format!("{write}.cpu.server.us_per_req"),
            ),
        ];
        for (name, over, under) in pairs {
            let ratio = get(figures, &over) / get(figures, &under);
            ratios.insert(format!("ratio.c{c}.{name}"), ratio);
        }
    }
    for c in &settings.concurrencies {
        let pairs = [
            (
                "hold1_per_book",
                "hold1",
                "hold.rps",
                "ref_book",
                "book.rps",
            ),
            (
                "hold1_p99_per_book",
                "hold1",
                "hold.p99_ms",
                "ref_book",
                "book.p99_ms",
            ),
            ("noop_per_js", "noop", "noop.rps", "ref_noop", "noop.rps"),
            (
                "js_noop_per_bare",
                "ref_noop",
                "noop.rps",
                "ref_bare_noop",
                "noop.rps",
            ),
            (
                "write_per_js",
                "write",
                "write.rps",
                "ref_write",
                "write.rps",
            ),
        ];
        for (name, over, over_figure, under, under_figure) in pairs {
            let ratio = get(figures, &format!("{over}.c{c}.{over_figure}"))
                / get(figures, &format!("{under}.c{c}.{under_figure}"));
            ratios.insert(format!("ratio.c{c}.{name}"), ratio);
        }
    }
    for c in &settings.concurrencies {
        // The object's own work for a hold: the hold's CPU less its Worker
        // half's (the same requests with an empty call to the object).
        let cpu = |phase: &str| get(figures, &format!("{phase}.c{c}.cpu.workerd.us_per_req"));
        ratios.insert(
            format!("split.c{c}.object_us_per_hold"),
            cpu("hold1") - cpu("hold1_worker"),
        );
    }
    let smallest = VENUES[0].seats();
    for room in VENUES {
        let ratio = get(figures, &format!("seats{}.hold.p99_ms", room.seats()))
            / get(figures, &format!("seats{smallest}.hold.p99_ms"));
        ratios.insert(format!("ratio.seats{}.p99_per_16", room.seats()), ratio);
    }
    let without = "viewers0";
    for how in ["viewers", "polling"] {
        let with = format!("{how}{}", settings.viewers);
        for q in ["p50_ms", "p99_ms"] {
            let ratio = get(figures, &format!("{with}.hold.{q}"))
                / get(figures, &format!("{without}.hold.{q}"));
            ratios.insert(format!("ratio.{how}.{q}"), ratio);
        }
        // What watching costs the server: its CPU with the viewers, less
        // what the holds and releases made alongside cost at the rate
        // measured without them; per viewer each second.
        let hold_path_cost = get(figures, &format!("{without}.cpu.server.cores"))
            / get(figures, &format!("{without}.all.rps"));
        let viewing_cpu = get(figures, &format!("{with}.cpu.server.cores"))
            - hold_path_cost
                * (get(figures, &format!("{with}.all.rps"))
                    - get(figures, &format!("{with}.seat_map.rps")).max(0.0));
        ratios.insert(
            format!("{how}.est_cpu_us_per_viewer_s"),
            viewing_cpu * 1e6 / settings.viewers as f64,
        );
        if how == "polling" {
            ratios.insert(
                "polling.est_cpu_us_per_seat_map".into(),
                viewing_cpu * 1e6 / get(figures, &format!("{with}.seat_map.rps")),
            );
        }
    }
    let checkout = format!("checkout.c{}", settings.payers);
    let cpu_ms_per_paid = get(figures, &format!("{checkout}.cpu.server.cores")) * 1000.0
        / get(figures, &format!("{checkout}.checkout.rate.201"));
    ratios.insert(format!("{checkout}.cpu_ms_per_paid"), cpu_ms_per_paid);
    figures.extend(ratios);
}

/// A phase's headline figures, for the progress log.
fn one_line(figures: &Figures) -> String {
    let mut parts = Vec::new();
    for kind in [
        "noop", "write", "hold", "release", "seat_map", "checkout", "book",
    ] {
        let Some(rps) = figures.get(&format!("{kind}.rps")) else {
            continue;
        };
        let p50 = figures[&format!("{kind}.p50_ms")];
        let p99 = figures[&format!("{kind}.p99_ms")];
        let statuses: Vec<String> = figures
            .iter()
            .filter_map(|(name, share)| {
                let status = name.strip_prefix(&format!("{kind}.share."))?;
                Some(format!("{status}:{:.0}%", share * 100.0))
            })
            .collect();
        parts.push(format!(
            "{kind} {rps:.0}/s p50 {p50:.1} ms p99 {p99:.1} ms [{}]",
            statuses.join(" ")
        ));
        if let Some(after) = figures.get(&format!("{kind}.after_decision_p99_ms")) {
            parts.push(format!(
                "p99 to the decision {:.0} ms, after it {after:.0} ms",
                figures[&format!("{kind}.to_decision_p99_ms")]
            ));
        }
    }
    parts.push(format!(
        "longest silence {:.0} ms",
        figures.get("all.silence_ms").copied().unwrap_or(f64::NAN)
    ));
    parts.push(format!(
        "CPU cores: workerd {:.2} (busiest thread {:.2}), proxy {:.2}, node {:.2}, load {:.2}",
        figures["cpu.workerd.cores"],
        figures["cpu.workerd_busiest_thread.cores"],
        figures["cpu.proxy.cores"],
        figures["cpu.node.cores"],
        figures["cpu.load_generator.cores"]
    ));
    parts.join("; ")
}
