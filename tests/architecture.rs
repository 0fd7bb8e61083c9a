//! The invariants of ARCHITECTURE.md about structure and boundaries, read
//! from the source tree: which module may use which, that no crate has an
//! import circle, and what only one place may do. Nothing is compiled or
//! run; the code is read as text with its comments, strings and test
//! modules taken out, so a test module may reach where the code may not.
//!
//! A module "uses" another when its code names a path into it: `use
//! crate::db::orders::…`, `super::showings::hold_ref(…)`, or a child's
//! `credential::draw`. A crate's root (`lib.rs`) declares every module and,
//! in the desk, holds `Desk`, whose methods are written across its
//! modules; it is left out of the graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates whose modules must not import each other in a circle.
const CRATES: &[&str] = &[
    "src",
    "desk/src",
    "ledger/src",
    "checkout/src",
    "refunds/src",
    "mail/src",
];

/// Crates that do no I/O, read no clock and draw no randomness.
const PURE_CRATES: &[&str] = &[
    "desk/src",
    "ledger/src",
    "checkout/src",
    "refunds/src",
    "mail/src",
    "queue/src",
    "uses/src",
];

/// The one file of a pure crate that awaits: the refunds loop, which
/// awaits nothing but the `Io` its shell hands it (the Worker's D1 and
/// Square, or the simulation's), so the same loop runs in both.
const AWAITS_ONLY_ITS_SHELL: &[&str] = &["refunds/src/run.rs"];

/// One source file of a crate.
struct Source {
    /// From the repository's root, e.g. `src/routes/orders.rs`.
    path: String,
    /// Its module path in its crate (`["routes", "orders"]`); empty for
    /// the crate's root.
    module: Vec<String>,
    /// Its code, without comments, string contents or test modules.
    code: String,
    /// The contents of its string literals (test modules' left out).
    strings: Vec<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files_under(dir: &Path, extension: &str, found: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(&path, extension, found);
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
}

/// Every Rust file of the crate whose sources are in `src_dir`.
fn crate_sources(src_dir: &str) -> Vec<Source> {
    let base = root().join(src_dir);
    let mut paths = Vec::new();
    files_under(&base, "rs", &mut paths);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            let (code, strings) = strip(&text);
            let (code, strings) = without_test_modules(&code, strings);
            let relative = path.strip_prefix(root()).expect("under the root");
            Source {
                path: relative.to_string_lossy().replace('\\', "/"),
                module: module_of(path.strip_prefix(&base).expect("under the crate")),
                code,
                strings,
            }
        })
        .collect()
}

fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    let file = parts.pop().expect("a file name");
    if !matches!(file.as_str(), "lib.rs" | "main.rs" | "mod.rs") {
        parts.push(file.trim_end_matches(".rs").to_string());
    }
    parts
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The code with comments removed and each string and character literal
/// emptied, and the contents of its strings.
fn strip(text: &str) -> (String, Vec<String>) {
    let chars: Vec<char> = text.chars().collect();
    let mut code = String::with_capacity(text.len());
    let mut strings = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        // After a letter or digit, an `r` or a quote belongs to a word
        // (`for"`, `br"…"` aside, whose `b` is a prefix).
        let prefix_b = i > 0 && chars[i - 1] == 'b' && (i < 2 || !is_ident(chars[i - 2]));
        let after_ident = i > 0 && is_ident(chars[i - 1]) && !prefix_b;
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && !after_ident && matches!(next, Some('"' | '#')) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                code.push(c);
                i += 1;
                continue;
            }
            let start = j + 1;
            let mut end = start;
            loop {
                let closes = chars.get(end) == Some(&'"')
                    && (1..=hashes).all(|h| chars.get(end + h) == Some(&'#'));
                if closes || end >= chars.len() {
                    break;
                }
                end += 1;
            }
            strings.push(chars[start..end.min(chars.len())].iter().collect());
            code.push_str("\"\"");
            i = end + 1 + hashes;
        } else if c == '"' {
            let mut j = i + 1;
            let mut content = String::new();
            while j < chars.len() && chars[j] != '"' {
                if chars[j] == '\\' {
                    j += 1;
                }
                if let Some(&ch) = chars.get(j) {
                    content.push(ch);
                }
                j += 1;
            }
            strings.push(content);
            code.push_str("\"\"");
            i = j + 1;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character: '\n', '\'', '\u{1F600}'.
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            code.push_str("' '");
            i = j + 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            code.push_str("' '");
            i += 3;
        } else {
            code.push(c);
            i += 1;
        }
    }
    (code, strings)
}

