//! Buyers exchanging their tickets for seats of another showing of the
//! same film: the card is charged only the difference, or the difference
//! comes back; the old tickets are void and their seats reopened only
//! once the new order is paid; whatever fails on the way leaves the buyer
//! with the tickets they had.

use e2e::{Api, Method, Reply, Stack};
use serde_json::{json, Value};

/// A film, and showings of it at these prices (and one of another film).
struct Films {
    at_1200: String,
    at_1500: String,
    at_800: String,
    other_film: String,
}

/// Buyers of the first may exchange until an hour before it.
async fn films(api: &Api) -> Films {
    let film_id = api.create_film("Stalker").await;
    let other = api.create_film("Mirror").await;
    let films = Films {
        at_1200: api
            .create_showing_of(&film_id, "2099-11-05T19:30:00Z", 1200)
            .await,
        at_1500: api
            .create_showing_of(&film_id, "2099-11-06T19:30:00Z", 1500)
            .await,
        at_800: api
            .create_showing_of(&film_id, "2099-11-07T14:00:00Z", 800)
            .await,
        other_film: api
            .create_showing_of(&other, "2099-11-08T19:30:00Z", 1200)
            .await,
    };
    let policy = json!({"cancel": null, "exchange": {"until_minutes_before": 60}});
    let set = api
        .admin(
            Method::PUT,
            &format!("/api/admin/showings/{}/policy", films.at_1200),
            Some(policy),
        )
        .await;
    assert_eq!(set.status, 200, "{:?}", set.body);
    films
}

