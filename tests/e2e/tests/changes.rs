//! Buyers cancelling their own tickets within their showing's policy:
//! what comes back is the price less the fee on each, the seats reopen,
//! and past the cut-off, or where the policy forbids it, nothing moves.

use e2e::{sixteen_seat_room, Api, Method, Stack};
use serde_json::{json, Value};

/// The refunds Square was asked for, with their amounts.
async fn refunds_at_square(stack: &Stack) -> Vec<u64> {
    let refunds = stack.square.get("/_control/refunds").await;
    refunds["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["amount_money"]["amount"].as_u64().unwrap())
        .collect()
}

fn cancel_url(order_url: &str) -> String {
    let (path, query) = order_url.split_once('?').unwrap();
    format!("{path}/cancel?{query}")
}

async fn cancel(api: &Api, order_url: &str, tickets: Value) -> e2e::Reply {
    let body = json!({ "tickets": tickets }).to_string().into_bytes();
    api.send(Method::POST, &cancel_url(order_url), Some(body), &[])
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_cancels_within_the_policy_and_not_after_it() {
    let stack = Stack::start();
    let api = Api::new(&stack);

    // A showing far ahead: buyers may cancel until two hours before it,
    // keeping 10% of each ticket.
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let policy = json!({"cancel": {"until_minutes_before": 120, "fee": {"percent": 10}}});
    let set = api
        .admin(
            Method::PUT,
            &format!("/api/admin/showings/{sid}/policy"),
            Some(policy),
        )
        .await;
    assert_eq!(set.status, 200, "{:?}", set.body);
    let paid = api.buy(&sid, &["A1", "A2"]).await;
    let order_url = paid.body["order_url"].as_str().unwrap().to_string();
    let a1 = paid.body["tickets"][0]["id"].as_str().unwrap().to_string();
    let a2 = paid.body["tickets"][1]["id"].as_str().unwrap().to_string();

    // The order page is told what each ticket would bring back.
    let order = api.get(&order_url).await.body;
    let offer = &order["changes"]["cancel"];
    assert_eq!(offer["open"], true, "{order}");
    assert_eq!(
        offer["tickets"],
        json!([{"id": a1, "refund": 1080}, {"id": a2, "refund": 1080}])
    );

    // Nothing moves for a stranger, a malformed list or a ticket not of
    // this order.
    let stranger = api
        .send(
            Method::POST,
            &cancel_url(&order_url.replace("key=", "key=x")),
            Some(json!({"tickets": [a1]}).to_string().into_bytes()),
            &[],
        )
        .await;
    assert_eq!(stranger.status, 404);
    let empty = cancel(&api, &order_url, json!([])).await;
    assert_eq!(
        (empty.status, &empty.body["error"]),
        (400, &json!("invalid_request"))
    );
    let other = cancel(&api, &order_url, json!(["not-a-ticket-of-it"])).await;
    assert_eq!(
        (other.status, &other.body["error"]),
        (400, &json!("unknown_tickets"))
    );
    assert!(refunds_at_square(&stack).await.is_empty());

    // One of two: 12.00 less 10% comes back; A1 reopens, A2 stays sold.
    let cancelled = cancel(&api, &order_url, json!([a1])).await;
    assert_eq!(cancelled.status, 202, "{:?}", cancelled.body);
    assert_eq!(cancelled.body["amount"], 1080);
    assert_eq!(cancelled.body["fee"], json!({"percent": 10}));
    assert_eq!(refunds_at_square(&stack).await, [1080]);
    let map = api.seat_map_when(&sid, "A1", "available").await;
    assert_eq!(
        (map["A1"].as_str(), map["A2"].as_str()),
        (Some("available"), Some("sold"))
    );
    // Asked again, the same cancellation answers the same refund.
    let again = cancel(&api, &order_url, json!([a1])).await;
    assert!(
        again.status == 400 || again.body["refund_id"] == cancelled.body["refund_id"],
        "{:?}",
        again.body
    );
    assert_eq!(refunds_at_square(&stack).await, [1080]);
    let code = paid.body["tickets"][0]["code"].as_str().unwrap();
    assert_eq!(api.door_scan(code, &sid).await["result"], "void");
    let order = api.get(&order_url).await.body;
    assert_eq!(order["order"]["status"], "paid");
    assert_eq!(
        order["changes"]["cancel"]["tickets"],
        json!([{"id": a2, "refund": 1080}])
    );

    // An admitted ticket is no longer the buyer's to cancel.
    let a2_code = paid.body["tickets"][1]["code"].as_str().unwrap();
    assert_eq!(api.door_scan(a2_code, &sid).await["result"], "admitted");
    let used = cancel(&api, &order_url, json!([a2])).await;
    assert_eq!(
        (used.status, &used.body["error"]),
        (409, &json!("ticket_checked_in"))
    );

    // A showing starting in half an hour is past its two-hour cut-off.
    let soon = jiff::Timestamp::now() + jiff::SignedDuration::from_mins(30);
    let mut body = sixteen_seat_room(None);
    body["starts_at"] = json!(soon.strftime("%Y-%m-%dT%H:%M:%SZ").to_string());
    let soon_id = api.create_showing(body).await;
    let policy = json!({"cancel": {"until_minutes_before": 120, "fee": {"fixed": 150}}});
    let set = api
        .admin(
            Method::PUT,
            &format!("/api/admin/showings/{soon_id}/policy"),
            Some(policy),
        )
        .await;
    assert_eq!(set.status, 200, "{:?}", set.body);
    let late = api.buy(&soon_id, &["B1"]).await;
    let late_url = late.body["order_url"].as_str().unwrap().to_string();
    let b1 = late.body["tickets"][0]["id"].clone();
    let closed = cancel(&api, &late_url, json!([b1])).await;
    assert_eq!(
        (closed.status, &closed.body["error"]),
        (409, &json!("cancel_closed"))
    );
    assert!(
        closed.body["closed_at_ms"].as_u64().is_some(),
        "{:?}",
        closed.body
    );
    let order = api.get(&late_url).await.body;
    assert_eq!(order["changes"]["cancel"]["reason"], "cancel_closed");

    // The cinema's default here lets no buyer cancel.
    let plain = api.create_showing(sixteen_seat_room(None)).await;
    let kept = api.buy(&plain, &["B2"]).await;
    let kept_url = kept.body["order_url"].as_str().unwrap().to_string();
    let refused = cancel(&api, &kept_url, json!([kept.body["tickets"][0]["id"]])).await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (409, &json!("not_cancellable"))
    );
    assert_eq!(refunds_at_square(&stack).await, [1080]);

    // Staff may not set a policy out of bounds.
    let greedy = api
        .admin(
            Method::PUT,
            &format!("/api/admin/showings/{plain}/policy"),
            Some(json!({"cancel": {"until_minutes_before": 60, "fee": {"percent": 150}}})),
        )
        .await;
    assert_eq!(
        (greedy.status, &greedy.body["field"]),
        (400, &json!("cancel.fee"))
    );

    // The buyer hears of the refund once it completes.
    let mails = stack.wait_for_mail("ana@example.com", 4);
    assert!(
        mails
            .iter()
            .any(|m| m.subject.starts_with("Refund of $10.80")),
        "{:?}",
        mails.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
}
