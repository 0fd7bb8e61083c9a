//! The box office: staff sell seats for cash or on the cinema's own card
//! terminal, or give them (a comp, with its reason), through the same
//! object and D1 backstop as an online sale but with nothing charged
//! through Square; totals and the CSV keep online, box office and comps
//! apart; undoing a box-office sale asks nothing of Square; cancelling the
//! showing refunds the online orders and lists the box office's for staff.

use e2e::{family_showing, Api, Stack};
use serde_json::{json, Value};

async fn sell(api: &Api, sid: &str, body: Value) -> e2e::Reply {
    api.admin_post(&format!("/api/admin/showings/{sid}/box-office"), Some(body))
        .await
}

/// The stand-in's calls that would move money.
async fn square_money_calls(stack: &Stack) -> usize {
    stack
        .square
        .calls()
        .await
        .iter()
        .filter(|(m, p)| m == "POST" && (p.starts_with("/v2/payments") || p == "/v2/refunds"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_box_office_sells_and_gives_seats_without_square_and_keeps_them_apart() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(family_showing()).await;
    let online = api.buy(&sid, &["A8"]).await;
    let online_id = online.body["order_id"].as_str().unwrap().to_string();
    let calls_before = square_money_calls(&stack).await;

    // Cash, an adult and a child.
    let cash = sell(
        &api,
        &sid,
        json!({"seats": ["A1", "A2"], "prices": {"A2": "child"}, "paid": "cash", "name": "Walk-in"}),
    )
    .await;
    assert_eq!(cash.status, 201, "{:?}", cash.body);
    assert_eq!(cash.body["status"], "paid");
    assert_eq!(cash.body["tickets"][1]["price_name"], "Child");
    assert!(cash.body["order_page"]
        .as_str()
        .unwrap()
        .starts_with("/orders/"));
    let cash_id = cash.body["order_id"].as_str().unwrap().to_string();
    let code = cash.body["tickets"][0]["code"].as_str().unwrap();
    assert_eq!(api.door_scan(code, &sid).await["result"], "admitted");

    // A comp needs its reason; then it is free.
    let no_reason = sell(&api, &sid, json!({"seats": ["A3"], "paid": "comp"})).await;
    assert_eq!(
        (no_reason.status, &no_reason.body["error"]),
        (400, &json!("invalid_sale"))
    );
    assert_eq!(api.seat_map(&sid).await["A3"], "available", "nothing held");
    let comp = sell(
        &api,
        &sid,
        json!({"seats": ["A3"], "paid": "comp", "reason": "Press screening"}),
    )
    .await;
    assert_eq!(comp.status, 201, "{:?}", comp.body);
    // The cinema's own card terminal, with the guest's e-mail: mailed.
    let card = sell(
        &api,
        &sid,
        json!({"seats": ["A4"], "paid": "card_at_desk", "name": "Bo", "email": "bo@example.com"}),
    )
    .await;
    assert_eq!(card.status, 201, "{:?}", card.body);
    let mails = stack.wait_for_mail("bo@example.com", 1);
    assert_eq!(mails.len(), 1, "the tickets mail");
    // A seat already sold is refused like any hold.
    let taken = sell(&api, &sid, json!({"seats": ["A1"], "paid": "cash"})).await;
    assert_eq!(
        (taken.status, &taken.body["error"]),
        (409, &json!("seats_unavailable"))
    );
    assert_eq!(
        square_money_calls(&stack).await,
        calls_before,
        "nothing asked of Square"
    );

    let orders = stack.d1_query(&format!(
        "SELECT channel, amount, payment_id, comp_reason FROM orders \
         WHERE showing_id = '{sid}' ORDER BY created_at_ms"
    ));
    assert_eq!(
        orders,
        [
            json!({"channel": "online", "amount": 1200, "payment_id": stack.payment_of(&online_id), "comp_reason": null}),
            json!({"channel": "cash", "amount": 2000, "payment_id": null, "comp_reason": null}),
            json!({"channel": "comp", "amount": 0, "payment_id": null, "comp_reason": "Press screening"}),
            json!({"channel": "card_at_desk", "amount": 1200, "payment_id": null, "comp_reason": null}),
        ]
    );
    let totals = api.totals(&sid).await;
    assert_eq!(
        (
            &totals["taken"],
            &totals["desk_cash"],
            &totals["desk_card"],
            &totals["sold_online"],
            &totals["sold_at_desk"],
            &totals["comps"]
        ),
        (
            &json!(1200),
            &json!(2000),
            &json!(1200),
            &json!(1),
            &json!(3),
            &json!(1)
        ),
        "{totals}"
    );
    let text = api.tickets_csv(&sid).await;
    assert!(
        text.lines()
            .any(|l| l.starts_with("\"A3\",") && l.contains(",\"comp\",\"Press screening\",")),
        "{text}"
    );
    assert!(text.lines().any(|l| l.starts_with("\"A2\",")
        && l.contains(",\"Child\",\"8.00\",\"8.00\",\"0.00\",\"0.00%\",\"USD\",")));

    // Undone at the desk: void and back on sale, nothing asked of Square.
    let undone = api
        .admin_post(&format!("/api/admin/orders/{cash_id}/refund"), None)
        .await;
    assert_eq!(
        (
            undone.status,
            &undone.body["status"],
            &undone.body["amount"]
        ),
        (202, &json!("COMPLETED"), &json!(2000)),
        "{:?}",
        undone.body
    );
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A1"].as_str(), map["A2"].as_str()),
        (Some("available"), Some("available"))
    );
    assert_eq!(square_money_calls(&stack).await, calls_before);
    let totals = api.totals(&sid).await;
    assert_eq!(totals["desk_refunded"], 2000, "{totals}");
    assert_eq!(totals["refunded"], 0, "no online refund");

    // Cancelled: the online order is refunded through Square; the box
    // office's are listed for staff, and their guest is told to come back.
    let cancelled = api
        .admin_post(
            &format!("/api/admin/showings/{sid}/cancel"),
            Some(json!({"reason": "The projector broke."})),
        )
        .await;
    assert_eq!(cancelled.status, 200, "{:?}", cancelled.body);
    assert_eq!(cancelled.body["refunds"].as_array().unwrap().len(), 1);
    assert_eq!(cancelled.body["refunds"][0]["order_id"], online_id.as_str());
    let listed: Vec<&str> = cancelled.body["box_office"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["channel"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["comp", "card_at_desk"]);
    let mails = stack.wait_for_mail("bo@example.com", 2);
    let told = &mails[1];
    assert!(
        told.text.contains("at our box office") && !told.text.contains("to the card you paid with"),
        "{}",
        told.text
    );
}
