//! A showing's price categories: each seat priced by the category its buyer
//! chose, when it was held; the sum charged; each ticket carrying its
//! category and price, to the order page, the CSV and refunds.

use e2e::{family_showing, Api, Method, Stack};
use serde_json::{json, Value};

/// Holds with the given prices (seat → category), as a new buyer.
async fn hold(api: &Api, sid: &str, seats: &[&str], prices: Value) -> e2e::Reply {
    api.send(
        Method::POST,
        &format!("/api/showings/{sid}/holds"),
        Some(
            json!({"seats": seats, "prices": prices})
                .to_string()
                .into_bytes(),
        ),
        &[],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mixed_hold_charges_the_sum_at_the_prices_it_was_held_at() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(family_showing()).await;

    let unknown = hold(&api, &sid, &["A1"], json!({"A1": "senior"})).await;
    assert_eq!(
        (unknown.status, &unknown.body["error"]),
        (400, &json!("unknown_price")),
        "{:?}",
        unknown.body
    );
    assert_eq!(unknown.body["prices"], json!(["adult", "child"]));
    let stray = hold(&api, &sid, &["A1"], json!({"A2": "child"})).await;
    assert_eq!(
        (stray.status, &stray.body["error"]),
        (400, &json!("unknown_price"))
    );
    assert_eq!(api.seat_map(&sid).await["A1"], "available", "nothing held");

    let held = hold(&api, &sid, &["A1", "A2"], json!({"A2": "child"})).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    assert_eq!(
        held.body["amount"],
        json!({"amount": 2000, "currency": "USD"})
    );
    assert_eq!(held.body["prices"][1]["name"], "Child");
    assert_eq!(held.body["prices"][1]["amount_minor"], 800);

    // Staff raise the prices while the buyer is paying: the hold keeps its own.
    let mut dearer = family_showing();
    dearer["prices"][0]["amount"] = json!(1500);
    dearer["prices"][1]["amount"] = json!(900);
    let edited = api
        .admin(
            Method::PUT,
            &format!("/api/admin/showings/{sid}"),
            Some(dearer),
        )
        .await;
    assert_eq!(edited.status, 200, "{:?}", edited.body);
    let paid = api.checkout(&sid, &held, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    let requests = stack.square.get("/_control/requests").await;
    let charged: Vec<&Value> = requests["requests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["method"] == "POST" && r["path"] == "/v2/payments")
        .map(|r| &r["body"]["amount_money"]["amount"])
        .collect();
    assert_eq!(charged, [&json!(2000)], "adult 1200 + child 800");

    let order_id = paid.body["order_id"].as_str().unwrap().to_string();
    let tickets = stack.d1_query(&format!(
        "SELECT seat, price_category, price_name, price_amount FROM tickets \
         WHERE order_id = '{order_id}' ORDER BY seat"
    ));
    assert_eq!(
        tickets,
        [
            json!({"seat": "A1", "price_category": "adult", "price_name": "Adult", "price_amount": 1200}),
            json!({"seat": "A2", "price_category": "child", "price_name": "Child", "price_amount": 800}),
        ]
    );
    let link = paid.body["order_url"].as_str().unwrap();
    let order = api.get(link).await;
    assert_eq!(
        order.body["tickets"][1]["price_name"], "Child",
        "{:?}",
        order.body
    );
    assert_eq!(order.body["tickets"][1]["price_amount"], 800);

    // A new hold takes the new prices.
    let later = hold(&api, &sid, &["A3"], json!({"A3": "child"})).await;
    assert_eq!(later.body["amount"]["amount"], 900, "{:?}", later.body);

    // Refunding the child's ticket gives back what it cost.
    let child = paid.body["tickets"][1]["id"].clone();
    let refund = api
        .admin_post(
            &format!("/api/admin/orders/{order_id}/refund"),
            Some(json!({"ticket_ids": [child]})),
        )
        .await;
    assert_eq!(
        (refund.status, &refund.body["amount"]),
        (202, &json!(800)),
        "{:?}",
        refund.body
    );
}
