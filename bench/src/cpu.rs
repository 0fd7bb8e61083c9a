//! CPU time used by processes, read from `/proc/<pid>/stat` (user plus
//! system time of all threads). The dev server's processes are found by
//! their process group, which the harness gives each server it starts.
//!
//! `wrangler dev` runs two workerd processes: its own proxy, which listens
//! on the port given to it and forwards each request, and the one that
//! runs the Worker and its objects. They are told apart by the port the
//! proxy listens on; the proxy is reported as `workerd-proxy`.

use std::collections::BTreeMap;
use std::path::Path;

/// CPU seconds used so far, by program name (`workerd`, `node`, …).
pub type CpuByProgram = BTreeMap<String, f64>;

struct Stat {
    comm: String,
    pgrp: u32,
    cpu_ticks: u64,
}

/// `comm` is in parentheses and may hold spaces, so fields are counted
/// from the last `)`: state is field 3, pgrp 5, utime 14 and stime 15.
fn parse_stat(text: &str) -> Option<Stat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    let field = |n: usize| rest.get(n - 3).and_then(|v| v.parse::<u64>().ok());
    Some(Stat {
        comm,
        pgrp: u32::try_from(field(5)?).ok()?,
        cpu_ticks: field(14)? + field(15)?,
    })
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions; it answers -1 for an unknown name.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 {
        ticks as f64
    } else {
        100.0
    }
}

/// The stat files of the numbered entries of a `/proc` directory.
fn stats_under(dir: &Path) -> impl Iterator<Item = (String, Stat)> {
    let entries = std::fs::read_dir(dir).into_iter().flatten().flatten();
    entries.filter_map(|entry| {
        let id = entry.file_name().to_string_lossy().to_string();
        if !id.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let text = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        Some((id, parse_stat(&text)?))
    })
}

/// The dev server: its process group, and the port it answers on.
#[derive(Debug, Clone, Copy)]
pub struct Server {
    pub pgid: u32,
    pub port: u16,
}

/// The program's name, with wrangler's proxy told apart from the workerd
/// that runs the Worker.
fn program_name(server: Server, pid: &str, comm: &str) -> String {
    if comm == "workerd" {
        let cmdline =
            std::fs::read(Path::new("/proc").join(pid).join("cmdline")).unwrap_or_default();
        let listens = format!("entry=127.0.0.1:{}", server.port);
        let is_proxy = cmdline
            .split(|&b| b == 0)
            .any(|arg| arg.ends_with(listens.as_bytes()));
        if is_proxy {
            return "workerd-proxy".into();
        }
    }
    comm.to_string()
}

/// The runtime's own entry port: the workerd behind wrangler's proxy
/// listens on a few ports of its own, and the entry is the one that
/// answers `GET health_path` with 200. Requests sent there skip the proxy
/// (`--direct`, bench/HISTORY.md "The multi-second stalls").
pub fn runtime_entry_port(server: Server, health_path: &str) -> Option<u16> {
    let runtime = stats_under(Path::new("/proc"))
        .filter(|(_, s)| s.pgrp == server.pgid && s.comm == "workerd")
        .map(|(pid, s)| (pid.clone(), program_name(server, &pid, &s.comm)))
        .find(|(_, name)| name == "workerd")?
        .0;
    let fd_dir = Path::new("/proc").join(&runtime).join("fd");
    let sockets: Vec<String> = std::fs::read_dir(fd_dir)
        .ok()?
        .flatten()
        .filter_map(|fd| std::fs::read_link(fd.path()).ok())
        .filter_map(|link| {
            let link = link.to_string_lossy().to_string();
            Some(
                link.strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_string(),
            )
        })
        .collect();
    // /proc/net/tcp: local address (hex ip:port) is field 1, the state
    // field 3 (0A: listening), the inode field 9.
    let table = std::fs::read_to_string(Path::new("/proc").join(&runtime).join("net/tcp")).ok()?;
    table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let listening = fields.get(3) == Some(&"0A");
            let ours = sockets
                .iter()
                .any(|inode| Some(&inode.as_str()) == fields.get(9));
            let port = fields.get(1)?.rsplit(':').next()?;
            (listening && ours).then(|| u16::from_str_radix(port, 16).ok())?
        })
        .find(|&port| {
            e2e::plain_get(port, health_path).is_some_and(|a| a.starts_with("HTTP/1.1 200"))
        })
}

/// CPU seconds of every live process in the group, summed by program
/// name, and of each thread of those processes, by `program/tid name`.
fn group(server: Server) -> (CpuByProgram, CpuByProgram) {
    let mut by_program = CpuByProgram::new();
    let mut by_thread = CpuByProgram::new();
    let per_tick = 1.0 / ticks_per_second();
    let in_group = stats_under(Path::new("/proc")).filter(|(_, s)| s.pgrp == server.pgid);
    for (pid, stat) in in_group {
        let program = program_name(server, &pid, &stat.comm);
        *by_program.entry(program.clone()).or_default() += stat.cpu_ticks as f64 * per_tick;
        let tasks = Path::new("/proc").join(&pid).join("task");
        for (tid, thread) in stats_under(&tasks) {
            let name = format!("{program}/{tid} {}", thread.comm);
            by_thread.insert(name, thread.cpu_ticks as f64 * per_tick);
        }
    }
    (by_program, by_thread)
}

