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
        (stray.status, &stray.body["error"], &stray.body["field"]),
        (400, &json!("invalid_request"), &json!("prices"))
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
    let ticket_page = api
        .get(order.body["tickets"][1]["page_url"].as_str().unwrap())
        .await;
    let html = ticket_page.body.as_str().expect("the ticket page");
    assert!(
        html.contains("<strong>Seat A2</strong> · Child $8.00"),
        "{html}"
    );

    // A new hold takes the new prices.
    let later = hold(&api, &sid, &["A3"], json!({"A3": "child"})).await;
    assert_eq!(later.body["amount"]["amount"], 900, "{:?}", later.body);

    // Refunding the child's ticket gives back what it cost.
    let child = paid.body["tickets"][1]["id"].clone();
    let refund = api.refund_tickets(&order_id, &[child]).await;
    assert_eq!(
        (refund.status, &refund.body["amount"]),
        (202, &json!(800)),
        "{:?}",
        refund.body
    );
}

/// Pays for a hold with no card: the buyer's name and e-mail only.
async fn checkout_without_card(api: &Api, sid: &str, hold: &e2e::Reply) -> e2e::Reply {
    let hold_id = hold.body["hold_id"].as_str().expect("a granted hold");
    let cookie = hold.cookie.as_deref().expect("the hold's session");
    let body = json!({"email": "kid@example.com", "name": "Kit"});
    api.send(
        Method::POST,
        &format!("/api/showings/{sid}/holds/{hold_id}/checkout"),
        Some(body.to_string().into_bytes()),
        &[("cookie", cookie)],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_free_order_makes_no_square_call_admits_at_the_door_and_is_undone_without_square() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut showing = family_showing();
    showing["prices"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "baby", "name": "Under 3", "amount": 0}));
    let sid = api.create_showing(showing).await;

    // Seats that cost money need a card.
    let paid_hold = hold(&api, &sid, &["A1"], json!({})).await;
    let refused = checkout_without_card(&api, &sid, &paid_hold).await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (400, &json!("invalid_checkout")),
        "{:?}",
        refused.body
    );

    let free_hold = hold(
        &api,
        &sid,
        &["A5", "A6"],
        json!({"A5": "baby", "A6": "baby"}),
    )
    .await;
    assert_eq!(
        free_hold.body["amount"]["amount"], 0,
        "{:?}",
        free_hold.body
    );
    let issued = checkout_without_card(&api, &sid, &free_hold).await;
    assert_eq!(issued.status, 201, "{:?}", issued.body);
    assert_eq!(issued.body["status"], "paid");
    let again = checkout_without_card(&api, &sid, &free_hold).await;
    assert_eq!(
        again.body["order_id"], issued.body["order_id"],
        "the same hold makes one order"
    );
    let payments: Vec<(String, String)> = stack
        .square
        .calls()
        .await
        .into_iter()
        .filter(|(method, path)| method == "POST" && path.starts_with("/v2/payments"))
        .collect();
    assert!(
        payments.is_empty(),
        "Square was asked nothing: {payments:?}"
    );
    let order_id = issued.body["order_id"].as_str().unwrap().to_string();
    let order = stack.d1_query(&format!(
        "SELECT status, amount, payment_id FROM orders WHERE id = '{order_id}'"
    ));
    assert_eq!(
        order,
        [json!({"status": "paid", "amount": 0, "payment_id": null})]
    );
    let code = issued.body["tickets"][0]["code"].as_str().unwrap();
    assert_eq!(api.door_scan(code, &sid).await["result"], "admitted");

    // Staff undo it: the tickets are void and the seats back on sale, with
    // nothing asked of Square.
    let undone = api
        .admin_post(&format!("/api/admin/orders/{order_id}/refund"), None)
        .await;
    assert_eq!(
        (
            undone.status,
            &undone.body["status"],
            &undone.body["amount"]
        ),
        (202, &json!("COMPLETED"), &json!(0)),
        "{:?}",
        undone.body
    );
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A5"].as_str(), map["A6"].as_str()),
        (Some("available"), Some("available"))
    );
    let refunds = stack
        .square
        .calls()
        .await
        .into_iter()
        .filter(|(_, path)| path.starts_with("/v2/refunds"))
        .count();
    assert_eq!(refunds, 0);
    assert_eq!(api.door_scan(code, &sid).await["result"], "void");

    free_orders_are_bounded_and_their_buyers_checked(&api).await;
}

