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
    let body = json!({"code": code, "showing_id": sid});
    api.send(
        Method::POST,
        "/api/door/checkin",
        Some(body.to_string().into_bytes()),
        &[credential],
    )
    .await
}

/// A showing whose door lists it now: it starts in an hour.
fn starting_soon() -> Value {
    let mut room = sixteen_seat_room(None);
    room["starts_at"] = json!(e2e::time_from_now(3_600_000));
    room
}

/// A PIN that is not `pin`, for guessing wrong.
fn not(pin: &str, n: u32) -> String {
    let guess = format!("{:08}", n);
    if guess == pin {
        format!("{:08}", n + 1)
    } else {
        guess
    }
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

    // Staff do not choose the PIN: the server draws ten digits.
    let chosen = api
        .admin_post(
            &format!("/api/admin/showings/{sid}/door-pin"),
            Some(json!({"pin": "1234"})),
        )
        .await;
    assert_eq!(
        (chosen.status, &chosen.body["error"]),
        (400, &json!("invalid_pin"))
    );
    let pin = api.draw_door_pin(&sid).await;
    assert!(
        pin.len() == 10 && pin.bytes().all(|b| b.is_ascii_digit()),
        "{pin}"
    );

    // Fifty doors, each signed in with the PIN (one after another: each
    // PIN typed takes one of the network's tries while it is checked).
    let mut set = tokio::task::JoinSet::new();
    for _ in 0..50 {
        let path = format!("/api/door/showings/{sid}/session");
        let signed_in = api
            .send(Method::POST, &path, None, &[("x-door-pin", &pin)])
            .await;
        assert_eq!(signed_in.status, 200, "{:?}", signed_in.body);
        let session = signed_in.body["session"].as_str().unwrap().to_string();
        let (api, code, sid) = (api.clone(), code.clone(), sid.clone());
        set.spawn(async move { scan(&api, ("x-door-session", &session), &code, &sid).await });
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

    let door_pin = ("x-door-pin", pin.as_str());
    let again = scan(&api, door_pin, &code, &sid).await;
    assert_eq!(again.body["result"], "already_checked_in");
    assert_eq!(again.body["seat"], "A1");
    assert!(again.body["checked_in_at_ms"].as_u64().is_some());
    assert_eq!(
        (again.body["admitted"].as_u64(), again.body["sold"].as_u64()),
        (Some(1), Some(1))
    );
    // A PIN names no device: a check-in naming one is refused.
    let named = api
        .send(
            Method::POST,
            "/api/door/checkin",
            Some(
                json!({"code": code, "showing_id": sid, "device": "door-1"})
                    .to_string()
                    .into_bytes(),
            ),
            &[door_pin],
        )
        .await;
    assert_eq!(
        (named.status, &named.body["error"]),
        (403, &json!("wrong_device"))
    );

    let forged = code.replace(".QTE.", ".QTI.");
    assert_ne!(forged, code);
    assert_eq!(
        scan(&api, door_pin, &forged, &sid).await.body["result"],
        "invalid"
    );
    assert_eq!(
        scan(&api, door_pin, "not a code", &sid).await.body["result"],
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
        scan(&api, ("x-door-pin", &not(&pin, 0)), &code, &sid)
            .await
            .status,
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

/// A check-in with `pin` from the client network `network`.
async fn pin_from(api: Api, network: &str, pin: String, sid: String, code: String) -> Reply {
    let body = json!({"code": code, "showing_id": sid});
    api.send(
        Method::POST,
        "/api/door/checkin",
        Some(body.to_string().into_bytes()),
        &[("x-door-pin", &pin), ("cf-connecting-ip", network)],
    )
    .await
}

/// Wrong PINs count against the network they come from, for every
/// showing: ten lock it out of all of them, across a restart, while the
/// door token still works there. Forty wrong PINs from four networks do
/// not stop the door's own network signing in with the right one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_pins_lock_only_their_own_network_out_of_every_showing_across_a_restart() {
    let mut stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let other = api.create_showing(sixteen_seat_room(None)).await;
    let pin = api.draw_door_pin(&sid).await;
    let other_pin = api.draw_door_pin(&other).await;
    let paid = buy(&api, &sid, "A3").await;
    let code = paid.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();
    let from = |network: &'static str, pin: String, sid: String| {
        pin_from(api.clone(), network, pin, sid, code.clone())
    };
    // Ten wrong guesses at once: each refused, none lets the next through.
    let mut set = tokio::task::JoinSet::new();
    for guess in 0..10 {
        set.spawn(from("203.0.113.1", not(&pin, guess), sid.clone()));
    }
    let statuses: Vec<u16> = set.join_all().await.iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![401; 10]);

    // Now even the right PIN is refused from there, for every showing.
    let locked = from("203.0.113.1", pin.clone(), sid.clone()).await;
    assert_eq!(
        (locked.status, &locked.body["error"]),
        (429, &json!("door_pin_locked"))
    );
    let wait: u64 = locked.retry_after.as_deref().unwrap().parse().unwrap();
    assert!((1..=600).contains(&wait), "{wait}");
    let elsewhere = from("203.0.113.1", other_pin.clone(), other.clone()).await;
    assert_eq!(elsewhere.status, 429, "{:?}", elsewhere.body);

    // The count is stored: a restart (every object evicted) keeps it.
    stack.restart();
    let api = Api::new(&stack);
    let from = |network: &'static str, pin: String, sid: String| {
        pin_from(api.clone(), network, pin, sid, code.clone())
    };
    let locked = from("203.0.113.1", pin.clone(), sid.clone()).await;
    assert_eq!(locked.status, 429, "{:?}", locked.body);

    // The PIN is stored keyed: the database alone cannot be searched for it.
    let stored = stack.d1_query(&format!(
        "SELECT door_pin_hash FROM showings WHERE id = '{sid}'"
    ));
    let stored = stored[0]["door_pin_hash"].as_str().unwrap();
    assert!(stored.starts_with("drawn:"), "{stored}");
    let unkeyed = hex::encode(Sha256::digest(format!("{sid}:{pin}")));
    assert!(!stored.contains(&unkeyed));

    // Ten more wrong PINs from each of three other networks: each is
    // locked out in turn, and the door's own network is not.
    for network in ["203.0.113.2", "203.0.113.3", "2001:db8:5:5::1"] {
        for guess in 0..11 {
            let reply = from(network, not(&pin, 100 + guess), sid.clone()).await;
            let expected = if guess < 10 { 401 } else { 429 };
            assert_eq!(
                reply.status, expected,
                "{network} {guess}: {:?}",
                reply.body
            );
        }
    }
    // Another /64 of the same /48 is the same site: already locked.
    let same_site = from("2001:db8:5:6::1", pin.clone(), sid.clone()).await;
    assert_eq!(same_site.status, 429, "{:?}", same_site.body);
    let foyer = from("198.51.100.9", pin.clone(), sid.clone()).await;
    assert_eq!(foyer.body["result"], "admitted", "{:?}", foyer.body);
    let signed_in = api
        .send(
            Method::POST,
            &format!("/api/door/showings/{sid}/session"),
            None,
            &[("x-door-pin", &pin), ("cf-connecting-ip", "198.51.100.9")],
        )
        .await;
    assert_eq!(signed_in.status, 200, "{:?}", signed_in.body);

    // The staff door token still works from the locked network.
    let token = format!("Bearer {}", stack.door_token());
    let body = json!({"code": code, "showing_id": sid});
    let again = api
        .send(
            Method::POST,
            "/api/door/checkin",
            Some(body.to_string().into_bytes()),
            &[
                ("authorization", &token),
                ("cf-connecting-ip", "203.0.113.1"),
            ],
        )
        .await;
    assert_eq!(
        again.body["result"], "already_checked_in",
        "{:?}",
        again.body
    );

    // A PIN stored before the server drew them (here a bare SHA-256, as
    // the first PINs were kept) no longer signs in: staff draw a new one.
    let old_pin = "1234567890";
    let old_hash = hex::encode(Sha256::digest(format!("{sid}:{old_pin}")));
    stack.d1_query(&format!(
        "UPDATE showings SET door_pin_hash = '{old_hash}' WHERE id = '{sid}'"
    ));
    let old = api
        .send(
            Method::POST,
            &format!("/api/door/showings/{sid}/session"),
            None,
            &[
                ("x-door-pin", old_pin),
                ("cf-connecting-ip", "198.51.100.20"),
            ],
        )
        .await;
    assert_eq!(old.status, 401, "{:?}", old.body);
}

