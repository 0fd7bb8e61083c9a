//! General admission through the real Worker and object: places sold by
//! count in one decision, to a zone's capacity and never past it, paid,
//! ticketed without a seat, and admitted at the door once each, online
//! and offline.

use e2e::{Api, Method, Reply, Stack};
use serde_json::{json, Value};
use tokio::task::JoinSet;

async fn hold(api: &Api, sid: &str, body: Value) -> Reply {
    api.hold_with(sid, body).await
}

/// Row A of 4 seats and a standing floor of `places`, starting in an hour
/// (so the door lists it).
fn mixed(places: u32) -> Value {
    json!({
        "title": "Stop Making Sense",
        "starts_at": e2e::time_from_now(3_600_000),
        "price": {"amount": 1500, "currency": "USD"},
        "max_seats_per_hold": 6,
        "layout": {
            "rows": [{"name": "A", "seats": 4}],
            "allow_single_seats": true,
            "zones": [{"name": "Floor", "capacity": places}]
        }
    })
}

fn units(reply: &Reply) -> Vec<String> {
    reply.body["seats"]
        .as_array()
        .unwrap_or_else(|| panic!("no seats in {:?}", reply.body))
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_zone_of_twenty_sells_twenty_to_fifty_racing_buyers_and_refuses_the_rest() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(mixed(20)).await;

    let mut set = JoinSet::new();
    for _ in 0..50 {
        let (api, sid) = (api.clone(), sid.clone());
        set.spawn(async move { hold(&api, &sid, json!({"zone": "Floor", "count": 1})).await });
    }
    let (mut granted, mut places) = (Vec::new(), Vec::new());
    for reply in set.join_all().await {
        match reply.status {
            201 => {
                places.extend(units(&reply));
                granted.push(reply);
            }
            409 => assert_eq!(reply.body["error"], "zone_full", "{:?}", reply.body),
            _ => panic!("{:?}", reply.body),
        }
    }
    places.sort();
    places.dedup();
    assert_eq!(
        (granted.len(), places.len()),
        (20, 20),
        "twenty holds of twenty places"
    );
    assert!(places.iter().all(|p| p.starts_with("Floor§")), "{places:?}");

    // Every hold paid: twenty tickets, none with a seat, and the seats of
    // the row untouched.
    let mut set = JoinSet::new();
    for reply in granted {
        let (api, sid) = (api.clone(), sid.clone());
        set.spawn(async move { api.checkout(&sid, &reply, "cnon:card-nonce-ok").await });
    }
    let orders: Vec<String> = set
        .join_all()
        .await
        .into_iter()
        .map(|paid| {
            assert_eq!(paid.status, 201, "{:?}", paid.body);
            paid.body["order_id"].as_str().unwrap().to_string()
        })
        .collect();
    let sold = stack.d1_query(&format!(
        "SELECT COUNT(*) AS n FROM tickets WHERE showing_id = '{sid}' AND status = 'valid' \
         AND seat LIKE 'Floor§%'"
    ));
    assert_eq!(sold[0]["n"], 20, "exactly twenty tickets sold");
    let last = hold(&api, &sid, json!({"zone": "Floor", "count": 1})).await;
    assert_eq!(
        (last.status, &last.body["error"], &last.body["available"]),
        (409, &json!("zone_full"), &json!(0))
    );
    // The refusal carries the seat map as it is now, for the page to show.
    assert!(
        last.body["availability"]["codes"].is_string(),
        "{:?}",
        last.body
    );

    // A refunded place goes back on sale, and sells again.
    api.refund_until_void(&stack, &orders[0]).await;
    let again = hold(&api, &sid, json!({"zone": "Floor", "count": 1})).await;
    assert_eq!(again.status, 201, "{:?}", again.body);
    let map = api.seat_map(&sid).await;
    for seat in ["A1", "A2", "A3", "A4"] {
        assert_eq!(map[seat], "available", "{seat}");
    }

    // Bad counts and zones are refused before anything is held.
    for (body, code) in [
        (json!({"zone": "Floor", "count": 0}), "no_seats"),
        (json!({"zone": "Floor", "count": 7}), "too_many_seats"),
        (json!({"zone": "Balcony", "count": 1}), "unknown_zone"),
        (json!({"zone": "", "count": 1}), "invalid_request"),
        (json!({"zone": "Floor"}), "bad_json"),
        (
            json!({"zone": "Floor", "count": 1, "seats": ["A1"]}),
            "bad_json",
        ),
    ] {
        let reply = hold(&api, &sid, body.clone()).await;
        assert_eq!(reply.body["error"], code, "{body}: {:?}", reply.body);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn general_admission_tickets_carry_no_seat_and_admit_once_each_online_and_offline() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(mixed(5)).await;
    // Sent twice under one Idempotency-Key (a retry after a lost answer):
    // one hold, answered the same.
    let body = json!({"zone": "Floor", "count": 2})
        .to_string()
        .into_bytes();
    let path = format!("/api/showings/{sid}/holds");
    let key = ("idempotency-key", "floor-retry-1");
    let held = api
        .send(Method::POST, &path, Some(body.clone()), &[key])
        .await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    let cookie = held.cookie.clone().unwrap();
    let retried = api
        .send(Method::POST, &path, Some(body), &[key, ("cookie", &cookie)])
        .await;
    assert_eq!(retried.status, 201, "{:?}", retried.body);
    assert_eq!(retried.body["hold_id"], held.body["hold_id"]);
    assert_eq!(retried.body["seats"], held.body["seats"]);
    assert_eq!(held.body["amount"]["amount"], 3000);
    let email = format!("floor-{sid}@example.com");
    let paid = api
        .checkout_as(&sid, &held, "cnon:card-nonce-ok", &email, "Tina Weymouth")
        .await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    let codes: Vec<String> = paid.body["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["code"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(codes.len(), 2);

    // The tickets mail names the zone, and no seat.
    let mails = stack.wait_for_mail(&email, 1);
    let mail = mails
        .iter()
        .find(|m| m.subject.starts_with("Your tickets"))
        .expect("the tickets mail");
    assert!(
        mail.text.contains("Seats: 2 × Floor (general admission)"),
        "{}",
        mail.text
    );
    assert!(!mail.text.contains('§'), "{}", mail.text);

    // The ticket's page says the zone.
    let order = api.get(paid.body["order_url"].as_str().unwrap()).await.body;
    let ticket = &order["tickets"][0];
    let page = stack.page_text(ticket["page_url"].as_str().unwrap()).await;
    assert!(
        page.contains("<strong>Floor, general admission</strong>"),
        "{page}"
    );

    // Online: the first admits once.
    let token = format!("Bearer door-{}", api.admin_token());
    let first = api.door_scan(&codes[0], &sid).await;
    assert_eq!(first["result"], "admitted", "{first:?}");
    let again = api.door_scan(&codes[0], &sid).await;
    assert_eq!(again["result"], "already_checked_in", "{again:?}");

    // Offline: the second, scanned by two devices while the network was
    // down, is admitted once when they sync.
    let device = |n: u32| {
        let (api, sid, token) = (api.clone(), sid.clone(), token.clone());
        async move {
            let path = format!("/api/door/showings/{sid}/session");
            let reply = api
                .send(Method::POST, &path, None, &[("authorization", &token)])
                .await;
            assert_eq!(reply.status, 200, "device {n}: {:?}", reply.body);
            reply.body["session"].as_str().unwrap().to_string()
        }
    };
    let (one, two) = (device(1).await, device(2).await);
    let sync = |session: String, id: &str| {
        let body = json!({"showing_id": sid, "scans": [
            {"id": id, "code": codes[1], "at_ms": e2e::now_ms(), "result": "admitted"}
        ]});
        let api = api.clone();
        async move {
            api.send(
                Method::POST,
                "/api/door/sync",
                Some(body.to_string().into_bytes()),
                &[("x-door-session", &session)],
            )
            .await
        }
    };
    let synced = sync(one, "g-1").await;
    assert_eq!(
        synced.body["scans"][0]["outcome"], "admitted",
        "{:?}",
        synced.body
    );
    let twice = sync(two, "g-2").await;
    assert_eq!(
        twice.body["scans"][0]["outcome"], "duplicate",
        "{:?}",
        twice.body
    );
    let admitted = stack.d1_query(&format!(
        "SELECT COUNT(*) AS n FROM tickets WHERE showing_id = '{sid}' AND checked_in_at_ms IS NOT NULL"
    ));
    assert_eq!(admitted[0]["n"], 2);

    // Staff cannot move a general admission ticket to a seat.
    let ticket_id = ticket["id"].as_str().unwrap();
    let moved = api
        .admin_post(
            &format!("/api/admin/tickets/{ticket_id}/move"),
            Some(json!({"seat": "A1"})),
        )
        .await;
    assert_eq!(moved.body["error"], "not_a_seat", "{:?}", moved.body);

    // The box office sells places by count too: offered the zone's first
    // free ones, it sells them like seats.
    let offered = api
        .admin_get(&format!(
            "/api/admin/showings/{sid}/best?zone=Floor&count=3"
        ))
        .await;
    assert_eq!(offered.status, 200, "{:?}", offered.body);
    let places = units(&offered);
    assert_eq!(places.len(), 3);
    let sale = api
        .admin_post(
            &format!("/api/admin/showings/{sid}/box-office"),
            Some(json!({"seats": places, "paid": "cash"})),
        )
        .await;
    assert_eq!(sale.status, 201, "{:?}", sale.body);
    let full = api
        .admin_get(&format!(
            "/api/admin/showings/{sid}/best?zone=Floor&count=1"
        ))
        .await;
    assert_eq!(full.body["error"], "zone_full", "{:?}", full.body);
}
