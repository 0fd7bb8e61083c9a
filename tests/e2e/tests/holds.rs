//! Holds through the real Worker and Showtime object: races, expiry by
//! alarm, restarts, idempotency and every refusal.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use e2e::{sixteen_seat_room, Api, Method, Reply, Stack, StackOptions};
use serde_json::{json, Value};
use tokio::task::JoinSet;

const SEATS: [&str; 16] = [
    "A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8", "B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8",
];

/// Fires all `groups` as simultaneous holds, each as a new buyer.
async fn race(
    api: &Api,
    sid: &str,
    groups: Vec<Vec<&'static str>>,
) -> Vec<(Vec<&'static str>, Reply)> {
    let mut set = JoinSet::new();
    for (i, group) in groups.into_iter().enumerate() {
        let (api, sid) = (api.clone(), sid.to_string());
        set.spawn(async move {
            let reply = api.hold(&sid, &group, None).await;
            (i, group, reply)
        });
    }
    let mut out: Vec<_> = set.join_all().await;
    out.sort_by_key(|(i, _, _)| *i);
    out.into_iter().map(|(_, g, r)| (g, r)).collect()
}

fn names(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected a list of seats, got {value}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_buyers_race_for_one_seat_and_exactly_one_wins() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    for round in 0..5 {
        let sid = api.create_showing(sixteen_seat_room(None)).await;
        let replies = race(&api, &sid, vec![vec!["A1"]; 200]).await;
        let won: Vec<_> = replies.iter().filter(|(_, r)| r.status == 201).collect();
        let lost: Vec<_> = replies.iter().filter(|(_, r)| r.status == 409).collect();
        assert_eq!(won.len(), 1, "round {round}: winners");
        assert_eq!(
            lost.len(),
            199,
            "round {round}: every other answer is a 409"
        );
        for (_, reply) in &lost {
            assert_eq!(reply.body["error"], "seats_unavailable");
            assert_eq!(names(&reply.body["seats"]), ["A1"]);
        }
        let map = api.seat_map(&sid).await;
        assert_eq!(map["A1"], "held");
        assert_eq!(SEATS.iter().filter(|s| map[**s] == "available").count(), 15);
    }
}

/// A small deterministic generator, so a failing run can be repeated.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self, below: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % below as u64) as usize
    }

    fn group(&mut self) -> Vec<&'static str> {
        let size = 1 + self.next(4);
        let mut group = Vec::new();
        while group.len() < size {
            let seat = SEATS[self.next(SEATS.len())];
            if !group.contains(&seat) {
                group.push(seat);
            }
        }
        group
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_group_holds_never_share_or_split_a_group() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let mut rng = XorShift(0x5eed_cafe_f00d);
    let groups: Vec<_> = (0..200).map(|_| rng.group()).collect();
    let replies = race(&api, &sid, groups).await;

    let mut granted: HashMap<&str, usize> = HashMap::new();
    for (i, (group, reply)) in replies.iter().enumerate() {
        match reply.status {
            201 => {
                assert_eq!(names(&reply.body["seats"]), *group);
                for seat in group {
                    assert!(granted.insert(seat, i).is_none(), "{seat} is in two holds");
                }
            }
            409 => assert_eq!(reply.body["error"], "seats_unavailable"),
            other => panic!("unexpected {other}: {:?}", reply.body),
        }
    }
    assert!(!granted.is_empty());
    // Every refusal names only seats of its own group that a granted hold has.
    for (group, reply) in replies.iter().filter(|(_, r)| r.status == 409) {
        let taken = names(&reply.body["seats"]);
        assert!(!taken.is_empty());
        for seat in &taken {
            assert!(group.contains(&seat.as_str()), "{seat} was not asked for");
            assert!(
                granted.contains_key(seat.as_str()),
                "{seat} was not really taken"
            );
        }
    }
    // The map shows exactly the granted seats held: no refused group left a
    // seat behind, and every granted hold reads back as its buyer's.
    let map = api.seat_map(&sid).await;
    for seat in SEATS {
        let expected = if granted.contains_key(seat) {
            "held"
        } else {
            "available"
        };
        assert_eq!(map[seat], expected, "{seat}");
    }
    for (group, reply) in replies.iter().filter(|(_, r)| r.status == 201) {
        let path = format!(
            "/api/showings/{sid}/holds/{}",
            reply.body["hold_id"].as_str().unwrap()
        );
        let cookie = reply
            .cookie
            .as_deref()
            .expect("a new buyer gets a session cookie");
        let own = api
            .send(Method::GET, &path, None, &[("cookie", cookie)])
            .await;
        assert_eq!(own.status, 200);
        assert_eq!(own.body["state"], "held");
        assert_eq!(names(&own.body["seats"]), *group);
    }
}

