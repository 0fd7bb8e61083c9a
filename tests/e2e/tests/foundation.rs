//! The whole path once: HTTP → Worker → the showing's Durable Object → its
//! storage → response, and D1 through a migrated table.

use e2e::{sixteen_seat_room, Api, Method, Stack};
use serde_json::json;

#[tokio::test]
async fn a_showing_is_stored_in_d1_and_its_seats_in_its_object() {
    let mut stack = Stack::start();
    let api = Api::new(&stack);
    assert_eq!(api.get("/api/health").await.body["ok"], true);

    let body = Some(sixteen_seat_room(None).to_string().into_bytes());
    let refused = api
        .send(Method::POST, "/api/admin/showings", body, &[])
        .await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (401, &json!("unauthorized"))
    );

    let id = api.create_showing(sixteen_seat_room(None)).await;
    let listed = api.get("/api/showings").await.body;
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

    let seats = api.get(&format!("/api/showings/{id}/seats")).await.body;
    let map = seats["seats"].as_object().unwrap();
    assert_eq!(map.len(), 16);
    assert!(map.values().all(|s| s == "available"));
    assert_eq!(map.keys().next().map(String::as_str), Some("A1"));

    // The seats live in the object's own storage: a new server process on
    // the same state directory reads them back.
    stack.restart();
    let api = Api::new(&stack);
    assert_eq!(
        api.get(&format!("/api/showings/{id}/seats")).await.body,
        seats
    );
}

#[tokio::test]
async fn unknown_routes_and_showings_answer_json_404() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let missing = api.get("/api/nothing-here").await;
    assert_eq!(
        (missing.status, &missing.body["error"]),
        (404, &json!("not_found"))
    );
    assert_eq!(api.get("/api/showings/0123456789abcdef").await.status, 404);
    let wrong_method = api.send(Method::DELETE, "/api/showings", None, &[]).await;
    assert_eq!(
        (wrong_method.status, &wrong_method.body["error"]),
        (405, &json!("method_not_allowed"))
    );
}

/// Every page is served by the Worker, which writes the cinema's zone and
/// name into it and adds the security headers; styles and scripts come
/// straight from the assets.
#[tokio::test]
async fn pages_are_filled_by_the_worker_with_security_headers_and_static_files_served_as_they_are()
{
    let stack = Stack::start();
    let api = Api::new(&stack);
    for page in [
        "/",
        "/door",
        "/admin",
        "/orders/find",
        "/showings/0123456789abcdef",
    ] {
        let reply = api.get(page).await;
        assert_eq!(reply.status, 200, "{page}");
        let html = reply.body.as_str().unwrap_or_default();
        assert!(
            html.contains("content=\"Europe/London\""),
            "{page} is filled with the cinema's zone"
        );
    }
    // The Worker's answers, pages and API alike, carry the security headers.
    for path in ["/", "/api/showings", "/api/showings/0123456789abcdef"] {
        let reply = api.get(path).await;
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
        assert_eq!(
            reply.header("referrer-policy"),
            Some("same-origin"),
            "{path}"
        );
        assert_eq!(
            reply.header("content-security-policy"),
            Some("frame-ancestors 'none'"),
            "{path}"
        );
        assert_eq!(
            reply.header("strict-transport-security"),
            None,
            "not over http"
        );
    }
    let css = api.get("/app.css").await;
    assert_eq!(css.status, 200);
    assert!(css.body.as_str().unwrap_or_default().contains(".seat"));
    let script = api.get("/app.js").await;
    assert_eq!(script.status, 200);
    assert!(script
        .body
        .as_str()
        .unwrap_or_default()
        .contains("function api("));
}
