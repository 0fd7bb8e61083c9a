//! The reconciliation before a showing: a mismatch of each kind seeded
//! behind the Worker's back (a ticket deleted from D1, payments made in
//! Square that no order knows, a ticket for a seat the showing's object
//! does not hold), then found, repaired where the repair is provable, and
//! the rest put on the attention list and mailed to staff at once.

use e2e::{sixteen_seat_room, square::LOCATION_ID, Api, Stack, StackOptions};
use serde_json::{json, Value};

const STAFF: &str = "staff@cinema.example";

fn finding<'a>(report: &'a Value, kind: &str) -> &'a Value {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .find(|f| f["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {report}"))
}

/// A payment made straight at Square, named for an order of `sid` that
/// the Worker never made.
async fn payment_behind_the_back(stack: &Stack, sid: &str, key: &str, capture: bool) -> String {
    let answer = reqwest::Client::new()
        .post(format!("{}/v2/payments", stack.square.base_url))
        .bearer_auth(e2e::square::ACCESS_TOKEN)
        .json(&json!({
            "idempotency_key": key,
            "source_id": "cnon:card-nonce-ok",
            "amount_money": {"amount": 1200, "currency": "USD"},
            "autocomplete": capture,
            "location_id": LOCATION_ID,
            "reference_id": format!("{sid}{key}"),
        }))
        .send()
        .await
        .expect("the stand-in answers")
        .json::<Value>()
        .await
        .expect("JSON");
    answer["payment"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{answer}"))
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mismatch_of_each_kind_is_found_and_repaired_or_told_to_staff() {
    let stack = Stack::start_with(StackOptions::default().var("STAFF_EMAIL", STAFF));
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let first = api.buy(&sid, &["A1", "A2"]).await;
    assert_eq!(first.status, 201, "{:?}", first.body);
    let first_id = first.body["order_id"].as_str().unwrap().to_string();
    let second = api.buy(&sid, &["B1"]).await;
    assert_eq!(second.status, 201, "{:?}", second.body);
    let second_id = second.body["order_id"].as_str().unwrap().to_string();

    // Everything agrees: nothing to say.
    let calm = api
        .admin_post(&format!("/api/admin/showings/{sid}/reconcile"), None)
        .await;
    assert_eq!(calm.status, 200, "{:?}\n{}", calm.body, stack.log_tail());
    assert_eq!(calm.body["findings"], json!([]), "{:?}", calm.body);

    // A ticket deleted from D1; an authorization and a capture made in
    // Square for orders nobody made; a ticket in D1 for A8, which the
    // showing's object still offers for sale.
    let lost = stack.d1_query(&format!(
        "SELECT id, price_amount FROM tickets WHERE order_id = '{first_id}' AND seat = 'A2'"
    ));
    stack.d1_query(&format!(
        "DELETE FROM tickets WHERE id = '{}'",
        lost[0]["id"].as_str().unwrap()
    ));
    let authorized = payment_behind_the_back(&stack, &sid, "orphan-authorization", false).await;
    let captured = payment_behind_the_back(&stack, &sid, "orphan-capture", true).await;
    stack.d1_query(&format!(
        "INSERT INTO tickets (id, order_id, showing_id, seat, status, created_at_ms, price_amount) \
         VALUES ('{second_id}-9', '{second_id}', '{sid}', 'A8', 'valid', 0, 1200)"
    ));

    let report = api
        .admin_post(&format!("/api/admin/showings/{sid}/reconcile"), None)
        .await;
    assert_eq!(
        report.status,
        200,
        "{:?}\n{}",
        report.body,
        stack.log_tail()
    );
    let report = report.body;
    assert_eq!(
        report["findings"].as_array().map(Vec::len),
        Some(4),
        "{report}"
    );

    // The deleted ticket is written back, the same ticket at its price.
    let missing = finding(&report, "ticket_missing");
    assert_eq!(missing["subject"], "A2");
    assert!(missing["fixed_at_ms"].is_u64(), "{missing}");
    let restored = stack.d1_query(&format!(
        "SELECT id, status, price_amount FROM tickets WHERE order_id = '{first_id}' AND seat = 'A2'"
    ));
    assert_eq!(
        restored,
        [json!({"id": lost[0]["id"], "status": "valid", "price_amount": lost[0]["price_amount"]})]
    );
    // The authorization nobody's order knows is voided in Square.
    let orphan = finding(&report, "unknown_authorization");
    assert_eq!(orphan["payment_id"], authorized.as_str());
    assert!(orphan["fixed_at_ms"].is_u64(), "{orphan}");
    let voided = stack
        .square
        .api_get(&format!("/v2/payments/{authorized}"))
        .await;
    assert_eq!(voided["payment"]["status"], "CANCELED");
    // Money taken, and a seat the object lost, are for staff.
    let taken = finding(&report, "unknown_payment");
    assert_eq!(taken["payment_id"], captured.as_str());
    assert!(taken["fixed_at_ms"].is_null());
    let seat = finding(&report, "seat_lost_by_object");
    assert_eq!(seat["subject"], "A8");
    assert_eq!(seat["object"], "A8 available");
    assert_eq!(
        seat["d1"],
        format!("ticket {second_id}-9 valid for order {second_id}")
    );

    // On the attention list, and mailed to staff at once.
    let attention = api.admin_get("/api/admin/attention").await;
    let listed: Vec<&Value> = attention.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "reconciliation")
        .collect();
    assert_eq!(listed.len(), 2, "{:?}", attention.body);
    let mail = stack.wait_for_mail(STAFF, 1);
    assert_eq!(mail.len(), 1, "{}", stack.log_tail());
    assert!(
        mail[0].subject.contains("2 differences"),
        "{}",
        mail[0].subject
    );
    assert!(
        mail[0].text.contains("a payment no order knows"),
        "{}",
        mail[0].text
    );
    assert!(mail[0].text.contains("A8"), "{}", mail[0].text);

    // Asked again: what was repaired agrees now, and what is open is
    // kept once.
    let again = api
        .admin_post(&format!("/api/admin/showings/{sid}/reconcile"), None)
        .await;
    let kinds: Vec<&str> = again.body["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["seat_lost_by_object", "unknown_payment"],
        "{:?}",
        again.body
    );
    let kept = api
        .admin_get(&format!("/api/admin/showings/{sid}/reconcile"))
        .await;
    assert_eq!(kept.body["findings"].as_array().map(Vec::len), Some(4));

    // Staff deal with the seat by hand: it leaves the attention list with
    // their note, once.
    let handled =
        |note: &str| json!({"kind": "seat_lost_by_object", "subject": "A8", "note": note});
    let path = format!("/api/admin/showings/{sid}/reconcile/handled");
    let done = api
        .admin_post(&path, Some(handled("Voided the stray ticket")))
        .await;
    assert_eq!(done.status, 204, "{:?}", done.body);
    let again = api.admin_post(&path, Some(handled("Twice"))).await;
    assert_eq!(
        (again.status, &again.body["error"]),
        (409, &json!("already_handled"))
    );
    let attention = api.admin_get("/api/admin/attention").await;
    let left: Vec<&Value> = attention.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == "reconciliation")
        .collect();
    assert_eq!(left.len(), 1, "{:?}", attention.body);
    assert_eq!(left[0]["finding_kind"], "unknown_payment", "{:?}", left);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cron_checks_each_showing_once_two_hours_and_a_quarter_before_it_starts() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut soon = sixteen_seat_room(None);
    soon["starts_at"] = json!(e2e::time_from_now(2 * 3_600_000));
    let soon = api.create_showing(soon).await;
    let mut later = sixteen_seat_room(None);
    later["starts_at"] = json!(e2e::time_from_now(3 * 3_600_000));
    let later = api.create_showing(later).await;
    stack.run_sweep().await;
    stack.run_sweep().await;
    let runs = stack
        .d1_query("SELECT showing_id, trigger, findings FROM reconciliations ORDER BY showing_id");
    assert_eq!(
        runs,
        [json!({"showing_id": soon, "trigger": "cron", "findings": 0})],
        "once, and not yet for the showing three hours away ({later})"
    );
}
