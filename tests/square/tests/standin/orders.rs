//! CreateOrder, RetrieveOrder, UpdateOrder and paying for an order, with
//! Square's totals and the checks Square makes.

use serde_json::{json, Value};

use crate::harness::{error_code, standin, Standin};

fn ticket(name: &str, amount: i64) -> Value {
    json!({"name": name, "quantity": "1", "base_price_money": {"amount": amount, "currency": "USD"}})
}

/// Two tickets with 20 % VAT included.
fn order_body(key: &str) -> Value {
    json!({
        "idempotency_key": key,
        "order": {
            "location_id": "LSTANDIN0001",
            "reference_id": "order-42",
            "line_items": [ticket("Paris, Texas · A1 · Adult", 1200), ticket("Paris, Texas · A2 · Adult", 1000)],
            "taxes": [{"uid": "vat", "name": "VAT", "percentage": "20", "type": "INCLUSIVE", "scope": "ORDER"}],
        }
    })
}

async fn create(standin: &Standin, body: Value) -> Value {
    let (status, answer) = standin.post("/v2/orders", body).await;
    assert_eq!(status, 200, "{answer}");
    answer["order"].clone()
}

fn pay_for(order: &Value, key: &str, amount: i64) -> Value {
    json!({
        "idempotency_key": key,
        "source_id": "cnon:card-nonce-ok",
        "amount_money": {"amount": amount, "currency": "USD"},
        "autocomplete": false,
        "order_id": order["id"],
    })
}