/// The code without its `#[cfg(test)]` modules, and the strings outside
/// them (the strings are counted in the order `strip` met them).
fn without_test_modules(code: &str, strings: Vec<String>) -> (String, Vec<String>) {
    let mut kept = String::with_capacity(code.len());
    let mut kept_strings = Vec::new();
    let mut strings = strings.into_iter();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        let (before, after) = rest.split_at(at);
        kept.push_str(before);
        for _ in 0..before.matches("\"\"").count() {
            kept_strings.extend(strings.next());
        }
        let Some(open) = after.find('{') else {
            rest = after;
            break;
        };
        let mut depth = 0;
        let mut end = after.len();
        for (k, ch) in after[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        for _ in 0..after[..end].matches("\"\"").count() {
            strings.next();
        }
        rest = &after[end..];
    }
    kept.push_str(rest);
    kept_strings.extend(strings);
    (kept, kept_strings)
}

/// The words of `code` (identifiers and keywords), in order.
fn words(code: &str) -> Vec<&str> {
    code.split(|c: char| !is_ident(c))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Every path the code names that starts with `crate`, `super`, `self` or
/// a child module it declares, as written (`super::showings::hold_ref`),
/// `use` trees expanded.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    // `use` declarations, with their braces expanded.
    while let Some(at) = find_word(rest, "use") {
        let tail = &rest[at + 3..];
        let end = tail.find(';').unwrap_or(tail.len());
        expand_use("", &tail[..end], &mut paths);
        rest = &tail[end..];
    }
    // Paths in the code itself: `a::b::c` runs.
    let chars: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if is_ident(chars[i]) && (i == 0 || !is_ident(chars[i - 1]) && chars[i - 1] != ':') {
            let mut j = i;
            let mut path = String::new();
            loop {
                let start = j;
                while j < chars.len() && is_ident(chars[j]) {
                    j += 1;
                }
                path.extend(&chars[start..j]);
                if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
                    path.push_str("::");
                    j += 2;
                    if chars.get(j).is_some_and(|&c| is_ident(c)) {
                        continue;
                    }
                }
                break;
            }
            // `crate::{…}` and the like are read with their `use`.
            let path = path.trim_end_matches("::");
            if path.contains("::") {
                paths.push(path.to_string());
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    paths
}

/// Where `word` stands alone in `text`.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = text[from..].find(word) {
        let at = from + at;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(is_ident) && !after.is_some_and(is_ident) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// The paths of one `use` tree, each after `prefix`.
fn expand_use(prefix: &str, tree: &str, paths: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let prefix = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_use(&prefix, &inner[start..k], paths);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand_use(&prefix, &inner[start..], paths);
        return;
    }
    let name = tree.split(" as ").next().unwrap_or_default().trim();
    match name {
        "" => {}
        "self" | "*" => paths.push(prefix.to_string()),
        _ => paths.push(join(prefix, name)),
    }
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{path}"),
    }
}

/// The child modules a file declares (`mod credential;`).
fn declared_children(code: &str) -> BTreeSet<String> {
    let words = words(code);
    words
        .windows(2)
        .filter(|w| w[0] == "mod")
        .map(|w| w[1].to_string())
        .collect()
}

