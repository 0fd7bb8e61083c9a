//! A showing's waiting room through the real Worker and its own object:
//! buyers join a line, those who joined before the opening are placed
//! among themselves when it opens, and only an admitted session, with its
//! admission token, holds seats; tokens are refused when edited, for
//! another showing or session, or of the other kind.

use e2e::{sixteen_seat_room, Api, Method, Reply, Stack};
use serde_json::{json, Value};

async fn join(api: &Api, sid: &str, cookie: Option<&str>, body: Option<Value>) -> Reply {
    let mut headers = Vec::new();
    if let Some(cookie) = cookie {
        headers.push(("cookie", cookie));
    }
    api.send(
        Method::POST,
        &format!("/api/showings/{sid}/queue"),
        body.map(|b| b.to_string().into_bytes()),
        &headers,
    )
    .await
}

async fn hold_with(api: &Api, sid: &str, cookie: &str, admission: Option<&str>) -> Reply {
    let mut headers = vec![("cookie", cookie)];
    if let Some(admission) = admission {
        headers.push(("x-admission", admission));
    }
    let body = json!({"best": 1}).to_string().into_bytes();
    api.send(
        Method::POST,
        &format!("/api/showings/{sid}/holds"),
        Some(body),
        &headers,
    )
    .await
}

/// A showing behind a waiting room of `rate` a minute, on sale from
/// `opens_in_ms` from now.
async fn rush(api: &Api, rate: u32, opens_in_ms: i64) -> String {
    api.create_showing(rush_body(rate, opens_in_ms)).await
}

