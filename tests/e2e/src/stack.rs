//! One running copy of the product: `wrangler dev` on a free loopback port
//! with its own state directory.

use std::fs::File;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::process::Group;
use crate::square::SquareStandin;

/// How long a dev server may take to answer its first request. workerd
/// starts in a second or two; a loaded 2-core CI machine needs more.
const READY_TIMEOUT: Duration = Duration::from_secs(90);

#[derive(Clone, Debug)]
pub struct StackOptions {
    /// `--var NAME:VALUE` settings for the Worker, over wrangler.toml's.
    pub vars: Vec<(String, String)>,
    /// When set, the `EMAIL` binding may only send to these addresses (its
    /// `allowed_destination_addresses`): the platform itself refuses the
    /// rest, as a binding set up that way does in production.
    pub mail_only_to: Option<Vec<String>>,
    /// The Square location's currency (USD unless set).
    pub square_currency: String,
    /// `wrangler dev --test-scheduled`: the `/__scheduled` route that fires
    /// the cron. Wrangler serves it with a middleware in front of the
    /// Worker that parses every request's address; production has none,
    /// so the benchmark turns it off.
    pub scheduled_route: bool,
}

impl Default for StackOptions {
    /// Tests fire hundreds of holds and card payments from one address,
    /// so the per-client limits are lifted unless a test sets them.
    fn default() -> Self {
        StackOptions {
            vars: vec![
                ("HOLD_RATE_BURST".into(), "1000000".into()),
                ("HOLD_RATE_PER_MINUTE".into(), "1000000".into()),
                ("HOLD_SEATS_PER_CLIENT".into(), "1000000".into()),
                ("CARD_ATTEMPTS_BURST".into(), "1000000".into()),
                ("CARD_ATTEMPTS_PER_HOUR".into(), "1000000".into()),
            ],
            mail_only_to: None,
            square_currency: "USD".into(),
            scheduled_route: true,
        }
    }
}

impl StackOptions {
    pub fn mail_only_to(mut self, addresses: &[&str]) -> Self {
        self.mail_only_to = Some(addresses.iter().map(|a| a.to_string()).collect());
        self
    }

    /// The stand-in's location takes this currency.
    pub fn square_currency(mut self, currency: &str) -> Self {
        self.square_currency = currency.into();
        self
    }

    /// No `/__scheduled` route, and none of the middleware it needs.
    pub fn without_scheduled_route(mut self) -> Self {
        self.scheduled_route = false;
        self
    }

    pub fn var(mut self, name: &str, value: &str) -> Self {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.into(), value.into()));
        self
    }
}

pub struct Stack {
    pub base_url: String,
    pub admin_token: String,
    /// The Square stand-in this Worker is pointed at.
    pub square: SquareStandin,
    state_dir: tempfile::TempDir,
    port: u16,
    /// Where `wrangler dev` serves the V8 inspector of the Worker and its
    /// objects (`bench/profile.mjs` takes CPU profiles there).
    pub inspector_port: u16,
    options: StackOptions,
    server: Option<Group>,
}