/// One module's use of another: the file that uses, the file used and the
/// first path that does it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Use {
    from: String,
    to: String,
    path: String,
}

/// Every use of one module of a crate by another, the root left out.
fn uses(sources: &[Source]) -> Vec<Use> {
    let modules: BTreeMap<&[String], &str> = sources
        .iter()
        .map(|s| (s.module.as_slice(), s.path.as_str()))
        .collect();
    let mut found: BTreeMap<(String, String), String> = BTreeMap::new();
    for source in sources.iter().filter(|s| !s.module.is_empty()) {
        let children = declared_children(&source.code);
        for path in named_paths(&source.code) {
            let segments: Vec<&str> = path.split("::").collect();
            let Some(absolute) = absolute(&source.module, &children, &segments) else {
                continue;
            };
            // The longest prefix that is a module of this crate.
            let target = (1..=absolute.len())
                .rev()
                .find_map(|n| modules.get(&absolute[..n]).copied());
            let Some(target) = target else { continue };
            if target != source.path {
                found
                    .entry((source.path.clone(), target.to_string()))
                    .or_insert(path);
            }
        }
    }
    found
        .into_iter()
        .map(|((from, to), path)| Use { from, to, path })
        .collect()
}

/// A path as written in `module` made absolute in its crate; `None` for a
/// path into another crate.
fn absolute(module: &[String], children: &BTreeSet<String>, path: &[&str]) -> Option<Vec<String>> {
    let mut at: Vec<String>;
    let mut rest = path;
    match path.first().copied()? {
        "crate" => {
            at = Vec::new();
            rest = &path[1..];
        }
        "self" => {
            at = module.to_vec();
            rest = &path[1..];
        }
        "super" => {
            at = module.to_vec();
            while rest.first() == Some(&"super") {
                at.pop();
                rest = &rest[1..];
            }
        }
        first if children.contains(first) => at = module.to_vec(),
        _ => return None,
    }
    at.extend(rest.iter().map(|s| s.to_string()));
    Some(at)
}

/// The circles among `uses`: each a set of files that use each other, in
/// a loop (Tarjan's strongly connected components, larger than one).
fn circles(uses: &[Use]) -> Vec<Vec<String>> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for u in uses {
        next.entry(&u.from).or_default().push(&u.to);
        next.entry(&u.to).or_default();
    }
    struct Walk<'a> {
        next: &'a BTreeMap<&'a str, Vec<&'a str>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for &w in &self.next[v] {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.push(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        next: &next,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for &v in next.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.found
}

fn describe(uses: &[&Use]) -> String {
    uses.iter()
        .map(|u| format!("\n  {} -> {} ({})", u.from, u.to, u.path))
        .collect()
}

#[test]
fn no_crate_has_an_import_circle() {
    for dir in CRATES {
        let uses = uses(&crate_sources(dir));
        assert!(uses.len() > 3, "{dir}: too few uses found: is it read?");
        let found: Vec<String> = circles(&uses)
            .into_iter()
            .map(|circle| {
                let ties: Vec<&Use> = uses
                    .iter()
                    .filter(|u| circle.contains(&u.from) && circle.contains(&u.to))
                    .collect();
                format!("\n{circle:?}{}", describe(&ties))
            })
            .collect();
        assert!(
            found.is_empty(),
            "{dir}: these files use each other in a circle; move what they share \
             into a module below them:{}",
            found.concat()
        );
    }
}

