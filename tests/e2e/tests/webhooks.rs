//! Square's webhooks at the Worker: only correctly signed deliveries are
//! taken, each event only once, every one answered before it is handled,
//! and one whose handling never ran is handled by the sweep.

use e2e::square::{NOTIFICATION_URL, SIGNATURE_KEY};
use std::time::{Duration, Instant};

use e2e::{sixteen_seat_room, Api, Method, Stack};
use serde_json::{json, Value};

fn event(event_id: &str) -> Vec<u8> {
    json!({
        "merchant_id": "MSTANDIN0001",
        "type": "payment.updated",
        "event_id": event_id,
        "created_at": "2026-11-29T19:02:11Z",
        "data": {"type": "payment", "id": "p-unknown", "object": {"payment": {
            "id": "p-unknown", "status": "COMPLETED", "reference_id": "not-one-of-ours"
        }}}
    })
    .to_string()
    .into_bytes()
}

async fn deliver(api: &Api, body: &[u8], signature: Option<&str>) -> e2e::Reply {
    let headers: Vec<(&str, &str)> = signature
        .map(|s| vec![("x-square-hmacsha256-signature", s)])
        .unwrap_or_default();
    api.send(
        Method::POST,
        "/webhooks/square",
        Some(body.to_vec()),
        &headers,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_missing_or_altered_signatures_are_refused_and_change_nothing() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let body = event("evt-forged");
    let good = square_standin::signature::sign(SIGNATURE_KEY, NOTIFICATION_URL, &body);
    let forged = square_standin::signature::sign("not-the-key", NOTIFICATION_URL, &body);
    let wrong_url =
        square_standin::signature::sign(SIGNATURE_KEY, "https://elsewhere.test/hook", &body);
    let mut altered = body.clone();
    altered.extend_from_slice(b" ");

    for (name, body, signature) in [
        ("forged", &body, Some(forged.as_str())),
        ("missing", &body, None),
        ("other url", &body, Some(wrong_url.as_str())),
        ("altered body", &altered, Some(good.as_str())),
    ] {
        let reply = deliver(&api, body, signature).await;
        assert_eq!(reply.status, 401, "{name}: {:?}", reply.body);
        assert_eq!(reply.body["error"], "bad_signature", "{name}");
    }
    let recorded = stack.d1_query("SELECT COUNT(*) AS n FROM webhook_events");
    assert_eq!(recorded[0]["n"], 0, "no refused delivery was recorded");

    let first = deliver(&api, &body, Some(&good)).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    assert_eq!(first.body["duplicate"], false);
    let again = deliver(&api, &body, Some(&good)).await;
    assert_eq!(
        (again.status, &again.body["duplicate"]),
        (200, &json!(true))
    );
    let recorded = stack.d1_query("SELECT event_id FROM webhook_events");
    assert_eq!(recorded, [json!({"event_id": "evt-forged"})]);
}

/// Square wants a 2xx within 10 seconds and sends the event again
/// otherwise. Every delivery is stored and answered before it is handled,
/// so a slow Square (here each call it answers waits 4 s) never makes a
/// webhook wait, and what the webhooks report still happens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_answered_at_once_while_square_is_slow() {
    // The checkout's own retry waits 15 s, so the payment's webhook is
    // surely the first to tell of it.
    let stack =
        Stack::start_with(e2e::StackOptions::default().var("CHECKOUT_RETRY_BASE_MS", "15000"));
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = api.buy(&sid, &["A1", "A2"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap().to_string();
    for endpoint in [
        "complete_payment",
        "cancel_payment",
        "cancel_by_key",
        "get_payment",
        "refund",
        "get_refund",
    ] {
        stack
            .square
            .control(
                "/_control/faults",
                json!({"endpoint": endpoint, "fault": {"delay_ms": 4000}, "times": 100}),
            )
            .await;
    }
    // A refund made in the Dashboard reaches us only as webhooks.
    let payment_id = stack.payment_of(&order_id);
    stack
        .square
        .control(
            "/_control/dashboard/refund",
            json!({ "payment_id": payment_id }),
        )
        .await;
    // And a checkout whose authorization answer is lost: the payment's
    // webhook is the first news of it, and handling that news means
    // capturing through the slow Square.
    stack.square.lose_the_next_authorizations_answer().await;
    let hold = api.hold(&sid, &["B1"], None).await;
    let slow = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert!(matches!(slow.status, 201 | 202), "{:?}", slow.body);
    let deadline = Instant::now() + Duration::from_secs(40);
    while api.seat_map(&sid).await["B1"] != "sold" {
        assert!(Instant::now() < deadline, "the checkout was paid");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    let deadline = Instant::now() + Duration::from_secs(30);
    while api.seat_map(&sid).await["A1"] != "available" {
        assert!(
            Instant::now() < deadline,
            "the Dashboard refund was applied"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let report = stack.square.get("/_control/webhooks").await;
    let deliveries: Vec<&Value> = report["deliveries"].as_array().unwrap().iter().collect();
    let types: Vec<&str> = deliveries
        .iter()
        .map(|d| d["event_type"].as_str().unwrap())
        .collect();
    assert!(
        types.contains(&"refund.updated") && types.contains(&"payment.updated"),
        "{types:?}"
    );
    for delivery in &deliveries {
        assert_eq!(delivery["delivered"], true, "{delivery}");
        assert_eq!(delivery["attempt"], 1, "never sent again: {delivery}");
        let elapsed = delivery["elapsed_ms"].as_u64().unwrap();
        assert!(elapsed < 1_000, "answered in {elapsed} ms: {delivery}");
    }
    // Each was handled after its answer (the last may still be going).
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let unhandled = stack.d1_query(
            "SELECT event_id, last_error FROM webhook_events WHERE handled_at_ms IS NULL",
        );
        if unhandled.is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "left unhandled: {unhandled:?}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// The Worker stopped after answering, before handling: the event waits in
/// the inbox and the cron sweep handles it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_answered_but_never_handled_is_handled_by_the_sweep() {
    let stack = Stack::start_with(e2e::StackOptions::default().var("SWEEP_MIN_AGE_MS", "0"));
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = api.buy(&sid, &["A3"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap().to_string();
    let payment_id = stack.payment_of(&order_id);
    // A completed Dashboard refund, as Square would report it, stored as a
    // delivery that was answered and never handled.
    let event = json!({
        "merchant_id": "MSTANDIN0001",
        "type": "refund.updated",
        "event_id": "evt-left-in-the-inbox",
        "created_at": "2026-11-29T19:02:11Z",
        "data": {"type": "refund", "id": "rf-1", "object": {"refund": {
            "id": format!("{payment_id}_rf1"), "payment_id": payment_id, "status": "COMPLETED",
            "amount_money": {"amount": 1200, "currency": "USD"}
        }}}
    });
    let body = event.to_string().replace('\'', "''");
    stack.d1_query(&format!(
        "INSERT INTO webhook_events (event_id, type, received_at_ms, body) \
         VALUES ('evt-left-in-the-inbox', 'refund.updated', 0, '{body}')"
    ));
    assert_eq!(
        api.seat_map(&sid).await["A3"],
        "sold",
        "nothing happened yet"
    );
    stack.run_sweep().await;
    let deadline = Instant::now() + Duration::from_secs(15);
    while api.seat_map(&sid).await["A3"] != "available" {
        assert!(Instant::now() < deadline, "the sweep applied the refund");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let row = stack.d1_query(
        "SELECT handled_at_ms IS NOT NULL AS handled, body IS NULL AS dropped FROM webhook_events \
         WHERE event_id = 'evt-left-in-the-inbox'",
    );
    assert_eq!(row, [json!({"handled": 1, "dropped": 1})]);
}

/// Square delivers events "typically within 60 seconds". With every
/// delivery 8 s late, a checkout is paid at once (it never waits for a
/// webhook), and the late events, when they come, are handled and change
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn late_webhooks_neither_hold_up_a_checkout_nor_change_it() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    stack
        .square
        .control("/_control/webhooks", json!({"delay_ms": 8000}))
        .await;
    let started = Instant::now();
    let paid = api.buy(&sid, &["A4"]).await;
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "paid before any webhook came"
    );
    let order_id = paid.body["order_id"].as_str().unwrap().to_string();
    let query = format!("SELECT status, amount, payment_id FROM orders WHERE id = '{order_id}'");
    let before = stack.d1_query(&query);
    assert_eq!(before[0]["status"], "paid");
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let events = stack.d1_query(
            "SELECT COUNT(*) AS n, SUM(handled_at_ms IS NOT NULL) AS handled FROM webhook_events",
        );
        let (n, handled) = (events[0]["n"].as_u64(), events[0]["handled"].as_u64());
        if n >= Some(2) && n == handled {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the late events came: {events:?}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    assert_eq!(stack.d1_query(&query), before, "the order is as it was");
    assert_eq!(api.seat_map(&sid).await["A4"], "sold");
}
