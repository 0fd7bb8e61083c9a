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

/// A door device signs in with the PIN and is given a session: guesses
/// from three other networks then lock the PIN for everyone, but the
/// device scans, syncs and fetches its list with the session as before. A
/// session is refused for another showing, altered, without a
/// credential, and once staff set the PIN again, even to the same one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_door_session_outlasts_a_pin_lock_and_ends_with_a_new_pin() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let other = api.create_showing(sixteen_seat_room(None)).await;
    for showing in [&sid, &other] {
        api.set_door_pin(showing, "2468").await;
    }
    let a3 = code_of(&buy(&api, &sid, "A3").await);
    let a4 = code_of(&buy(&api, &sid, "A4").await);
    let ask = |credential: Option<(&'static str, String)>| {
        let api = api.clone();
        let path = format!("/api/door/showings/{sid}/session");
        async move {
            let headers: Vec<(&str, &str)> = credential
                .iter()
                .map(|(name, value)| (*name, value.as_str()))
                .collect();
            api.send(Method::POST, &path, None, &headers).await
        }
    };
    let refused = ask(None).await;
    assert_eq!(refused.status, 401, "{:?}", refused.body);
    let given = ask(Some(("x-door-pin", "2468".into()))).await;
    assert_eq!(given.status, 200, "{:?}", given.body);
    let session = given.body["session"].as_str().unwrap().to_string();
    let expires = given.body["expires_at_ms"].as_i64().unwrap();
    assert!(
        expires > e2e::now_ms() + 48 * 3_600_000,
        "until two days after the door closes"
    );

    // Guesses from three networks lock the PIN, for the door's network too.
    for guess in 0..30 {
        let body = json!({"code": a3, "showing_id": sid, "device": "guesser"});
        let network = format!("203.0.113.{}", guess % 3 + 1);
        let reply = api
            .send(
                Method::POST,
                "/api/door/checkin",
                Some(body.to_string().into_bytes()),
                &[("x-door-pin", "0000"), ("cf-connecting-ip", &network)],
            )
            .await;
        assert_eq!(reply.status, 401, "guess {guess}: {:?}", reply.body);
    }
    let locked = scan(&api, ("x-door-pin", "2468"), &a3, &sid).await;
    assert_eq!(locked.status, 429, "{:?}", locked.body);
    let no_new_session = ask(Some(("x-door-pin", "2468".into()))).await;
    assert_eq!(no_new_session.status, 429);

    // The device signed in before goes on.
    let admitted = scan(&api, ("x-door-session", &session), &a3, &sid).await;
    assert_eq!(admitted.body["result"], "admitted", "{:?}", admitted.body);
    let synced = api
        .send(
            Method::POST,
            "/api/door/sync",
            Some(
                json!({"showing_id": sid, "device": "door-1", "scans": [
                    {"id": "s-1", "code": a4, "at_ms": e2e::now_ms(), "result": "admitted"}
                ]})
                .to_string()
                .into_bytes(),
            ),
            &[("x-door-session", &session)],
        )
        .await;
    assert_eq!(outcomes(&synced), pairs(&[("s-1", "admitted")]));
    let list = api
        .send(
            Method::GET,
            &format!("/api/door/showings/{sid}/manifest"),
            None,
            &[("x-door-session", &session)],
        )
        .await;
    assert_eq!(list.status, 200, "{:?}", list.body);

    // Not for another showing, not altered, not after a new PIN.
    let elsewhere = scan(&api, ("x-door-session", &session), &a3, &other).await;
    assert_eq!(elsewhere.status, 401);
    let later = session.replacen(&format!(".{expires}."), &format!(".{}.", expires + 1), 1);
    assert_ne!(later, session);
    let altered = scan(&api, ("x-door-session", &later), &a3, &sid).await;
    assert_eq!(altered.status, 401);
    // The same PIN set again (a phone lost, say) ends it too.
    api.set_door_pin(&sid, "2468").await;
    let ended = scan(&api, ("x-door-session", &session), &a3, &sid).await;
    assert_eq!(ended.status, 401, "{:?}", ended.body);
}

