//! Checkout through the real Worker, Showtime object and D1, paying the
//! Square stand-in.

use e2e::{sixteen_seat_room, Api, Method, Stack, StackOptions};
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_pair_is_paid_and_sold_with_one_ticket_per_seat() {
    // Authorizations lapse at Square after 90 minutes here (6 hours unless
    // set), so a stuck order never holds a buyer's money for long.
    let stack = Stack::start_with(StackOptions::default().var("AUTHORIZATION_DELAY_MINUTES", "90"));
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["A3", "A4"], None).await;
    assert_eq!(hold.status, 201);

    let paid = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    if paid.status != 201 {
        let trail = stack.d1_query("SELECT from_state, to_state, detail FROM order_events");
        panic!(
            "not paid: {:?}\naudit trail: {trail:#?}\nserver log:\n{}",
            paid.body,
            stack.log_tail()
        );
    }
    assert_eq!(paid.body["status"], "paid");
    assert_eq!(paid.body["tickets"].as_array().unwrap().len(), 2);
    let order_id = paid.body["order_id"].as_str().unwrap();

    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A3"].as_str(), map["A4"].as_str()),
        (Some("sold"), Some("sold"))
    );
    let stats = api.stats(&sid).await;
    assert_eq!(stats["seats"]["sold"], 2);

    let tickets = stack.d1_query(&format!(
        "SELECT seat, status FROM tickets WHERE order_id = '{order_id}' ORDER BY seat"
    ));
    assert_eq!(
        tickets,
        [
            serde_json::json!({"seat": "A3", "status": "valid"}),
            serde_json::json!({"seat": "A4", "status": "valid"})
        ]
    );
    let order = stack.d1_query(&format!(
        "SELECT status, amount FROM orders WHERE id = '{order_id}'"
    ));
    assert_eq!(
        order,
        [serde_json::json!({"status": "paid", "amount": 2400})]
    );

    // The stand-in saw one authorization (autocomplete off) and one capture.
    let requests = stack.square.get("/_control/requests").await;
    let calls: Vec<&Value> = requests["requests"].as_array().unwrap().iter().collect();
    let creates: Vec<_> = calls
        .iter()
        .filter(|r| r["method"] == "POST" && r["path"] == "/v2/payments")
        .collect();
    let completes: Vec<_> = calls
        .iter()
        .filter(|r| r["path"].as_str().unwrap().ends_with("/complete"))
        .collect();
    assert_eq!(creates.len(), 1, "{requests}");
    assert_eq!(completes.len(), 1);
    assert_eq!(creates[0]["body"]["autocomplete"], false);
    assert_eq!(creates[0]["body"]["delay_action"], "CANCEL");
    assert_eq!(creates[0]["body"]["delay_duration"], "PT90M");
    let key = creates[0]["idempotency_key"].as_str().unwrap();
    assert!(!key.is_empty() && key.len() <= 45, "{key}");

    let link = paid.body["order_url"].as_str().unwrap();
    let order = api.get(link).await;
    assert_eq!(order.status, 200);
    assert_eq!(order.body["order"]["status"], "paid");
    let forged = api
        .get(&format!(
            "/api/orders/{order_id}?key=AAAAAAAAAAAAAAAAAAAAAA"
        ))
        .await;
    assert_eq!(forged.status, 404);
}

/// Payments at the stand-in, by status.
async fn payments(stack: &Stack) -> Vec<Value> {
    stack.square.get("/_control/payments").await["payments"]
        .as_array()
        .unwrap()
        .clone()
}

fn statuses(payments: &[Value]) -> Vec<&str> {
    payments
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect()
}

