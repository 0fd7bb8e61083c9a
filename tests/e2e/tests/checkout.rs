//! Checkout through the real Worker, Showtime object and D1, paying the
//! Square stand-in.

use e2e::{sixteen_seat_room, Api, Stack};
use serde_json::Value;

async fn standin(stack: &Stack, path: &str) -> Value {
    reqwest::get(format!("{}{path}", stack.square.base_url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_pair_is_paid_and_sold_with_one_ticket_per_seat() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["A3", "A4"], None).await;
    assert_eq!(hold.status, 201);

    let paid = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
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
    let requests = standin(&stack, "/_control/requests").await;
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
