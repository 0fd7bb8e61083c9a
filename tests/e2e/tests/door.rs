//! The door: signed ticket codes, one admission per ticket, and door
//! credentials that reach nothing else.

use e2e::{sixteen_seat_room, Api, Method, Reply, Stack};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

async fn buy(api: &Api, sid: &str, seat: &str) -> Reply {
    let hold = api.hold(sid, &[seat], None).await;
    let paid = api.checkout(sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    paid
}

async fn scan(api: &Api, credential: (&str, &str), code: &str, sid: &str) -> Reply {
    let body = json!({"code": code, "showing_id": sid, "device": "door-1"});
    api.send(
        Method::POST,
        "/api/door/checkin",
        Some(body.to_string().into_bytes()),
        &[credential],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_doors_scanning_one_ticket_admit_it_once() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let other = api.create_showing(sixteen_seat_room(None)).await;
    let paid = buy(&api, &sid, "A1").await;
    let code = paid.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();

    api.set_door_pin(&sid, "4321").await;

    let mut set = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let (api, code, sid) = (api.clone(), code.clone(), sid.clone());
        set.spawn(async move { scan(&api, ("x-door-pin", "4321"), &code, &sid).await });
    }
    let results: Vec<Value> = set
        .join_all()
        .await
        .into_iter()
        .map(|r| r.body["result"].clone())
        .collect();
    assert_eq!(
        results.iter().filter(|r| **r == "admitted").count(),
        1,
        "{results:?}"
    );
    assert_eq!(
        results
            .iter()
            .filter(|r| **r == "already_checked_in")
            .count(),
        49
    );

    let again = scan(&api, ("x-door-pin", "4321"), &code, &sid).await;
    assert_eq!(again.body["result"], "already_checked_in");
    assert_eq!(again.body["seat"], "A1");
    assert!(again.body["checked_in_at_ms"].as_u64().is_some());
    assert_eq!(
        (again.body["admitted"].as_u64(), again.body["sold"].as_u64()),
        (Some(1), Some(1))
    );

    let forged = code.replace(".QTE.", ".QTI.");
    assert_ne!(forged, code);
    assert_eq!(
        scan(&api, ("x-door-pin", "4321"), &forged, &sid).await.body["result"],
        "invalid"
    );
    assert_eq!(
        scan(&api, ("x-door-pin", "4321"), "not a code", &sid)
            .await
            .body["result"],
        "invalid"
    );

    let elsewhere = buy(&api, &other, "B2").await;
    let other_code = elsewhere.body["tickets"][0]["code"].as_str().unwrap();
    let token = format!("Bearer {}", stack.door_token());
    let wrong = scan(&api, ("authorization", &token), other_code, &sid).await;
    assert_eq!(
        (wrong.body["result"].as_str(), wrong.body["seat"].as_str()),
        (Some("wrong_showing"), Some("B2"))
    );

    // Wrong credentials get nothing, and door credentials reach no admin function.
    assert_eq!(
        scan(&api, ("x-door-pin", "0000"), &code, &sid).await.status,
        401
    );
    assert_eq!(
        scan(&api, ("authorization", "Bearer nope"), &code, &sid)
            .await
            .status,
        401
    );
    let as_admin = api
        .send(
            Method::POST,
            "/api/admin/showings",
            Some(sixteen_seat_room(None).to_string().into_bytes()),
            &[("authorization", &token)],
        )
        .await;
    assert_eq!(as_admin.status, 401);

    // The order link shows the same codes.
    let order = api.get(paid.body["order_url"].as_str().unwrap()).await;
    assert_eq!(order.body["tickets"][0]["code"], code.as_str());
    assert!(order.body["tickets"][0]["checked_in_at_ms"]
        .as_f64()
        .is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_wrong_pins_lock_a_showings_pin_across_a_restart_but_not_the_door_token_or_other_showings(
) {
    let mut stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let other = api.create_showing(sixteen_seat_room(None)).await;
    for showing in [&sid, &other] {
        api.set_door_pin(showing, "2468").await;
    }
    let paid = buy(&api, &sid, "A3").await;
    let code = paid.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();

    // Ten wrong guesses at once: each refused, none lets the next through.
    let mut set = tokio::task::JoinSet::new();
    for guess in 0..10 {
        let (api, code, sid) = (api.clone(), code.clone(), sid.clone());
        set.spawn(async move {
            let pin = format!("{:04}", 1000 + guess);
            scan(&api, ("x-door-pin", &pin), &code, &sid).await.status
        });
    }
    let statuses = set.join_all().await;
    assert_eq!(statuses, vec![401; 10]);

    // Now even the right PIN is refused for a while, with the wait.
    let locked = scan(&api, ("x-door-pin", "2468"), &code, &sid).await;
    assert_eq!(
        (locked.status, &locked.body["error"]),
        (429, &json!("door_pin_locked"))
    );
    let wait: u64 = locked.retry_after.as_deref().unwrap().parse().unwrap();
    assert!((1..=600).contains(&wait), "{wait}");

    // The lock is stored with the showing: a restart (every object
    // evicted) keeps it.
    stack.restart();
    let api = Api::new(&stack);
    let locked = scan(&api, ("x-door-pin", "2468"), &code, &sid).await;
    assert_eq!(locked.status, 429, "{:?}", locked.body);

    // The PIN is stored keyed: the database alone cannot be searched for it.
    let stored = stack.d1_query(&format!(
        "SELECT door_pin_hash FROM showings WHERE id = '{sid}'"
    ));
    let stored = stored[0]["door_pin_hash"].as_str().unwrap();
    assert!(stored.starts_with("hmac:"), "{stored}");
    let unkeyed = hex::encode(Sha256::digest(format!("{sid}:2468")));
    assert!(!stored.contains(&unkeyed));
    let tickets = stack.d1_query(&format!(
        "SELECT checked_in_at_ms FROM tickets WHERE showing_id = '{sid}'"
    ));
    assert_eq!(
        tickets[0]["checked_in_at_ms"],
        Value::Null,
        "nothing admitted"
    );

    // The guesses locked out only the network they came from: the door's
    // own, elsewhere, still signs in with the PIN.
    let body = json!({"code": code, "showing_id": sid, "device": "door-2"});
    let foyer = api
        .send(
            Method::POST,
            "/api/door/checkin",
            Some(body.to_string().into_bytes()),
            &[("x-door-pin", "2468"), ("cf-connecting-ip", "198.51.100.9")],
        )
        .await;
    assert_eq!(foyer.body["result"], "admitted", "{:?}", foyer.body);

    // The staff door token still works, and other showings' PINs too.
    let token = format!("Bearer {}", stack.door_token());
    let again = scan(&api, ("authorization", &token), &code, &sid).await;
    assert_eq!(
        again.body["result"], "already_checked_in",
        "{:?}",
        again.body
    );
    let elsewhere = scan(&api, ("x-door-pin", "2468"), &code, &other).await;
    assert_eq!(elsewhere.body["result"], "wrong_showing");
}