/// CPU seconds this process has used: the load generator, and the Square
/// stand-in, which runs on a thread of it.
pub fn this_process() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|text| parse_stat(&text))
        .map(|s| s.cpu_ticks as f64 / ticks_per_second())
        .unwrap_or(0.0)
}

/// What one measured window cost in CPU seconds.
#[derive(Debug, Clone, Default)]
pub struct CpuUse {
    pub server: CpuByProgram,
    /// Each server thread's CPU seconds, by `program/tid name`: a thread
    /// near one CPU second per second is a bottleneck of its own.
    pub server_threads: CpuByProgram,
    pub load_generator: f64,
}

impl CpuUse {
    /// CPU seconds of workerd's busiest thread: the runtime's one thread
    /// that runs the Worker and its objects.
    pub fn busiest_workerd_thread(&self) -> f64 {
        self.server_threads
            .iter()
            .filter(|(name, _)| name.starts_with("workerd/"))
            .map(|(_, &s)| s)
            .fold(0.0, f64::max)
    }
}

/// A reading at the start of a window, to subtract from one at its end.
pub struct Reading {
    server: CpuByProgram,
    server_threads: CpuByProgram,
    load_generator: f64,
}

impl Reading {
    pub fn now(of: Server) -> Reading {
        let (server, server_threads) = group(of);
        Reading {
            server,
            server_threads,
            load_generator: this_process(),
        }
    }

    pub fn since(&self, start: &Reading) -> CpuUse {
        let delta = |end: &CpuByProgram, start: &CpuByProgram| -> CpuByProgram {
            end.iter()
                .map(|(name, &end)| {
                    let before = start.get(name).copied().unwrap_or(0.0);
                    (name.clone(), (end - before).max(0.0))
                })
                .collect()
        };
        CpuUse {
            server: delta(&self.server, &start.server),
            server_threads: delta(&self.server_threads, &start.server_threads),
            load_generator: (self.load_generator - start.load_generator).max(0.0),
        }
    }
}

/// Samples the server's CPU every `every` on a thread of its own, for a
/// timeline: each row is the time since `origin` and the cores each
/// program, and the busiest workerd thread, used since the row before.
pub struct Sampler {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Vec<(f64, CpuUse)>>,
}

impl Sampler {
    pub fn start(of: Server, every: std::time::Duration, origin: std::time::Instant) -> Sampler {
        use std::sync::atomic::Ordering;
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut rows = Vec::new();
            let mut last = Reading::now(of);
            while !stopped.load(Ordering::Relaxed) {
                std::thread::sleep(every);
                let now = Reading::now(of);
                let at = std::time::Instant::now();
                let since_origin = match at.checked_duration_since(origin) {
                    Some(d) => d.as_secs_f64(),
                    None => -origin.duration_since(at).as_secs_f64(),
                };
                rows.push((since_origin * 1000.0, now.since(&last)));
                last = now;
            }
            rows
        });
        Sampler { stop, thread }
    }

    /// Stops sampling; answers the rows as [`timeline_csv`].
    pub fn stop(self, every: std::time::Duration) -> String {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let rows = self.thread.join().unwrap_or_default();
        timeline_csv(rows.iter().map(|(at_ms, used)| (*at_ms, used)), every)
    }
}

/// A CPU timeline as CSV: for each row, the time it ended (ms) and the
/// cores used over the `step` before it by workerd, its busiest thread,
/// wrangler's proxy, Node and the load generator.
pub fn timeline_csv<'a>(
    rows: impl Iterator<Item = (f64, &'a CpuUse)>,
    step: std::time::Duration,
) -> String {
    let secs = step.as_secs_f64();
    let mut csv = String::from(
        "at_ms,workerd_cores,busiest_thread_cores,proxy_cores,node_cores,load_generator_cores\n",
    );
    for (at_ms, used) in rows {
        let cores = |name: &str| used.server.get(name).copied().unwrap_or(0.0) / secs;
        csv.push_str(&format!(
            "{at_ms:.0},{:.2},{:.2},{:.2},{:.2},{:.2}\n",
            cores("workerd"),
            used.busiest_workerd_thread() / secs,
            cores("workerd-proxy"),
            cores("node"),
            used.load_generator / secs,
        ));
    }
    csv
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeline_row_gives_cores_over_its_step() {
        let used = CpuUse {
            server: [
                ("workerd".to_string(), 0.4),
                ("workerd-proxy".to_string(), 0.1),
            ]
            .into(),
            server_threads: [
                ("workerd/1 workerd".to_string(), 0.35),
                ("workerd/2 workerd".to_string(), 0.05),
                ("node/3 node".to_string(), 0.5),
            ]
            .into(),
            load_generator: 0.02,
        };
        let csv = timeline_csv(
            [(500.0, &used)].into_iter(),
            std::time::Duration::from_millis(500),
        );
        assert_eq!(csv.lines().nth(1), Some("500,0.80,0.70,0.20,0.00,0.04"));
    }

    #[test]
    fn a_stat_line_with_spaces_in_the_name_parses() {
        let line = "4242 (node (main)) S 1 4200 4200 0 -1 4194560 100 0 0 0 150 30 0 0 20 0 11";
        let stat = parse_stat(line).unwrap();
        assert_eq!(stat.comm, "node (main)");
        assert_eq!(stat.pgrp, 4200);
        assert_eq!(stat.cpu_ticks, 180);
    }
}