fn rush_body(rate: u32, opens_in_ms: i64) -> Value {
    let mut room = sixteen_seat_room(None);
    room["starts_at"] = json!(e2e::time_from_now(86_400_000));
    room["sales_open_at"] = json!(e2e::time_from_now(opens_in_ms));
    room["waiting_room"] = json!({ "admit_per_minute": rate });
    room
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_admitted_session_holds_seats_and_its_token_works_nowhere_else() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    // Open already, admitting 6,000 a minute: the first in line is in.
    let sid = rush(&api, 6_000, -60_000).await;
    let other = rush(&api, 6_000, -60_000).await;

    // Without a rate, a waiting room takes the suggested one, which staff
    // read with the numbers that produced it.
    let mut default = sixteen_seat_room(None);
    default["payment_cap_ms"] = json!(600_000);
    default["waiting_room"] = json!({});
    let default = api.create_showing(default).await;
    let suggested = api
        .admin_get("/api/admin/waiting-room-rate?payment_cap_ms=600000")
        .await;
    assert_eq!(suggested.status, 200, "{:?}", suggested.body);
    assert_eq!(
        (
            &suggested.body["admit_per_minute"],
            &suggested.body["inputs"]["object_requests_per_second"]
        ),
        (&json!(1_002), &json!(167))
    );
    let saved = api.get(&format!("/api/showings/{default}")).await;
    assert_eq!(
        saved.body["showing"]["admit_per_minute"], 1_002,
        "{:?}",
        saved.body
    );

    let first = join(&api, &sid, None, None).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    let cookie = first.cookie.clone().expect("a buyer session");
    assert_eq!(first.body["place"], 1);
    let admission = first.body["admission"].as_str().unwrap().to_string();
    let queue_token = first.body["queue_token"].as_str().unwrap().to_string();
    // Joining again keeps the place.
    let again = join(
        &api,
        &sid,
        Some(&cookie),
        Some(json!({"queue_token": queue_token})),
    )
    .await;
    assert_eq!(again.body["place"], 1, "{:?}", again.body);

    // No admission, an edited one, the queue token, another showing's or
    // another session's: not admitted, and nothing held.
    let refused = hold_with(&api, &sid, &cookie, None).await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (403, &json!("not_admitted"))
    );
    let mut edited = admission.clone().into_bytes();
    let at = edited.len() - 3;
    edited[at] = if edited[at] == b'A' { b'B' } else { b'A' };
    let edited = String::from_utf8(edited).unwrap();
    let elsewhere = join(&api, &other, Some(&cookie), None).await;
    let elsewhere = elsewhere.body["admission"].as_str().unwrap().to_string();
    let stranger = join(&api, &sid, None, None).await;
    let stranger_cookie = stranger.cookie.clone().unwrap();
    for (token, on, who) in [
        (edited.as_str(), sid.as_str(), cookie.as_str()),
        (queue_token.as_str(), sid.as_str(), cookie.as_str()),
        (elsewhere.as_str(), sid.as_str(), cookie.as_str()),
        (admission.as_str(), sid.as_str(), stranger_cookie.as_str()),
        (admission.as_str(), other.as_str(), cookie.as_str()),
    ] {
        let reply = hold_with(&api, on, who, Some(token)).await;
        assert_eq!(reply.body["error"], "not_admitted", "{:?}", reply.body);
    }
    assert!(
        api.seat_map(&sid)
            .await
            .as_object()
            .unwrap()
            .values()
            .all(|v| v == "available"),
        "nothing was held"
    );
    let held = hold_with(&api, &sid, &cookie, Some(&admission)).await;
    assert_eq!(held.status, 201, "{:?}", held.body);

    // A queue token of another session, and a showing with no line.
    let foreign = join(
        &api,
        &sid,
        Some(&stranger_cookie),
        Some(json!({"queue_token": queue_token})),
    )
    .await;
    assert_eq!(
        foreign.body["error"], "bad_queue_token",
        "{:?}",
        foreign.body
    );
    let plain = api.create_showing(sixteen_seat_room(None)).await;
    let none = join(&api, &plain, None, None).await;
    assert_eq!(
        (none.status, &none.body["error"]),
        (404, &json!("no_waiting_room"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn those_who_join_before_the_opening_are_placed_among_themselves_then_later_ones_after() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    // On sale in four seconds, admitting one a minute.
    let sid = rush(&api, 1, 4_000).await;
    let mut early = Vec::new();
    for n in 0..3 {
        let joined = join(&api, &sid, None, None).await;
        assert_eq!(joined.status, 200, "{:?}", joined.body);
        assert_eq!(
            joined.body["place"],
            Value::Null,
            "no place before the opening"
        );
        assert_eq!(joined.body["early"], n + 1);
        // Told to ask again at the opening (not before), in 30 s at most.
        let again = joined.body["ask_again_ms"].as_u64().unwrap();
        assert!((1_000..=30_000).contains(&again), "{:?}", joined.body);
        early.push(joined.cookie.unwrap());
    }
    // Once sales open, each early session has a place among the first
    // three (waiting for what the page would show: a place).
    let mut places = Vec::new();
    for cookie in &early {
        let mut answer = join(&api, &sid, Some(cookie), None).await;
        for _ in 0..100 {
            if answer.body["place"].is_number() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            answer = join(&api, &sid, Some(cookie), None).await;
        }
        places.push(
            answer.body["place"]
                .as_u64()
                .expect("placed at the opening"),
        );
    }
    places.sort();
    assert_eq!(places, [1, 2, 3]);
    let later = join(&api, &sid, None, None).await;
    assert_eq!(later.body["place"], 4, "{:?}", later.body);
    assert!(
        later.body["ahead"].as_u64().unwrap() >= 2,
        "{:?}",
        later.body
    );
    assert!(
        later.body["estimate_ms"].as_u64().unwrap() > 60_000,
        "{:?}",
        later.body
    );
    assert!(later.body.get("admission").is_none());
    // Far from its turn, it is told to ask again for news in 30 s.
    assert_eq!(later.body["ask_again_ms"], 30_000, "{:?}", later.body);

    // Too slow: staff raise the rate during the rush. The line keeps every
    // place and goes on from where its cursor stood, faster.
    let faster = api
        .admin(
            Method::PUT,
            &format!("/api/admin/showings/{sid}"),
            Some(rush_body(6_000, -1_000)),
        )
        .await;
    assert_eq!(faster.status, 200, "{:?}", faster.body);
    let cookie = later.cookie.clone().expect("a session");
    let admitted = standing_until(&api, &sid, &cookie, |b| b.get("admission").is_some()).await;
    assert_eq!(admitted["place"], 4, "{admitted:?}");
}

/// Asks where `cookie` stands until `done` holds (10 s at most): what
/// the waiting page shows as it polls.
async fn standing_until(
    api: &Api,
    sid: &str,
    cookie: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let mut last = Value::Null;
    for _ in 0..100 {
        last = join(api, sid, Some(cookie), None).await.body;
        if done(&last) {
            return last;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_line_stands_still_while_every_seat_is_held_or_sold_and_moves_when_seats_come_back() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    // Four seats, one admitted a minute: the second in line waits a minute.
    let mut room = sixteen_seat_room(None);
    room["layout"] = json!({"rows": [{"name": "A", "seats": 4}], "allow_single_seats": true});
    room["starts_at"] = json!(e2e::time_from_now(86_400_000));
    room["waiting_room"] = json!({"admit_per_minute": 1});
    let sid = api.create_showing(room).await;

    // The first in line buys every seat.
    let first = join(&api, &sid, None, None).await;
    let cookie = first.cookie.clone().unwrap();
    let admission = first.body["admission"]
        .as_str()
        .expect("admitted")
        .to_string();
    let body = json!({"seats": ["A1", "A2", "A3", "A4"]})
        .to_string()
        .into_bytes();
    let held = api
        .send(
            Method::POST,
            &format!("/api/showings/{sid}/holds"),
            Some(body),
            &[("cookie", &cookie), ("x-admission", &admission)],
        )
        .await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    let hold_id = held.body["hold_id"].as_str().unwrap();

    // Every seat held, none sold: the second in line is not told it is sold
    // out, but the line stands still (no estimate) while nothing is free.
    let second = join(&api, &sid, None, None).await;
    let waiting = second.cookie.clone().unwrap();
    let still = standing_until(&api, &sid, &waiting, |b| b["estimate_ms"].is_null()).await;
    assert_eq!(
        (&still["place"], &still["sold_out"]),
        (&json!(2), &json!(false)),
        "{still:?}"
    );

    let pay =
        json!({"source_id": "cnon:card-nonce-ok", "email": "first@example.com", "name": "First"});
    let paid = api
        .send(
            Method::POST,
            &format!("/api/showings/{sid}/holds/{hold_id}/checkout"),
            Some(pay.to_string().into_bytes()),
            &[("cookie", &cookie)],
        )
        .await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);

    // Paid: the second is told the showing is sold out, with no estimate.
    let told = standing_until(&api, &sid, &waiting, |b| b["sold_out"] == true).await;
    assert_eq!(
        (&told["place"], &told["sold_out"], &told["estimate_ms"]),
        (&json!(2), &json!(true), &Value::Null),
        "{told:?}"
    );

    // A refund brings the seats back, and the line moves again.
    api.refund_until_void(&stack, paid.body["order_id"].as_str().unwrap())
        .await;
    let moving = standing_until(&api, &sid, &waiting, |b| b["sold_out"] == false).await;
    assert_eq!(moving["sold_out"], false, "{moving:?}");
    assert!(moving["estimate_ms"].is_number(), "{moving:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admission_that_ran_out_holds_nothing_and_joining_again_gives_a_new_one() {
    // Admissions last two seconds here (ten minutes by default).
    let stack = Stack::start_with(e2e::StackOptions::default().var("ADMISSION_MS", "2000"));
    let api = Api::new(&stack);
    let sid = rush(&api, 6_000, -60_000).await;
    let first = join(&api, &sid, None, None).await;
    assert_eq!(
        first.body["admission_expires_in_ms"], 2000,
        "{:?}",
        first.body
    );
    let cookie = first.cookie.clone().unwrap();
    let admission = first.body["admission"].as_str().unwrap().to_string();
    // Tried as a buyer would, until it stops working: it is then refused.
    let mut refused = hold_with(&api, &sid, &cookie, Some(&admission)).await;
    for _ in 0..100 {
        if refused.status == 403 {
            break;
        }
        if refused.status == 201 {
            // Held while it was good: let the seat go and try again.
            let hold_id = refused.body["hold_id"].as_str().unwrap().to_string();
            api.send(
                Method::DELETE,
                &format!("/api/showings/{sid}/holds/{hold_id}"),
                None,
                &[("cookie", &cookie)],
            )
            .await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        refused = hold_with(&api, &sid, &cookie, Some(&admission)).await;
    }
    assert_eq!(refused.body["error"], "not_admitted", "{:?}", refused.body);
    // The place is kept; a new admission works.
    let again = join(&api, &sid, Some(&cookie), None).await;
    assert_eq!(again.body["place"], 1);
    let fresh = again.body["admission"].as_str().unwrap();
    let held = hold_with(&api, &sid, &cookie, Some(fresh)).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
}
