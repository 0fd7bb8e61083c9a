//! Every D1 migration, applied in order to SQLite (which D1 is) with
//! foreign keys enforced and each migration in one transaction, as D1 runs
//! them, to a database that already holds showings, orders, tickets and
//! refunds: nothing is lost and every foreign key still holds. This is what
//! a cinema upgrading a live database goes through; the end-to-end tests
//! only ever start from an empty one.

use std::path::Path;

use rusqlite::Connection;

fn migrations() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("migrations/")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect()
}

fn apply(db: &Connection, name: &str, sql: &str) {
    db.execute_batch(&format!("BEGIN;\n{sql}\nCOMMIT;"))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
}

fn count(db: &Connection, table: &str) -> i64 {
    db.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

#[test]
fn every_migration_applies_to_a_database_with_sales_and_keeps_them() {
    let db = Connection::open_in_memory().unwrap();
    db.pragma_update(None, "foreign_keys", "ON").unwrap();
    let all = migrations();
    // Rows as the first migrations left them, then every later migration.
    let (first, rest) = all.split_at(all.iter().position(|(n, _)| n.starts_with("0006")).unwrap());
    for (name, sql) in first {
        apply(&db, name, sql);
    }
    db.execute_batch(
        "INSERT INTO showings (id, title, starts_at_ms, price_amount, currency, layout_json, \
           seat_count, max_seats_per_hold, hold_ttl_ms, created_at_ms) \
           VALUES ('s1', 'Paris, Texas', 1, 1200, 'USD', '{\"slots\":[\"A1\",\"A2\"]}', 2, 4, 300000, 1); \
         INSERT INTO showings (id, title, starts_at_ms, price_amount, currency, layout_json, \
           seat_count, max_seats_per_hold, hold_ttl_ms, created_at_ms) \
           VALUES ('s2', 'Alien', 1, 1200, 'USD', \
             '{\"rows\":[{\"name\":\"A\",\"seats\":3,\"blocked\":[2]},{\"name\":\"B\",\"seats\":2}]}', \
             5, 4, 300000, 1); \
         INSERT INTO orders (id, showing_id, email, name, amount, currency, status, payment_id, \
           created_at_ms, updated_at_ms) \
           VALUES ('o1', 's1', 'ana@example.com', 'Ana', 2400, 'USD', 'paid', 'p1', 2, 2); \
         INSERT INTO tickets (id, order_id, showing_id, seat, status, created_at_ms) \
           VALUES ('o1-0', 'o1', 's1', 'A1', 'valid', 2), ('o1-1', 'o1', 's1', 'A2', 'valid', 2); \
         INSERT INTO order_events (order_id, at_ms, from_state, to_state) \
           VALUES ('o1', 2, 'pending', 'paid'); \
         INSERT INTO refunds (id, order_id, amount, status, created_at_ms, updated_at_ms) \
           VALUES ('rf-1', 'o1', 1200, 'PENDING', 3, 3);",
    )
    .unwrap();
    for (name, sql) in rest {
        apply(&db, name, sql);
    }
    assert_eq!(
        (
            count(&db, "showings"),
            count(&db, "orders"),
            count(&db, "tickets"),
            count(&db, "order_events"),
            count(&db, "refunds")
        ),
        (2, 1, 2, 1, 1)
    );
    // A showing's count is of seats for sale: house seats are left out.
    let seats = |id: &str| -> i64 {
        db.query_row("SELECT seat_count FROM showings WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap()
    };
    assert_eq!((seats("s1"), seats("s2")), (2, 4));
    let violations: Vec<String> = db
        .prepare("PRAGMA foreign_key_check")
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(violations.is_empty(), "{violations:?}");
    // Foreign keys are still enforced on the rebuilt tables.
    let orphan = db.execute(
        "INSERT INTO tickets (id, order_id, showing_id, seat, status, created_at_ms) \
         VALUES ('x', 'no-such-order', 's1', 'A1', 'void', 3)",
        [],
    );
    assert!(orphan.is_err(), "a ticket of no order is refused");
    // A free order is allowed now.
    db.execute(
        "INSERT INTO orders (id, showing_id, email, name, amount, currency, status, \
         created_at_ms, updated_at_ms) VALUES ('o2', 's1', 'b@example.com', 'Bo', 0, 'USD', 'paid', 3, 3)",
        [],
    )
    .expect("a free order");
    let amount: i64 = db
        .query_row("SELECT amount FROM orders WHERE id = 'o1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(amount, 2400);
}

/// The string literals of a Rust source file, with `\`-newline
/// continuations joined and escapes read, as the compiler would.
fn string_literals(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = source.chars().peekable();
    let mut in_comment = false;
    let mut previous = ' ';
    while let Some(c) = chars.next() {
        if in_comment {
            in_comment = c != '\n';
            previous = c;
            continue;
        }
        if c == '/' && chars.peek() == Some(&'/') {
            in_comment = true;
            continue;
        }
        // A char literal such as '"' is not a string.
        if c == '"' && previous != '\'' {
            let mut text = String::new();
            while let Some(c) = chars.next() {
                match c {
                    '"' => break,
                    '\\' => match chars.next() {
                        Some('\n') => {
                            while chars.peek().is_some_and(|c| c.is_whitespace()) {
                                chars.next();
                            }
                        }
                        Some('n') => text.push('\n'),
                        Some(other) => text.push(other),
                        None => break,
                    },
                    other => text.push(other),
                }
            }
            out.push(text);
            previous = '"';
            continue;
        }
        previous = c;
    }
    out
}

/// Every SQL statement in `src/db/`, with the files' `&str` constants and
/// `format!` limits filled in.
fn queries() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/db");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("src/db") {
        let path = entry.expect("an entry").path();
        let source = std::fs::read_to_string(&path).expect("readable");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let mut constants: Vec<(String, String)> = Vec::new();
        for line in source.lines() {
            if let Some(rest) = line.trim().strip_prefix("const ") {
                if let Some((constant, _)) = rest.split_once(": &str") {
                    let value = string_literals(&source[source.find(line).unwrap()..])
                        .into_iter()
                        .next()
                        .unwrap_or_default();
                    constants.push((format!("{{{constant}}}"), value));
                }
            }
        }
        for literal in string_literals(&source) {
            let head = literal.trim_start().to_ascii_uppercase();
            if !["SELECT ", "UPDATE ", "DELETE ", "INSERT "]
                .iter()
                .any(|k| head.starts_with(k))
            {
                continue;
            }
            let mut sql = literal.clone();
            for (placeholder, value) in &constants {
                sql = sql.replace(placeholder, value);
            }
            // A chosen column (`{column}`), numeric limits, and optional
            // clauses (`{filter}`), left out.
            sql = sql.replace("{column}", "film_id");
            while let (Some(open), Some(close)) = (sql.find('{'), sql.find('}')) {
                if close < open {
                    break;
                }
                let name = sql[open + 1..close].to_string();
                let limit = name.to_ascii_lowercase().contains("limit")
                    || name.chars().all(|c| c.is_ascii_uppercase() || c == '_');
                // A list of parameters, as `IN ({placeholders})` has.
                let list = sql[..open].trim_end().ends_with("IN (");
                let value = match (limit, list) {
                    (true, _) => "100",
                    (false, true) => "?",
                    (false, false) => "",
                };
                sql.replace_range(open..=close, value);
            }
            out.push((name.clone(), sql));
        }
    }
    out
}

/// Every query in `src/db/` is planned against the migrated schema (D1 is
/// SQLite): none reads the whole of `tickets`, `orders` or `order_events`,
/// which grow with every sale, but one marked `/* whole read: why */`
/// where it is written. On D1's Free plan a whole-table read per
/// poll of an admin page would spend the day's five million reads.
#[test]
fn no_query_reads_a_whole_sales_table() {
    let db = Connection::open_in_memory().unwrap();
    db.pragma_update(None, "foreign_keys", "ON").unwrap();
    for (name, sql) in migrations() {
        apply(&db, &name, &sql);
    }
    let queries = queries();
    assert!(queries.len() > 50, "found {} queries", queries.len());
    let mut scans = Vec::new();
    for (file, sql) in &queries {
        // A query that must read everything says so where it is written.
        if sql.contains("/* whole read:") {
            continue;
        }
        let mut plan = db
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap_or_else(|e| panic!("{file}: {e}\n{sql}"));
        // Unbound parameters read as NULL; the plan does not depend on them.
        let nulls = vec![rusqlite::types::Null; plan.parameter_count()];
        let details: Vec<String> = plan
            .query_map(rusqlite::params_from_iter(nulls), |row| {
                row.get::<_, String>(3)
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let watched = sales_tables_and_aliases(sql);
        for detail in details {
            // "SCAN tickets", "SCAN t" (an alias), "SCAN t USING INDEX …"
            // (a whole index: as many reads); "SEARCH …" is fine.
            let scanned = detail
                .strip_prefix("SCAN ")
                .and_then(|rest| rest.split_whitespace().next());
            let whole = scanned.is_some_and(|name| watched.iter().any(|w| w == name));
            if whole {
                scans.push(format!(
                    "{file}: {detail}\n  {}",
                    sql.split_whitespace().collect::<Vec<_>>().join(" ")
                ));
            }
        }
    }
    assert!(scans.is_empty(), "whole-table reads:\n{}", scans.join("\n"));
}

/// The sales tables a query reads, and the aliases it gives them
/// (`FROM tickets t`, `JOIN orders AS o`), as query plans name them.
fn sales_tables_and_aliases(sql: &str) -> Vec<String> {
    const SALES: [&str; 3] = ["tickets", "orders", "order_events"];
    const NOT_ALIASES: [&str; 10] = [
        "WHERE", "JOIN", "ON", "ORDER", "GROUP", "LIMIT", "LEFT", "INNER", "SET", "UNION",
    ];
    let words: Vec<&str> = sql
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let mut names: Vec<String> = SALES.iter().map(|t| t.to_string()).collect();
    for (i, word) in words.iter().enumerate() {
        if !SALES.contains(word) || i == 0 {
            continue;
        }
        let before = words[i - 1].to_ascii_uppercase();
        if before != "FROM" && before != "JOIN" {
            continue;
        }
        let mut next = words.get(i + 1).copied();
        if next.is_some_and(|n| n.eq_ignore_ascii_case("AS")) {
            next = words.get(i + 2).copied();
        }
        if let Some(alias) =
            next.filter(|n| !NOT_ALIASES.contains(&n.to_ascii_uppercase().as_str()))
        {
            if alias.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                names.push(alias.to_string());
            }
        }
    }
    names
}
