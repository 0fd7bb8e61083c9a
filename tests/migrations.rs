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
        (1, 1, 2, 1, 1)
    );
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