/// The repository root, where wrangler.toml lives.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// A loopback port nobody listens on now, from below the kernel's
/// ephemeral range (32768 and up on Linux). A port the kernel hands out by
/// itself, to an outgoing connection or to a server that binds port 0,
/// comes from that range, and the tests open thousands of connections
/// while other dev servers start: a port from there, let go so that
/// wrangler can bind it, may be taken again in between. Below the range
/// only explicit choices compete: this process's, which the counter keeps
/// apart, and another process's, which starts somewhere else in the span.
pub fn free_port() -> u16 {
    const FIRST: u32 = 20_000;
    const SPAN: u32 = 12_000;
    static START: OnceLock<u32> = OnceLock::new();
    static TRIED: AtomicU32 = AtomicU32::new(0);
    let start = *START.get_or_init(|| {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|since| since.subsec_nanos())
            .unwrap_or(0);
        (std::process::id().wrapping_mul(7919) ^ nanos) % SPAN
    });
    loop {
        let tried = TRIED.fetch_add(1, Ordering::Relaxed);
        assert!(tried < SPAN, "every port from {FIRST} on is taken");
        let port = (FIRST + (start + tried) % SPAN) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// `node_modules/.bin` first: it holds wrangler and the Node it needs.
pub fn wrangler(root: &Path) -> Command {
    let bin = root.join("node_modules/.bin");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(bin.join("wrangler"));
    cmd.current_dir(root)
        .env("PATH", path)
        .env("SHOWTIME_PREBUILT", "1")
        .env("WRANGLER_SEND_METRICS", "false")
        .env("CI", "true")
        .stdin(Stdio::null());
    cmd
}

impl Stack {
    pub fn start() -> Stack {
        Stack::start_with(StackOptions::default())
    }

    pub fn start_with(options: StackOptions) -> Stack {
        let root = repo_root();
        assert!(
            root.join("build/index.js").exists(),
            "the Worker is not built: run the tests with `npm test`"
        );
        let state_dir = tempfile::Builder::new()
            .prefix("showtime-e2e-")
            .tempdir()
            .expect("state dir");
        copy_dir(&migrated_state(&root), &state_dir.path().join("state"));
        // Every secret at least 32 bytes, as the Worker insists.
        let admin_token = format!("test-admin-{}-0123456789abcdefghijklmnop", free_port());
        let mut stack = Stack {
            base_url: String::new(),
            admin_token,
            square: SquareStandin::start_in(&options.square_currency),
            state_dir,
            port: 0,
            inspector_port: 0,
            options,
            server: None,
        };
        stack.launch();
        stack
    }

    /// Stops the server and starts a new one on the same state directory,
    /// as a restart or redeploy would.
    pub fn restart(&mut self) {
        self.stop();
        self.launch();
    }

    /// Restarts with other options (a changed setting or binding), as a
    /// redeploy with a new configuration would.
    pub fn restart_with(&mut self, options: StackOptions) {
        self.options = options;
        self.restart();
    }

    /// Every message the Worker sent since this stack started, oldest first.
    pub fn sent_mail(&self) -> Vec<crate::mailbox::SentMail> {
        crate::mailbox::parse(&std::fs::read_to_string(self.log_path()).unwrap_or_default())
    }

    /// The Square payment of an order, from D1.
    pub fn payment_of(&self, order_id: &str) -> String {
        let rows = self.d1_query(&format!(
            "SELECT payment_id FROM orders WHERE id = '{order_id}'"
        ));
        rows[0]["payment_id"]
            .as_str()
            .expect("a paid order has its payment")
            .to_string()
    }

    /// How many messages went to `to` so far.
    pub fn sent_to(&self, to: &str) -> usize {
        self.sent_mail().iter().filter(|m| m.to == to).count()
    }

    /// Waits (up to 30 s) for `count` messages to `to`.
    pub fn wait_for_mail(&self, to: &str, count: usize) -> Vec<crate::mailbox::SentMail> {
        crate::mailbox::wait_for(
            || std::fs::read_to_string(self.log_path()).unwrap_or_default(),
            to,
            count,
            Duration::from_secs(30),
        )
    }

    /// wrangler.toml as written, or a copy whose `EMAIL` binding refuses
    /// every address but the allowed ones. The copy lives in the state
    /// directory, so its paths are made absolute.
    fn config(&self, root: &Path) -> PathBuf {
        let main = root.join("wrangler.toml");
        let Some(allowed) = &self.options.mail_only_to else {
            return main;
        };
        let text = std::fs::read_to_string(&main).expect("wrangler.toml");
        let absolute = |value: &str| format!("\"{}\"", root.join(value).display());
        let mut out = String::new();
        let mut skipping_build = false;
        for line in text.lines() {
            if line.starts_with('[') {
                skipping_build = line == "[build]";
            }
            if skipping_build || line.starts_with("command =") {
                continue;
            }
            let line = line
                .replace("\"src/entry.mjs\"", &absolute("src/entry.mjs"))
                .replace("\"public\"", &absolute("public"))
                .replace("\"migrations\"", &absolute("migrations"));
            out.push_str(&line);
            out.push('\n');
            if line == "name = \"EMAIL\"" {
                let list: Vec<String> = allowed.iter().map(|a| format!("\"{a}\"")).collect();
                out.push_str(&format!(
                    "allowed_destination_addresses = [{}]\n",
                    list.join(", ")
                ));
            }
        }
        // Its own folder, apart from the persisted state: wrangler dev
        // watches what sits beside its config and reloads on changes there.
        let dir = self.state_dir.path().join("config");
        std::fs::create_dir_all(&dir).expect("config folder");
        let path = dir.join("wrangler.toml");
        std::fs::write(&path, out).expect("write the config copy");
        path
    }

    pub fn stop(&mut self) {
        if let Some(mut server) = self.server.take() {
            server.stop();
        }
    }

    /// The process group of the running dev server (wrangler, workerd and
    /// their helpers), for measuring the CPU time they use.
    pub fn server_process_group(&self) -> Option<u32> {
        self.server.as_ref().map(Group::id)
    }

    /// The staff door credential this stack's Worker accepts.
    pub fn door_token(&self) -> String {
        format!("door-{}", self.admin_token)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base_url, path)
    }

    /// The HTML of a page (a ticket's), fetched as a browser would.
    pub async fn page_text(&self, path: &str) -> String {
        let page = reqwest::get(self.url(path)).await.expect("the page");
        page.text().await.expect("the page's text")
    }

    /// Runs the cron sweep now, as its five-minute trigger would.
    pub async fn run_sweep(&self) {
        let cron = reqwest::get(self.url("/__scheduled?cron=*/5+*+*+*+*"))
            .await
            .expect("the sweep's trigger answers");
        assert_eq!(cron.status(), 200, "the sweep ran");
    }

    pub fn state_dir(&self) -> &Path {
        self.state_dir.path()
    }

    fn log_path(&self) -> PathBuf {
        self.state_dir.path().join("wrangler.log")
    }

    /// Starts wrangler dev on fresh ports. A port can still be taken by
    /// another program between its choice and wrangler's bind; wrangler
    /// then says so in its log, and is started again on others.
    fn launch(&mut self) {
        const ATTEMPTS: usize = 3;
        for attempt in 1..=ATTEMPTS {
            match self.try_launch() {
                Ok(()) => break,
                Err(Unready::PortTaken) if attempt < ATTEMPTS => {
                    eprintln!("wrangler dev: a port it was given was taken; starting it again");
                }
                Err(_) => panic!("wrangler dev did not come up:\n{}", self.log_tail()),
            }
        }
        let webhooks = format!(
            r#"{{"url": "{}/webhooks/square", "notification_url": "{}"}}"#,
            self.base_url,
            crate::square::NOTIFICATION_URL
        );
        let answer = post_json(&self.square.base_url, "/_control/webhooks", &webhooks);
        assert!(
            answer.starts_with("HTTP/1.1 2"),
            "point the stand-in's webhooks here: {answer}"
        );
    }

    /// One start of wrangler dev, stopped again when it is not ready.
    fn try_launch(&mut self) -> Result<(), Unready> {
        let root = repo_root();
        let written = std::fs::metadata(self.log_path()).map_or(0, |meta| meta.len() as usize);
        self.port = free_port();
        self.inspector_port = free_port();
        self.base_url = format!("http://127.0.0.1:{}", self.port);
        let log = File::options()
            .create(true)
            .append(true)
            .open(self.log_path())
            .expect("log file");
        let config = self.config(&root);
        let mut cmd = wrangler(&root);
        cmd.args(["dev", "--ip", "127.0.0.1", "--port", &self.port.to_string()])
            .arg("--config")
            .arg(&config)
            .args(["--inspector-port", &self.inspector_port.to_string()])
            .arg("--persist-to")
            .arg(self.state_dir.path().join("state"))
            .arg("--show-interactive-dev-session=false");
        if self.options.scheduled_route {
            cmd.arg("--test-scheduled");
        }
        // The stack's own secrets, unless the test's options set one.
        let own = [
            ("ADMIN_TOKEN", self.admin_token.clone()),
            ("SESSION_SECRET", format!("session-{}", self.admin_token)),
            ("DOOR_TOKEN", self.door_token()),
            (
                "TICKET_SIGNING_KEYS",
                // An Ed25519 key signs; the HMAC key of codes made before
                // still verifies.
                "t2:ed25519:4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb,\
                 t1:ticket-key-for-tests-0123456789-abcdefghij"
                    .into(),
            ),
            (
                "ORDER_LINK_KEYS",
                "o1:order-link-key-for-tests-0123456-abcdefghij".into(),
            ),
            ("PUBLIC_URL", self.base_url.clone()),
        ];
        let own = own
            .iter()
            .filter(|(name, _)| !self.options.vars.iter().any(|(n, _)| n == name))
            .map(|(name, value)| (name.to_string(), value.clone()));
        let square = self.square.worker_vars();
        for (name, value) in own.chain(square).chain(self.options.vars.clone()) {
            cmd.args(["--var", &format!("{name}:{value}")]);
        }
        cmd.stdout(log.try_clone().expect("log")).stderr(log);
        let server = Group::spawn(cmd).expect("start wrangler dev");
        self.server = Some(await_ready(
            server,
            &self.log_path(),
            written,
            READY_TIMEOUT,
            || health_ok(self.port),
        )?);
        Ok(())
    }

    /// Runs one SQL statement on this stack's local D1 database, the
    /// SQLite file the running Worker's D1 keeps (in WAL mode, so it can be
    /// read while the Worker writes), so tests can check what the Worker
    /// stored without going through the Worker: each row as an object of
    /// its columns, as `wrangler d1 execute --json` gives them, without
    /// starting wrangler for every question.
    pub fn d1_query(&self, sql: &str) -> Vec<serde_json::Value> {
        crate::d1::query(&self.state_dir.path().join("state"), sql)
    }

    /// The server's whole log so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.log_path()).unwrap_or_default()
    }

    /// The end of the server's log, for failure messages.
    pub fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        let start = log.len().saturating_sub(4000);
        log[log.floor_char_boundary(start)..].to_string()
    }
}

