//! When a showing sells and when its door admits: holds only inside the
//! sales window, a hold made in time still paid after the close, and the
//! door admitting latecomers until it closes.

use std::time::Duration;

use e2e::{now_ms, sixteen_seat_room, time_from_now as at, Api, Stack};
use serde_json::{json, Value};

/// Waits until the wall clock passes `ms`.
async fn wait_until(ms: i64) {
    let left = ms - now_ms();
    if left > 0 {
        tokio::time::sleep(Duration::from_millis(left as u64 + 200)).await;
    }
}

fn listed(list: &Value, sid: &str) -> Value {
    list["showings"]
        .as_array()
        .expect("showings")
        .iter()
        .find(|s| s["id"] == sid)
        .cloned()
        .unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn holds_are_refused_outside_the_sales_window_and_a_hold_made_in_time_still_pays() {
    let stack = Stack::start();
    let api = Api::new(&stack);

    // Not on sale yet: refused with when it opens, nothing held.
    let mut later = sixteen_seat_room(None);
    later["sales_open_at"] = json!("2099-11-01T10:00:00Z");
    let later_id = api.create_showing(later).await;
    let refused = api.hold(&later_id, &["A1"], None).await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (409, &json!("sales_not_open")),
        "{:?}",
        refused.body
    );
    assert_eq!(
        refused.body["opens_at_ms"],
        json!(4_097_210_400_000_i64),
        "2099-11-01T10:00Z"
    );
    let map = api.seat_map(&later_id).await;
    assert!(
        map.as_object().unwrap().values().all(|s| s == "available"),
        "{map}"
    );

    // Sales close in a few seconds: a hold made before the close is paid
    // for after it; a new hold after the close is refused.
    let mut soon = sixteen_seat_room(None);
    soon["starts_at"] = json!(at(3_600_000));
    let closes = at(6_000);
    soon["sales_close_at"] = json!(closes);
    let soon_id = api.create_showing(soon).await;
    let hold = api.hold(&soon_id, &["A1"], None).await;
    assert_eq!(hold.status, 201, "{:?}", hold.body);
    let list = api.get("/api/showings").await.body;
    assert_eq!(listed(&list, &soon_id)["sales"]["state"], "open");
    assert_eq!(listed(&list, &later_id)["sales"]["state"], "not_open");

    let close_ms = ms_of(&closes);
    wait_until(close_ms).await;
    let late = api.hold(&soon_id, &["A2"], None).await;
    assert_eq!(
        (late.status, &late.body["error"]),
        (409, &json!("sales_closed")),
        "{:?}",
        late.body
    );
    let map = api.seat_map(&soon_id).await;
    assert_eq!(
        (map["A1"].as_str(), map["A2"].as_str()),
        (Some("held"), Some("available"))
    );
    let paid = api.checkout(&soon_id, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(
        paid.status, 201,
        "a hold made in time still pays: {:?}",
        paid.body
    );
    assert_eq!(api.seat_map(&soon_id).await["A1"], "sold");
    let list = api.get("/api/showings").await.body;
    assert_eq!(
        listed(&list, &soon_id)["sales"]["state"],
        "closed",
        "listed, as closed, until it starts"
    );

    // Times that make no sense are refused when saved.
    let mut backwards = sixteen_seat_room(None);
    backwards["sales_open_at"] = json!("2099-12-05T19:00:00Z");
    backwards["sales_close_at"] = json!("2099-12-05T18:00:00Z");
    let refused = api.admin_post("/api/admin/showings", Some(backwards)).await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (400, &json!("invalid_showing"))
    );
    assert!(
        refused.body["detail"]
            .as_str()
            .unwrap()
            .contains("sales_close_at"),
        "{:?}",
        refused.body
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_admits_a_latecomer_after_the_start_and_refuses_once_it_closes() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    // Started half an hour ago; still on sale, and the door closes soon.
    let mut room = sixteen_seat_room(None);
    room["starts_at"] = json!(at(-30 * 60_000));
    room["sales_close_at"] = json!(at(3_600_000));
    let door_closes = at(8_000);
    room["door_close_at"] = json!(door_closes);
    let sid = api.create_showing(room).await;

    let list = api.get("/api/showings").await.body;
    assert_eq!(
        listed(&list, &sid)["sales"]["state"],
        "open",
        "a showing that started but still sells is listed"
    );
    let door_list = api.get("/api/door/showings").await.body;
    assert_eq!(
        listed(&door_list, &sid)["door_close_at_ms"],
        json!(ms_of(&door_closes)),
        "the door lists a showing that started: {door_list}"
    );

    let paid = api.buy(&sid, &["B1", "B2"]).await;
    let code = |n: usize| {
        paid.body["tickets"][n]["code"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let first = api.door_scan(&code(0), &sid).await;
    assert_eq!(
        first["result"], "admitted",
        "30 minutes after the start: {first}"
    );

    wait_until(ms_of(&door_closes)).await;
    let second = api.door_scan(&code(1), &sid).await;
    assert_eq!(second["result"], "door_closed", "{second}");
    let admitted = stack.d1_query(&format!(
        "SELECT COUNT(*) AS n FROM tickets WHERE showing_id = '{sid}' AND checked_in_at_ms IS NOT NULL"
    ));
    assert_eq!(admitted[0]["n"], 1, "the refused ticket was not admitted");
}

/// Reading back a time this file wrote.
fn ms_of(text: &str) -> i64 {
    text.parse::<jiff::Timestamp>()
        .expect("a time this file wrote")
        .as_millisecond()
}

/// A showing saved before objects kept a sales window sells until its
/// object is told one. The cron sweep tells it, once, from what D1 holds:
/// here D1's close is moved into the past behind the object's back, as an
/// old showing's would be, and after the sweep the object refuses holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sweep_tells_an_old_showings_object_its_sales_window() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut room = sixteen_seat_room(None);
    room["starts_at"] = json!(at(3_600_000));
    let sid = api.create_showing(room).await;
    let closed_ms = now_ms() - 60_000;
    stack.d1_query(&format!(
        "UPDATE showings SET sales_close_at_ms = {closed_ms}, windows_sent = 0 WHERE id = '{sid}'"
    ));
    let before = api.hold(&sid, &["A1"], None).await;
    assert_eq!(
        before.status, 201,
        "the object does not know yet: {:?}",
        before.body
    );

    stack.run_sweep().await;
    let sent = stack.d1_query(&format!(
        "SELECT windows_sent FROM showings WHERE id = '{sid}'"
    ));
    assert_eq!(sent, [json!({"windows_sent": 1})]);
    let after = api.hold(&sid, &["A2"], None).await;
    assert_eq!(
        (after.status, &after.body["error"]),
        (409, &json!("sales_closed")),
        "{:?}",
        after.body
    );
    assert_eq!(
        api.seat_map(&sid).await["A1"],
        "held",
        "the hold made before stays"
    );
}
