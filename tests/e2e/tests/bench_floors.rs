//! The benchmark's floor endpoints: unknown routes unless `SHOWTIME_BENCH`
//! is "1", and then a round trip to an object that leaves showings alone.

use e2e::{sixteen_seat_room, Api, Method, Stack, StackOptions};
use serde_json::json;

const FLOOR_OBJECT: &str = "00000000000000b1";

#[tokio::test]
async fn the_floors_are_off_unless_the_bench_setting_is_on() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    for floor in ["noop", "write"] {
        let path = format!("/api/bench/showings/{FLOOR_OBJECT}/{floor}");
        let reply = api.send(Method::POST, &path, None, &[]).await;
        assert_eq!(
            (reply.status, &reply.body["error"]),
            (404, &json!("not_found"))
        );
    }
    let worker = api.send(Method::POST, "/api/bench/worker", None, &[]).await;
    assert_eq!(worker.status, 404);
    let half = format!("/api/bench/showings/{FLOOR_OBJECT}/hold-worker");
    let body = json!({"seats": ["A1"]}).to_string().into_bytes();
    assert_eq!(
        api.send(Method::POST, &half, Some(body), &[]).await.status,
        404
    );
}

#[tokio::test]
async fn with_the_setting_on_each_floor_reaches_an_object() {
    let stack = Stack::start_with(StackOptions::default().var("SHOWTIME_BENCH", "1"));
    let api = Api::new(&stack);
    for floor in ["noop", "write", "write"] {
        let path = format!("/api/bench/showings/{FLOOR_OBJECT}/{floor}");
        let reply = api.send(Method::POST, &path, None, &[]).await;
        assert_eq!(
            (reply.status, &reply.body),
            (200, &json!({"ok": true})),
            "{floor}"
        );
    }
    let bad = api
        .send(
            Method::POST,
            "/api/bench/showings/not-a-showing/noop",
            None,
            &[],
        )
        .await;
    assert_eq!(bad.status, 404);
    let worker = api.send(Method::POST, "/api/bench/worker", None, &[]).await;
    assert_eq!((worker.status, &worker.body), (200, &json!({"ok": true})));
    // A showing's object answers the floors too, and its seats are untouched.
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let path = format!("/api/bench/showings/{sid}/write");
    assert_eq!(api.send(Method::POST, &path, None, &[]).await.status, 200);
    let map = api.seat_map(&sid).await;
    assert!(map.as_object().unwrap().values().all(|s| s == "available"));
}

#[tokio::test]
async fn a_holds_worker_half_answers_as_a_hold_and_holds_nothing() {
    let stack = Stack::start_with(StackOptions::default().var("SHOWTIME_BENCH", "1"));
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let path = format!("/api/bench/showings/{sid}/hold-worker");
    let body = json!({"seats": ["A1"]}).to_string().into_bytes();
    let reply = api.send(Method::POST, &path, Some(body), &[]).await;
    assert_eq!(reply.status, 201, "{:?}", reply.body);
    assert_eq!(reply.body["seats"], json!(["A1"]));
    assert_eq!(reply.body["hold_id"].as_str().map(str::len), Some(32));
    // Its expiry is the Worker's clock once the object answered, for the
    // benchmark's timeline (`expires_at_ms - expires_in_ms`).
    let at = reply.body["expires_at_ms"].as_i64().expect("a time");
    assert!((at - e2e::now_ms()).abs() < 60_000, "{at}");
    assert_eq!(reply.body["expires_in_ms"], json!(0));
    // A new buyer gets a session cookie, as with a real hold.
    assert!(reply.cookie.is_some(), "{:?}", reply.set_cookie);
    // Its input is checked as a hold's is.
    let bad = api
        .send(Method::POST, &path, Some(b"{\"seats\": 3}".to_vec()), &[])
        .await;
    assert_eq!(bad.status, 400);
    let map = api.seat_map(&sid).await;
    assert!(map.as_object().unwrap().values().all(|s| s == "available"));
}