#[tokio::test]
async fn an_order_gets_squares_totals_and_is_kept_under_its_key() {
    let standin = standin().await;
    let order = create(&standin, order_body("o-1")).await;
    // 2200 × 20/120 = 366.67 → 367, shared 200 + 167; inclusive, so the
    // total stays 2200.
    assert_eq!(order["state"], "OPEN");
    assert_eq!(order["version"], 1);
    assert_eq!(
        order["total_money"],
        json!({"amount": 2200, "currency": "USD"})
    );
    assert_eq!(order["total_tax_money"]["amount"], 367);
    assert_eq!(order["net_amount_due_money"]["amount"], 2200);
    assert_eq!(order["taxes"][0]["applied_money"]["amount"], 367);
    let line_taxes: Vec<&Value> = order["line_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["total_tax_money"]["amount"])
        .collect();
    assert_eq!(line_taxes, [&json!(200), &json!(167)]);
    assert_eq!(order["line_items"][0]["total_money"]["amount"], 1200);
    let id = order["id"].as_str().unwrap();
    let (status, fetched) = standin.get(&format!("/v2/orders/{id}")).await;
    assert_eq!((status, &fetched["order"]), (200, &order));
    // The same key and body: the same order; another body: refused.
    assert_eq!(create(&standin, order_body("o-1")).await["id"], order["id"]);
    let mut other = order_body("o-1");
    other["order"]["reference_id"] = json!("order-43");
    let (status, refused) = standin.post("/v2/orders", other).await;
    assert_eq!(
        (status, error_code(&refused)),
        (400, "IDEMPOTENCY_KEY_REUSED")
    );
    let (status, missing) = standin.get("/v2/orders/nothing-here").await;
    assert_eq!((status, error_code(&missing)), (404, "NOT_FOUND"));
    let mut elsewhere = order_body("o-2");
    elsewhere["order"]["location_id"] = json!("LOTHER");
    let (status, _) = standin.post("/v2/orders", elsewhere).await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_payment_must_match_the_orders_total_and_its_capture_completes_the_order() {
    let standin = standin().await;
    let mut body = order_body("o-3");
    body["order"]["taxes"] = json!([{"uid": "sales", "name": "Sales tax", "percentage": "8.875", "type": "ADDITIVE", "scope": "ORDER"}]);
    let order = create(&standin, body).await;
    // 8.875 % of 22.00 is 1.9525: 195, added.
    assert_eq!(order["total_money"]["amount"], 2395);
    let (status, short) = standin
        .post("/v2/payments", pay_for(&order, "p-1", 2200))
        .await;
    assert_eq!(
        (status, error_code(&short)),
        (400, "BAD_REQUEST"),
        "{short}"
    );
    let mut completing = pay_for(&order, "p-2", 2395);
    completing["delay_action"] = json!("COMPLETE");
    let (status, refused) = standin.post("/v2/payments", completing).await;
    assert_eq!((status, error_code(&refused)), (400, "BAD_REQUEST"));
    assert_eq!(refused["errors"][0]["field"], "delay_action");

    let (status, paid) = standin
        .post("/v2/payments", pay_for(&order, "p-3", 2395))
        .await;
    assert_eq!(status, 200, "{paid}");
    assert_eq!(paid["payment"]["status"], "APPROVED");
    assert_eq!(paid["payment"]["order_id"], order["id"]);
    let id = order["id"].as_str().unwrap();
    let (_, authorized) = standin.get(&format!("/v2/orders/{id}")).await;
    assert_eq!(
        authorized["order"]["state"], "OPEN",
        "an authorization leaves it open"
    );
    assert_eq!(authorized["order"]["net_amount_due_money"]["amount"], 2395);
    let (status, twice) = standin
        .post("/v2/payments", pay_for(&order, "p-4", 2395))
        .await;
    assert_eq!(
        (status, error_code(&twice)),
        (400, "BAD_REQUEST"),
        "already being paid"
    );

    let payment = paid["payment"]["id"].as_str().unwrap();
    let (status, _) = standin
        .post(&format!("/v2/payments/{payment}/complete"), json!({}))
        .await;
    assert_eq!(status, 200);
    let (_, completed) = standin.get(&format!("/v2/orders/{id}")).await;
    let completed = &completed["order"];
    assert_eq!(completed["state"], "COMPLETED");
    assert_eq!(completed["version"], 2);
    assert_eq!(completed["net_amount_due_money"]["amount"], 0);
    assert_eq!(completed["tenders"][0]["payment_id"], payment);
    let (status, cancel) = standin
        .put(
            &format!("/v2/orders/{id}"),
            json!({"order": {"version": 2, "state": "CANCELED"}}),
        )
        .await;
    assert_eq!(
        (status, error_code(&cancel)),
        (400, "BAD_REQUEST"),
        "a paid order stays paid"
    );
}

#[tokio::test]
async fn a_cancelled_payment_leaves_the_order_open_for_the_seller_to_cancel_at_its_version() {
    let standin = standin().await;
    let order = create(&standin, order_body("o-4")).await;
    let id = order["id"].as_str().unwrap();
    let (_, paid) = standin
        .post("/v2/payments", pay_for(&order, "p-5", 2200))
        .await;
    let payment = paid["payment"]["id"].as_str().unwrap();
    let (status, _) = standin
        .post(&format!("/v2/payments/{payment}/cancel"), json!({}))
        .await;
    assert_eq!(status, 200);
    let (_, open) = standin.get(&format!("/v2/orders/{id}")).await;
    assert_eq!(
        (
            open["order"]["state"].as_str(),
            open["order"].get("tenders")
        ),
        (Some("OPEN"), None)
    );

    let path = format!("/v2/orders/{id}");
    let (status, unversioned) = standin
        .put(&path, json!({"order": {"state": "CANCELED"}}))
        .await;
    assert_eq!((status, error_code(&unversioned)), (400, "BAD_REQUEST"));
    assert_eq!(unversioned["errors"][0]["field"], "order.version");
    let (status, stale) = standin
        .put(&path, json!({"order": {"version": 7, "state": "CANCELED"}}))
        .await;
    assert_eq!((status, error_code(&stale)), (400, "VERSION_MISMATCH"));
    let detail = stale["errors"][0]["detail"].as_str().unwrap();
    assert_eq!(
        detail,
        format!("Supplied version 7 does not match the current version 1 of order {id}.")
    );
    let cancel = json!({"idempotency_key": "u-1", "order": {"version": 1, "state": "CANCELED"}});
    let (status, canceled) = standin.put(&path, cancel.clone()).await;
    assert_eq!(status, 200, "{canceled}");
    assert_eq!(
        (
            canceled["order"]["state"].as_str(),
            canceled["order"]["version"].as_i64()
        ),
        (Some("CANCELED"), Some(2))
    );
    // The same update again: 200, nothing changed.
    let (status, again) = standin.put(&path, cancel).await;
    assert_eq!((status, &again["order"]["version"]), (200, &json!(2)));
    let (status, late) = standin
        .post("/v2/payments", pay_for(&order, "p-6", 2200))
        .await;
    assert_eq!(
        (status, error_code(&late)),
        (400, "BAD_REQUEST"),
        "a cancelled order takes no payment"
    );
}
