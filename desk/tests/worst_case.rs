//! Every table of a showing's object at its cap, filled the way a
//! stranger could fill it: through requests the Worker admits, each as
//! large as it may be, from as many networks as it takes. The stored bytes
//! must stay within the budget the README states ("Limits"), and a restarted
//! object must load them; the load's time is printed, not asserted (a
//! timed assertion fails by chance on a busy machine):
//!
//! `cargo test --release -p desk --test worst_case -- --nocapture`

#[path = "support/mod.rs"]
mod support;

use std::time::Instant;

use desk::protocol::{
    Caller, CheckoutRequest, HoldRef, Idempotency, Money, NewHold, PriceCategory, ShowingSetup,
    Units,
};
use desk::square::SquareReply;
use desk::{Answer, Decision, Desk, Effect, RateLimit, Request, Settings, StoreOutcome};
use support::Sqlite;

/// A 20,000-seat arena (the most a showing may have), every seat named
/// with the longest name a seat may have.
const SEATS: usize = ledger::MAX_UNITS;
const PER_HOLD: usize = ledger::MAX_SEATS_PER_HOLD_LIMIT as usize;
/// The budget for every table at its cap together, in bytes of SQLite
/// pages.
const BUDGET_BYTES: u64 = 24 * 1024 * 1024;

fn seat(n: usize) -> String {
    format!("{n:0>32}")
}

/// The longest id and name a price category may have.
fn longest_category(n: usize) -> PriceCategory {
    PriceCategory {
        id: format!("{n:x>32}"),
        name: format!("{n:N>60}"),
        // Ten of them make the largest amount a checkout takes.
        amount: checkout::MAX_AMOUNT_MINOR / PER_HOLD as u64,
    }
}

fn setup() -> ShowingSetup {
    let categories: Vec<PriceCategory> = (0..8).map(longest_category).collect();
    ShowingSetup {
        showing_id: "a0a0a0a0a0a0a0a0".into(),
        units: Units {
            names: (0..SEATS).map(seat).collect(),
            blocked: vec![],
            desk_only: vec![],
            seating: None,
        },
        price: Money {
            amount: categories[0].amount,
            currency: "GBP".into(),
        },
        max_seats_per_hold: PER_HOLD as u32,
        hold_ttl_ms: 3_600_000,
        payment_cap_ms: 3_600_000,
        sales: Default::default(),
        categories,
        waiting_room: false,
    }
}

/// A network key as long as one may be, and the longest buyer id.
fn network(n: usize) -> String {
    format!("{n:z>64}")
}

fn buyer(n: usize) -> String {
    format!("{n:0>32x}")
}

fn token(n: usize) -> String {
    format!("{n:032x}")
}

struct Arena {
    db: Sqlite,
    desk: Desk,
    now_ms: u64,
}

impl Arena {
    fn decide(&mut self, d: Decision) -> Decision {
        self.db.apply(&d.writes);
        d
    }

    /// A hold of `block`'s ten seats, each priced at the last category,
    /// under the longest `Idempotency-Key`, as buyer `n` from network `n`.
    fn hold(&mut self, n: usize, block: usize) -> Decision {
        self.now_ms += 1;
        let seats: Vec<String> = (0..PER_HOLD).map(|i| seat(block * PER_HOLD + i)).collect();
        let prices = seats
            .iter()
            .map(|s| (s.clone(), longest_category(7).id))
            .collect();
        let request = Request::Hold(NewHold {
            caller: Caller {
                buyer: buyer(n),
                client: network(n),
            },
            idempotency: Some(Idempotency {
                key: format!("{n:k>255}"),
                fingerprint: "f".repeat(64),
            }),
            seats,
            prices,
            token: token(n),
            best: None,
            admitted: false,
        });
        let d = self.desk.handle_request(self.now_ms, request);
        self.decide(d)
    }

    fn release(&mut self, n: usize) {
        self.now_ms += 1;
        let hold = HoldRef {
            buyer: buyer(n),
            token: token(n),
        };
        let d = self
            .desk
            .handle_request(self.now_ms, Request::ReleaseHold(hold));
        self.decide(d);
    }

