//! Staff move a sold ticket to a free seat of its showing: the old code is
//! refused at the door as moved (naming the new seat), online and on a
//! device's ticket list, the new one admits, the buyer is mailed the new
//! ticket once, a taken seat changes nothing, and a move whose D1 write
//! failed after the showing decided it is finished by sending it again.

use e2e::{sixteen_seat_room, Api, Reply, Stack};
use serde_json::{json, Value};

/// A showing whose door is open now: it starts in an hour. B8 is a house
/// seat.
fn starting_soon() -> Value {
    let mut room = sixteen_seat_room(None);
    room["starts_at"] = json!(e2e::time_from_now(3_600_000));
    room["layout"]["rows"][1]["blocked"] = json!([8]);
    room
}

async fn move_ticket(api: &Api, ticket_id: &str, seat: &str) -> Reply {
    api.admin_post(
        &format!("/api/admin/tickets/{ticket_id}/move"),
        Some(json!({ "seat": seat })),
    )
    .await
}

/// The ticket of `seat` in a checkout's answer: its id and signed code.
fn ticket_of(paid: &Reply, seat: &str) -> (String, String) {
    let ticket = paid.body["tickets"]
        .as_array()
        .expect("tickets")
        .iter()
        .find(|t| t["seat"] == seat)
        .unwrap_or_else(|| panic!("no ticket for {seat}: {:?}", paid.body));
    let text = |key: &str| ticket[key].as_str().expect(key).to_string();
    (text("id"), text("code"))
}

