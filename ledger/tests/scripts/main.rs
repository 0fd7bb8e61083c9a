//! Scripted tests: each reads as a story of calls and the answer to each.
//!
//! A script line is `@<now_ms> <call> <args> => <expected answer>`. Calls:
//! `hold H SEATS..`, `release H`, `pay H`, `commit H O SEATS..`, `confirm O`,
//! `abandon O`, `void O SEATS..`, `move O FROM TO`, `sweep` (answers with the holds it
//! released), and the reads `next` (next expiry), `map` (public seat map)
//! and `state SEAT`. Refusals print as their variant, quotes dropped:
//! `SeatsUnavailable { seats: [A2] }`. After every line the ledger's
//! invariants and its snapshot round trip are checked too.

mod journeys;
mod refusals;

use ledger::{Config, HoldId, Ledger, OrderId, Outcome, UnitId, Voided};
use std::fmt::Debug;

/// Eight seats, `A1` to `A8`, none blocked, default settings.
pub fn check(script: &str) {
    check_with(
        Config::default(),
        &["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8"],
        &[],
        script,
    );
}

/// Runs `script` on a fresh ledger and compares every answer with the
/// expected one; on a mismatch, shows the whole script as it actually ran.
pub fn check_with(config: Config, units: &[&str], blocked: &[&str], script: &str) {
    let mut ledger = Ledger::new(config, units, blocked).expect("a valid test showing");
    let mut expected = Vec::new();
    let mut actual = Vec::new();
    for line in script.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (call, answer) = line.split_once("=>").expect("a line is `call => answer`");
        let call = call.trim();
        expected.push(format!("{call} => {}", answer.trim()));
        actual.push(format!("{call} => {}", run(&mut ledger, call)));
        ledger
            .check_invariants()
            .expect("invariants hold after every call");
        let restored = Ledger::restore(ledger.snapshot()).expect("a snapshot restores");
        assert_eq!(restored, ledger, "restore(snapshot) differs after `{call}`");
    }
    let (expected, actual) = (expected.join("\n"), actual.join("\n"));
    assert!(
        expected == actual,
        "the script ran differently\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

fn run(ledger: &mut Ledger, call: &str) -> String {
    let mut words = call.split_whitespace();
    let at = words.next().expect("a line starts with @now_ms");
    let now_ms: u64 = at[1..].parse().expect("@ is followed by a number");
    let verb = words.next().expect("a call");
    let args: Vec<&str> = words.collect();
    let hold = |i: usize| HoldId::new(args[i]).expect("a valid hold id");
    let order = |i: usize| OrderId::new(args[i]).expect("a valid order id");
    match verb {
        "hold" => {
            let outcome = ledger.hold(now_ms, &hold(0), &args[1..]);
            answer(outcome, |g| {
                format!("held {} until {}", names(ledger, &g.units), g.expires_at_ms)
            })
        }
        "release" => {
            let outcome = ledger.release(now_ms, &hold(0));
            answer(outcome, |r| format!("released {}", names(ledger, &r.units)))
        }
        "pay" => answer(ledger.start_payment(now_ms, &hold(0)), debug),
        "commit" => answer(
            ledger.commit(now_ms, &hold(0), &order(1), &args[2..]),
            debug,
        ),
        "confirm" => answer(ledger.confirm(now_ms, &order(0)), debug),
        "abandon" => answer(ledger.abandon(now_ms, &order(0)), debug),
        "void" => {
            let outcome = ledger.void(now_ms, &order(0), &args[1..]);
            answer(outcome, |v| match v {
                Voided::Voided { units } => format!("voided {}", names(ledger, units)),
                Voided::AlreadyVoided => "AlreadyVoided".to_string(),
            })
        }
        "move" => {
            let outcome = ledger.move_seat(now_ms, &order(0), args[1], args[2]);
            answer(outcome, |m| {
                format!(
                    "moved {} to {}",
                    names(ledger, &[m.from]),
                    names(ledger, &[m.to])
                )
            })
        }
        "sweep" => {
            let changes = ledger.sweep(now_ms);
            let holds: Vec<&str> = changes.holds.iter().map(HoldId::as_str).collect();
            format!("swept [{}]", holds.join(", "))
        }
        "next" => format!("{:?}", ledger.next_expiry()),
        "map" => ledger.availability().codes(),
        "state" => unquoted(ledger.unit_state_by_name(args[0])),
        other => panic!("unknown call {other}"),
    }
}

fn names(ledger: &Ledger, units: &[UnitId]) -> String {
    let names: Vec<&str> = units.iter().filter_map(|&u| ledger.unit_name(u)).collect();
    names.join(" ")
}

fn answer<T, E: Debug>(outcome: Outcome<T, E>, ok: impl FnOnce(&T) -> String) -> String {
    match &outcome.result {
        Ok(value) => ok(value),
        Err(error) => unquoted(error),
    }
}

fn debug<T: Debug>(value: &T) -> String {
    unquoted(value)
}

fn unquoted(value: impl Debug) -> String {
    format!("{value:?}").replace('"', "")
}