/// A door device signs in with the PIN and is given a session naming a
/// device id the server drew. The device scans, syncs and fetches its
/// list with it, also once its own network is locked out of the PIN; a
/// check-in or sync naming another device is refused, a sync needs the
/// session (not a PIN or the token), and a session is refused for
/// another showing, altered, without a credential, and once staff draw a
/// new PIN.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_door_session_names_its_device_outlasts_a_pin_lock_and_ends_with_a_new_pin() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(starting_soon()).await;
    let other = api.create_showing(sixteen_seat_room(None)).await;
    let pin = api.draw_door_pin(&sid).await;
    api.draw_door_pin(&other).await;
    let a3 = code_of(&buy(&api, &sid, "A3").await);
    let a4 = code_of(&buy(&api, &sid, "A4").await);
    let path = format!("/api/door/showings/{sid}/session");
    let refused = api.send(Method::POST, &path, None, &[]).await;
    assert_eq!(refused.status, 401, "{:?}", refused.body);
    let given = api
        .send(Method::POST, &path, None, &[("x-door-pin", &pin)])
        .await;
    assert_eq!(given.status, 200, "{:?}", given.body);
    let session = given.body["session"].as_str().unwrap().to_string();
    let device = given.body["device"].as_str().unwrap().to_string();
    assert!(
        device.len() == 17
            && device.starts_with("door-")
            && device[5..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{device}"
    );
    let expires = given.body["expires_at_ms"].as_i64().unwrap();
    assert!(
        expires > e2e::now_ms() + 48 * 3_600_000,
        "until two days after the door closes"
    );
    assert!(
        !session.contains(&pin),
        "the session does not carry the PIN"
    );

    // The device's own network types ten wrong PINs: new sign-ins from it
    // wait, the device signed in does not.
    for guess in 0..10 {
        let wrong = scan(&api, ("x-door-pin", &not(&pin, guess)), &a3, &sid).await;
        assert_eq!(wrong.status, 401, "guess {guess}: {:?}", wrong.body);
    }
    let no_new_session = api
        .send(Method::POST, &path, None, &[("x-door-pin", &pin)])
        .await;
    assert_eq!(no_new_session.status, 429);
    let with_session = ("x-door-session", session.as_str());
    let admitted = scan(&api, with_session, &a3, &sid).await;
    assert_eq!(admitted.body["result"], "admitted", "{:?}", admitted.body);

    // A check-in or a sync names its own device or none.
    let send = |path: &'static str, body: Value, header: (&'static str, String)| {
        let api = api.clone();
        async move {
            api.send(
                Method::POST,
                path,
                Some(body.to_string().into_bytes()),
                &[(header.0, header.1.as_str())],
            )
            .await
        }
    };
    let as_session = ("x-door-session", session.clone());
    let named_other = send(
        "/api/door/checkin",
        json!({"code": a4, "showing_id": sid, "device": "door-0123456789ab"}),
        as_session.clone(),
    )
    .await;
    assert_eq!(
        (named_other.status, &named_other.body["error"]),
        (403, &json!("wrong_device"))
    );
    let scans = json!([{"id": "s-1", "code": a4, "at_ms": e2e::now_ms(), "result": "admitted"}]);
    let synced_as_other = send(
        "/api/door/sync",
        json!({"showing_id": sid, "device": "door-0123456789ab", "scans": scans}),
        as_session.clone(),
    )
    .await;
    assert_eq!(synced_as_other.body["error"], "wrong_device");
    let token = ("authorization", format!("Bearer {}", stack.door_token()));
    let bare = send(
        "/api/door/sync",
        json!({"showing_id": sid, "scans": scans}),
        token,
    )
    .await;
    assert_eq!(
        (bare.status, &bare.body["error"]),
        (401, &json!("door_session_required"))
    );
    let synced = send(
        "/api/door/sync",
        json!({"showing_id": sid, "device": device, "scans": scans}),
        as_session,
    )
    .await;
    assert_eq!(outcomes(&synced), pairs(&[("s-1", "admitted")]));
    let list = api
        .send(
            Method::GET,
            &format!("/api/door/showings/{sid}/manifest"),
            None,
            &[with_session],
        )
        .await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    let by: Vec<&str> = list.body["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["checked_in_by"].as_str().unwrap())
        .collect();
    assert_eq!(
        by,
        [device.as_str(), device.as_str()],
        "recorded as the session's device"
    );

    // Not for another showing, not altered, not after a new PIN.
    let elsewhere = scan(&api, with_session, &a3, &other).await;
    assert_eq!(elsewhere.status, 401);
    let later = session.replacen(&format!(".{expires}."), &format!(".{}.", expires + 1), 1);
    assert_ne!(later, session);
    let altered = scan(&api, ("x-door-session", &later), &a3, &sid).await;
    assert_eq!(altered.status, 401);
    let renamed = session.replacen(&device, "door-0123456789ab", 1);
    let renamed = scan(&api, ("x-door-session", &renamed), &a3, &sid).await;
    assert_eq!(renamed.status, 401);
    api.draw_door_pin(&sid).await;
    let ended = scan(&api, with_session, &a3, &sid).await;
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
/// network, each paid ticket with its seat, check-in and buyer's name (no
/// e-mail), refunded tickets marked void, and when the device forgets it;
/// nothing at all without a door credential, and nothing before the door
/// lists the showing or after its door closed. A buyer's e-mail finds
/// their tickets online, whole and exactly, a limited number of times per
/// network.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_manifest_lets_a_device_check_codes_alone_and_needs_a_door_credential() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(starting_soon()).await;
    let kept = buy(&api, &sid, "A1").await;
    let refunded = buy(&api, &sid, "A2").await;
    let drawn = api.draw_door_pin(&sid).await;
    let code = kept.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(code.starts_with("v2."), "{code}");
    let pin = ("x-door-pin", drawn.as_str());
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
        vec![("x-door-pin", "0000000000")],
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
    assert_eq!(a1["checked_in_by"], "pin", "admitted with the PIN alone");
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
    assert!(!raw.contains('@'), "no e-mail address: {raw}");
    assert_eq!(a1["name"], "Ana Lima");
    assert_eq!(
        body["showing"]["forget_at_ms"].as_i64(),
        body["showing"]["door_close_at_ms"]
            .as_i64()
            .map(|close| close + 3_600_000),
        "a device forgets it an hour after the door closes"
    );

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

    // A buyer's e-mail finds their tickets online: the whole address, any
    // case; a part of it finds nothing.
    let find = |showing: &str, email: &str, network: &str| {
        let (api, token) = (api.clone(), token.clone());
        let path = format!("/api/door/showings/{showing}/find");
        let body = json!({ "email": email }).to_string().into_bytes();
        let network = network.to_string();
        async move {
            api.send(
                Method::POST,
                &path,
                Some(body),
                &[("authorization", &token), ("cf-connecting-ip", &network)],
            )
            .await
        }
    };
    let found = find(&sid, "ANA@Example.com", "192.0.2.1").await;
    assert_eq!(found.status, 200, "{:?}", found.body);
    assert_eq!(found.header("cache-control"), Some("no-store"));
    let found = found.body["tickets"].as_array().unwrap();
    let mut seats: Vec<(&str, &str)> = found
        .iter()
        .map(|t| (t["seat"].as_str().unwrap(), t["status"].as_str().unwrap()))
        .collect();
    seats.sort_unstable();
    assert_eq!(seats, [("A1", "valid"), ("A2", "void")]);
    let found_a1 = found.iter().find(|t| t["seat"] == "A1").unwrap();
    assert_eq!(found_a1["name"], "Ana Lima");
    assert_eq!(found_a1["short_code"], a1["short_code"]);
    let part = find(&sid, "ana@example", "192.0.2.1").await;
    assert_eq!(part.body["tickets"], json!([]), "{:?}", part.body);
    let malformed = find(&sid, "ana", "192.0.2.1").await;
    assert_eq!(
        (malformed.status, &malformed.body["error"]),
        (400, &json!("bad_search"))
    );
    // Thirty lookups from one network in ten minutes (two made above),
    // then it waits; another network does not.
    for n in 2..30 {
        let reply = find(&sid, &format!("nobody{n}@example.com"), "192.0.2.1").await;
        assert_eq!(reply.status, 200, "lookup {n}: {:?}", reply.body);
    }
    let limited = find(&sid, "ana@example.com", "192.0.2.1").await;
    assert_eq!(
        (limited.status, &limited.body["error"]),
        (429, &json!("too_many_lookups"))
    );
    assert!(limited.retry_after.is_some());
    let elsewhere = find(&sid, "ana@example.com", "192.0.2.2").await;
    assert_eq!(elsewhere.status, 200, "{:?}", elsewhere.body);

    // Before the door lists a showing, and after its door closed, neither
    // its ticket list nor its buyers are handed out.
    let later = api.create_showing(sixteen_seat_room(None)).await;
    let later_path = format!("/api/door/showings/{later}/manifest");
    let door = [("authorization", token.as_str())];
    let early = api.send(Method::GET, &later_path, None, &door).await;
    assert_eq!(
        (early.status, &early.body["error"]),
        (409, &json!("door_not_open"))
    );
    assert!(early.body["opens_at_ms"].as_i64().is_some());
    let now = e2e::now_ms();
    stack.d1_query(&format!(
        "UPDATE showings SET starts_at_ms = {}, door_close_at_ms = {} WHERE id = '{later}'",
        now - 3 * 3_600_000,
        now - 60_000
    ));
    let closed = api.send(Method::GET, &later_path, None, &door).await;
    assert_eq!(
        (closed.status, &closed.body["error"]),
        (409, &json!("door_closed"))
    );
    let closed_find = find(&later, "ana@example.com", "192.0.2.3").await;
    assert_eq!(closed_find.body["error"], "door_closed");
}

