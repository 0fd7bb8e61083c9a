//! Allocations through the real Worker and object: seats kept for another
//! channel cannot be bought online, the channel's tickets are issued from
//! them at the box office, and the object's alarm returns the rest to sale
//! at the release time.

use e2e::{sixteen_seat_room, Api, Reply, Stack};
use serde_json::{json, Value};

async fn allocate(api: &Api, sid: &str, body: Value) -> Reply {
    api.admin_post(
        &format!("/api/admin/showings/{sid}/allocations"),
        Some(body),
    )
    .await
}

async fn issue(api: &Api, sid: &str, allocation: &str, seats: &[&str]) -> Reply {
    let body = json!({"seats": seats, "paid": "channel", "allocation": allocation,
        "name": "Lincoln School"});
    api.admin_post(&format!("/api/admin/showings/{sid}/box-office"), Some(body))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allocations_unsold_seats_return_to_sale_at_its_release_time() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;

    // Six seats for a school, more than a hold may have, back on sale in
    // eight seconds.
    let seats = ["A1", "A2", "A3", "A4", "A5", "A6"];
    let made = allocate(
        &api,
        &sid,
        json!({"name": "Lincoln School", "seats": seats, "release_at": e2e::time_from_now(8_000)}),
    )
    .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let id = made.body["id"].as_str().unwrap().to_string();
    assert_eq!(made.body["seats"], json!(seats));

    // No buyer can take them meanwhile.
    let online = api.hold(&sid, &["A3"], None).await;
    assert_eq!(
        (online.status, &online.body["error"]),
        (409, &json!("seats_unavailable"))
    );

    // Two tickets issued for the channel, with no payment: out of the
    // allocation, which keeps the other four.
    let issued = issue(&api, &sid, &id, &["A1", "A2"]).await;
    assert_eq!(issued.status, 201, "{:?}", issued.body);
    assert_eq!(issued.body["tickets"].as_array().unwrap().len(), 2);
    let again = issue(&api, &sid, &id, &["A2"]).await;
    assert_eq!(
        (again.status, &again.body["error"], &again.body["seats"]),
        (409, &json!("not_in_allocation"), &json!(["A2"]))
    );
    let listed = api
        .admin_get(&format!("/api/admin/showings/{sid}/allocations"))
        .await;
    assert_eq!(
        listed.body["allocations"][0]["seats"],
        json!(["A3", "A4", "A5", "A6"]),
        "{:?}",
        listed.body
    );
    let totals = api.totals(&sid).await;
    assert_eq!(
        (&totals["sold_by_channels"], &totals["channel_value"]),
        (&json!(2), &json!(2400))
    );
    let order = stack.d1_query(&format!(
        "SELECT channel, comp_reason FROM orders WHERE showing_id = '{sid}'"
    ));
    assert_eq!(
        order,
        [json!({"channel": "channel", "comp_reason": "Lincoln School"})]
    );

    // At the release time the four it kept return to sale; the two issued
    // stay sold.
    let map = api.seat_map_when(&sid, "A6", "available").await;
    for seat in ["A3", "A4", "A5", "A6"] {
        assert_eq!(map[seat], "available", "{seat}: {map}");
    }
    assert_eq!((&map["A1"], &map["A2"]), (&json!("sold"), &json!("sold")));
    let gone = issue(&api, &sid, &id, &["A3"]).await;
    assert_eq!(gone.status, 404, "{:?}", gone.body);
    let listed = api
        .admin_get(&format!("/api/admin/showings/{sid}/allocations"))
        .await;
    assert_eq!(listed.body["allocations"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_release_an_allocation_early_and_bad_ones_are_refused() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let later = e2e::time_from_now(86_400_000);
    let made = allocate(
        &api,
        &sid,
        json!({"name": "Festival", "seats": ["B1", "B2"], "release_at": later}),
    )
    .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    let id = made.body["id"].as_str().unwrap();
    let released = api
        .admin_post(
            &format!("/api/admin/showings/{sid}/allocations/{id}/release"),
            None,
        )
        .await;
    assert_eq!(released.status, 204, "{:?}", released.body);
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (&map["B1"], &map["B2"]),
        (&json!("available"), &json!("available"))
    );
    let twice = api
        .admin_post(
            &format!("/api/admin/showings/{sid}/allocations/{id}/release"),
            None,
        )
        .await;
    assert_eq!(twice.status, 404, "{:?}", twice.body);

    for (body, code) in [
        (
            json!({"name": "Past", "seats": ["B3"], "release_at": e2e::time_from_now(-60_000)}),
            "invalid_allocation",
        ),
        (
            json!({"name": " ", "seats": ["B3"], "release_at": later}),
            "invalid_allocation",
        ),
        (
            json!({"name": "X", "seats": ["B3"], "release_at": "tomorrow"}),
            "invalid_allocation",
        ),
        (
            json!({"name": "X", "seats": ["Z9"], "release_at": later}),
            "unknown_seats",
        ),
        (
            json!({"name": "X", "seats": [], "release_at": later}),
            "no_seats",
        ),
    ] {
        let reply = allocate(&api, &sid, body.clone()).await;
        assert_eq!(reply.body["error"], code, "{body}: {:?}", reply.body);
    }
    // A channel's tickets come only from an allocation.
    let stray = api
        .admin_post(
            &format!("/api/admin/showings/{sid}/box-office"),
            Some(json!({"seats": ["B4"], "paid": "channel"})),
        )
        .await;
    assert_eq!(stray.body["error"], "invalid_sale", "{:?}", stray.body);
    // Nor may an allocation's seats be bought at the counter as any seat.
    allocate(
        &api,
        &sid,
        json!({"name": "Club", "seats": ["B5"], "release_at": later}),
    )
    .await;
    let counter = api
        .admin_post(
            &format!("/api/admin/showings/{sid}/box-office"),
            Some(json!({"seats": ["B5"], "paid": "cash"})),
        )
        .await;
    assert_eq!(
        counter.body["error"], "seats_unavailable",
        "{:?}",
        counter.body
    );
}