/// Polls the order link until its status is `want` (or 30 s pass).
async fn order_until(api: &Api, link: &str, want: &str) -> Value {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let order = api.get(link).await;
        if order.body["order"]["status"] == want || std::time::Instant::now() > deadline {
            return order.body;
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
}

/// One request an order waits for its payment to settle; the same
/// checkout sent meanwhile is answered at once with the order pending, so
/// repeats cannot pile up on the showing's object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_checkout_sent_five_times_pays_once_and_only_the_first_waits() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["B1"], None).await;
    stack
        .square
        .control(
            "/_control/faults",
            serde_json::json!({"endpoint": "create_payment", "fault": {"delay_ms": 8000}, "times": 1}),
        )
        .await;
    let first = {
        let (api, sid, hold) = (api.clone(), sid.clone(), hold.clone());
        tokio::spawn(async move { api.checkout(&sid, &hold, "cnon:card-nonce-ok").await })
    };
    // The first is paying (and waiting on the slow Square) once its hold
    // names the order.
    let hold_path = format!(
        "/api/showings/{sid}/holds/{}",
        hold.body["hold_id"].as_str().unwrap()
    );
    let cookie = hold.cookie.clone().expect("the hold's session");
    loop {
        let read = api
            .send(Method::GET, &hold_path, None, &[("cookie", &cookie)])
            .await;
        if read.body["order_id"].is_string() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..4 {
        let (api, sid, hold) = (api.clone(), sid.clone(), hold.clone());
        set.spawn(async move { api.checkout(&sid, &hold, "cnon:card-nonce-ok").await });
    }
    let mut answers = set.join_all().await;
    assert!(
        !first.is_finished(),
        "the others did not wait for the first"
    );
    assert!(
        answers
            .iter()
            .all(|a| a.status == 202 && a.body["status"] == "pending"),
        "{answers:?}"
    );
    // The first waits for Square's answer, up to the checkout's own
    // limit: on a busy machine the delay can outlast it, and then it too
    // says "pending". Either way one order is paid, once, below.
    let first = first.await.unwrap();
    let waited = first.status == 201 || (first.status == 202 && first.body["status"] == "pending");
    assert!(waited, "{:?}", first.body);
    answers.insert(0, first);
    let orders: std::collections::BTreeSet<_> = answers
        .iter()
        .map(|a| a.body["order_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(orders.len(), 1, "{answers:?}");
    let order_id = orders.into_iter().next().unwrap();
    let link = answers[0].body["order_url"].as_str().unwrap();
    assert_eq!(
        order_until(&api, link, "paid").await["order"]["status"],
        "paid"
    );
    assert_eq!(payments(&stack).await.len(), 1, "one payment at Square");
    let tickets = stack.d1_query(&format!(
        "SELECT COUNT(*) AS n FROM tickets WHERE order_id = '{order_id}'"
    ));
    assert_eq!(tickets[0]["n"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_card_keeps_the_hold_for_another_card() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["B2", "B3"], None).await;
    let declined = api.checkout(&sid, &hold, "cnon:card-nonce-declined").await;
    assert_eq!(declined.status, 402, "{:?}", declined.body);
    assert_eq!(declined.body["error"], "card_declined");
    assert_eq!(declined.body["code"], "GENERIC_DECLINE");
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["B2"].as_str(), map["B3"].as_str()),
        (Some("held"), Some("held"))
    );

    let paid = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    assert_ne!(paid.body["order_id"], declined.body["order_id"]);
    assert_eq!(
        statuses(&payments(&stack).await)
            .iter()
            .filter(|s| **s == "COMPLETED")
            .count(),
        1
    );
}

/// A showing whose holds lapse after one second even while paying.
fn short_holds() -> Value {
    let mut showing = sixteen_seat_room(Some(1_000));
    showing["payment_cap_ms"] = serde_json::json!(1_000);
    showing
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_authorization_loses_taken_seats_and_keeps_free_ones() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(short_holds()).await;
    let slow_once =
        serde_json::json!({"endpoint": "create_payment", "fault": {"delay_ms": 3000}, "times": 1});

    // Taken: while the authorization is slow, the hold lapses and another
    // buyer buys one of its seats.
    let first = api.hold(&sid, &["A1", "A2"], None).await;
    stack
        .square
        .control("/_control/faults", slow_once.clone())
        .await;
    let paying = {
        let (api, sid, first) = (api.clone(), sid.clone(), first.clone());
        tokio::spawn(async move { api.checkout(&sid, &first, "cnon:card-nonce-ok").await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(1_500)).await;
    let rival = api.hold(&sid, &["A2"], None).await;
    assert_eq!(rival.status, 201, "{:?}", rival.body);
    let bought = api.checkout(&sid, &rival, "cnon:card-nonce-ok").await;
    assert_eq!(bought.status, 201, "{:?}", bought.body);
    let lost = paying.await.unwrap();
    assert_eq!(lost.status, 409, "{:?}", lost.body);
    assert_eq!(lost.body["error"], "seat_lost");
    assert_eq!(lost.body["seats_lost"], serde_json::json!(["A2"]));
    let first_payment = payments(&stack)
        .await
        .into_iter()
        .find(|p| p["reference_id"] == lost.body["order_id"]);
    assert_eq!(
        first_payment.unwrap()["status"],
        "CANCELED",
        "the authorization was voided"
    );
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A1"].as_str(), map["A2"].as_str()),
        (Some("available"), Some("sold"))
    );

    // Free: the hold lapses while the authorization is slow, but nobody
    // took the seat, so it is taken again and paid for.
    let second = api.hold(&sid, &["B5"], None).await;
    stack.square.control("/_control/faults", slow_once).await;
    let paid = api.checkout(&sid, &second, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    assert_eq!(api.seat_map(&sid).await["B5"], "sold");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_capture_answer_is_recovered_to_paid() {
    let stack =
        Stack::start_with(e2e::StackOptions::default().var("CHECKOUT_RETRY_BASE_MS", "500"));
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["A7", "A8"], None).await;
    // Webhooks held back: recovery must find the capture by asking Square.
    stack
        .square
        .control("/_control/webhooks", serde_json::json!({"hold": true}))
        .await;
    stack.square.lose_the_next_captures_answer().await;
    let pending = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(pending.status, 202, "{:?}", pending.body);
    assert_eq!(pending.body["status"], "pending");
    let link = pending.body["order_url"].as_str().unwrap();
    let unconfirmed = api.get(link).await;
    assert_eq!(unconfirmed.body["order"]["status"], "pending");
    // Its tickets are written, but none has a code to scan until the
    // payment is confirmed: neither in the order nor as a QR image.
    let tickets = unconfirmed.body["tickets"].as_array().unwrap();
    assert_eq!(tickets.len(), 2, "{tickets:?}");
    for ticket in tickets {
        assert_eq!(ticket["status"], "pending", "{ticket}");
        assert!(ticket.get("code").is_none(), "{ticket}");
        let qr = ticket["page_url"]
            .as_str()
            .unwrap()
            .replace("?key", "/qr.svg?key");
        assert_eq!(api.get(&qr).await.status, 404, "{qr}");
    }

    let order = order_until(&api, link, "paid").await;
    assert_eq!(order["order"]["status"], "paid", "{order}");
    let order_id = pending.body["order_id"].as_str().unwrap();
    let live = stack.d1_query(&format!(
        "SELECT seat, COUNT(*) AS n FROM tickets WHERE order_id = '{order_id}' AND status = 'valid' GROUP BY seat"
    ));
    assert_eq!(live.len(), 2, "{live:?}");
    assert!(live.iter().all(|t| t["n"] == 1));
    assert_eq!(statuses(&payments(&stack).await), ["COMPLETED"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crash_between_capture_and_recording_it_ends_with_tickets() {
    let options = e2e::StackOptions::default()
        .var("SHOWTIME_FAILPOINT", "after_capture")
        .var("CHECKOUT_ANSWER_TIMEOUT_MS", "2000")
        .var("CHECKOUT_RETRY_BASE_MS", "500");
    let stack = Stack::start_with(options);
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["B4"], None).await;
    // A crashed object never answers the request it was serving.
    let crashed = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        api.checkout(&sid, &hold, "cnon:card-nonce-ok"),
    )
    .await;
    assert!(crashed.is_err() || crashed.unwrap().status >= 500);

    // The buyer asks again with the same card: the same order, which the
    // alarm has finished or is finishing.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let answer = loop {
        let answer = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
        if answer.body["status"] == "paid" || std::time::Instant::now() > deadline {
            break answer;
        }
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    };
    assert_eq!(answer.body["status"], "paid", "{:?}", answer.body);
    let order_id = answer.body["order_id"].as_str().unwrap();
    assert_eq!(
        statuses(&payments(&stack).await),
        ["COMPLETED"],
        "one capture"
    );
    let live = stack
        .d1_query("SELECT order_id, status FROM tickets WHERE seat = 'B4' AND status <> 'void'");
    assert_eq!(
        live,
        [serde_json::json!({"order_id": order_id, "status": "valid"})]
    );
    assert_eq!(api.seat_map(&sid).await["B4"], "sold");
    // The panic broke the Wasm instance; src/entry.mjs started a new one
    // (and built the object again on it) for the requests after it.
    let log = stack.log();
    assert!(
        log.contains("RuntimeError: unreachable"),
        "{}",
        stack.log_tail()
    );
    assert!(
        log.contains("Reinitializing Wasm application"),
        "{}",
        stack.log_tail()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_ticket_written_out_of_band_voids_the_authorization() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    stack.d1_query(&format!(
        "INSERT INTO orders (id, showing_id, email, name, amount, currency, status, created_at_ms, updated_at_ms) \
         VALUES ('box-office-1', '{sid}', 'desk@example.com', 'Box office', 1200, 'USD', 'paid', 0, 0); \
         INSERT INTO tickets (id, order_id, showing_id, seat, status, created_at_ms) \
         VALUES ('box-office-1-1', 'box-office-1', '{sid}', 'A5', 'valid', 0)"
    ));
    let hold = api.hold(&sid, &["A5", "A6"], None).await;
    assert_eq!(hold.status, 201);
    let refused = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(refused.status, 409, "{:?}", refused.body);
    assert_eq!(refused.body["error"], "order_not_completed");
    assert_eq!(
        statuses(&payments(&stack).await),
        ["CANCELED"],
        "nothing charged"
    );
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A5"].as_str(), map["A6"].as_str()),
        (Some("available"), Some("available"))
    );
    let order_id = refused.body["order_id"].as_str().unwrap();
    let row = stack.d1_query(&format!(
        "SELECT status FROM orders WHERE id = '{order_id}'"
    ));
    assert_eq!(row, [serde_json::json!({"status": "needs_attention"})]);
    let live = stack.d1_query(&format!(
        "SELECT COUNT(*) AS n FROM tickets WHERE order_id = '{order_id}' AND status <> 'void'"
    ));
    assert_eq!(live[0]["n"], 0);
}

/// A card token from the other environment (a sandbox page against a
/// production account) is refused with 404 at once: the order fails with
/// that code after one CreatePayment, not a minute of retries, and the
/// key is voided in case the refusal hid a payment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_authorization_fails_at_once_and_is_voided_by_key() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["B8"], None).await;
    let started = std::time::Instant::now();
    let failed = api
        .checkout(&sid, &hold, "cnon:from-another-environment")
        .await;
    assert_eq!(
        (failed.status, &failed.body["error"], &failed.body["code"]),
        (
            402,
            &serde_json::json!("payment_failed"),
            &serde_json::json!("NOT_FOUND")
        ),
        "{:?}",
        failed.body
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let all = stack.square.calls().await;
    let calls: Vec<(&str, &str)> = all
        .iter()
        .map(|(m, p)| (m.as_str(), p.as_str()))
        .filter(|(_, path)| path.starts_with("/v2/payments"))
        .collect();
    assert_eq!(
        calls,
        [("POST", "/v2/payments"), ("POST", "/v2/payments/cancel")],
        "{all:?}"
    );
    assert_eq!(
        api.seat_map(&sid).await["B8"],
        "held",
        "the hold stays for another card"
    );
}

/// Square holds two payments PENDING for 30 s, twice what five unknown
/// answers used to allow, and sends no webhook: each is looked up with a
/// backoff and never made again or voided by key. The first is then
/// APPROVED and paid, its tickets mailed; the second FAILED, a decline
/// that keeps the buyer's hold for another card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn payments_pending_for_thirty_seconds_are_waited_for_then_paid_or_declined() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    stack
        .square
        .control("/_control/webhooks", json!({"hold": true}))
        .await;
    let pending = |then: &str| json!({"times": 1, "settle_after_ms": 30_000, "then": then});
    let checkout = |seat: &'static str, email: &'static str| {
        let (api, sid) = (api.clone(), sid.clone());
        tokio::spawn(async move {
            let hold = api.hold(&sid, &[seat], None).await;
            api.checkout_as(&sid, &hold, "cnon:card-nonce-ok", email, "Ana Lima")
                .await
        })
    };
    stack
        .square
        .control("/_control/payments/pending", pending("APPROVED"))
        .await;
    let approved = checkout("A7", "approved@example.com");
    // The plan is for the next payment: the second is made once the first is.
    while payments(&stack).await.is_empty() {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    stack
        .square
        .control("/_control/payments/pending", pending("FAILED"))
        .await;
    let failed = checkout("A8", "failed@example.com");
    let (approved, failed) = (approved.await.unwrap(), failed.await.unwrap());

    let until = |link: Value, want: &'static str| {
        let api = api.clone();
        async move {
            let link = link.as_str().expect("an order link").to_string();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
            loop {
                let order = api.get(&link).await.body;
                if order["order"]["status"] == want || std::time::Instant::now() > deadline {
                    return order;
                }
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            }
        }
    };
    let paid = until(approved.body["order_url"].clone(), "paid").await;
    assert_eq!(
        paid["order"]["status"],
        "paid",
        "{paid}\n{}",
        stack.log_tail()
    );
    let mails = stack.wait_for_mail("approved@example.com", 1);
    assert!(
        mails[0].subject.starts_with("Your tickets:"),
        "{}",
        mails[0].subject
    );
    let declined = until(failed.body["order_url"].clone(), "declined").await;
    assert_eq!(declined["order"]["status"], "declined", "{declined}");
    assert_eq!(
        api.seat_map(&sid).await["A8"],
        "held",
        "the hold stays for another card"
    );

    let all = stack.square.calls().await;
    let calls: Vec<(&str, &str)> = all.iter().map(|(m, p)| (m.as_str(), p.as_str())).collect();
    let count = |wanted: fn(&(&str, &str)) -> bool| calls.iter().filter(|c| wanted(c)).count();
    assert_eq!(
        count(|c| *c == ("POST", "/v2/payments")),
        2,
        "each made once: {calls:?}"
    );
    assert_eq!(
        count(|c| *c == ("POST", "/v2/payments/cancel")),
        0,
        "no void by key: {calls:?}"
    );
    // 1, 2, 4, 8 and 16 s apart: five lookups each until 30 s are up,
    // where four unknown answers used to give up.
    let lookups = count(|(m, p)| *m == "GET" && p.starts_with("/v2/payments/"));
    assert!(lookups >= 9, "looked up with a backoff: {calls:?}");
}

/// The checkout's own refund: the seller captured the authorization by hand
/// while it was slow, and the seat went to another buyer, so the checkout
/// refunds the money. It recorded that refund before asking for it, so
/// the refund's webhook is not taken for one made in the Dashboard: no
/// "choose its tickets" alert.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checkouts_own_refund_is_known_for_what_it_is() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(short_holds()).await;
    stack
        .square
        .control(
            "/_control/faults",
            serde_json::json!({"endpoint": "create_payment", "fault": {"delay_ms": 3000}, "times": 1}),
        )
        .await;
    let first = api.hold(&sid, &["A1"], None).await;
    let paying = {
        let (api, sid, first) = (api.clone(), sid.clone(), first.clone());
        tokio::spawn(async move { api.checkout(&sid, &first, "cnon:card-nonce-ok").await })
    };
    // The authorization Square is slow to answer is made as soon as it
    // is asked for; the seller captures it by hand.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let payment = loop {
        if let Some(first) = payments(&stack).await.first() {
            break first["id"].as_str().unwrap().to_string();
        }
        assert!(std::time::Instant::now() < deadline, "no payment was made");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    stack
        .square
        .control(
            &format!("/_control/payments/{payment}/capture"),
            serde_json::json!({}),
        )
        .await;
    // The paying hold lasts a second: another buyer takes the seat once
    // it has lapsed, which the Square answer still outlasts.
    let rival = loop {
        let rival = api.hold(&sid, &["A1"], None).await;
        if rival.status != 409 {
            break rival;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the seat never came back"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    assert_eq!(rival.status, 201, "{:?}", rival.body);
    let bought = api.checkout(&sid, &rival, "cnon:card-nonce-ok").await;
    assert_eq!(bought.status, 201, "{:?}", bought.body);
    let lost = paying.await.unwrap();
    let order_id = lost.body["order_id"].as_str().unwrap().to_string();

    // The money comes back, and the refund's webhook has been handled.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let refunds = stack.d1_query(&format!(
            "SELECT id, status, ticket_ids FROM refunds WHERE order_id = '{order_id}'"
        ));
        let unhandled =
            stack.d1_query("SELECT COUNT(*) AS n FROM webhook_events WHERE handled_at_ms IS NULL");
        let done =
            refunds.len() == 1 && refunds[0]["status"] == "COMPLETED" && unhandled[0]["n"] == 0;
        if done {
            assert_eq!(refunds[0]["ticket_ids"], "[]", "{refunds:?}");
            assert!(
                !refunds[0]["id"].as_str().unwrap().starts_with("square:"),
                "recorded before it was asked for: {refunds:?}"
            );
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "refunded: {refunds:?}\n{}",
            stack.log_tail()
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
    let attention = api
        .admin(e2e::Method::GET, "/api/admin/attention", None)
        .await
        .body;
    let kinds: Vec<&str> = attention["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["order_id"] == order_id.as_str())
        .map(|i| i["kind"].as_str().unwrap())
        .collect();
    assert!(
        !kinds.contains(&"partial_refund"),
        "a false alert: {kinds:?}"
    );
    let square_refunds = stack.square.get("/_control/refunds").await;
    assert_eq!(square_refunds["refunds"].as_array().unwrap().len(), 1);
}

/// A card tester runs stolen cards through one hold, then through new
/// holds from the same address: three cards a hold, then a budget per
/// address, each refused with 429 before Square is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_testing_is_refused_before_square_is_asked() {
    let stack = Stack::start_with(
        StackOptions::default()
            .var("CARD_ATTEMPTS_BURST", "4")
            .var("CARD_ATTEMPTS_PER_HOUR", "1"),
    );
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let creates = || async {
        stack
            .square
            .calls()
            .await
            .iter()
            .filter(|(m, p)| m == "POST" && p == "/v2/payments")
            .count()
    };
    let hold = api.hold(&sid, &["A1"], None).await;
    for card in [
        "cnon:card-nonce-declined",
        "cnon:card-nonce-rejected-cvv",
        "cnon:card-nonce-rejected-postalcode",
    ] {
        let declined = api.checkout(&sid, &hold, card).await;
        assert_eq!(declined.status, 402, "{:?}", declined.body);
    }
    let fourth = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(
        (fourth.status, &fourth.body["error"]),
        (429, &json!("too_many_attempts")),
        "{:?}",
        fourth.body
    );
    assert!(fourth.retry_after.is_some(), "says when");
    assert_eq!(creates().await, 3, "Square saw three cards");

    // A new hold from the same address: one card left in the budget.
    let other = api.hold(&sid, &["B1"], None).await;
    let declined = api
        .checkout(&sid, &other, "cnon:card-nonce-rejected-expiration")
        .await;
    assert_eq!(declined.status, 402, "{:?}", declined.body);
    let third_hold = api.hold(&sid, &["B2"], None).await;
    let refused = api.checkout(&sid, &third_hold, "cnon:card-nonce-ok").await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (429, &json!("too_many_attempts")),
        "{:?}",
        refused.body
    );
    assert_eq!(creates().await, 4);
    assert_eq!(
        api.seat_map(&sid).await["B2"],
        "held",
        "the seats stay held"
    );
}

/// At a location in pounds Square asks for buyer verification on wallet
/// payments too: a Google Pay token charged without `verifyBuyer()`'s
/// token is declined `CARD_DECLINED_VERIFICATION_REQUIRED` (the hold kept
/// for another try), and one charged with it is paid, the token sent on
/// to CreatePayment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wallet_payment_in_pounds_is_paid_only_with_its_buyer_verification() {
    let stack = Stack::start_with(StackOptions::default().square_currency("GBP"));
    let api = Api::new(&stack);
    let mut room = sixteen_seat_room(None);
    room["price"] = json!({"amount": 1200, "currency": "GBP"});
    let sid = api.create_showing(room).await;
    let wallet_token = || async {
        let made = stack
            .square
            .control(
                "/_sdk/tokenize",
                json!({
                    "application_id": e2e::square::APPLICATION_ID,
                    "location_id": e2e::square::LOCATION_ID,
                    "wallet": true,
                    "card_number": "4111111111111111", "expiration": "12/40",
                    "cvv": "111", "postal_code": "SW1A 1AA",
                }),
            )
            .await;
        made["token"].as_str().expect("a wallet token").to_string()
    };
    let pay = |hold: Value, source_id: String, verification: Option<String>| {
        let api = api.clone();
        let path = format!(
            "/api/showings/{sid}/holds/{}/checkout",
            hold["hold_id"].as_str().unwrap()
        );
        async move {
            let mut body =
                json!({"source_id": source_id, "email": "ana@example.com", "name": "Ana Lima"});
            if let Some(token) = verification {
                body["verification_token"] = json!(token);
            }
            let cookie = hold["cookie"].as_str().unwrap().to_string();
            api.send(
                Method::POST,
                &path,
                Some(body.to_string().into_bytes()),
                &[("cookie", cookie.as_str())],
            )
            .await
        }
    };
    let held = api.hold(&sid, &["A1"], None).await;
    let hold = json!({"hold_id": held.body["hold_id"], "cookie": held.cookie});

    let unverified = pay(hold.clone(), wallet_token().await, None).await;
    assert_eq!(
        (unverified.status, &unverified.body["code"]),
        (402, &json!("CARD_DECLINED_VERIFICATION_REQUIRED")),
        "{:?}",
        unverified.body
    );
    assert_eq!(
        api.seat_map(&sid).await["A1"],
        "held",
        "kept for another try"
    );

    let token = wallet_token().await;
    let details = json!({
        "amount": "12.00", "currencyCode": "GBP", "intent": "CHARGE",
        "customerInitiated": true, "sellerKeyedIn": false,
        "billingContact": {"givenName": "Ana", "familyName": "Lima", "email": "ana@example.com", "countryCode": "GB"},
    });
    let verified = stack
        .square
        .control(
            "/_sdk/verify-buyer",
            json!({"source_id": token, "verification_details": details}),
        )
        .await;
    let verification = verified["token"]
        .as_str()
        .expect("a verification token")
        .to_string();
    let paid = pay(hold, token, Some(verification.clone())).await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    assert_eq!(api.seat_map(&sid).await["A1"], "sold");
    let requests = stack.square.get("/_control/requests").await;
    let sent: Vec<&Value> = requests["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["method"] == "POST" && r["path"] == "/v2/payments")
        .map(|r| &r["body"]["verification_token"])
        .collect();
    assert_eq!(sent, [&Value::Null, &json!(verification)]);

    // A verification token with no card is refused before the showing is asked.
    let free = api.hold(&sid, &["A2"], None).await;
    let hold = json!({"hold_id": free.body["hold_id"], "cookie": free.cookie});
    let refused = pay(hold, String::new(), Some(verification)).await;
    assert_eq!(
        (refused.status, &refused.body["field"]),
        (400, &json!("verification_token")),
        "{:?}",
        refused.body
    );
}

/// The Worker does not lean on the stand-in's guesses: with the other
/// reading of several (a repeated capture refused, no webhook for a
/// decline, an unknown card token a 400, Square cancelling a PENDING
/// payment), a capture whose answer was lost still ends paid, a decline
/// still keeps the hold, and a stray token is still a failed payment.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_checkout_holds_under_the_other_reading_of_squares_undocumented_answers() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    stack
        .square
        .control(
            "/_control/guesses",
            json!({"repeated_move": "refused", "declined_webhook": false,
                   "unknown_source": "invalid", "pending_moves": "accepted", "decline_status": 402}),
        )
        .await;
    stack.square.lose_the_next_captures_answer().await;
    let hold = api.hold(&sid, &["A1"], None).await;
    let answer = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    let link = answer.body["order_url"].as_str().unwrap().to_string();
    let paid = order_until(&api, &link, "paid").await;
    assert_eq!(paid["order"]["status"], "paid", "{paid}");

    let hold = api.hold(&sid, &["A2"], None).await;
    let declined = api.checkout(&sid, &hold, "cnon:card-nonce-declined").await;
    assert_eq!(
        (declined.status, &declined.body["error"]),
        (402, &json!("card_declined")),
        "{:?}",
        declined.body
    );
    assert_eq!(api.seat_map(&sid).await["A2"], "held");
    let stray = api.checkout(&sid, &hold, "cnon:never-made").await;
    assert_eq!(
        (stray.status, &stray.body["error"], &stray.body["code"]),
        (402, &json!("payment_failed"), &json!("INVALID_VALUE")),
        "{:?}",
        stray.body
    );
}

/// A payment still PENDING when the paying hold runs out (five seconds
/// here): the buyer's order fails with `PAYMENT_STILL_PENDING`, nothing
/// waits for staff, and once Square approves it the checkout cancels it
/// by its id, so the buyer's money is not held for the authorization's
/// six hours.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payment_pending_past_the_hold_fails_and_is_cancelled_by_id_once_approved() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut room = sixteen_seat_room(Some(5_000));
    room["payment_cap_ms"] = json!(5_000);
    let sid = api.create_showing(room).await;
    stack
        .square
        .control(
            "/_control/payments/pending",
            json!({"times": 1, "settle_after_ms": 10_000}),
        )
        .await;
    let hold = api.hold(&sid, &["A3"], None).await;
    let answer = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    let link = answer.body["order_url"].as_str().unwrap().to_string();
    let failed = order_until(&api, &link, "failed").await;
    assert_eq!(failed["order"]["status"], "failed", "{failed}");

    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(90);
    let status = loop {
        let status = payments(&stack).await[0]["status"]
            .as_str()
            .unwrap()
            .to_string();
        if status == "CANCELED" || std::time::Instant::now() > deadline {
            break status;
        }
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    };
    let all = stack.square.calls().await;
    assert_eq!(status, "CANCELED", "{all:?}");
    assert!(
        all.iter()
            .any(|(m, p)| m == "POST" && p.ends_with("/cancel") && p != "/v2/payments/cancel"),
        "cancelled by its id: {all:?}"
    );
    assert!(
        !all.iter().any(|(_, p)| p == "/v2/payments/cancel"),
        "never by key: {all:?}"
    );
    let attention = api.admin(Method::GET, "/api/admin/attention", None).await;
    assert_eq!(attention.body["items"], json!([]), "{:?}", attention.body);
}