/// Checks a ticket code with a door manifest's public keys alone, as a
/// door device does offline: no secret, no server.
fn device_accepts(manifest: &Value, code: &str) -> bool {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    let Some((signed, signature)) = code.rsplit_once('.') else {
        return false;
    };
    let key_id = code.split('.').nth(1).unwrap_or_default();
    let Some(key) = manifest["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == key_id)
    else {
        return false;
    };
    let key: [u8; 32] = URL_SAFE_NO_PAD
        .decode(key["key"].as_str().unwrap())
        .unwrap()
        .try_into()
        .unwrap();
    let key = ed25519_dalek::VerifyingKey::from_bytes(&key).unwrap();
    let Ok(signature) = URL_SAFE_NO_PAD
        .decode(signature)
        .map_err(|_| ())
        .and_then(|s| ed25519_dalek::Signature::from_slice(&s).map_err(|_| ()))
    else {
        return false;
    };
    key.verify_strict(signed.as_bytes(), &signature).is_ok()
}

/// A door device's manifest: the public keys that check every code with no
/// network, each paid ticket with its seat and check-in, refunded tickets
/// marked void; and nothing at all without a door credential.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manifest_lets_a_device_check_codes_alone_and_needs_a_door_credential() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let kept = buy(&api, &sid, "A1").await;
    let refunded = buy(&api, &sid, "A2").await;
    api.set_door_pin(&sid, "4321").await;
    let code = kept.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(code.starts_with("v2."), "{code}");
    let pin = ("x-door-pin", "4321");
    assert_eq!(
        scan(&api, pin, &code, &sid).await.body["result"],
        "admitted"
    );
    let order_id = refunded.body["order_id"].as_str().unwrap();
    api.refund_until_void(&stack, order_id).await;

    let path = format!("/api/door/showings/{sid}/manifest");
    let admin = format!("Bearer {}", api.admin_token());
    for headers in [
        vec![],
        vec![("x-door-pin", "0000")],
        vec![("authorization", "Bearer nope")],
        vec![("authorization", admin.as_str())],
    ] {
        let refused = api.send(Method::GET, &path, None, &headers).await;
        assert_eq!(refused.status, 401, "{headers:?}: {:?}", refused.body);
        assert!(refused.body.get("tickets").is_none());
    }

    let manifest = api.send(Method::GET, &path, None, &[pin]).await;
    assert_eq!(manifest.status, 200, "{:?}", manifest.body);
    assert_eq!(manifest.header("cache-control"), Some("no-store"));
    let body = &manifest.body;
    assert_eq!(body["showing"]["id"], sid.as_str());
    assert_eq!(body["codes_check_offline"], true);
    assert_eq!(body["complete"], true);
    let tickets = body["tickets"].as_array().unwrap();
    assert_eq!(tickets.len(), 2, "{tickets:?}");
    let a1 = tickets.iter().find(|t| t["seat"] == "A1").unwrap();
    assert_eq!(a1["id"], kept.body["tickets"][0]["id"]);
    assert_eq!(a1["status"], "valid");
    assert_eq!(a1["checked_in_by"], "door-1");
    assert!(a1["checked_in_at_ms"].as_u64().is_some(), "{a1:?}");
    // The number under the QR code, as the ticket page prints it: the
    // order's nonce (after the showing's 16 digits), 5 and 5, and the
    // ticket's number.
    let (order, number) = a1["id"].as_str().unwrap().split_once('-').unwrap();
    let nonce = order[16..].to_uppercase();
    assert_eq!(
        a1["short_code"],
        format!("{}-{}-{number}", &nonce[..5], &nonce[5..10]).as_str()
    );
    let a2 = tickets.iter().find(|t| t["seat"] == "A2").unwrap();
    assert_eq!(
        (a2["status"].as_str(), &a2["checked_in_at_ms"]),
        (Some("void"), &Value::Null)
    );
    let raw = manifest.body.to_string();
    assert!(!raw.contains("ed25519:"), "no private key is served");

    // The served keys alone accept the real code and refuse an edited one.
    assert!(device_accepts(body, &code));
    let edited = code.replace(".QTE.", ".QTI.");
    assert_ne!(edited, code);
    assert!(!device_accepts(body, &edited));

    // The staff door token opens it too.
    let token = format!("Bearer {}", stack.door_token());
    let by_token = api
        .send(Method::GET, &path, None, &[("authorization", &token)])
        .await;
    assert_eq!(by_token.status, 200);
}