fn tickets_of_order(stack: &Stack, order_id: &str) -> Vec<Value> {
    stack.d1_query(&format!(
        "SELECT id, seat, status, moved_to, moved_from FROM tickets \
         WHERE order_id = '{order_id}' ORDER BY id"
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moved_ticket_is_refused_at_the_door_as_moved_and_its_new_one_admits() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(starting_soon()).await;
    let paid = api.buy(&sid, &["A1", "A2"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap().to_string();
    let (old_id, old_code) = ticket_of(&paid, "A2");
    // Another buyer's seat, to be refused as a move's target.
    api.buy_as(&sid, &["B6"], "bo@example.com", "Bo Chen").await;
    assert_eq!(stack.wait_for_mail("ana@example.com", 1).len(), 1);

    // Onto a taken seat, a house seat or no seat at all: refused, and
    // nothing changes.
    for seat in ["B6", "A1", "B8", "Z9"] {
        let refused = move_ticket(&api, &old_id, seat).await;
        assert_eq!(
            (refused.status, refused.body["error"].as_str()),
            (409, Some("seat_unavailable")),
            "{seat}: {:?}",
            refused.body
        );
        assert_eq!(refused.body["seat"], seat);
    }
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (&map["A2"], &map["B5"], &map["B6"]),
        (&json!("sold"), &json!("available"), &json!("sold"))
    );
    assert_eq!(
        tickets_of_order(&stack, &order_id)
            .iter()
            .map(|t| (t["seat"].clone(), t["status"].clone()))
            .collect::<Vec<_>>(),
        [(json!("A1"), json!("valid")), (json!("A2"), json!("valid"))]
    );

    // The move: a new ticket on B5, with its own code.
    let moved = move_ticket(&api, &old_id, "B5").await;
    assert_eq!(moved.status, 200, "{:?}", moved.body);
    let new_id = moved.body["id"].as_str().unwrap().to_string();
    let new_code = moved.body["code"].as_str().unwrap().to_string();
    assert_eq!(new_id, format!("{order_id}-3"));
    assert_eq!(moved.body["seat"], "B5");
    assert_eq!(
        moved.body["moved_from"],
        json!({ "id": old_id, "seat": "A2" })
    );
    assert_ne!(new_code, old_code);
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (&map["A2"], &map["B5"]),
        (&json!("available"), &json!("sold"))
    );
    let tickets = tickets_of_order(&stack, &order_id);
    assert_eq!(
        tickets[1],
        json!({"id": old_id, "seat": "A2", "status": "void", "moved_to": new_id, "moved_from": null})
    );
    assert_eq!(
        tickets[2],
        json!({"id": new_id, "seat": "B5", "status": "valid", "moved_to": null, "moved_from": old_id})
    );

    // The same move sent again answers the same, and moves nothing more.
    let again = move_ticket(&api, &old_id, "B5").await;
    assert_eq!((again.status, &again.body["id"]), (200, &json!(new_id)));
    let elsewhere = move_ticket(&api, &old_id, "B7").await;
    assert_eq!(
        (
            elsewhere.status,
            elsewhere.body["error"].as_str(),
            elsewhere.body["moved_to_seat"].as_str()
        ),
        (409, Some("ticket_moved"), Some("B5"))
    );
    assert_eq!(tickets_of_order(&stack, &order_id).len(), 3);

    // A device's ticket list lets it refuse the old code as moved and
    // admit the new one with no network.
    let door = ("authorization", format!("Bearer {}", stack.door_token()));
    let manifest = api
        .send(
            e2e::Method::GET,
            &format!("/api/door/showings/{sid}/manifest"),
            None,
            &[(door.0, door.1.as_str())],
        )
        .await;
    assert_eq!(manifest.status, 200, "{:?}", manifest.body);
    let listed = |id: &str| {
        manifest.body["tickets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} not listed"))
    };
    let old_listed = listed(&old_id);
    assert_eq!(
        (&old_listed["status"], &old_listed["moved_to_seat"]),
        (&json!("void"), &json!("B5"))
    );
    let new_listed = listed(&new_id);
    assert_eq!(
        (&new_listed["status"], &new_listed["seat"]),
        (&json!("valid"), &json!("B5"))
    );

    // Online, the old code is refused as moved, naming the new seat; the
    // new one admits once.
    let old_scan = api.door_scan(&old_code, &sid).await;
    assert_eq!(
        (
            old_scan["result"].as_str(),
            old_scan["moved_to_seat"].as_str(),
            old_scan["seat"].as_str()
        ),
        (Some("moved"), Some("B5"), Some("A2")),
        "{old_scan:?}"
    );
    let new_scan = api.door_scan(&new_code, &sid).await;
    assert_eq!(
        (new_scan["result"].as_str(), new_scan["seat"].as_str()),
        (Some("admitted"), Some("B5"))
    );
    assert_eq!(
        (new_scan["admitted"].as_u64(), new_scan["sold"].as_u64()),
        (Some(1), Some(3))
    );
    // A device that was offline since before the move admitted the old
    // code: the sync records it, and staff see why it does not stand.
    let (session, _) = api.door_session(&sid).await;
    let batch = json!({"showing_id": sid, "scans": [
        {"id": "m-0", "code": old_code, "at_ms": e2e::now_ms(), "result": "admitted"}
    ]});
    let synced = api
        .send(
            e2e::Method::POST,
            "/api/door/sync",
            Some(batch.to_string().into_bytes()),
            &[("x-door-session", session.as_str())],
        )
        .await;
    assert_eq!(synced.status, 200, "{:?}", synced.body);
    let conflicts = api
        .admin(
            e2e::Method::GET,
            &format!("/api/admin/showings/{sid}/door-conflicts"),
            None,
        )
        .await
        .body;
    let conflict = &conflicts["conflicts"][0];
    assert_eq!(
        (
            &conflict["seat"],
            &conflict["status"],
            &conflict["moved_to_seat"]
        ),
        (&json!("A2"), &json!("void"), &json!("B5")),
        "{conflicts:?}"
    );

    // An admitted ticket no longer moves; an unknown one is not found.
    let inside = move_ticket(&api, &new_id, "B7").await;
    assert_eq!(
        (inside.status, inside.body["error"].as_str()),
        (409, Some("ticket_checked_in"))
    );
    let nobody = move_ticket(&api, &format!("{order_id}-9"), "B7").await;
    assert_eq!(
        (nobody.status, nobody.body["error"].as_str()),
        (404, Some("not_found"))
    );

    // The buyer: one mail with the new ticket, whatever the repeats; the
    // order page shows the old ticket moved and the new one with its code.
    // The tickets mail and the move's go out apart, in either order.
    let mails = stack.wait_for_mail("ana@example.com", 2);
    let moved_mail = mails
        .iter()
        .find(|m| m.subject.starts_with("Your seat has changed"))
        .expect("the move's mail");
    assert!(
        moved_mail
            .subject
            .starts_with("Your seat has changed: Paris, Texas"),
        "{}",
        moved_mail.subject
    );
    assert!(
        moved_mail.text.contains("seat A2 is now seat B5"),
        "{}",
        moved_mail.text
    );
    assert!(moved_mail.text.contains(&new_id), "{}", moved_mail.text);
    assert_eq!(moved_mail.attachments.len(), 1, "the new ticket's QR code");
    let rows = stack.d1_query("SELECT id, status FROM mail_outbox WHERE kind = 'moved'");
    assert_eq!(
        rows,
        [json!({"id": format!("moved:{new_id}"), "status": "sent"})]
    );
    let order = api.get(paid.body["order_url"].as_str().unwrap()).await;
    let shown: Vec<(Value, Value, bool)> = order.body["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["seat"].clone(),
                t["moved_to_seat"].clone(),
                t["code"].is_string(),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            (json!("A1"), Value::Null, true),
            (json!("A2"), json!("B5"), false),
            (json!("B5"), Value::Null, true)
        ]
    );
    assert_eq!(stack.sent_to("ana@example.com"), 2, "one mail of the move");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_whose_d1_write_failed_is_finished_by_sending_it_again() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(starting_soon()).await;
    let paid = api.buy(&sid, &["A1"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap().to_string();
    let (old_id, old_code) = ticket_of(&paid, "A1");

    // D1 refuses the move's batch: the showing has decided it, D1 has not.
    stack.d1_query(
        "CREATE TRIGGER refuse_moves BEFORE UPDATE OF moved_to ON tickets \
         BEGIN SELECT RAISE(ABORT, 'test: D1 is refusing writes'); END",
    );
    let failed = move_ticket(&api, &old_id, "B5").await;
    assert_eq!(
        (failed.status, failed.body["error"].as_str()),
        (500, Some("internal")),
        "{:?}",
        failed.body
    );
    // The ticket is still valid on its one seat and nothing else was
    // written; the showing's seats have moved.
    assert_eq!(
        tickets_of_order(&stack, &order_id),
        [
            json!({"id": old_id, "seat": "A1", "status": "valid", "moved_to": null, "moved_from": null})
        ]
    );
    assert!(stack
        .d1_query("SELECT id FROM mail_outbox WHERE kind = 'moved'")
        .is_empty());
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (&map["A1"], &map["B5"]),
        (&json!("available"), &json!("sold"))
    );

    // D1 takes writes again. Asked for another seat, the showing answers
    // the move it made, which the Worker now records, and refuses this one.
    stack.d1_query("DROP TRIGGER refuse_moves");
    let other = move_ticket(&api, &old_id, "B6").await;
    assert_eq!(
        (
            other.status,
            other.body["error"].as_str(),
            other.body["moved_to_seat"].as_str()
        ),
        (409, Some("ticket_moved"), Some("B5")),
        "{:?}",
        other.body
    );
    let new_id = format!("{order_id}-2");
    assert_eq!(
        tickets_of_order(&stack, &order_id),
        [
            json!({"id": old_id, "seat": "A1", "status": "void", "moved_to": new_id, "moved_from": null}),
            json!({"id": new_id, "seat": "B5", "status": "valid", "moved_to": null, "moved_from": old_id}),
        ]
    );
    // The move as first asked answers its ticket; B6 was never taken.
    let finished = move_ticket(&api, &old_id, "B5").await;
    assert_eq!(
        (finished.status, &finished.body["id"]),
        (200, &json!(new_id))
    );
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (&map["A1"], &map["B5"], &map["B6"]),
        (&json!("available"), &json!("sold"), &json!("available"))
    );
    assert_eq!(api.door_scan(&old_code, &sid).await["result"], "moved");
    // The tickets mail and the move's go out apart, in either order.
    let mails = stack.wait_for_mail("ana@example.com", 2);
    let subjects: Vec<&str> = mails.iter().map(|m| m.subject.as_str()).collect();
    assert_eq!(
        subjects
            .iter()
            .filter(|s| s.starts_with("Your seat has changed"))
            .count(),
        1,
        "{subjects:?}"
    );
    assert_eq!(
        stack.d1_query("SELECT COUNT(*) AS n FROM mail_outbox WHERE kind = 'moved'"),
        [json!({"n": 1})]
    );
}
