//! The whole path once: HTTP → Worker → the showing's Durable Object → its
//! storage → response, and D1 through a migrated table.

use e2e::Stack;
use serde_json::{json, Value};

fn sixteen_seat_showing() -> Value {
    json!({
        "title": "Paris, Texas",
        "starts_at": "2099-12-05T19:30:00Z",
        "price": {"amount": 1200, "currency": "USD"},
        "layout": {"rows": [{"name": "A", "seats": 8}, {"name": "B", "seats": 8}]}
    })
}

#[tokio::test]
async fn a_showing_is_stored_in_d1_and_its_seats_in_its_object() {
    let mut stack = Stack::start();
    let http = reqwest::Client::new();

    let health: Value = http
        .get(stack.url("/api/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["ok"], true);

    let refused = http
        .post(stack.url("/api/admin/showings"))
        .json(&sixteen_seat_showing())
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let refused: Value = refused.json().await.unwrap();
    assert_eq!(refused["error"], "unauthorized");

    let created = http
        .post(stack.url("/api/admin/showings"))
        .bearer_auth(&stack.admin_token)
        .json(&sixteen_seat_showing())
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201);
    let id = created.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();

    let listed: Value = http
        .get(stack.url("/api/showings"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let titles: Vec<&str> = listed["showings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["id"] == id.as_str())
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Paris, Texas"]);

    let rows = stack.d1_query(&format!(
        "SELECT title, seat_count FROM showings WHERE id = '{id}'"
    ));
    assert_eq!(rows, [json!({"title": "Paris, Texas", "seat_count": 16})]);

    let seats_path = format!("/api/showings/{id}/seats");
    let seats: Value = http
        .get(stack.url(&seats_path))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let map = seats["seats"].as_object().unwrap();
    assert_eq!(map.len(), 16);
    assert!(map.values().all(|s| s == "available"));
    assert_eq!(map.keys().next().map(String::as_str), Some("A1"));

    // The seats live in the object's own storage: a new server process on
    // the same state directory reads them back.
    stack.restart();
    let again: Value = http
        .get(stack.url(&seats_path))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(again, seats);
}

#[tokio::test]
async fn unknown_routes_and_showings_answer_json_404() {
    let stack = Stack::start();
    let http = reqwest::Client::new();
    let resp = http
        .get(stack.url("/api/nothing-here"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
    assert_eq!(resp.json::<Value>().await.unwrap()["error"], "not_found");
    let resp = http
        .get(stack.url("/api/showings/no-such-showing"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 404);
}