fn code_of(paid: &Reply) -> String {
    paid.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn sync(api: &Api, sid: &str, device: &str, scans: Value) -> Reply {
    let body = json!({"showing_id": sid, "device": device, "scans": scans});
    api.send(
        Method::POST,
        "/api/door/sync",
        Some(body.to_string().into_bytes()),
        &[("x-door-pin", "4321")],
    )
    .await
}

fn outcomes(reply: &Reply) -> Vec<(String, String)> {
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    reply.body["scans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
            (text(&s["id"]), text(&s["outcome"]))
        })
        .collect()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// Two devices admit the same ticket while offline and sync when back, the
/// later scan first: the earliest admission stands and the other is listed
/// as a duplicate with its device and time. A batch sent again records
/// nothing twice. A ticket refunded while a device was offline, and an
/// online admission later than an offline one, are caught and listed. A
/// scan admitted online whose answer was lost, sent again or queued and
/// synced, is the one admission, recorded once; and a scan dated over 48
/// hours back is answered alone, unrecorded, without the rest of its batch
/// refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_scans_sync_once_each_and_the_earliest_admission_stands() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let a1 = code_of(&buy(&api, &sid, "A1").await);
    let a2 = code_of(&buy(&api, &sid, "A2").await);
    let a3_paid = buy(&api, &sid, "A3").await;
    let a3 = code_of(&a3_paid);
    let a4 = code_of(&buy(&api, &sid, "A4").await);
    let a5 = code_of(&buy(&api, &sid, "A5").await);
    api.set_door_pin(&sid, "4321").await;
    api.refund_until_void(&stack, a3_paid.body["order_id"].as_str().unwrap())
        .await;
    let t0 = e2e::now_ms();
    let at = |ms_ago: i64| json!(t0 - ms_ago);

    // Door B comes back first, with the later scan of A1 and A3, refunded
    // while it was offline.
    let door_b = json!([
        {"id": "b-1", "code": a1, "at_ms": at(5_000), "result": "admitted"},
        {"id": "b-2", "code": a3, "at_ms": at(4_000), "result": "admitted"},
    ]);
    let first = sync(&api, &sid, "door-b", door_b.clone()).await;
    assert_eq!(
        outcomes(&first),
        pairs(&[("b-1", "admitted"), ("b-2", "void")])
    );

    // Door A admitted A1 earlier; it also turned a forged code away.
    let forged = a2.replace(".QTI.", ".QTE.");
    let door_a = json!([
        {"id": "a-1", "code": a1, "at_ms": at(9_000), "result": "admitted"},
        {"id": "a-2", "code": forged, "at_ms": at(8_500), "result": "invalid"},
        {"id": "a-3", "code": a2, "at_ms": at(8_000), "result": "admitted"},
    ]);
    let second = sync(&api, &sid, "door-a", door_a.clone()).await;
    assert_eq!(
        outcomes(&second),
        pairs(&[("a-1", "admitted"), ("a-2", "invalid"), ("a-3", "admitted")])
    );

    // Both batches again, as a device does when an answer was lost.
    let again = sync(&api, &sid, "door-b", door_b).await;
    assert_eq!(
        outcomes(&again),
        pairs(&[("b-1", "duplicate"), ("b-2", "void")])
    );
    assert_eq!(again.body["scans"][0]["admitted_by"], "door-a");
    assert_eq!(again.body["scans"][0]["admitted_at_ms"], at(9_000));
    let again = sync(&api, &sid, "door-a", door_a).await;
    assert_eq!(outcomes(&again), outcomes(&second));
    let rows = stack.d1_query(&format!(
        "SELECT device, scan_id FROM door_scans WHERE showing_id = '{sid}' ORDER BY device, scan_id"
    ));
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| r["scan_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a-1", "a-2", "a-3", "b-1", "b-2"], "each scan once");
    let a1_row = stack.d1_query(&format!(
        "SELECT checked_in_by, checked_in_at_ms FROM tickets WHERE showing_id = '{sid}' AND seat = 'A1'"
    ));
    assert_eq!(
        a1_row,
        [json!({"checked_in_by": "door-a", "checked_in_at_ms": t0 - 9_000})]
    );

    // Online, A1 is already in; A4 is admitted now, then a device that was
    // offline brings an earlier admission of it, which stands.
    let online = scan(&api, ("x-door-pin", "4321"), &a1, &sid).await;
    assert_eq!(online.body["result"], "already_checked_in");
    let now = scan(&api, ("x-door-pin", "4321"), &a4, &sid).await;
    assert_eq!(now.body["result"], "admitted");
    let door_c = json!([{"id": "c-1", "code": a4, "at_ms": at(60_000), "result": "admitted"}]);
    let third = sync(&api, &sid, "door-c", door_c).await;
    assert_eq!(outcomes(&third), pairs(&[("c-1", "admitted")]));
    assert_eq!(
        (third.body["admitted"].as_u64(), third.body["sold"].as_u64()),
        (Some(3), Some(4))
    );

    // Door 1 admits A5 online as its scan e-1 and loses the answer: sent
    // again, the same scan is answered as it was; another scan of A5 is
    // not admitted; a scan id the page never makes is refused.
    let scan_as = |scan_id: &str| {
        let body = json!({"code": a5, "showing_id": sid, "device": "door-1", "scan_id": scan_id});
        api.send(
            Method::POST,
            "/api/door/checkin",
            Some(body.to_string().into_bytes()),
            &[("x-door-pin", "4321")],
        )
    };
    let a5_online = scan_as("e-1").await;
    assert_eq!(a5_online.body["result"], "admitted");
    let a5_at = a5_online.body["checked_in_at_ms"].clone();
    let replayed = scan_as("e-1").await;
    assert_eq!(
        (&replayed.body["result"], &replayed.body["checked_in_at_ms"]),
        (&json!("admitted"), &a5_at)
    );
    let other_scan = scan_as("e-9").await;
    assert_eq!(other_scan.body["result"], "already_checked_in");
    let bad_id = scan_as("e 1").await;
    assert_eq!(
        (bad_id.status, &bad_id.body["error"]),
        (400, &json!("invalid_scans"))
    );

    // The device, with no answer, judged the scan itself and queued it as
    // e-1: it is recorded once, as the admission made online. In the same
    // batch, a scan from a clock two days behind.
    let later = e2e::now_ms() + 1_000;
    let door_1 = json!([
        {"id": "e-1", "code": a5, "at_ms": later, "result": "admitted"},
        {"id": "e-2", "code": a2, "at_ms": t0 - 49 * 3_600_000, "result": "admitted"},
    ]);
    let fourth = sync(&api, &sid, "door-1", door_1).await;
    assert_eq!(
        outcomes(&fourth),
        pairs(&[("e-1", "admitted"), ("e-2", "too_old")])
    );
    let e1_rows = stack.d1_query(&format!(
        "SELECT scanned_at_ms, offline FROM door_scans WHERE showing_id = '{sid}' AND ticket_id = \
         (SELECT id FROM tickets WHERE showing_id = '{sid}' AND seat = 'A5')"
    ));
    assert_eq!(
        e1_rows,
        [json!({"scanned_at_ms": a5_at, "offline": 0})],
        "one row for the scan, online"
    );
    // A check-in that comes after the device gave up on it and synced the
    // scan as it judged it (here: turned away) admits nothing.
    let a6 = code_of(&buy(&api, &sid, "A6").await);
    let judged = json!([{"id": "e-3", "code": a6, "at_ms": e2e::now_ms(), "result": "invalid"}]);
    let fifth = sync(&api, &sid, "door-1", judged).await;
    assert_eq!(outcomes(&fifth), pairs(&[("e-3", "recorded")]));
    let late = api
        .send(
            Method::POST,
            "/api/door/checkin",
            Some(
                json!({"code": a6, "showing_id": sid, "device": "door-1", "scan_id": "e-3"})
                    .to_string()
                    .into_bytes(),
            ),
            &[("x-door-pin", "4321")],
        )
        .await;
    assert_eq!(late.body["result"], "judged_on_device", "{:?}", late.body);
    let a6_row = stack.d1_query(&format!(
        "SELECT checked_in_at_ms FROM tickets WHERE showing_id = '{sid}' AND seat = 'A6'"
    ));
    assert_eq!(a6_row, [json!({"checked_in_at_ms": null})]);
    let e2_rows = stack.d1_query(&format!(
        "SELECT scan_id FROM door_scans WHERE showing_id = '{sid}' AND scan_id = 'e-2'"
    ));
    assert!(e2_rows.is_empty(), "a scan too old is not recorded");
    let a2_row = stack.d1_query(&format!(
        "SELECT checked_in_by FROM tickets WHERE showing_id = '{sid}' AND seat = 'A2'"
    ));
    assert_eq!(a2_row, [json!({"checked_in_by": "door-a"})]);

    // The conflicts, for the door and for staff: B's admission of A1,
    // B's of the refunded A3, and the online admission of A4.
    let listed = |body: &Value| -> Vec<(String, String, String)> {
        body["conflicts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
                (text("seat"), text("device"), text("status"))
            })
            .collect()
    };
    let expected: Vec<(String, String, String)> = [
        ("A1", "door-b", "valid"),
        ("A3", "door-b", "void"),
        ("A4", "door-1", "valid"),
    ]
    .iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    .collect();
    assert_eq!(listed(&third.body), expected);
    assert_eq!(
        listed(&fourth.body),
        expected,
        "door 1's lost answer is no conflict"
    );
    let a1_conflict = &third.body["conflicts"][0];
    assert_eq!(
        (
            &a1_conflict["scanned_at_ms"],
            &a1_conflict["admitted_by"],
            &a1_conflict["admitted_at_ms"]
        ),
        (&at(5_000), &json!("door-a"), &at(9_000))
    );
    let staff = api
        .admin(
            Method::GET,
            &format!("/api/admin/showings/{sid}/door-conflicts"),
            None,
        )
        .await;
    assert_eq!(staff.status, 200);
    assert_eq!(listed(&staff.body), expected);

    // Refused batches record nothing.
    let before = stack.d1_query("SELECT COUNT(*) AS n FROM door_scans");
    let empty = sync(&api, &sid, "door-d", json!([])).await;
    assert_eq!(
        (empty.status, empty.body["error"].as_str()),
        (400, Some("invalid_scans"))
    );
    let many: Vec<Value> = (0..201)
        .map(|n| json!({"id": format!("d-{n}"), "code": a2, "at_ms": t0, "result": "admitted"}))
        .collect();
    let too_many = sync(&api, &sid, "door-d", json!(many)).await;
    assert_eq!(too_many.body["error"], "invalid_scans");
    let unsigned = api
        .send(
            Method::POST,
            "/api/door/sync",
            Some(json!({"showing_id": sid, "device": "door-d", "scans": [{"id": "d-1", "code": a2, "at_ms": t0, "result": "admitted"}]}).to_string().into_bytes()),
            &[],
        )
        .await;
    assert_eq!(unsigned.status, 401);
    assert_eq!(
        stack.d1_query("SELECT COUNT(*) AS n FROM door_scans"),
        before
    );
}

