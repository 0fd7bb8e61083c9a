//! What a showing looks like once its rush is over, from what the stack
//! exposes: the object's seat map and the staff totals (admin API), the
//! tickets in D1, and the Square stand-in's record of every payment.
//! Every count is a figure, so a wrong one shows in the report.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use e2e::{Api, Stack};
use serde_json::Value;

use crate::figures::Figures;

/// The price of every seat of the rush's showings (`Room::showing`).
pub const SEAT_PRICE: f64 = 1200.0;
/// How long orders answered 202 may take to settle before the audit.
const SETTLE: Duration = Duration::from_secs(60);

/// Counts the showing's sold seats, tickets and payments.
pub async fn audit(stack: &Stack, api: &Api, sid: &str) -> Figures {
    settle(stack, sid).await;
    let mut f = Figures::new();
    let map = api.seat_map(sid).await;
    let states: BTreeMap<String, String> = map
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(seat, state)| (seat.clone(), state.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    let sold: BTreeSet<&str> = states
        .iter()
        .filter(|(_, s)| *s == "sold")
        .map(|(seat, _)| seat.as_str())
        .collect();
    let count = |state: &str| states.values().filter(|s| *s == state).count() as f64;
    f.insert("seats_sold".into(), sold.len() as f64);
    f.insert("seats_held_after".into(), count("held"));
    f.insert("seats_free_after".into(), count("available"));

    let totals = api.totals(sid).await;
    let number = |v: &Value| v.as_f64().unwrap_or(f64::NAN);
    f.insert("live_tickets".into(), number(&totals["sold"]));
    f.insert("paid_orders".into(), number(&totals["paid_orders"]));

    let tickets = stack.d1_query(&format!(
        "SELECT seat FROM tickets WHERE showing_id = '{sid}' AND status = 'valid'"
    ));
    let mut seen = BTreeMap::<String, u32>::new();
    for ticket in &tickets {
        *seen
            .entry(ticket["seat"].as_str().unwrap_or("").to_string())
            .or_default() += 1;
    }
    let twice = seen.values().filter(|&&n| n > 1).count();
    f.insert("seats_ticketed_twice".into(), twice as f64);
    // Live tickets for seats the map does not show sold, and the reverse.
    let differ = seen
        .keys()
        .map(String::as_str)
        .collect::<BTreeSet<_>>()
        .symmetric_difference(&sold)
        .count();
    f.insert("tickets_not_matching_map".into(), differ as f64);

    let orders: BTreeSet<String> = stack
        .d1_query(&format!("SELECT id FROM orders WHERE showing_id = '{sid}'"))
        .iter()
        .filter_map(|o| o["id"].as_str().map(str::to_string))
        .collect();
    let payments = stack.square.get("/_control/payments").await;
    let ours: Vec<&Value> = payments["payments"]
        .as_array()
        .map(|all| {
            all.iter()
                .filter(|p| {
                    p["reference_id"]
                        .as_str()
                        .is_some_and(|r| orders.contains(r))
                })
                .collect()
        })
        .unwrap_or_default();
    let with_status = |status: &str| -> Vec<&Value> {
        ours.iter()
            .copied()
            .filter(|p| p["status"] == status)
            .collect()
    };
    let captured = with_status("COMPLETED");
    let captured_amount: f64 = captured
        .iter()
        .map(|p| p["amount_money"]["amount"].as_f64().unwrap_or(0.0))
        .sum();
    f.insert("payments_captured".into(), captured.len() as f64);
    f.insert("seats_captured".into(), captured_amount / SEAT_PRICE);
    f.insert(
        "authorizations_open".into(),
        with_status("APPROVED").len() as f64,
    );
    f.insert(
        "payments_declined".into(),
        with_status("FAILED").len() as f64,
    );
    f.insert(
        "payments_voided".into(),
        with_status("CANCELED").len() as f64,
    );
    f
}

/// Waits (up to [`SETTLE`]) until none of the showing's orders is still
/// pending: a checkout answered 202 finishes in the background.
async fn settle(stack: &Stack, sid: &str) {
    let pending = format!(
        "SELECT COUNT(*) AS n FROM orders WHERE showing_id = '{sid}' AND status = 'pending'"
    );
    let until = Instant::now() + SETTLE;
    while Instant::now() < until {
        let rows = stack.d1_query(&pending);
        if rows.first().and_then(|r| r["n"].as_u64()) == Some(0) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}