#[test]
fn nothing_outside_the_routes_takes_from_a_route() {
    let sources = crate_sources("src");
    let uses = uses(&sources);
    let wrong: Vec<&Use> = uses
        .iter()
        .filter(|u| !u.from.starts_with("src/routes/") && u.to.starts_with("src/routes/"))
        .collect();
    assert!(
        wrong.is_empty(),
        "only the routes (and lib.rs, which hands them to the runtime) may name a route; \
         move what these take below the routes:{}",
        describe(&wrong)
    );
    // The crate's root is left out of the graph above: it may name only
    // what it hands the runtime.
    let lib = sources
        .iter()
        .find(|s| s.path == "src/lib.rs")
        .expect("lib.rs");
    let handed: BTreeSet<String> = named_paths(&lib.code)
        .into_iter()
        .filter(|p| p.starts_with("routes::"))
        .collect();
    let allowed = [
        "routes::handle",
        "routes::order_lookup",
        "routes::recovery_sweep",
        "routes::square_webhook",
    ];
    for path in &handed {
        assert!(
            allowed.contains(&path.as_str()),
            "lib.rs names {path}: it hands the runtime the router and the routes it sends past it, nothing else"
        );
    }
}

/// The route a route file belongs to: `door` for `src/routes/door.rs` and
/// `src/routes/door/credential.rs`; `None` for the router (`mod.rs`).
fn route_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("src/routes/")?;
    if rest == "mod.rs" {
        return None;
    }
    Some(rest.split(['/', '.']).next().unwrap_or(rest))
}

#[test]
fn a_route_takes_nothing_from_another_route_but_through_lower_modules() {
    let uses = uses(&crate_sources("src"));
    let wrong: Vec<&Use> = uses
        .iter()
        .filter(|u| u.from.starts_with("src/routes/") && u.to.starts_with("src/routes/"))
        // The router names every route; a route its own parts.
        .filter(|u| u.from != "src/routes/mod.rs")
        .filter(|u| route_of(&u.from) != route_of(&u.to) || route_of(&u.to).is_none())
        .collect();
    assert!(
        wrong.is_empty(),
        "a route takes what it shares with another from a module below the routes \
         (request, buyer, order_answer, showing_edit, …), never from a route or the router:{}",
        describe(&wrong)
    );
}

#[test]
fn only_the_db_module_knows_d1s_sql_and_only_desk_storage_the_objects() {
    let is_sql = |s: &str| {
        [
            "SELECT ",
            "INSERT INTO",
            "DELETE FROM",
            "CREATE TABLE",
            "ALTER TABLE",
            "DROP TABLE",
        ]
        .iter()
        .any(|k| s.contains(k))
            || (s.contains("UPDATE ") && s.contains(" SET "))
    };
    for (dir, owner) in [
        ("src", "src/db/"),
        ("desk/src", "desk/src/storage.rs"),
        ("queue/src", "queue/src/store.rs"),
        ("uses/src", "uses/src/store.rs"),
    ] {
        let mut knowers = 0;
        for source in crate_sources(dir) {
            let sql: Vec<&String> = source.strings.iter().filter(|s| is_sql(s)).collect();
            if source.path.starts_with(owner) {
                knowers += usize::from(!sql.is_empty());
                continue;
            }
            assert!(
                sql.is_empty(),
                "{} holds SQL, which only {owner} may: {sql:?}",
                source.path
            );
            let prepares = dir == "src" && find_word(&source.code, "prepare").is_some();
            assert!(
                !prepares,
                "{} prepares a D1 statement, which only {owner} may",
                source.path
            );
        }
        assert!(knowers > 0, "no SQL found in {owner}: is it read?");
    }
}

#[test]
fn only_the_typed_client_reaches_a_showings_object() {
    for source in crate_sources("src") {
        if source.path == "src/showtime/client.rs" {
            continue;
        }
        for word in [
            "get_stub",
            "id_from_name",
            "id_from_string",
            "unique_id",
            "into_rpc",
        ] {
            assert!(
                find_word(&source.code, word).is_none(),
                "{} names `{word}`: the Worker reaches a showing's objects only through \
                 src/showtime/client.rs",
                source.path
            );
        }
    }
}