/// The number a ticket page prints under its QR code, typed at the door
/// in any spacing or case, admits the ticket once, as its whole id does;
/// the receipt lists the order's refund, and a refunded ticket's page has
/// no QR code to scan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_number_typed_at_the_door_admits_it_once_and_a_refund_voids_its_qr() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = buy(&api, &sid, "A2").await;
    let order = api.get(paid.body["order_url"].as_str().unwrap()).await;
    assert_eq!(order.status, 200, "{:?}", order.body);
    let ticket = &order.body["tickets"][0];
    let short = ticket["short_code"].as_str().unwrap().to_string();
    let id = ticket["id"].as_str().unwrap().to_string();
    assert_eq!(short.len(), "3F9A1-C2E4B-1".len(), "{short}");
    assert_eq!(order.body["refunds"], json!([]));
    let page = api.get(ticket["page_url"].as_str().unwrap()).await;
    let html = page.body.as_str().unwrap_or_default().to_string();
    assert!(html.contains(&short), "the ticket page prints {short}");
    assert!(html.contains("/orders/"), "and links back to its order");

    let token = format!("Bearer door-{}", api.admin_token());
    let door = ("authorization", token.as_str());
    let typed = short.to_lowercase().replace('-', " ");
    let first = scan(&api, door, &typed, &sid).await;
    assert_eq!(first.body["result"], "admitted", "{:?}", first.body);
    assert_eq!(first.body["seat"], "A2");
    assert_eq!(first.body["ticket_id"], id.as_str());
    for again in [short.as_str(), id.as_str()] {
        let second = scan(&api, door, again, &sid).await;
        assert_eq!(
            second.body["result"], "already_checked_in",
            "{again}: {:?}",
            second.body
        );
    }
    // A number of no ticket, and a short code of another showing's ticket.
    let other = api.create_showing(sixteen_seat_room(None)).await;
    for (code, showing) in [("00000-00000-1", &sid), (short.as_str(), &other)] {
        let refused = scan(&api, door, code, showing).await;
        assert_eq!(
            refused.body["result"], "invalid",
            "{code}: {:?}",
            refused.body
        );
    }

    api.refund_until_void(&stack, paid.body["order_id"].as_str().unwrap())
        .await;
    let order = api.get(paid.body["order_url"].as_str().unwrap()).await;
    let refunds = order.body["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{:?}", order.body);
    assert_eq!(refunds[0]["amount"], 1200);
    assert_eq!(refunds[0]["status"], "COMPLETED");
    let page = api.get(ticket["page_url"].as_str().unwrap()).await;
    let html = page.body.as_str().unwrap_or_default().to_string();
    assert!(html.contains("VOID") && !html.contains("<svg"), "{html}");
    let qr = ticket["page_url"]
        .as_str()
        .unwrap()
        .replacen('?', "/qr.svg?", 1);
    assert_eq!(
        api.get(&qr).await.status,
        404,
        "a void ticket's QR is not served"
    );
}