    /// Pays for buyer `n`'s hold with a card Square declines, answering
    /// every step until the checkout has nothing left to do.
    fn declined_checkout(&mut self, n: usize, attempt: usize) {
        self.now_ms += 1;
        let request = Request::Checkout(CheckoutRequest {
            hold: HoldRef {
                buyer: buyer(n),
                token: token(n),
            },
            source_id: format!("cnon:{n}-{attempt}{}", "s".repeat(400)),
            verification_token: format!("verf:{n}-{attempt}{}", "v".repeat(400)),
            email: format!("{}@{}.example", "e".repeat(64), n),
            name: "N".repeat(checkout::MAX_BUYER_NAME_BYTES),
            order_nonce: format!("{n:0>20x}{attempt:0>4}"),
            client: network(n),
            item_name: "Vertigo, Fri 19:30".into(),
            exchange: None,
        });
        let started = self.desk.handle_request(self.now_ms, request);
        let mut effects = self.decide(started).effects;
        while let Some(effect) = effects.pop() {
            let (order_id, step, answer) = match effect {
                Effect::Square { order_id, step, .. } => (
                    order_id,
                    step,
                    Answer::Square(SquareReply::Refused {
                        status: 402,
                        category: "PAYMENT_METHOD_ERROR".into(),
                        code: "CARD_DECLINED".into(),
                        detail: "declined".into(),
                        payment: None,
                    }),
                ),
                Effect::Store { order_id, step, .. } => {
                    (order_id, step, Answer::Store(StoreOutcome::Stored))
                }
                _ => continue,
            };
            self.now_ms += 1;
            let d = self
                .desk
                .handle_answer(self.now_ms, &order_id, step, answer);
            effects.extend(self.decide(d).effects);
        }
    }

    fn rows(&self, sql: &str) -> i64 {
        self.db
            .0
            .query_row(sql, [], |r| r.get(0))
            .expect("a number")
    }
}