/// An order's payment at Square.
fn payment_of(stack: &Stack, order_id: &str) -> String {
    let rows = stack.d1_query(&format!(
        "SELECT payment_id FROM orders WHERE id = '{order_id}'"
    ));
    rows[0]["payment_id"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// What Square took for a payment (`None` if it has no such payment).
async fn taken(stack: &Stack, payment_id: &str) -> Option<u64> {
    let listed = stack.square.get("/_control/payments").await;
    listed["payments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == payment_id)
        .map(|p| p["amount_money"]["amount"].as_u64().unwrap())
}

/// Amounts of the refunds Square was asked for of a payment, in order.
async fn refunded(stack: &Stack, payment_id: &str) -> Vec<u64> {
    let listed = stack.square.get("/_control/refunds").await;
    listed["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["payment_id"] == payment_id)
        .map(|r| r["amount_money"]["amount"].as_u64().unwrap())
        .collect()
}

fn order_id(paid: &Reply) -> String {
    paid.body["order_id"].as_str().unwrap().to_string()
}

fn exchange_url(order_url: &str) -> String {
    let (path, query) = order_url.split_once('?').unwrap();
    format!("{path}/exchange?{query}")
}

fn ticket_ids(paid: &Reply) -> Vec<String> {
    paid.body["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

/// The card the stand-in approves.
const CARD: &str = "cnon:card-nonce-ok";

/// Exchanges `tickets` for the seats `hold` holds in `showing_id`.
async fn exchange(
    api: &Api,
    order_url: &str,
    tickets: &[String],
    (showing_id, hold): (&str, &Reply),
    source_id: &str,
) -> Reply {
    let body = json!({
        "tickets": tickets, "showing_id": showing_id,
        "hold": hold.body["hold_id"], "source_id": source_id,
    });
    api.send(
        Method::POST,
        &exchange_url(order_url),
        Some(body.to_string().into_bytes()),
        &[("cookie", hold.cookie.as_deref().unwrap())],
    )
    .await
}

/// The order page until its status is `want` (the old order settles as
/// the new one is paid).
async fn order_when(api: &Api, order_url: &str, want: &str) -> Value {
    for _ in 0..100 {
        let order = api.get(order_url).await.body;
        if order["order"]["status"] == want {
            return order;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{order_url} never became {want}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exchange_to_a_dearer_showing_charges_only_the_difference() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let films = films(&api).await;
    let buyer = "dearer@example.com";
    let paid = api
        .buy_as(&films.at_1200, &["A1", "A2"], buyer, "Ana Lima")
        .await;
    let order_url = paid.body["order_url"].as_str().unwrap().to_string();
    let old = ticket_ids(&paid);
    let old_payment = payment_of(&stack, &order_id(&paid));

    // The order page offers the other showings of the film, not the other
    // film's, and what each ticket is worth.
    let offer = api.get(&order_url).await.body["changes"]["exchange"].clone();
    assert_eq!(offer["open"], true, "{offer}");
    let offered: Vec<&str> = offer["showings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(offered, [films.at_1500.as_str(), films.at_800.as_str()]);
    assert_eq!(offer["tickets"][0]["worth"], 1200);

    // Another film, or a hold of a different number of seats, is refused
    // and keeps nothing.
    let wrong = api.hold(&films.other_film, &["A1", "A2"], None).await;
    let refused = exchange(&api, &order_url, &old, (&films.other_film, &wrong), "").await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (400, &json!("invalid_request"))
    );
    let one = api.hold(&films.at_1500, &["A8"], None).await;
    let refused = exchange(&api, &order_url, &old, (&films.at_1500, &one), "").await;
    assert_eq!(refused.status, 400, "{:?}", refused.body);

    // Two seats at 15.00 for two tickets worth 12.00: the card pays 6.00.
    let hold = api.hold(&films.at_1500, &["B4", "B5"], None).await;
    assert_eq!(hold.status, 201, "{:?}", hold.body);
    let done = exchange(&api, &order_url, &old, (&films.at_1500, &hold), CARD).await;
    assert_eq!(done.status, 201, "{:?}", done.body);
    assert_eq!(done.body["credit"], 2400);
    let new_payment = payment_of(&stack, &order_id(&done));
    assert_eq!(taken(&stack, &new_payment).await, Some(600));
    assert!(refunded(&stack, &old_payment).await.is_empty());

    // The old order is exchanged: its codes are void, its seats back on
    // sale; the new codes are admitted.
    let before = order_when(&api, &order_url, "exchanged").await;
    assert!(before["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["status"] == "void"));
    api.seat_map_when(&films.at_1200, "A1", "available").await;
    let old_code = paid.body["tickets"][0]["code"].as_str().unwrap();
    assert_eq!(
        api.door_scan(old_code, &films.at_1200).await["result"],
        "void"
    );
    let new_code = done.body["tickets"][0]["code"].as_str().unwrap();
    assert_eq!(
        api.door_scan(new_code, &films.at_1500).await["result"],
        "admitted"
    );
    // The buyer's new tickets come by e-mail, and the new order says what
    // was credited.
    let mails = stack.wait_for_mail(buyer, 2);
    assert!(
        mails.iter().any(|m| m.text.contains("B4")),
        "{:?}",
        mails.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );

    // Each showing's totals: the old one moved its 24.00 out, the new one
    // took 6.00 through Square and was credited the 24.00.
    let old_totals = api.totals(&films.at_1200).await;
    assert_eq!(
        (&old_totals["exchanged_out"], &old_totals["refunded"]),
        (&json!(2400), &json!(0))
    );
    let new_totals = api.totals(&films.at_1500).await;
    assert_eq!(
        (&new_totals["taken"], &new_totals["exchanged_in"]),
        (&json!(600), &json!(2400))
    );

    // An exchanged order is not exchanged again online.
    let new_url = done.body["order_url"].as_str().unwrap().to_string();
    let again = api.hold(&films.at_800, &["A3"], None).await;
    let new_ticket = ticket_ids(&done)[1].clone();
    let refused = exchange(&api, &new_url, &[new_ticket], (&films.at_800, &again), "").await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (409, &json!("not_exchangeable"))
    );

    // Staff refund the new order whole: its own 6.00 and the 24.00 its
    // credit drew on the old payment, each from its own payment.
    let new_order = done.body["order_id"].as_str().unwrap();
    let asked = api
        .admin_post(&format!("/api/admin/orders/{new_order}/refund"), None)
        .await;
    assert_eq!(asked.status, 202, "{:?}", asked.body);
    assert_eq!(refunded(&stack, &new_payment).await, [600]);
    assert_eq!(refunded(&stack, &old_payment).await, [2400]);
    api.seat_map_when(&films.at_1500, "B4", "available").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exchange_to_a_cheaper_showing_refunds_the_difference() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let films = films(&api).await;
    let paid = api.buy(&films.at_1200, &["B1", "B2"]).await;
    let order_url = paid.body["order_url"].as_str().unwrap().to_string();
    let old = ticket_ids(&paid);
    let old_payment = payment_of(&stack, &order_id(&paid));

    // One of the two, to a seat at 8.00: no card, 4.00 back.
    let hold = api.hold(&films.at_800, &["A6"], None).await;
    let done = exchange(&api, &order_url, &old[..1], (&films.at_800, &hold), "").await;
    assert_eq!(done.status, 201, "{:?}", done.body);
    assert_eq!(done.body["credit"], 800);
    assert_eq!(payment_of(&stack, &order_id(&done)), "");
    assert_eq!(refunded(&stack, &old_payment).await, [400]);

    // The exchanged ticket is void, the other still the buyer's.
    let map = api.seat_map_when(&films.at_1200, "B1", "available").await;
    assert_eq!(map["B2"], "sold");
    let order = api.get(&order_url).await.body;
    assert_eq!(order["order"]["status"], "paid");
    let statuses: Vec<&str> = order["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["void", "valid"]);
    assert_eq!(order["tickets"][0]["exchanged"], true);
    // The buyer's refunds are the money that came back, not the exchange.
    let back: Vec<&Value> = order["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["amount"])
        .collect();
    assert_eq!(back, [&json!(400)]);
    assert_eq!(
        order["changes"]["exchange"]["tickets"][0]["id"],
        old[1].as_str()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exchange_that_fails_leaves_the_old_tickets_valid() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let films = films(&api).await;
    let paid = api.buy(&films.at_1200, &["A7"]).await;
    let order_url = paid.body["order_url"].as_str().unwrap().to_string();
    let old = ticket_ids(&paid);
    let old_payment = payment_of(&stack, &order_id(&paid));
    let code = paid.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();

    // The new seat was let go and someone else bought it: nothing moves.
    let hold = api.hold(&films.at_1500, &["A1"], None).await;
    let released = api
        .send(
            Method::DELETE,
            &format!(
                "/api/showings/{}/holds/{}",
                films.at_1500,
                hold.body["hold_id"].as_str().unwrap()
            ),
            None,
            &[("cookie", hold.cookie.as_deref().unwrap())],
        )
        .await;
    assert!(released.status < 300, "{:?}", released.body);
    api.buy(&films.at_1500, &["A1"]).await;
    let taken = exchange(&api, &order_url, &old, (&films.at_1500, &hold), CARD).await;
    assert!(taken.status >= 400, "{:?}", taken.body);

    // A declined card for the difference: nothing moves either.
    let hold = api.hold(&films.at_1500, &["A2"], None).await;
    let declined = exchange(
        &api,
        &order_url,
        &old,
        (&films.at_1500, &hold),
        "cnon:card-nonce-declined",
    )
    .await;
    assert_eq!(declined.status, 402, "{:?}", declined.body);
    let order = api.get(&order_url).await.body;
    assert_eq!(order["order"]["status"], "paid");
    assert_eq!(order["tickets"][0]["status"], "valid");
    assert_eq!(api.seat_map(&films.at_1200).await["A7"], "sold");
    assert!(refunded(&stack, &old_payment).await.is_empty());

    // The tickets were let go by both: another card on the same hold
    // exchanges them, and the old code is refused from then on.
    let done = exchange(&api, &order_url, &old, (&films.at_1500, &hold), CARD).await;
    assert_eq!(done.status, 201, "{:?}", done.body);
    order_when(&api, &order_url, "exchanged").await;
    assert_eq!(api.door_scan(&code, &films.at_1200).await["result"], "void");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_exchange_past_the_cut_off_or_where_the_policy_forbids_it() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let films = films(&api).await;
    // The other film's showing keeps the cinema's default: no exchanges.
    let paid = api.buy(&films.other_film, &["B8"]).await;
    let order_url = paid.body["order_url"].as_str().unwrap().to_string();
    let offer = api.get(&order_url).await.body["changes"]["exchange"].clone();
    assert_eq!(offer["open"], false, "{offer}");
    let hold = api.hold(&films.at_800, &["B8"], None).await;
    let refused = exchange(
        &api,
        &order_url,
        &ticket_ids(&paid),
        (&films.at_800, &hold),
        "",
    )
    .await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (409, &json!("not_exchangeable"))
    );

    // Buyers of the first may exchange until 30 days before it: past.
    let policy = json!({"cancel": null, "exchange": {"until_minutes_before": 43200}});
    let soon_film = api.create_film("Solaris").await;
    let in_a_week = (jiff::Timestamp::now() + jiff::SignedDuration::from_hours(7 * 24))
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string();
    let soon = api.create_showing_of(&soon_film, &in_a_week, 1000).await;
    let later = api
        .create_showing_of(&soon_film, "2099-01-01T19:30:00Z", 1000)
        .await;
    let set = api
        .admin(
            Method::PUT,
            &format!("/api/admin/showings/{soon}/policy"),
            Some(policy),
        )
        .await;
    assert_eq!(set.status, 200, "{:?}", set.body);
    let paid = api.buy(&soon, &["A1"]).await;
    let order_url = paid.body["order_url"].as_str().unwrap().to_string();
    let hold = api.hold(&later, &["A1"], None).await;
    let closed = exchange(&api, &order_url, &ticket_ids(&paid), (&later, &hold), "").await;
    assert_eq!(
        (closed.status, &closed.body["error"]),
        (409, &json!("exchange_closed"))
    );
    assert_eq!(
        api.get(&order_url).await.body["tickets"][0]["status"],
        "valid"
    );
}
