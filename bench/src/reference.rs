//! The reference of issue #17: the simplest seat booking on the same
//! platform (`bench/reference/`, JavaScript: one SELECT and one UPDATE in
//! a SQLite-backed object), with the JavaScript no-op and one-write floors,
//! started in a `wrangler dev` of its own beside the product's, so both are
//! measured on the same machine in the same run with the same load.

use std::time::Duration;

use crate::cpu::Server;

/// How long the reference's dev server may take to come up.
const READY_TIMEOUT: Duration = Duration::from_secs(120);

pub struct Reference {
    pub base_url: String,
    /// Its V8 inspector, for `bench/profile.mjs`.
    pub inspector_port: u16,
    pub server: Server,
    group: e2e::Group,
    state: tempfile::TempDir,
}

/// The reference as Cloudflare's seat-booking tutorial has it: its page
/// served from static assets by the same Worker.
pub const WITH_ASSETS: &str = "wrangler.toml";
/// The same Worker without static assets, to show what the platform's
/// asset routing costs a request under `wrangler dev`.
pub const BARE: &str = "wrangler-bare.toml";

impl Reference {
    /// Starts the reference's dev server with `config` (in `bench/reference/`),
    /// on other ports again when another program took one of its own first.
    pub fn start(config: &str) -> Reference {
        const ATTEMPTS: usize = 3;
        let state = tempfile::tempdir().expect("a state directory");
        let log_path = state.path().join("wrangler.log");
        for attempt in 1..=ATTEMPTS {
            let written = std::fs::metadata(&log_path).map_or(0, |meta| meta.len() as usize);
            let port = e2e::free_port();
            let inspector_port = e2e::free_port();
            let root = e2e::repo_root();
            let log = std::fs::File::options()
                .create(true)
                .append(true)
                .open(&log_path)
                .expect("log file");
            let mut cmd = e2e::wrangler(&root);
            cmd.args(["dev", "--ip", "127.0.0.1", "--port", &port.to_string()])
                .arg("--config")
                .arg(root.join("bench/reference").join(config))
                .args(["--inspector-port", &inspector_port.to_string()])
                .arg("--persist-to")
                .arg(state.path().join("state"))
                .arg("--show-interactive-dev-session=false")
                .stdout(log.try_clone().expect("log"))
                .stderr(log);
            let group = e2e::Group::spawn(cmd).expect("start the reference's wrangler dev");
            match e2e::await_ready(group, &log_path, written, READY_TIMEOUT, || healthy(port)) {
                Ok(group) => {
                    return Reference {
                        base_url: format!("http://127.0.0.1:{port}"),
                        inspector_port,
                        server: Server {
                            pgid: group.id(),
                            port,
                        },
                        group,
                        state,
                    }
                }
                Err(e2e::Unready::PortTaken) if attempt < ATTEMPTS => {
                    eprintln!("the reference's wrangler dev: a port was taken; starting it again");
                }
                Err(_) => break,
            }
        }
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        panic!("the reference's wrangler dev did not come up:\n{log}");
    }

    /// The end of the reference server's log, for a failed phase.
    pub fn log_tail(&self) -> String {
        let log =
            std::fs::read_to_string(self.state.path().join("wrangler.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for Reference {
    fn drop(&mut self) {
        self.group.stop();
    }
}

fn healthy(port: u16) -> bool {
    e2e::plain_get(port, "/health")
        .is_some_and(|answer| answer.starts_with("HTTP/1.1 200") && answer.ends_with("ok"))
}
