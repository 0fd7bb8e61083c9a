//! Cancelling a showing: sales stop at once, every paid order is refunded
//! whole through Square once, every buyer is mailed, the listing says so,
//! and cancelling again changes nothing.

use std::time::{Duration, Instant};

use e2e::{sixteen_seat_room, Api, Stack};
use serde_json::{json, Value};

const BUYERS: [&str; 3] = ["ana@example.com", "bob@example.com", "cy@example.com"];

async fn square_refunds(stack: &Stack) -> Vec<Value> {
    stack.square.get("/_control/refunds").await["refunds"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_refunds_each_paid_order_once_and_mails_each_buyer() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let mut orders = Vec::new();
    let mut codes = Vec::new();
    for (i, email) in BUYERS.iter().enumerate() {
        let seat = format!("A{}", i + 1);
        let hold = api.hold(&sid, &[&seat], None).await;
        let paid = api
            .checkout_as(&sid, &hold, "cnon:card-nonce-ok", email, "Buyer")
            .await;
        assert_eq!(paid.status, 201, "{:?}", paid.body);
        orders.push(paid.body["order_id"].as_str().unwrap().to_string());
        codes.push(
            paid.body["tickets"][0]["code"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // Someone is choosing seats as the showing is cancelled.
    let choosing = api.hold(&sid, &["B1"], None).await;
    assert_eq!(choosing.status, 201);

    let path = format!("/api/admin/showings/{sid}/cancel");
    let too_long = api
        .admin_post(&path, Some(json!({"reason": "x".repeat(501)})))
        .await;
    assert_eq!(
        (too_long.status, &too_long.body["error"]),
        (400, &json!("invalid_reason"))
    );
    let reason = "The projector broke; we are sorry.";
    let cancelled = api
        .admin_post(&path, Some(json!({ "reason": reason })))
        .await;
    assert_eq!(cancelled.status, 200, "{:?}", cancelled.body);
    assert_eq!(cancelled.body["new"], true);
    assert_eq!(cancelled.body["more"], false);
    assert_eq!(cancelled.body["refused"], json!([]));
    let refunded: Vec<&str> = cancelled.body["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["order_id"].as_str().unwrap())
        .collect();
    assert_eq!(refunded, orders);

    // The door turns the tickets away at once, before their refunds are
    // through.
    assert_eq!(api.door_scan(&codes[1], &sid).await["result"], "cancelled");
    // A device offline since before the cancellation sends its admission
    // of a ticket: the scan is recorded, but admits no one (the check
    // below finds no ticket let in), whether or not the refund voided it.
    let (session, _) = api.door_session(&sid).await;
    let sync = |scan: Value| {
        let (api, session) = (api.clone(), session.clone());
        let batch = json!({"showing_id": sid, "scans": [scan]});
        async move {
            api.send(
                e2e::Method::POST,
                "/api/door/sync",
                Some(batch.to_string().into_bytes()),
                &[("x-door-session", session.as_str())],
            )
            .await
        }
    };
    let at = e2e::now_ms();
    let admitted =
        sync(json!({"id": "c-0", "code": codes[1], "at_ms": at, "result": "admitted"})).await;
    assert_eq!(admitted.status, 200, "{:?}", admitted.body);
    let outcome = admitted.body["scans"][0]["outcome"].as_str();
    assert!(
        matches!(outcome, Some("cancelled" | "void")),
        "{:?}",
        admitted.body
    );

    // Sales stop at once: the open hold was released, and nothing new is
    // held; the listing says cancelled.
    let refused = api.hold(&sid, &["B2"], None).await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (409, &json!("showing_cancelled"))
    );
    assert_eq!(api.seat_map(&sid).await["B1"], "available");
    let listing = api.get("/api/showings").await.body;
    let listed = listing["showings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == sid.as_str())
        .cloned()
        .unwrap();
    assert_eq!(listed["cancelled"], true);
    let one = api.get(&format!("/api/showings/{sid}")).await.body;
    assert_eq!(one["showing"]["cancel_reason"], reason);

    // Square completes the three refunds: every ticket is void, every
    // order refunded, no ticket was let in, and the door still says why.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let open = stack.d1_query(&format!(
            "SELECT COUNT(*) AS n FROM orders WHERE showing_id = '{sid}' AND status <> 'refunded'"
        ))[0]["n"]
            .as_u64();
        if open == Some(0) {
            break;
        }
        assert!(Instant::now() < deadline, "every order refunded");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let live = stack.d1_query(&format!(
        "SELECT COUNT(*) AS n FROM tickets WHERE showing_id = '{sid}' AND status <> 'void'"
    ));
    assert_eq!(live[0]["n"], 0);
    let admitted = stack.d1_query(&format!(
        "SELECT COUNT(*) AS n FROM tickets WHERE showing_id = '{sid}' AND checked_in_at_ms IS NOT NULL"
    ));
    assert_eq!(admitted[0]["n"], 0);
    assert_eq!(api.door_scan(&codes[0], &sid).await["result"], "cancelled");
    // A device whose ticket list came after the cancellation, offline
    // since, turned a ticket away as cancelled: its scan is taken when it
    // syncs.
    let synced =
        sync(json!({"id": "c-1", "code": codes[2], "at_ms": e2e::now_ms(), "result": "cancelled"}))
            .await;
    assert_eq!(synced.status, 200, "{:?}", synced.body);
    assert_eq!(synced.body["scans"][0]["outcome"], "void");
    let recorded = stack.d1_query(&format!(
        "SELECT scan_id FROM door_scans WHERE showing_id = '{sid}' ORDER BY scan_id"
    ));
    assert_eq!(
        recorded,
        [json!({"scan_id": "c-0"}), json!({"scan_id": "c-1"})]
    );
    let refunds = square_refunds(&stack).await;
    assert_eq!(refunds.len(), 3, "{refunds:?}");
    for refund in &refunds {
        assert_eq!(refund["amount_money"]["amount"], 1200, "{refund}");
    }

    // Each buyer: the tickets, the cancellation (with its reason), then
    // the refund confirmation.
    for email in BUYERS {
        let mails = stack.wait_for_mail(email, 3);
        let subjects: Vec<&str> = mails.iter().map(|m| m.subject.as_str()).collect();
        assert_eq!(mails.len(), 3, "{email}: {subjects:?}");
        let cancel = mails
            .iter()
            .find(|m| m.subject.starts_with("Cancelled: Paris, Texas"))
            .unwrap_or_else(|| panic!("{email}: {subjects:?}"));
        assert!(cancel.text.contains(reason), "{}", cancel.text);
        assert!(
            subjects.iter().any(|s| s.starts_with("Refund of $12.00")),
            "{subjects:?}"
        );
    }

    // Cancelling again: the same time, nothing refunded or mailed twice.
    let again = api
        .admin_post(&path, Some(json!({"reason": "another"})))
        .await;
    assert_eq!(again.status, 200, "{:?}", again.body);
    assert_eq!(again.body["new"], false);
    assert_eq!(
        again.body["cancelled_at_ms"],
        cancelled.body["cancelled_at_ms"]
    );
    assert_eq!(again.body["refunds"], json!([]));
    stack.run_sweep().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(square_refunds(&stack).await.len(), 3);
    let one = api.get(&format!("/api/showings/{sid}")).await.body;
    assert_eq!(one["showing"]["cancel_reason"], reason);
    for email in BUYERS {
        let sent = stack.sent_to(email);
        assert_eq!(sent, 3, "{email}");
    }
    let settled = stack.d1_query(&format!(
        "SELECT cancel_settled_at_ms IS NOT NULL AS done FROM showings WHERE id = '{sid}'"
    ));
    assert_eq!(settled[0]["done"], 1, "the sweep stopped looking at it");
}
