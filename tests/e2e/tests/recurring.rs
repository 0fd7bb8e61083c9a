//! Recurring showings: one request makes a showing for each chosen
//! weekday between two dates at the same local time, each with its own
//! object, across a change of the clocks (the stack's cinema is in
//! London).

use e2e::{family_showing, Api, Stack};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weekend_showings_keep_their_local_time_across_the_clocks_going_forward() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut body = family_showing();
    body.as_object_mut().unwrap().remove("starts_at");
    // London's clocks go forward on Sunday 28 March 2027.
    body["repeat"] = json!({"at": "19:30", "weekdays": ["sat", "sun"], "from": "2027-03-26", "until": "2027-04-04"});
    let made = api
        .admin_post("/api/admin/showings/recurring", Some(body.clone()))
        .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let starts: Vec<i64> = made.body["created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["starts_at_ms"].as_i64().unwrap())
        .collect();
    assert_eq!(
        starts,
        [
            1_806_175_800_000, // Sat 27 March, 19:30 GMT
            1_806_258_600_000, // Sun 28 March, 19:30 BST
            1_806_777_000_000, // Sat 3 April, 19:30 BST
            1_806_863_400_000, // Sun 4 April, 19:30 BST
        ]
    );
    // Each is a showing of its own, with its own seats and prices.
    let ids: Vec<String> = made.body["created"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    let held = api.hold(&ids[1], &["A1"], None).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    assert_eq!(api.seat_map(&ids[0]).await["A1"], "available");
    let read = api.get(&format!("/api/showings/{}", ids[3])).await;
    assert_eq!(read.body["showing"]["prices"][1]["name"], "Child");

    // A time the clocks skip is reported, not made; a bad request makes none.
    body["repeat"] =
        json!({"at": "01:30", "weekdays": ["sun"], "from": "2027-03-28", "until": "2027-04-04"});
    let skipping = api
        .admin_post("/api/admin/showings/recurring", Some(body.clone()))
        .await;
    assert_eq!(skipping.status, 201, "{:?}", skipping.body);
    assert_eq!(skipping.body["created"].as_array().unwrap().len(), 1);
    assert_eq!(skipping.body["skipped"][0]["local"], "2027-03-28T01:30");
    body["repeat"]["weekdays"] = json!(["someday"]);
    let refused = api
        .admin_post("/api/admin/showings/recurring", Some(body.clone()))
        .await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (400, &json!("invalid_showing"))
    );
    let count = stack.d1_query("SELECT COUNT(*) AS n FROM showings");
    assert_eq!(
        count[0]["n"], 5,
        "four, then one; nothing from the refused request"
    );
}