#[test]
fn the_pure_crates_do_no_io_read_no_clock_and_draw_no_randomness() {
    let forbidden_paths = [
        "std::fs",
        "std::time",
        "std::thread",
        "std::process",
        "std::env",
        "std::net::TcpStream",
        "std::net::UdpSocket",
        "rand::",
    ];
    let forbidden_words = [
        "worker",
        "SystemTime",
        "Instant",
        "thread_rng",
        "getrandom",
        "tokio",
        "async",
        "await",
    ];
    for dir in PURE_CRATES {
        for source in crate_sources(dir) {
            for path in forbidden_paths {
                assert!(
                    !source.code.contains(path),
                    "{} names {path}: {dir} does no I/O, reads no clock and draws no randomness",
                    source.path
                );
            }
            for word in forbidden_words {
                if ["async", "await"].contains(&word)
                    && AWAITS_ONLY_ITS_SHELL.contains(&source.path.as_str())
                {
                    continue;
                }
                assert!(
                    find_word(&source.code, word).is_none(),
                    "{} names `{word}`: {dir} does no I/O, reads no clock, draws no randomness \
                     and never awaits",
                    source.path
                );
            }
        }
    }
}

#[test]
fn a_module_that_says_it_is_pure_names_no_platform_and_awaits_nothing() {
    let mut pure = 0;
    for dir in CRATES {
        for source in crate_sources(dir) {
            let text = std::fs::read_to_string(root().join(&source.path)).expect("readable");
            let says_pure = text
                .lines()
                .take_while(|l| l.starts_with("//!") || l.trim().is_empty())
                .any(|l| ["Pure.", "Pure:", "Pure;"].iter().any(|p| l.contains(p)));
            if !says_pure {
                continue;
            }
            pure += 1;
            for word in ["worker", "Env", "async", "await"] {
                assert!(
                    find_word(&source.code, word).is_none(),
                    "{} says it is pure but names `{word}`",
                    source.path
                );
            }
            assert!(
                !source.code.contains("Date::now"),
                "{} says it is pure but reads the clock",
                source.path
            );
        }
    }
    assert!(
        pure >= 8,
        "only {pure} modules say they are pure: did the wording change?"
    );
}

#[test]
fn only_src_request_rs_reads_a_request_body() {
    for source in crate_sources("src") {
        if source.path == "src/request.rs" {
            continue;
        }
        for read in [
            "req.bytes(",
            "req.text(",
            "req.json(",
            "req.stream(",
            "req.form_data(",
        ] {
            assert!(
                !source.code.contains(read),
                "{} reads a body with `{read}…)`: bodies are read by `request::read_body`, \
                 which refuses one past MAX_BODY_BYTES however it is sent",
                source.path
            );
        }
    }
}

/// The handlers the router sends `/api/admin/…` to, as `(module, function)`.
fn admin_handlers(router: &str) -> Vec<(String, String)> {
    let start = router
        .find("fn admin_routes(")
        .expect("admin_routes in the router");
    let body = &router[start..];
    let body = &body[..body[1..].find("\nfn ").map_or(body.len(), |end| end + 1)];
    body.split("_async(")
        .skip(1)
        .filter(|route| route.trim_start().starts_with("\"\""))
        .map(|route| {
            let call = route
                .split("respond(")
                .nth(1)
                .expect("a route answers through respond(…)");
            let name = call.split('(').next().expect("a handler call").trim();
            let (module, function) = name.split_once("::").expect("module::handler");
            (module.to_string(), function.to_string())
        })
        .collect()
}

/// The body of `function` in `code`, after its opening brace.
fn body_of<'a>(code: &'a str, function: &str) -> Option<&'a str> {
    let at = code.find(&format!("pub async fn {function}("))?;
    let open = code[at..].find('{')?;
    Some(&code[at + open + 1..])
}