#[test]
fn every_table_at_its_cap_stays_within_the_budget_and_loads() {
    let settings = Settings {
        // Every network's one hold stores its bucket.
        hold_rate: RateLimit {
            burst: 2,
            per_minute: 1,
            seats_held: PER_HOLD as u32,
        },
        ..Settings::default()
    };
    let (db, desk) = support::showing(settings.clone(), setup());
    let mut arena = Arena {
        db,
        desk,
        now_ms: 1_800_000_000_000,
    };
    let blocks = SEATS / PER_HOLD;
    // Every seat held, then released: the ended holds' owners at their cap.
    for n in 0..blocks {
        arena.hold(n, n);
    }
    for n in 0..blocks {
        arena.release(n);
    }
    // Every seat held again by others, each paid for with declined cards:
    // the live holds of a full house, and the unpaid checkouts at their cap.
    for n in blocks..2 * blocks {
        arena.hold(n, n - blocks);
    }
    for n in blocks..2 * blocks {
        arena.declined_checkout(n, 0);
    }
    // Networks asking for taken seats until every rate bucket is in use:
    // each refusal a 409 kept for its key.
    let mut n = 2 * blocks;
    while arena.rows("SELECT COUNT(*) FROM rate_buckets") < desk::MAX_CLIENTS as i64 {
        arena.hold(n, n % blocks);
        n += 1;
        assert!(n < 100_000, "the buckets never filled");
    }
    arena.now_ms += 1;
    let alarm = arena.desk.handle_timeout(arena.now_ms);
    arena.decide(alarm);
    // Staff's moves at their cap, each as long as a move may name. Only a
    // sold seat moves, and this house sold none, so they go in as the rows
    // the desk writes for a move.
    let moves: Vec<desk::Write> = (0..desk::MAX_MOVES)
        .map(|n| {
            let moved = desk::protocol::TicketMoved {
                ticket_id: format!("{n:t>64}"),
                order_id: format!("{n:o>64}"),
                from: seat(n),
                to: seat(n + 1),
                ticket_number: 999,
                moved_at_ms: arena.now_ms,
            };
            desk::Write::Move {
                ticket_id: moved.ticket_id.clone(),
                record: serde_json::to_string(&moved).expect("JSON"),
            }
        })
        .collect();
    arena.db.apply(&moves);
    // The waiting list at its cap: every seat is held, so people may
    // join, each with the longest address, four from each network.
    for n in 0..=desk::waitlist::MAX_WAITLIST {
        let join = desk::protocol::JoinWaitlist {
            id: format!("{n:0>16}"),
            email: format!("{n:a>200}@{}", "d".repeat(53)),
            seats: PER_HOLD as u32,
            token: format!("{n:0>32}"),
            client: format!("10.9.{}.{}", n / 4 / 250, n / 4 % 250),
        };
        let d = arena
            .desk
            .handle_request(arena.now_ms, Request::JoinWaitlist(join));
        let refused = matches!(&d.reply, Some(Err(r)) if r.code == desk::Code::WaitlistFull);
        assert_eq!(refused, n == desk::waitlist::MAX_WAITLIST, "{:?}", d.reply);
        arena.decide(d);
    }

    let replay_bytes = arena.rows(
        "SELECT COALESCE(SUM(length(key) + length(fingerprint) + length(body) + length(buyer)), 0) \
         FROM idempotency",
    );
    let ended = arena.rows("SELECT COUNT(*) FROM hold_owners WHERE ended IS NOT NULL");
    let live = arena.rows("SELECT COUNT(*) FROM hold_owners WHERE ended IS NULL");
    let checkouts = arena.rows("SELECT COUNT(*) FROM checkouts");
    let buckets = arena.rows("SELECT COUNT(*) FROM rate_buckets");
    let longest_replay = arena.rows("SELECT MAX(length(body)) FROM idempotency");
    let bytes = arena
        .rows("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
        as u64;
    for (table, columns) in [
        ("units", "length(name) + length(state) + COALESCE(length(owner), 0)"),
        ("hold_owners", "length(hold_id) + length(buyer) + length(seats) + COALESCE(length(client), 0) + COALESCE(length(record), 0)"),
        ("idempotency", "length(key) + length(fingerprint) + length(body) + length(buyer)"),
        ("checkouts", "length(order_id) + length(auth_key) + length(record)"),
        ("rate_buckets", "length(client)"),
        ("orders", "length(record)"),
        ("moves", "length(ticket_id) + length(record)"),
        ("waitlist", "length(id) + length(record)"),
    ] {
        println!("{table}: {}", arena.rows(&format!("SELECT COALESCE(SUM({columns}), 0) FROM {table}")));
    }
    println!(
        "free pages: {}",
        arena.rows("SELECT freelist_count FROM pragma_freelist_count()")
    );
    println!(
        "stored: {bytes} bytes; replays {} ({replay_bytes} bytes, longest {longest_replay}), \
         owners {live} live and {ended} ended, checkouts {checkouts}, buckets {buckets}",
        arena.rows("SELECT COUNT(*) FROM idempotency"),
    );
    assert!(replay_bytes as usize <= desk::MAX_REPLAY_BYTES);
    assert!(
        replay_bytes as usize > desk::MAX_REPLAY_BYTES - 2 * desk::MAX_REPLAY_BODY_BYTES,
        "filled to within a row or two of the cap"
    );
    assert!(longest_replay as usize <= desk::MAX_REPLAY_BODY_BYTES);
    assert_eq!(
        ended as usize,
        desk::MAX_ENDED_OWNERS,
        "ended owners at their cap"
    );
    assert_eq!(live as usize, blocks, "a full house of live holds");
    assert!(checkouts as usize <= desk::MAX_UNPAID_CHECKOUTS);
    assert!(
        checkouts as usize >= desk::MAX_UNPAID_CHECKOUTS / 2,
        "filled"
    );
    assert_eq!(buckets as usize, desk::MAX_CLIENTS);
    let waiting = arena.rows("SELECT COUNT(*) FROM waitlist");
    assert_eq!(waiting as usize, desk::waitlist::MAX_WAITLIST);
    assert!(bytes <= BUDGET_BYTES, "{bytes} bytes stored");

    let started = Instant::now();
    let mut reloaded = arena.db.load_at(settings, arena.now_ms);
    println!("loaded in {:?}", started.elapsed());
    let codes = reloaded.handle_request(arena.now_ms, Request::SeatCodes);
    match codes.reply {
        Some(Ok(desk::Reply::Codes(map))) => assert!(map.codes.chars().all(|c| c == 'h')),
        other => panic!("{other:?}"),
    }
}