/// A free seat held from one network and checked out from another, as
/// `email` and `name`.
async fn free_order(
    api: &Api,
    sid: &str,
    seat: &str,
    from: &str,
    email: &str,
    name: &str,
) -> e2e::Reply {
    let n: u32 = seat[1..].parse().unwrap();
    let held_from = format!("192.0.2.{n}");
    let held = api
        .send(
            Method::POST,
            &format!("/api/showings/{sid}/holds"),
            Some(json!({"seats": [seat]}).to_string().into_bytes()),
            &[("cf-connecting-ip", held_from.as_str())],
        )
        .await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    let hold_id = held.body["hold_id"].as_str().unwrap();
    let cookie = held.cookie.as_deref().unwrap();
    api.send(
        Method::POST,
        &format!("/api/showings/{sid}/holds/{hold_id}/checkout"),
        Some(
            json!({"email": email, "name": name})
                .to_string()
                .into_bytes(),
        ),
        &[("cookie", cookie), ("cf-connecting-ip", from)],
    )
    .await
}

/// A free showing has no card to slow a script down: one address gets at
/// most four of its orders and one network places at most ten; an address
/// is one plain mailbox and a name draws as itself.
async fn free_orders_are_bounded_and_their_buyers_checked(api: &Api) {
    let mut showing = family_showing();
    showing["prices"] = json!([{"id": "free", "name": "Free", "amount": 0}]);
    showing["layout"] = json!({"rows": [{"name": "A", "seats": 30}], "allow_single_seats": true});
    let sid = api.create_showing(showing).await;
    let error = |reply: &e2e::Reply| {
        (
            reply.status,
            reply.body["error"].clone(),
            reply.body["field"].clone(),
        )
    };

    for (seat, email, name, field) in [
        ("A27", "Ana <ana@example.com>", "Ana", "email"),
        ("A28", "ana@example.com, bob@example.com", "Ana", "email"),
        ("A29", "ana@example.com;bob@example.com", "Ana", "email"),
        ("A30", "ana@example.com", "Ana\u{202E}moc.elpmaxe", "name"),
    ] {
        let refused = free_order(api, &sid, seat, "198.51.100.40", email, name).await;
        assert_eq!(
            error(&refused),
            (400, json!("invalid_buyer"), json!(field)),
            "{email} {name}"
        );
    }

    // One address: four orders, whatever network asks.
    for n in 1..=4 {
        let from = format!("198.51.100.{n}");
        let seat = format!("A{n}");
        let issued = free_order(api, &sid, &seat, &from, "fan@example.com", "Fan").await;
        assert_eq!(issued.status, 201, "{:?}", issued.body);
    }
    let fifth = free_order(api, &sid, "A5", "198.51.100.5", "FAN@example.com", "Fan").await;
    assert_eq!(error(&fifth).0, 429, "{:?}", fifth.body);
    assert_eq!(error(&fifth).1, json!("too_many_free_orders"));

    // One network: ten orders, whatever addresses they go to.
    for n in 6..=15 {
        let email = format!("guest{n}@example.com");
        let seat = format!("A{n}");
        let issued = free_order(api, &sid, &seat, "203.0.113.50", &email, "Guest").await;
        assert_eq!(issued.status, 201, "{:?}", issued.body);
    }
    let eleventh = free_order(api, &sid, "A16", "203.0.113.50", "late@example.com", "Late").await;
    assert_eq!(
        (eleventh.status, &eleventh.body["error"]),
        (429, &json!("too_many_free_orders"))
    );
    let next_door = free_order(api, &sid, "A17", "203.0.113.51", "late@example.com", "Late").await;
    assert_eq!(next_door.status, 201, "{:?}", next_door.body);
}