/// Why a start of wrangler dev did not come up.
#[derive(Debug)]
pub enum Unready {
    /// One of the ports it was given was taken before it bound it.
    PortTaken,
    /// It exited or did not answer in time, for any other reason.
    Failed,
}

/// Waits until a just-started `wrangler dev` is `ready`, watching its log
/// (from byte `written` on, this start's part) for a port taken by another
/// program between its choice and wrangler's bind. A server that is not
/// ready is stopped.
pub fn await_ready(
    mut server: Group,
    log: &Path,
    written: usize,
    timeout: Duration,
    ready: impl Fn() -> bool,
) -> Result<Group, Unready> {
    let deadline = Instant::now() + timeout;
    while !ready() {
        let log = std::fs::read_to_string(log).unwrap_or_default();
        if log[log.floor_char_boundary(written)..].contains("Address already in use") {
            server.stop();
            return Err(Unready::PortTaken);
        }
        if server.has_exited() || Instant::now() > deadline {
            server.stop();
            return Err(Unready::Failed);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(server)
}

impl Drop for Stack {
    /// The test is over: nothing of this server is read again, and its
    /// state directory goes with it, so it is killed at once rather than
    /// let wind down (which takes wrangler about two seconds).
    fn drop(&mut self) {
        if let Some(mut server) = self.server.take() {
            server.kill();
        }
    }
}

/// A state directory with the D1 migrations applied, made once for the
/// migrations as they are and copied for every stack: applying them takes
/// wrangler several seconds, copying the files a few milliseconds. Its
/// folder is named by a hash of the migrations, so a changed migration
/// makes a new one. Test processes starting at once (a parallel run)
/// take turns by a lock on the folder, so one makes it and the others
/// find it made; each makes it whole under a name of its own and moves it
/// into place, so none ever sees half of one.
fn migrated_state(root: &Path) -> PathBuf {
    static STATE: OnceLock<PathBuf> = OnceLock::new();
    STATE
        .get_or_init(|| {
            let templates = root.join("target/e2e-migrated");
            let dir = templates.join(migrations_hash(root));
            std::fs::create_dir_all(&templates).expect("templates folder");
            let lock = File::create(templates.join(".lock")).expect("the lock file");
            // SAFETY: flock(2) on a file this process holds open; the lock
            // goes when `lock` is closed at the end of this closure.
            unsafe {
                use std::os::fd::AsRawFd;
                libc::flock(lock.as_raw_fd(), libc::LOCK_EX);
            }
            if dir.join("state").is_dir() {
                return dir.join("state");
            }
            let fresh = tempfile::Builder::new()
                .prefix("making-")
                .tempdir_in(&templates)
                .expect("a folder to make the template in");
            apply_migrations(root, fresh.path());
            // Another process may have moved its own in first: either is
            // the same database.
            let made = fresh.keep();
            if std::fs::rename(&made, &dir).is_err() {
                let _ = std::fs::remove_dir_all(&made);
            }
            assert!(dir.join("state").is_dir(), "the migrated state is in place");
            dir.join("state")
        })
        .clone()
}

/// A hash of every migration's name and text.
fn migrations_hash(root: &Path) -> String {
    use sha2::{Digest, Sha256};
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("migrations"))
        .expect("the migrations folder")
        .map(|entry| entry.expect("a migration").path())
        .collect();
    files.sort();
    let mut hash = Sha256::new();
    for file in files {
        hash.update(file.file_name().unwrap_or_default().as_encoded_bytes());
        hash.update(std::fs::read(&file).expect("a migration's text"));
    }
    hex::encode(&hash.finalize()[..8])
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder to copy into");
    for entry in std::fs::read_dir(from).expect("a folder to copy") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("its type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy a file");
        }
    }
}

fn apply_migrations(root: &Path, state_dir: &Path) {
    let out = wrangler(root)
        .args(["d1", "migrations", "apply", "DB", "--local", "--persist-to"])
        .arg(state_dir.join("state"))
        .output()
        .expect("run wrangler d1 migrations apply");
    assert!(
        out.status.success(),
        "applying migrations failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A plain HTTP/1.1 POST of a JSON body; answers the status line.
fn post_json(base_url: &str, path: &str, body: &str) -> String {
    let authority = base_url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(authority).expect("connect");
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_string()
}

/// A plain HTTP/1.1 GET of `path` on a loopback port: the whole answer,
/// or `None` when nothing listens. Readiness needs no client library and
/// no async runtime.
pub fn plain_get(port: u16, path: &str) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    Some(String::from_utf8_lossy(&answer).into_owned())
}

/// The Worker's own answer to `/api/health`, healthy or naming unfit
/// settings (some tests start it so); not the dev server's while it starts.
fn health_ok(port: u16) -> bool {
    plain_get(port, "/api/health").is_some_and(|answer| {
        (answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.1 503"))
            && answer.contains("\"ok\":")
    })
}