/// Polls the stats endpoint (which never sweeps) until `done` holds.
async fn stats_until(
    api: &Api,
    sid: &str,
    limit: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + limit;
    loop {
        let stats = api.stats(sid).await;
        if done(&stats) || Instant::now() > deadline {
            return stats;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_alarm_alone_releases_an_expired_hold() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(Some(1_000))).await;
    let held = api.hold(&sid, &["A1", "A2"], None).await;
    assert_eq!(held.status, 201);
    let stats = api.stats(&sid).await;
    assert_eq!(stats["seats"]["held"], 2);
    assert_eq!(stats["live_holds"], 1);
    assert_eq!(stats["alarm_at_ms"], held.body["expires_at_ms"]);

    let stats = stats_until(&api, &sid, Duration::from_secs(30), |s| {
        s["live_holds"] == 0
    })
    .await;
    assert_eq!(
        stats["live_holds"], 0,
        "the alarm did not release the hold: {stats}"
    );
    assert_eq!(stats["seats"]["held"], 0);
    assert_eq!(stats["seats"]["available"], 16);
    assert!(
        stats["last_alarm_ms"].as_u64().unwrap() >= held.body["expires_at_ms"].as_u64().unwrap()
    );
    assert_eq!(
        stats["alarm_at_ms"],
        Value::Null,
        "nothing left to wake up for"
    );

    // Its buyer is told it expired.
    let path = format!(
        "/api/showings/{sid}/holds/{}",
        held.body["hold_id"].as_str().unwrap()
    );
    let own = api
        .send(
            Method::GET,
            &path,
            None,
            &[("cookie", held.cookie.as_deref().unwrap())],
        )
        .await;
    assert_eq!(own.body["state"], "expired");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_live_holds_and_releases_expired_ones() {
    let mut stack = Stack::start();
    let api = Api::new(&stack);
    let long = api.create_showing(sixteen_seat_room(None)).await;
    let short = api.create_showing(sixteen_seat_room(Some(1_000))).await;
    let kept = api.hold(&long, &["A1", "B2"], None).await;
    assert_eq!(kept.status, 201);
    assert_eq!(api.hold(&short, &["A1"], None).await.status, 201);

    stack.stop();
    tokio::time::sleep(Duration::from_millis(2_000)).await;
    stack.restart();
    let api = Api::new(&stack);

    let map = api.seat_map(&long).await;
    assert_eq!(
        (map["A1"].as_str(), map["B2"].as_str()),
        (Some("held"), Some("held"))
    );
    let path = format!(
        "/api/showings/{long}/holds/{}",
        kept.body["hold_id"].as_str().unwrap()
    );
    let own = api
        .send(
            Method::GET,
            &path,
            None,
            &[("cookie", kept.cookie.as_deref().unwrap())],
        )
        .await;
    assert_eq!(own.body["state"], "held");
    assert_eq!(own.body["expires_at_ms"], kept.body["expires_at_ms"]);

    let map = api.seat_map(&short).await;
    assert_eq!(map["A1"], "available");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_replays_the_first_answer_to_its_buyer_only() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let path = format!("/api/showings/{sid}/holds");
    let body = |seats: &[&str]| Some(json!({ "seats": seats }).to_string().into_bytes());

    // The page reads the showing first, and is given its session there.
    let page = api.get(&format!("/api/showings/{sid}")).await;
    let cookie = page.cookie.expect("a visitor is given a session");
    let again = api.get(&format!("/api/showings/{sid}")).await;
    assert!(again.cookie.is_some(), "each visitor without one");
    let mine = [
        ("idempotency-key", "7d1a3c2e-replay-test"),
        ("cookie", cookie.as_str()),
    ];
    let first = api
        .send(Method::POST, &path, body(&["A1", "A2"]), &mine)
        .await;
    assert_eq!(first.status, 201);
    assert_eq!(first.cookie, None, "the buyer has their session already");
    let again = api
        .send(Method::POST, &path, body(&["A1", "A2"]), &mine)
        .await;
    assert_eq!(again.status, 201);
    assert_eq!(again.body, first.body, "the same hold, not a second one");
    assert_eq!(api.stats(&sid).await["live_holds"], 1);

    // A stranger who learned the key gets neither the hold nor a session,
    // with the same body or another, with a session of their own or none.
    let theirs = api
        .get(&format!("/api/showings/{sid}"))
        .await
        .cookie
        .unwrap();
    for (headers, seats) in [
        (
            vec![("idempotency-key", "7d1a3c2e-replay-test")],
            ["A1", "A2"],
        ),
        (
            vec![
                ("idempotency-key", "7d1a3c2e-replay-test"),
                ("cookie", theirs.as_str()),
            ],
            ["A1", "A2"],
        ),
        (
            vec![
                ("idempotency-key", "7d1a3c2e-replay-test"),
                ("cookie", theirs.as_str()),
            ],
            ["A5", "A6"],
        ),
    ] {
        let stolen = api.send(Method::POST, &path, body(&seats), &headers).await;
        assert_eq!(stolen.status, 409, "{:?}", stolen.body);
        assert_eq!(stolen.body["error"], "idempotency_key_in_use");
        assert!(stolen.body.get("hold_id").is_none(), "{:?}", stolen.body);
        assert_eq!(stolen.header("set-cookie"), None);
    }
    let hold = format!("{path}/{}", first.body["hold_id"].as_str().unwrap());
    let as_stranger = [("cookie", theirs.as_str())];
    assert_eq!(
        api.send(Method::DELETE, &hold, None, &as_stranger)
            .await
            .status,
        404
    );
    assert_eq!(api.stats(&sid).await["live_holds"], 1);

    let other = api.send(Method::POST, &path, body(&["A3"]), &mine).await;
    assert_eq!(other.status, 422);
    assert_eq!(other.body["error"], "idempotency_key_reused");
    assert_eq!(api.seat_map(&sid).await["A3"], "available");

    // A refusal is replayed too, even after the seat came free.
    let key2 = [
        ("idempotency-key", "second-key"),
        ("cookie", theirs.as_str()),
    ];
    let refused = api.send(Method::POST, &path, body(&["A1"]), &key2).await;
    assert_eq!(refused.status, 409);
    let cookie = [("cookie", cookie.as_str())];
    assert_eq!(
        api.send(Method::DELETE, &hold, None, &cookie).await.status,
        204
    );
    let replayed = api.send(Method::POST, &path, body(&["A1"]), &key2).await;
    assert_eq!(replayed.status, 409);
    for field in ["error", "detail", "seats"] {
        assert_eq!(replayed.body[field], refused.body[field], "{field}");
    }
    // With the seat map as it is now, not as it was then.
    let codes = |r: &Reply| {
        r.body["availability"]["codes"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(codes(&refused).starts_with("hh"), "{}", codes(&refused));
    assert!(codes(&replayed).starts_with("aa"), "{}", codes(&replayed));
}

/// One refused request and what it must answer.
struct Refusal {
    name: &'static str,
    method: Method,
    path: String,
    body: Option<Vec<u8>>,
    headers: Vec<(&'static str, String)>,
    status: u16,
    error: &'static str,
}

fn refusal(
    name: &'static str,
    path: &str,
    body: &str,
    status: u16,
    error: &'static str,
) -> Refusal {
    Refusal {
        name,
        method: Method::POST,
        path: path.to_string(),
        body: Some(body.as_bytes().to_vec()),
        headers: Vec::new(),
        status,
        error,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_says_what_was_wrong_and_changes_nothing() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let holds = format!("/api/showings/{sid}/holds");

    // A buyer with a live hold, whose seats stay held throughout.
    let mine = api.hold(&sid, &["B8"], None).await;
    let my_cookie = mine.cookie.clone().unwrap();
    let my_hold = format!("{holds}/{}", mine.body["hold_id"].as_str().unwrap());
    let stranger = api.hold(&sid, &["B7"], None).await.cookie.unwrap();
    // A third buyer, given a session by the showing's page.
    let fresh = api
        .get(&format!("/api/showings/{sid}"))
        .await
        .cookie
        .unwrap();
    let before = api.seat_map(&sid).await;

    let huge = format!("{{\"seats\": [\"{}\"]}}", "A".repeat(300 * 1024));
    let mut cases = vec![
        refusal("malformed JSON", &holds, "{\"seats\": [", 400, "bad_json"),
        refusal("wrong shape", &holds, "{\"seat\": \"A1\"}", 400, "bad_json"),
        refusal("no seats", &holds, "{\"seats\": []}", 400, "no_seats"),
        refusal(
            "duplicates",
            &holds,
            "{\"seats\": [\"A1\", \"A1\"]}",
            400,
            "duplicate_seats",
        ),
        refusal(
            "unknown",
            &holds,
            "{\"seats\": [\"A1\", \"Z9\", \"Q1\"]}",
            400,
            "unknown_seats",
        ),
        refusal(
            "too many",
            &holds,
            "{\"seats\": [\"A1\",\"A2\",\"A3\",\"A4\",\"A5\"]}",
            400,
            "too_many_seats",
        ),
        refusal(
            "taken",
            &holds,
            "{\"seats\": [\"A1\", \"B8\"]}",
            409,
            "seats_unavailable",
        ),
        refusal("huge body", &holds, &huge, 413, "body_too_large"),
        refusal(
            "unknown showing",
            "/api/showings/0123456789abcdef/holds",
            "{\"seats\": [\"A1\"]}",
            404,
            "not_found",
        ),
        refusal(
            "malformed showing",
            "/api/showings/nope/holds",
            "{\"seats\": [\"A1\"]}",
            404,
            "not_found",
        ),
        refusal(
            "bad key",
            &holds,
            "{\"seats\": [\"A1\"]}",
            400,
            "bad_idempotency_key",
        ),
        // Kept for its key: it depends on the seats, not on the body alone.
        refusal(
            "key first use",
            &holds,
            "{\"seats\": [\"B8\"]}",
            409,
            "seats_unavailable",
        ),
        refusal(
            "key reused",
            &holds,
            "{\"seats\": [\"A2\"]}",
            422,
            "idempotency_key_reused",
        ),
        refusal(
            "another buyer's key",
            &holds,
            "{\"seats\": [\"A2\"]}",
            409,
            "idempotency_key_in_use",
        ),
        refusal(
            "second hold",
            &holds,
            "{\"seats\": [\"A3\"]}",
            409,
            "already_holding",
        ),
        refusal(
            "wrong admin token",
            "/api/admin/showings",
            &sixteen_seat_room(None).to_string(),
            401,
            "unauthorized",
        ),
    ];
    cases[10]
        .headers
        .push(("idempotency-key", "bad key with spaces".into()));
    for case in &mut cases[11..=12] {
        case.headers.push(("idempotency-key", "k-1".into()));
        case.headers.push(("cookie", fresh.clone()));
    }
    cases[13].headers.push(("idempotency-key", "k-1".into()));
    cases[13].headers.push(("cookie", my_cookie.clone()));
    cases[14].headers.push(("cookie", my_cookie.clone()));
    cases[15]
        .headers
        .push(("authorization", "Bearer not-the-token".into()));
    for (name, cookie, method) in [
        ("foreign hold read", Some(stranger.clone()), Method::GET),
        (
            "foreign hold release",
            Some(stranger.clone()),
            Method::DELETE,
        ),
        ("hold without session", None, Method::DELETE),
    ] {
        cases.push(Refusal {
            name,
            method,
            path: my_hold.clone(),
            body: None,
            headers: cookie.map(|c| vec![("cookie", c)]).unwrap_or_default(),
            status: 404,
            error: "hold_not_found",
        });
    }
    cases.push(Refusal {
        name: "garbage hold id",
        method: Method::GET,
        path: format!("{holds}/not-a-hold"),
        body: None,
        headers: vec![("cookie", my_cookie.clone())],
        status: 404,
        error: "hold_not_found",
    });

    for case in cases {
        let headers: Vec<(&str, &str)> =
            case.headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let reply = api.send(case.method, &case.path, case.body, &headers).await;
        assert_eq!(reply.status, case.status, "{}: {:?}", case.name, reply.body);
        assert_eq!(reply.body["error"], case.error, "{}", case.name);
        assert!(
            reply.body["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{}",
            case.name
        );
        let after = api.seat_map(&sid).await;
        assert_eq!(after, before, "{} changed the seat map", case.name);
    }

    // The refusals name what was wrong.
    let r = api
        .send(
            Method::POST,
            &holds,
            Some(b"{\"seats\": [\"A1\", \"Z9\", \"Q1\"]}".to_vec()),
            &[],
        )
        .await;
    assert_eq!(names(&r.body["seats"]), ["Z9", "Q1"]);
    let r = api
        .send(
            Method::POST,
            &holds,
            Some(b"{\"seats\": [\"A1\", \"B7\", \"B8\"]}".to_vec()),
            &[],
        )
        .await;
    assert_eq!(names(&r.body["seats"]), ["B7", "B8"]);
    // The refusal carries the compact map: B7 and B8 are the last two of 16.
    let codes = r.body["availability"]["codes"].as_str().unwrap();
    assert_eq!(&codes[14..], "hh", "{codes}");
    let r = api.hold(&sid, &["A1", "A2", "A3", "A4", "A5"], None).await;
    assert_eq!(r.body["max_seats"], 4);

    // The owner can release; a second release finds nothing.
    let cookie = [("cookie", my_cookie.as_str())];
    assert_eq!(
        api.send(Method::DELETE, &my_hold, None, &cookie)
            .await
            .status,
        204
    );
    assert_eq!(api.seat_map(&sid).await["B8"], "available");
    assert_eq!(
        api.send(Method::DELETE, &my_hold, None, &cookie)
            .await
            .status,
        404
    );

    // Input out of bounds is refused by the Worker, in a short answer
    // naming the field, and nothing of it is kept for its key: the same
    // key then holds seats.
    let newcomer = api
        .get(&format!("/api/showings/{sid}"))
        .await
        .cookie
        .unwrap();
    let headers = [("idempotency-key", "k-big"), ("cookie", newcomer.as_str())];
    let big = "x".repeat(200 * 1024);
    for (field, body) in [
        (
            "prices",
            json!({"seats": ["A1"], "prices": {big.clone(): "child"}}),
        ),
        (
            "prices",
            json!({"seats": ["A1"], "prices": {"A1": big.clone()}}),
        ),
        (
            "prices",
            json!({"seats": ["A1"], "prices": {"A2": "child"}}),
        ),
        ("seats", json!({"seats": [format!("A{}", "1".repeat(32))]})),
        ("seats", json!({"seats": ["A\u{7}"]})),
    ] {
        let bytes = body.to_string().into_bytes();
        let r = api.send(Method::POST, &holds, Some(bytes), &headers).await;
        assert_eq!(
            (r.status, &r.body["error"]),
            (400, &json!("invalid_request"))
        );
        assert_eq!(r.body["field"], field, "{:?}", r.body);
        assert!(r.body.to_string().len() < 400, "{}", r.body);
    }
    let bytes = b"{\"seats\": [\"A1\"]}".to_vec();
    let r = api.send(Method::POST, &holds, Some(bytes), &headers).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_asking_too_fast_is_told_to_wait() {
    let options = StackOptions::default()
        .var("HOLD_RATE_BURST", "2")
        .var("HOLD_RATE_PER_MINUTE", "1");
    let stack = Stack::start_with(options);
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let before = api.seat_map(&sid).await;
    for _ in 0..2 {
        assert_eq!(api.hold(&sid, &["Z1"], None).await.status, 400);
    }
    let limited = api.hold(&sid, &["A1"], None).await;
    assert_eq!(limited.status, 429);
    assert_eq!(limited.body["error"], "rate_limited");
    let wait: u64 = limited.retry_after.expect("Retry-After").parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(api.seat_map(&sid).await, before);
    let seats: BTreeSet<_> = before.as_object().unwrap().keys().collect();
    assert_eq!(seats.len(), 16);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_twenty_thousand_seat_arena_writes_only_the_seats_it_changes() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let rows: Vec<Value> = (0..200)
        .map(|r| json!({"name": format!("R{r}-"), "seats": 100}))
        .collect();
    let mut arena = sixteen_seat_room(None);
    arena["layout"] = json!({ "rows": rows });
    let sid = api.create_showing(arena).await;
    assert_eq!(api.seat_map(&sid).await.as_object().unwrap().len(), 20_000);

    let held = api.hold(&sid, &["R0-1", "R199-100"], None).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    let stats = api.stats(&sid).await;
    assert_eq!(stats["seats"]["held"], 2);
    assert_eq!(stats["seats"]["available"], 19_998);
    let written = stats["rows_written_by_last_change"].as_u64().unwrap();
    assert!(
        (2..=12).contains(&written),
        "a 2-seat hold wrote {written} rows"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seat_maps_are_the_workers_copy_at_most_a_second_old() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let compact = || {
        let api = api.clone();
        let path = format!("/api/showings/{sid}/seats?format=codes");
        async move {
            let reply = api.get(&path).await;
            assert_eq!(reply.status, 200, "{:?}", reply.body);
            reply.body
        }
    };
    let first = compact().await;
    assert_eq!(first["codes"], "a".repeat(16));

    // Held just after that read was kept: a second later the compact map
    // shows it, as the object's own map (the staff view) does at once.
    let held = api.hold(&sid, &["A1", "B8"], None).await;
    assert_eq!(held.status, 201);
    let fresh = api
        .admin(Method::GET, &format!("/api/admin/showings/{sid}"), None)
        .await
        .body["availability"]
        .clone();
    assert_eq!(
        (fresh["seats"]["A1"].as_str(), fresh["seats"]["B8"].as_str()),
        (Some("held"), Some("held"))
    );
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    let after = compact().await;
    assert_eq!(after["version"], fresh["version"]);
    assert_eq!(after["codes"], format!("h{}h", "a".repeat(14)));
    let unknown = api
        .get("/api/showings/0123456789abcdef/seats?format=codes")
        .await;
    assert_eq!(unknown.status, 404);

    // The full map, and the showing's page, are the Worker's copy too: a
    // flood of reads reaches the object about once a second, not each time.
    let built = || async { api.stats(&sid).await["seat_maps_built"].as_u64().unwrap() };
    let before = built().await;
    let started = Instant::now();
    for _ in 0..30 {
        let full = api.get(&format!("/api/showings/{sid}/seats")).await;
        assert_eq!(full.body["seats"]["A1"], "held", "{:?}", full.body);
        let page = api.get(&format!("/api/showings/{sid}")).await;
        assert_eq!(page.body["availability"]["seats"]["B8"], "held");
    }
    let asked = built().await - before;
    let most = 2 + started.elapsed().as_secs();
    assert!(
        (1..=most).contains(&asked),
        "{asked} maps built for 60 reads"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cookieless_holds_from_one_ipv6_network_stop_at_its_seat_cap_and_rate() {
    let stack = Stack::start_with(
        StackOptions::default()
            .var("HOLD_SEATS_PER_CLIENT", "20")
            .var("HOLD_RATE_BURST", "30")
            .var("HOLD_RATE_PER_MINUTE", "1"),
    );
    let api = Api::new(&stack);
    let rows: Vec<Value> = "ABCDEFGHIJ"
        .chars()
        .map(|r| json!({"name": r.to_string(), "seats": 25}))
        .collect();
    let mut room = sixteen_seat_room(None);
    room["layout"] = json!({ "rows": rows });
    let sid = api.create_showing(room).await;
    let path = format!("/api/showings/{sid}/holds");

    // 200 holds of one seat, each from another address of one /64 and
    // without a cookie, so each is a new buyer.
    let mut answers = Vec::new();
    for n in 0..200u32 {
        let seat = format!("{}{}", (b'A' + (n / 20) as u8) as char, n % 20 + 1);
        let address = format!("2001:db8:7:7:{:x}:{:x}::1", n, n * 7);
        let body = json!({ "seats": [seat] }).to_string().into_bytes();
        let reply = api
            .send(
                Method::POST,
                &path,
                Some(body),
                &[("cf-connecting-ip", &address)],
            )
            .await;
        answers.push((
            reply.status,
            reply.body["error"].as_str().unwrap_or("").to_string(),
        ));
    }
    let granted = answers.iter().filter(|(status, _)| *status == 201).count();
    assert_eq!(granted, 20, "{answers:?}");
    assert!(answers[..20].iter().all(|(status, _)| *status == 201));
    let capped = answers
        .iter()
        .filter(|(_, e)| e == "too_many_seats_held")
        .count();
    let rated = answers.iter().filter(|(_, e)| e == "rate_limited").count();
    assert_eq!(capped + rated, 180, "{answers:?}");
    assert!(
        capped >= 10 && rated >= 150,
        "{capped} capped, {rated} rate limited"
    );
    assert_eq!(api.stats(&sid).await["live_holds"], 20);

    // Another network, IPv4 or IPv6, is not held back by this one.
    for address in ["203.0.113.5", "2001:db8:7:8::1"] {
        let body = json!({ "seats": ["J25"] }).to_string().into_bytes();
        let reply = api
            .send(
                Method::POST,
                &path,
                Some(body),
                &[("cf-connecting-ip", address)],
            )
            .await;
        assert_eq!(reply.status, 201, "{address}: {:?}", reply.body);
        let hold = format!("{path}/{}", reply.body["hold_id"].as_str().unwrap());
        let cookie = reply.cookie.unwrap();
        let released = api
            .send(Method::DELETE, &hold, None, &[("cookie", &cookie)])
            .await;
        assert_eq!(released.status, 204);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listing_asks_each_showing_at_most_every_few_seconds_however_often_viewed() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let left = |listing: &Value| {
        listing["showings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == sid.as_str())
            .map(|s| s["seats_available"].clone())
    };
    let started = Instant::now();
    for _ in 0..30 {
        let listing = api.get("/api/showings").await;
        assert_eq!(left(&listing.body), Some(json!(16)));
    }
    let asked = api.stats(&sid).await["summaries_answered"]
        .as_u64()
        .unwrap();
    // Once, or twice if the views spanned the copy's five seconds.
    let spans = 1 + started.elapsed().as_secs() / 5;
    assert!(
        asked >= 1 && asked <= spans,
        "{asked} summaries for 30 views"
    );

    // A hold shows in the listing once the copy is renewed.
    assert_eq!(api.hold(&sid, &["A1"], None).await.status, 201);
    tokio::time::sleep(Duration::from_millis(5_500)).await;
    let listing = api.get("/api/showings").await;
    assert_eq!(left(&listing.body), Some(json!(15)));
}

/// A watching browser's socket, as the seat map page opens it.
struct Watcher(
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
);

impl Watcher {
    async fn open(stack: &Stack, sid: &str) -> Watcher {
        let url = stack
            .url(&format!("/api/showings/{sid}/live"))
            .replacen("http://", "ws://", 1);
        let (socket, answer) = tokio_tungstenite::connect_async(url.as_str())
            .await
            .expect("the socket opens");
        assert_eq!(answer.status().as_u16(), 101);
        Watcher(socket)
    }

    /// A socket opened from the network of `address` (as Cloudflare would
    /// tell the Worker); the refusal's status when it is not opened.
    async fn open_from(stack: &Stack, sid: &str, address: &str) -> Result<Watcher, u16> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let url = stack
            .url(&format!("/api/showings/{sid}/live"))
            .replacen("http://", "ws://", 1);
        let mut request = url.into_client_request().expect("a socket request");
        request
            .headers_mut()
            .insert("cf-connecting-ip", address.parse().expect("a header value"));
        match tokio_tungstenite::connect_async(request).await {
            Ok((socket, _)) => Ok(Watcher(socket)),
            Err(tokio_tungstenite::tungstenite::Error::Http(answer)) => {
                Err(answer.status().as_u16())
            }
            Err(e) => panic!("the socket neither opened nor was refused: {e}"),
        }
    }

    /// The next text message, or `None` when none comes within `wait`.
    async fn next(&mut self, wait: Duration) -> Option<String> {
        use futures_util::StreamExt;
        loop {
            let message = tokio::time::timeout(wait, self.0.next()).await.ok()??;
            match message.expect("the socket stays open") {
                tokio_tungstenite::tungstenite::Message::Text(text) => {
                    return Some(text.to_string())
                }
                tokio_tungstenite::tungstenite::Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    async fn send(&mut self, text: &str) {
        use futures_util::SinkExt;
        let message = tokio_tungstenite::tungstenite::Message::text(text);
        self.0.send(message).await.expect("sent");
    }
}

/// Applies a push to a map at `version` as the seat map page does;
/// answers false when the push is changes from another version.
fn apply_push(codes: &mut Vec<u8>, version: &mut u64, push: &Value) -> bool {
    if let Some(whole) = push["codes"].as_str() {
        *codes = whole.as_bytes().to_vec();
    } else {
        if push["since"].as_u64() != Some(*version) {
            return false;
        }
        for change in push["changes"].as_array().expect("changes") {
            let i = change[0].as_u64().unwrap() as usize;
            codes[i] = change[1].as_str().unwrap().as_bytes()[0];
        }
    }
    *version = push["version"].as_u64().unwrap();
    true
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_is_pushed_the_map_at_most_once_a_second_and_the_pushes_rebuild_it() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let mut watcher = Watcher::open(&stack, &sid).await;
    let first: Value = serde_json::from_str(&watcher.next(Duration::from_secs(5)).await.unwrap())
        .expect("a JSON push");
    assert_eq!(first, json!({"version": 0, "codes": "a".repeat(16)}));
    let (mut codes, mut version) = (Vec::new(), 0);
    assert!(apply_push(&mut codes, &mut version, &first));

    // The runtime answers a page's "ping" itself.
    watcher.send("ping").await;
    assert_eq!(
        watcher.next(Duration::from_secs(5)).await.as_deref(),
        Some("pong")
    );

    // Eight buyers hold a seat each at once.
    let started = Instant::now();
    let mut set = JoinSet::new();
    for seat in ["A1", "A3", "A5", "A7", "B2", "B4", "B6", "B8"] {
        let api = api.clone();
        let sid = sid.clone();
        set.spawn(async move { api.hold(&sid, &[seat], None).await.status });
    }
    let statuses = set.join_all().await;
    let holding = started.elapsed();
    assert!(statuses.iter().all(|s| *s == 201), "{statuses:?}");

    // The pushes that follow: the last one within a period of the last
    // hold (the alarm sends what the period held back).
    let mut pushes = 0;
    while let Some(text) = watcher.next(Duration::from_millis(2_500)).await {
        let push: Value = serde_json::from_str(&text).expect("a JSON push");
        assert!(
            apply_push(&mut codes, &mut version, &push),
            "each push applies to the one before: {push} after version {version}"
        );
        pushes += 1;
    }
    let map = api
        .admin(Method::GET, &format!("/api/admin/showings/{sid}"), None)
        .await
        .body["availability"]
        .clone();
    assert_eq!(
        version,
        map["version"].as_u64().unwrap(),
        "the pushes reach the last version"
    );
    let pushed: String = SEATS
        .iter()
        .zip(&codes)
        .map(|(seat, code)| format!("{seat}={}", *code as char))
        .collect::<Vec<_>>()
        .join(" ");
    let read: String = SEATS
        .iter()
        .map(|seat| format!("{seat}={}", &map["seats"][seat].as_str().unwrap()[..1]))
        .collect::<Vec<_>>()
        .join(" ");
    assert_eq!(pushed, read, "the pushed map is the map");
    // One push at once, then at most one a second while the holds went on,
    // and one for what the last period held back.
    let most = 2 + holding.as_millis() / 1_000;
    assert!(
        (1..=most).contains(&(pushes as u128)),
        "{pushes} pushes for 8 holds made in {holding:?}"
    );
    eprintln!("{pushes} pushes for 8 holds made in {holding:?}");

    // Five live maps from one network; the sixth is refused, while another
    // network still watches.
    let mut household = Vec::new();
    for _ in 0..5 {
        let opened = Watcher::open_from(&stack, &sid, "198.51.100.30").await;
        household.push(opened.expect("one of the first five"));
    }
    let sixth = Watcher::open_from(&stack, &sid, "198.51.100.30").await;
    assert_eq!(sixth.err(), Some(429), "the sixth from one network");
    let mut neighbour = Watcher::open_from(&stack, &sid, "203.0.113.30")
        .await
        .expect("another network");
    assert!(neighbour.next(Duration::from_secs(5)).await.is_some());
}