fn code_of(paid: &Reply) -> String {
    paid.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A door device signed in with the staff door token: its session and
/// the device id it was given, and when.
struct Device {
    session: String,
    id: String,
    issued_at_ms: i64,
}

async fn sign_in(api: &Api, sid: &str) -> Device {
    let token = format!("Bearer door-{}", api.admin_token());
    let path = format!("/api/door/showings/{sid}/session");
    let reply = api
        .send(Method::POST, &path, None, &[("authorization", &token)])
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    Device {
        session: reply.body["session"].as_str().unwrap().to_string(),
        id: reply.body["device"].as_str().unwrap().to_string(),
        issued_at_ms: reply.body["issued_at_ms"].as_i64().unwrap(),
    }
}

async fn sync(api: &Api, sid: &str, device: &Device, scans: Value) -> Reply {
    let body = json!({"showing_id": sid, "scans": scans});
    api.send(
        Method::POST,
        "/api/door/sync",
        Some(body.to_string().into_bytes()),
        &[("x-door-session", &device.session)],
    )
    .await
}

/// A check-in by `device` under its scan id `scan_id`.
async fn check_in_as(api: &Api, sid: &str, device: &Device, code: &str, scan_id: &str) -> Reply {
    let body = json!({"code": code, "showing_id": sid, "scan_id": scan_id});
    api.send(
        Method::POST,
        "/api/door/checkin",
        Some(body.to_string().into_bytes()),
        &[("x-door-session", &device.session)],
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

/// The conflicts an answer lists, as (seat, device, ticket status), sorted.
fn listed(body: &Value) -> Vec<(String, String, String)> {
    let mut all: Vec<(String, String, String)> = body["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (text("seat"), text("device"), text("status"))
        })
        .collect();
    all.sort();
    all
}

/// A door credential holder tries to rewrite a ticket's admission: a sync
/// under the admitting device's name is refused, and one under its own,
/// backdated 47 hours, is dated from its sign-in, admits nothing and is
/// listed as a conflict. Two devices admit one ticket offline: the one
/// that syncs first stands, and every later admission is a conflict,
/// including a second one from that same device. A batch sent again
/// records nothing twice; a refunded ticket is caught; a scan admitted
/// online whose answer was lost, sent again or queued and synced, is the
/// one admission, recorded once; a scan dated over 48 hours back is
/// answered alone, unrecorded. Scan ids are the device's own within a
/// showing: the same one in another showing is another scan.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn offline_scans_sync_once_each_and_an_admission_recorded_is_never_rewritten() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(starting_soon()).await;
    let a1 = code_of(&buy(&api, &sid, "A1").await);
    let a2 = code_of(&buy(&api, &sid, "A2").await);
    let a3_paid = buy(&api, &sid, "A3").await;
    let a3 = code_of(&a3_paid);
    let a4 = code_of(&buy(&api, &sid, "A4").await);
    let a5 = code_of(&buy(&api, &sid, "A5").await);
    api.refund_until_void(&stack, a3_paid.body["order_id"].as_str().unwrap())
        .await;

    // Door 1 admits A1 online. Then someone with a door credential signs
    // in and sends A1 as admitted 47 hours ago, first under door 1's name.
    let door_1 = sign_in(&api, &sid).await;
    let online = check_in_as(&api, &sid, &door_1, &a1, "d1-1").await;
    assert_eq!(online.body["result"], "admitted", "{:?}", online.body);
    let a1_at = online.body["checked_in_at_ms"].as_i64().unwrap();
    let forger = sign_in(&api, &sid).await;
    let backdated = json!([{"id": "f-1", "code": a1, "at_ms": e2e::now_ms() - 47 * 3_600_000, "result": "admitted"}]);
    let body = json!({"showing_id": sid, "device": door_1.id.as_str(), "scans": backdated});
    let as_door_1 = api
        .send(
            Method::POST,
            "/api/door/sync",
            Some(body.to_string().into_bytes()),
            &[("x-door-session", &forger.session)],
        )
        .await;
    assert_eq!(
        (as_door_1.status, &as_door_1.body["error"]),
        (403, &json!("wrong_device"))
    );
    let forged = sync(&api, &sid, &forger, backdated).await;
    assert_eq!(outcomes(&forged), pairs(&[("f-1", "duplicate")]));
    assert_eq!(forged.body["scans"][0]["admitted_by"], door_1.id.as_str());
    assert_eq!(forged.body["scans"][0]["admitted_at_ms"], a1_at);
    let a1_row = stack.d1_query(&format!(
        "SELECT t.checked_in_by, t.checked_in_at_ms, s.scanned_at_ms FROM tickets t \
         JOIN door_scans s ON s.ticket_id = t.id AND s.scan_id = 'f-1' \
         WHERE t.showing_id = '{sid}' AND t.seat = 'A1'"
    ));
    assert_eq!(
        a1_row,
        [
            json!({"checked_in_by": door_1.id.as_str(), "checked_in_at_ms": a1_at,
            "scanned_at_ms": forger.issued_at_ms})
        ],
        "the admission stands; the forged scan is dated from its sign-in"
    );

    // Doors A and B admit A2 while offline; B comes back first.
    let door_a = sign_in(&api, &sid).await;
    let door_b = sign_in(&api, &sid).await;
    let at = |device: &Device| json!(device.issued_at_ms);
    let batch_b = json!([
        {"id": "b-1", "code": a2, "at_ms": at(&door_b), "result": "admitted"},
        {"id": "b-2", "code": a3, "at_ms": at(&door_b), "result": "admitted"},
    ]);
    let first = sync(&api, &sid, &door_b, batch_b.clone()).await;
    assert_eq!(
        outcomes(&first),
        pairs(&[("b-1", "admitted"), ("b-2", "void")])
    );
    let batch_a = json!([
        {"id": "a-1", "code": a2, "at_ms": at(&door_a), "result": "admitted"},
        {"id": "a-2", "code": "v2.forged", "at_ms": at(&door_a), "result": "invalid"},
        {"id": "a-3", "code": a4, "at_ms": at(&door_a), "result": "admitted"},
    ]);
    let second = sync(&api, &sid, &door_a, batch_a.clone()).await;
    assert_eq!(
        outcomes(&second),
        pairs(&[
            ("a-1", "duplicate"),
            ("a-2", "invalid"),
            ("a-3", "admitted")
        ])
    );
    assert_eq!(second.body["scans"][0]["admitted_by"], door_b.id.as_str());

    // Both batches again, as a device does when an answer was lost.
    let again = sync(&api, &sid, &door_b, batch_b).await;
    assert_eq!(outcomes(&again), outcomes(&first));
    let again = sync(&api, &sid, &door_a, batch_a).await;
    assert_eq!(outcomes(&again), outcomes(&second));
    let rows = stack.d1_query(&format!(
        "SELECT scan_id FROM door_scans WHERE showing_id = '{sid}' ORDER BY scan_id"
    ));
    let ids: Vec<&str> = rows
        .iter()
        .map(|r| r["scan_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["a-1", "a-2", "a-3", "b-1", "b-2", "d1-1", "f-1"],
        "each scan once"
    );
    // B admits A2 again under another scan: that too is a conflict.
    let twice = json!([{"id": "b-9", "code": a2, "at_ms": at(&door_b), "result": "admitted"}]);
    let third = sync(&api, &sid, &door_b, twice).await;
    assert_eq!(outcomes(&third), pairs(&[("b-9", "duplicate")]));
    let valid =
        |seat: &str, device: &Device| (seat.to_string(), device.id.clone(), "valid".to_string());
    let mut expected = vec![
        valid("A1", &forger),
        valid("A2", &door_a),
        valid("A2", &door_b),
        ("A3".to_string(), door_b.id.clone(), "void".to_string()),
    ];
    expected.sort();
    assert_eq!(listed(&third.body), expected);
    let staff = api
        .admin(
            Method::GET,
            &format!("/api/admin/showings/{sid}/door-conflicts"),
            None,
        )
        .await;
    assert_eq!(staff.status, 200);
    assert_eq!(listed(&staff.body), expected);

    // Door 1 admits A5 online as its scan e-1 and loses the answer: sent
    // again, the same scan is answered as it was; another scan of A5 is
    // not admitted; a scan id the page never makes is refused.
    let a5_online = check_in_as(&api, &sid, &door_1, &a5, "e-1").await;
    assert_eq!(a5_online.body["result"], "admitted");
    let a5_at = a5_online.body["checked_in_at_ms"].clone();
    let replayed = check_in_as(&api, &sid, &door_1, &a5, "e-1").await;
    assert_eq!(
        (&replayed.body["result"], &replayed.body["checked_in_at_ms"]),
        (&json!("admitted"), &a5_at)
    );
    let other_scan = check_in_as(&api, &sid, &door_1, &a5, "e-9").await;
    assert_eq!(other_scan.body["result"], "already_checked_in");
    let bad_id = check_in_as(&api, &sid, &door_1, &a5, "e 1").await;
    assert_eq!(
        (bad_id.status, &bad_id.body["error"]),
        (400, &json!("invalid_scans"))
    );

    // The device, with no answer, judged the scan itself and queued it as
    // e-1: it is recorded once, as the admission made online. In the same
    // batch, a scan from a clock two days behind.
    let door_1_batch = json!([
        {"id": "e-1", "code": a5, "at_ms": e2e::now_ms() + 1_000, "result": "admitted"},
        {"id": "e-2", "code": a2, "at_ms": e2e::now_ms() - 49 * 3_600_000, "result": "admitted"},
    ]);
    let fourth = sync(&api, &sid, &door_1, door_1_batch).await;
    assert_eq!(
        outcomes(&fourth),
        pairs(&[("e-1", "admitted"), ("e-2", "too_old")])
    );
    assert_eq!(
        listed(&fourth.body),
        expected,
        "a lost answer is no conflict"
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
    let fifth = sync(&api, &sid, &door_1, judged).await;
    assert_eq!(outcomes(&fifth), pairs(&[("e-3", "recorded")]));
    let late = check_in_as(&api, &sid, &door_1, &a6, "e-3").await;
    assert_eq!(late.body["result"], "judged_on_device", "{:?}", late.body);

    // Scan ids belong to their showing: the door token's scan t-1 of
    // another showing is a scan of its own, and admits.
    let other = api.create_showing(sixteen_seat_room(None)).await;
    let b1 = code_of(&buy(&api, &other, "B1").await);
    let token = format!("Bearer {}", stack.door_token());
    for (code, showing) in [(&a6, &sid), (&b1, &other)] {
        let body = json!({"code": code, "showing_id": showing, "scan_id": "t-1"});
        let reply = api
            .send(
                Method::POST,
                "/api/door/checkin",
                Some(body.to_string().into_bytes()),
                &[("authorization", &token)],
            )
            .await;
        assert_eq!(
            reply.body["result"], "admitted",
            "{showing}: {:?}",
            reply.body
        );
    }

    // Refused batches record nothing.
    let before = stack.d1_query("SELECT COUNT(*) AS n FROM door_scans");
    let empty = sync(&api, &sid, &door_1, json!([])).await;
    assert_eq!(
        (empty.status, empty.body["error"].as_str()),
        (400, Some("invalid_scans"))
    );
    let many: Vec<Value> = (0..201)
        .map(|n| json!({"id": format!("d-{n}"), "code": a2, "at_ms": 0, "result": "admitted"}))
        .collect();
    let too_many = sync(&api, &sid, &door_1, json!(many)).await;
    assert_eq!(too_many.body["error"], "invalid_scans");
    let unsigned = api
        .send(
            Method::POST,
            "/api/door/sync",
            Some(json!({"showing_id": sid, "scans": [{"id": "d-1", "code": a2, "at_ms": 0, "result": "admitted"}]}).to_string().into_bytes()),
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