#[test]
fn every_admin_route_asks_for_staff_credentials_first() {
    let read = |path: &str| {
        let text = std::fs::read_to_string(root().join(path)).expect("a route file");
        strip(&text).0
    };
    let router = read("src/routes/mod.rs");
    let handlers = admin_handlers(&router);
    assert!(
        handlers.len() >= 20,
        "only {} admin routes found",
        handlers.len()
    );
    // Signing in is how staff get a session: it takes the token itself.
    let open = [("admin", "sign_in")];
    for (module, function) in handlers {
        if open.contains(&(module.as_str(), function.as_str())) {
            continue;
        }
        let mut file = read(&format!("src/routes/{module}.rs"));
        let mut name = function.clone();
        // A handler re-exported from a part of its route (`pub use
        // credential::draw as draw_pin`).
        let reexport = format!(" as {function};");
        if let Some(at) = file.find(&reexport) {
            let line = &file[file[..at].rfind("use ").expect("a use")..at];
            let (part, original) = line["use ".len()..].rsplit_once("::").expect("a path");
            name = original.trim().to_string();
            file = read(&format!("src/routes/{module}/{}.rs", part.trim()));
        }
        let body = body_of(&file, &name)
            .unwrap_or_else(|| panic!("no `pub async fn {name}` for {module}::{function}"));
        let first = body.split(';').next().unwrap_or_default();
        assert!(
            first.contains("require_admin("),
            "{module}::{function} answers `/api/admin/…` but does not call \
             `auth::require_admin` first: {}",
            first.trim()
        );
    }
}

#[test]
fn no_page_runs_an_inline_script() {
    let mut pages = Vec::new();
    files_under(&root().join("public"), "html", &mut pages);
    assert!(pages.len() >= 5, "only {} pages found", pages.len());
    for page in pages {
        let html = std::fs::read_to_string(&page).expect("a page");
        let name = page.display();
        for tag in html.split("<script").skip(1) {
            let tag = &tag[..tag.find('>').expect("a closed tag")];
            assert!(
                tag.contains("src="),
                "{name} has an inline script: <script{tag}>"
            );
        }
        let lower = html.to_lowercase();
        assert!(
            !lower.contains("javascript:"),
            "{name} has a javascript: address"
        );
        for (at, _) in lower.match_indices(" on") {
            let attribute: String = lower[at + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect();
            let is_handler =
                attribute.len() > 2 && lower[at + 1 + attribute.len()..].starts_with('=');
            assert!(
                !is_handler,
                "{name} has an event handler attribute: {attribute}="
            );
        }
    }
}

#[test]
fn the_reader_finds_uses_as_written() {
    let code = strip(
        "use super::{param, x::{self, Y as Z}};\n\
         use crate::db::orders as rows; // crate::fake\n\
         mod child;\n\
         fn f() { let s = \"crate::in_a_string\"; child::go(); super::super::up(); }",
    )
    .0;
    let paths = named_paths(&code);
    for expected in [
        "super::param",
        "super::x",
        "super::x::Y",
        "crate::db::orders",
        "child::go",
    ] {
        assert!(
            paths.contains(&expected.to_string()),
            "{expected} not in {paths:?}"
        );
    }
    assert!(!paths
        .iter()
        .any(|p| p.contains("fake") || p.contains("in_a_string")));
    let module = vec!["routes".to_string(), "door".to_string()];
    let children = declared_children(&code);
    assert_eq!(
        absolute(&module, &children, &["super", "super", "up"]),
        Some(vec!["up".to_string()])
    );
    assert_eq!(
        absolute(&module, &children, &["child", "go"]),
        Some(vec![
            "routes".into(),
            "door".into(),
            "child".into(),
            "go".into()
        ])
    );
    assert_eq!(
        absolute(&module, &children, &["serde", "Deserialize"]),
        None
    );
    let (kept, _) = without_test_modules(
        &strip("fn a() {}\n#[cfg(test)]\nmod tests { use crate::x; fn b() { '{'; } }\nfn c() {}").0,
        Vec::new(),
    );
    assert!(kept.contains("fn a") && kept.contains("fn c") && !kept.contains("crate::x"));
}
