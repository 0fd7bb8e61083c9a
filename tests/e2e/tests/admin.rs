//! The cinema's admin API as the admin pages use it: a signed session
//! cookie with a CSRF token, editing showings, the order behind each seat,
//! search, the ticket export and the attention list.

use std::time::{Duration, Instant};

use e2e::{sixteen_seat_room, Api, Reply, Stack};
use reqwest::Method;
use serde_json::{json, Value};

async fn buy(api: &Api, sid: &str, seats: &[&str], email: &str, name: &str) -> Reply {
    let hold = api.hold(sid, seats, None).await;
    assert_eq!(hold.status, 201, "{:?}", hold.body);
    let paid = api
        .checkout_as(sid, &hold, "cnon:card-nonce-ok", email, name)
        .await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    paid
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_sign_in_sets_an_http_only_session_and_every_change_needs_its_csrf_token() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let showing = sixteen_seat_room(None).to_string().into_bytes();

    let wrong = json!({"token": "not-the-token"}).to_string().into_bytes();
    let refused = api
        .send(Method::POST, "/api/admin/session", Some(wrong), &[])
        .await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (401, &json!("wrong_admin_token"))
    );
    assert!(refused.cookie.is_none());
    let right = json!({"token": api.admin_token()}).to_string().into_bytes();
    let cross_site = api
        .send(
            Method::POST,
            "/api/admin/session",
            Some(right),
            &[("origin", "https://elsewhere.example")],
        )
        .await;
    assert_eq!(
        (cross_site.status, &cross_site.body["error"]),
        (403, &json!("cross_site"))
    );

    let body = json!({"token": api.admin_token()}).to_string().into_bytes();
    let signed = api
        .send(Method::POST, "/api/admin/session", Some(body), &[])
        .await;
    let header = signed.set_cookie.clone().expect("Set-Cookie");
    assert!(
        header.starts_with("showtime_admin=")
            && header.contains("HttpOnly")
            && header.contains("SameSite=Strict"),
        "{header}"
    );
    assert!(
        !header.contains(api.admin_token()),
        "the token itself is never the cookie"
    );
    let cookie = signed.cookie.clone().unwrap();
    let csrf = signed.body["csrf"].as_str().unwrap().to_string();

    // Reads need only the cookie.
    let listed = api
        .send(
            Method::GET,
            "/api/admin/showings",
            None,
            &[("cookie", &cookie)],
        )
        .await;
    assert_eq!(listed.status, 200, "{:?}", listed.body);
    let session = api
        .send(
            Method::GET,
            "/api/admin/session",
            None,
            &[("cookie", &cookie)],
        )
        .await;
    assert_eq!(session.body["csrf"], json!(csrf));

    // Changes need the CSRF token as well, and the right one.
    for headers in [
        vec![("cookie", cookie.as_str())],
        vec![
            ("cookie", cookie.as_str()),
            ("x-csrf-token", "AAAAAAAAAAAAAAAAAAAAAA"),
        ],
    ] {
        let refused = api
            .send(
                Method::POST,
                "/api/admin/showings",
                Some(showing.clone()),
                &headers,
            )
            .await;
        assert_eq!(
            (refused.status, &refused.body["error"]),
            (403, &json!("csrf_failed"))
        );
    }
    assert_eq!(
        api.send(
            Method::GET,
            "/api/admin/showings",
            None,
            &[("cookie", &cookie)]
        )
        .await
        .body["showings"],
        json!([]),
        "a refused change created nothing"
    );
    let created = api
        .send(
            Method::POST,
            "/api/admin/showings",
            Some(showing.clone()),
            &[("cookie", &cookie), ("x-csrf-token", &csrf)],
        )
        .await;
    assert_eq!(created.status, 201, "{:?}", created.body);

    // Forged and buyer cookies are not staff.
    let forged = cookie.replacen("showtime_admin=1", "showtime_admin=2", 1);
    let buyer = api
        .hold(created.body["id"].as_str().unwrap(), &["A1"], None)
        .await;
    for other in [forged, buyer.cookie.clone().unwrap()] {
        let refused = api
            .send(
                Method::GET,
                "/api/admin/showings",
                None,
                &[("cookie", &other)],
            )
            .await;
        assert_eq!(refused.status, 401, "{other}");
    }

    // Signing out needs the token too, then clears the cookie.
    let out = api
        .send(
            Method::DELETE,
            "/api/admin/session",
            None,
            &[("cookie", &cookie), ("x-csrf-token", &csrf)],
        )
        .await;
    assert_eq!(out.status, 204);
    assert!(out.set_cookie.unwrap().contains("Max-Age=0"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_change_price_and_limits_at_any_time_and_the_seats_only_before_sales() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut room = sixteen_seat_room(None);
    room["layout"] = json!({"rows": [
        {"name": "A", "seats": 8, "gaps_after": [4]},
        {"name": "B", "seats": 8, "blocked": [1, 8]}
    ]});
    let sid = api.create_showing(room.clone()).await;
    let path = format!("/api/admin/showings/{sid}");
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["B1"].as_str(), map["B2"].as_str()),
        (Some("sold"), Some("available"))
    );

    // An aisle must sit between two seats.
    let mut bad = room.clone();
    bad["layout"]["rows"][0]["gaps_after"] = json!([8]);
    let refused = api.admin(Method::PUT, &path, Some(bad)).await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (400, &json!("invalid_showing"))
    );

    // Start times are the cinema's local time (the stack's zone is
    // Europe/London): one the clocks skip is refused, one they pass twice
    // comes back with both readings to choose from.
    let mut skipped = room.clone();
    skipped["starts_at"] = json!("2026-03-29T01:30");
    let refused = api.admin(Method::PUT, &path, Some(skipped)).await;
    assert_eq!(refused.status, 400);
    assert!(refused.body["detail"]
        .as_str()
        .unwrap()
        .contains("does not exist"));
    let mut twice = room.clone();
    twice["starts_at"] = json!("2026-10-25T01:30");
    let refused = api.admin(Method::PUT, &path, Some(twice.clone())).await;
    assert_eq!(
        refused.body["choices"],
        json!(["2026-10-25T01:30+01:00", "2026-10-25T01:30+00:00"])
    );
    twice["starts_at"] = refused.body["choices"][1].clone();
    let summer = api.admin(Method::PUT, &path, Some(twice)).await;
    assert_eq!(summer.status, 200, "{:?}", summer.body);
    let read = api.get(&path.replace("/admin", "")).await;
    assert_eq!(read.body["showing"]["starts_at_ms"], 1_792_891_800_000_i64);

    // A new layout while nothing is held: the map follows.
    let mut bigger = room.clone();
    bigger["layout"]["rows"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "C", "seats": 4}));
    let edited = api.admin(Method::PUT, &path, Some(bigger.clone())).await;
    assert_eq!(edited.status, 200, "{:?}", edited.body);
    assert_eq!(api.seat_map(&sid).await["C4"], "available");
    let public = api.get(&path.replace("/admin", "")).await;
    // 20 seats in the layout, two of them house seats: 18 for sale.
    assert_eq!(public.body["showing"]["seat_count"], 18);
    let version = public.body["showing"]["layout_version"].as_str().unwrap();
    let layout = api.get(&format!("/api/layouts/{version}")).await;
    assert_eq!(layout.body["rows"][0]["gaps_after"], json!([4]));

    // A live hold fixes the seats, but not the price, title or limits.
    let hold = api.hold(&sid, &["A1", "A2", "A3"], None).await;
    assert_eq!(hold.status, 201, "{:?}", hold.body);
    let mut fewer_seats = bigger.clone();
    fewer_seats["layout"]["rows"].as_array_mut().unwrap().pop();
    let locked = api
        .admin(Method::PUT, &path, Some(fewer_seats.clone()))
        .await;
    assert_eq!(
        (locked.status, &locked.body["error"]),
        (409, &json!("layout_locked"))
    );
    assert_eq!(
        api.seat_map(&sid).await["C4"],
        "available",
        "nothing changed"
    );
    let mut two_max = bigger.clone();
    two_max["max_seats_per_hold"] = json!(2);
    let conflict = api.admin(Method::PUT, &path, Some(two_max.clone())).await;
    assert_eq!(
        (conflict.status, &conflict.body["error"]),
        (409, &json!("limits_conflict")),
        "a live hold of 3 seats cannot fit a limit of 2"
    );
    let mut repriced = bigger.clone();
    repriced["title"] = json!("Paris, Texas (restored print)");
    repriced["price"] = json!({"amount": 1500, "currency": "USD"});
    repriced["max_seats_per_hold"] = json!(3);
    let edited = api.admin(Method::PUT, &path, Some(repriced.clone())).await;
    assert_eq!(edited.status, 200, "{:?}", edited.body);
    let public = api.get(&path.replace("/admin", "")).await;
    assert_eq!(
        public.body["showing"]["title"],
        "Paris, Texas (restored print)"
    );
    assert_eq!(public.body["showing"]["max_seats_per_hold"], 3);
    let too_many = api.hold(&sid, &["B2", "B3", "B4", "B5"], None).await;
    assert_eq!(too_many.status, 400, "{:?}", too_many.body);
    let paid = api
        .checkout_as(&sid, &hold, "cnon:card-nonce-ok", "ana@example.com", "Ana")
        .await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    let order_id = paid.body["order_id"].as_str().unwrap();
    let amount = stack.d1_query(&format!(
        "SELECT amount FROM orders WHERE id = '{order_id}'"
    ));
    assert_eq!(
        amount[0]["amount"], 3600,
        "3 seats at the price they were held at, not the new one"
    );
    let after = api.hold(&sid, &["B2"], None).await;
    assert_eq!(
        (after.status, &after.body["amount"]["amount"]),
        (201, &json!(1500)),
        "a hold made after the edit gets the new price"
    );

    // Once sold, the seats stay as they are.
    let locked = api.admin(Method::PUT, &path, Some(fewer_seats)).await;
    assert_eq!(
        (locked.status, &locked.body["error"]),
        (409, &json!("layout_locked"))
    );
    let missing = api
        .admin(
            Method::PUT,
            "/api/admin/showings/0123456789abcdef",
            Some(repriced),
        )
        .await;
    assert_eq!(missing.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_see_each_seats_order_search_by_email_and_export_tickets() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let ana = buy(&api, &sid, &["A1", "A2"], "Ana@Example.com", "Ana Lima").await;
    buy(
        &api,
        &sid,
        &["B3"],
        "bo_b@example.org",
        "=HYPERLINK(\"http://x\"),Bo;@SUM(1)",
    )
    .await;
    let held = api.hold(&sid, &["B8"], None).await;
    assert_eq!(held.status, 201);

    let view = api
        .admin(Method::GET, &format!("/api/admin/showings/{sid}"), None)
        .await;
    assert_eq!(view.status, 200, "{:?}", view.body);
    let owners = &view.body["owners"];
    assert_eq!(owners["A1"]["order_id"], ana.body["order_id"]);
    assert_eq!(owners["A1"]["email"], "Ana@Example.com");
    assert_eq!(owners["B3"]["email"], "bo_b@example.org");
    assert!(owners.get("B8").is_none(), "a held seat has no order yet");
    assert_eq!(view.body["availability"]["seats"]["B8"], "held");
    let totals = &view.body["totals"];
    assert_eq!(
        (totals["sold"].as_u64(), totals["taken"].as_u64()),
        (Some(3), Some(3600))
    );

    let search = |q: &str| {
        let api = api.clone();
        let path = format!("/api/admin/orders?showing={sid}&email={q}");
        async move { api.admin(Method::GET, &path, None).await.body["orders"].clone() }
    };
    let found = search("ana%40EXAMPLE").await;
    assert_eq!(found.as_array().unwrap().len(), 1, "{found}");
    assert_eq!(found[0]["seats"], "A1 A2");
    // `_` is a letter here, not a wildcard.
    assert_eq!(search("bo_b").await.as_array().unwrap().len(), 1);
    assert_eq!(search("bob").await, json!([]));
    assert_eq!(search("").await.as_array().unwrap().len(), 2);
    // `q` matches the e-mail, the name, or the order number as the
    // receipt shows it ("35E61-BEF24": the id's digits 16 to 26).
    let find = |q: String| {
        let api = api.clone();
        let path = format!("/api/admin/orders?showing={sid}&q={q}");
        async move {
            let found = api.admin(Method::GET, &path, None).await.body["orders"].clone();
            found
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    let ana_id = ana.body["order_id"].as_str().unwrap().to_string();
    let number = format!("{}-{}", &ana_id[16..21], &ana_id[21..26]).to_uppercase();
    for q in [
        "LIMA".to_string(),
        "ana%40".to_string(),
        number.clone(),
        ana_id[18..24].to_string(),
        ana_id.clone(),
    ] {
        assert_eq!(find(q.clone()).await, ["Ana Lima"], "{q}");
    }
    assert_eq!(find("HYPERLINK".into()).await.len(), 1);
    assert_eq!(find("nobody".into()).await, Vec::<String>::new());
    // Fewer than five digits are not read as part of an order number.
    let short = &ana_id[20..24];
    assert!(
        find(short.into()).await.is_empty(),
        "{short} matched an order by its id"
    );
    let long = "x".repeat(201);
    let refused = api
        .admin(Method::GET, &format!("/api/admin/orders?q={long}"), None)
        .await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (400, &json!("bad_search"))
    );

    let text = api.tickets_csv(&sid).await;
    let lines: Vec<&str> = text.lines().collect();
    let header = "seat,ticket,price,amount,net,tax,tax_rate,currency,ticket_status,checked_in_at,voided_at,order,sold,comp_reason,order_status,name,email,ordered_at";
    let quoted: Vec<String> = header.split(',').map(|h| format!("\"{h}\"")).collect();
    assert_eq!(lines[0], quoted.join(","), "every cell is quoted");
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[1].starts_with("\"A1\",")
            && lines[1].contains(
                ",\"Standard\",\"12.00\",\"12.00\",\"0.00\",\"0.00%\",\"USD\",\"valid\","
            )
            && lines[1].contains("\"Ana@Example.com\""),
        "{}",
        lines[1]
    );
    // Times as the cinema's clock shows them (London), with the zone.
    let ordered_at = lines[1].rsplit(',').next().unwrap().trim_matches('"');
    assert!(
        ordered_at.ends_with(" GMT") || ordered_at.ends_with(" BST"),
        "{ordered_at}"
    );
    // A formula is text at the start of the name and after each `,` or `;`
    // (where a spreadsheet splitting the column would start a cell).
    assert!(
        lines[3].starts_with("\"B3\",")
            && lines[3].contains("\"'=HYPERLINK(\"\"http://x\"\"),Bo;'@SUM(1)\""),
        "a name that looks like a formula is exported as text: {}",
        lines[3]
    );
    let other = api
        .admin(
            Method::GET,
            "/api/admin/showings/0123456789abcdef/tickets.csv",
            None,
        )
        .await;
    assert_eq!(other.status, 404);
    let anonymous = api
        .get(&format!("/api/admin/showings/{sid}/tickets.csv"))
        .await;
    assert_eq!(anonymous.status, 401);
}

fn attention_kinds(items: &Value) -> Vec<(String, String)> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["kind"].as_str().unwrap().to_string(),
                i["order_id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_attention_list_shows_what_needs_a_person_with_its_age() {
    let stack = Stack::start_with(
        e2e::StackOptions::default()
            .var("SWEEP_MIN_AGE_MS", "1000")
            .var("CHECKOUT_RETRY_BASE_MS", "30000"),
    );
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let attention = || {
        let api = api.clone();
        async move {
            api.admin(Method::GET, "/api/admin/attention", None)
                .await
                .body
        }
    };
    let first = attention().await;
    assert_eq!(first["items"], json!([]), "{first}");

    // A partial refund made in the Square Dashboard: one ticket's worth.
    let paid = buy(&api, &sid, &["A1", "A2"], "ana@example.com", "Ana").await;
    let order_id = paid.body["order_id"].as_str().unwrap().to_string();
    let payment = stack.d1_query(&format!(
        "SELECT payment_id FROM orders WHERE id = '{order_id}'"
    ));
    stack
        .square
        .control(
            "/_control/dashboard/refund",
            json!({"payment_id": payment[0]["payment_id"], "amount": 1200}),
        )
        .await;

    let wait_for = |want: Vec<(String, String)>| async move {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let body = attention().await;
            let kinds = attention_kinds(&body["items"]);
            if want.iter().all(|w| kinds.contains(w)) || Instant::now() > deadline {
                break body;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    wait_for(vec![("partial_refund".to_string(), order_id.clone())]).await;
    // Square completes the refund; its webhook arrives before any is held.
    let deadline = Instant::now() + Duration::from_secs(15);
    while stack.d1_query(&format!(
        "SELECT status FROM refunds WHERE order_id = '{order_id}'"
    ))[0]["status"]
        != "COMPLETED"
    {
        assert!(Instant::now() < deadline, "the refund completed");
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    // Seats lost after payment: the authorization was slow, the hold
    // lapsed and another buyer bought the seat; nothing was charged.
    let mut short = sixteen_seat_room(Some(1_000));
    short["payment_cap_ms"] = json!(1_000);
    let short_sid = api.create_showing(short).await;
    let first = api.hold(&short_sid, &["A1"], None).await;
    stack
        .square
        .control(
            "/_control/faults",
            json!({"endpoint": "create_payment", "fault": {"delay_ms": 3000}, "times": 1}),
        )
        .await;
    let paying = {
        let (api, sid, first) = (api.clone(), short_sid.clone(), first.clone());
        tokio::spawn(async move { api.checkout(&sid, &first, "cnon:card-nonce-ok").await })
    };
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let rival = buy(&api, &short_sid, &["A1"], "rival@example.com", "Rival").await;
    let lost = paying.await.unwrap();
    assert_eq!(lost.body["error"], "seat_lost", "{:?}", lost.body);
    let lost_id = lost.body["order_id"].as_str().unwrap().to_string();

    // A paid order without tickets: only a fault outside the product (a
    // hand edit of D1) makes one, and the list must show it.
    let rival_id = rival.body["order_id"].as_str().unwrap().to_string();
    stack.d1_query(&format!(
        "DELETE FROM tickets WHERE order_id = '{rival_id}'"
    ));

    // A payment whose capture answer is lost, and stays unknown.
    stack
        .square
        .control("/_control/webhooks", json!({"hold": true}))
        .await;
    stack.square.lose_the_next_captures_answer().await;
    let hold = api.hold(&sid, &["B1"], None).await;
    let pending = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(pending.status, 202, "{:?}", pending.body);
    let pending_id = pending.body["order_id"].as_str().unwrap().to_string();

    let body = wait_for(vec![
        ("partial_refund".to_string(), order_id.clone()),
        ("needs_attention".to_string(), order_id.clone()),
        ("payment_unknown".to_string(), pending_id.clone()),
        ("seat_lost".to_string(), lost_id.clone()),
        ("paid_without_tickets".to_string(), rival_id.clone()),
    ])
    .await;
    let items = body["items"].as_array().unwrap();
    assert_eq!(items.len(), 5, "{body}");
    let now = body["now_ms"].as_f64().unwrap();
    for item in items {
        let since = item["since_ms"].as_f64().unwrap();
        assert!(since <= now && now - since < 60_000.0, "an age: {item}");
    }
    let refund = items
        .iter()
        .find(|i| i["kind"] == "partial_refund")
        .unwrap();
    let refund_id = refund["refund_id"].as_str().unwrap();
    assert_eq!(refund["amount"], 1200);

    // Staff say which ticket it covers: only live tickets of that order,
    // worth no more than was refunded, and only once.
    let choose = |ids: Value| {
        let api = api.clone();
        let path = format!("/api/admin/refunds/{refund_id}/tickets");
        async move {
            api.admin_post(&path, Some(json!({ "ticket_ids": ids })))
                .await
        }
    };
    let tickets = [format!("{order_id}-1"), format!("{order_id}-2")];
    let too_much = choose(json!(tickets)).await;
    assert_eq!(
        (too_much.status, &too_much.body["error"]),
        (400, &json!("more_than_refunded"))
    );
    let unknown = choose(json!(["someone-else-1"])).await;
    assert_eq!(
        (unknown.status, &unknown.body["error"]),
        (400, &json!("unknown_tickets"))
    );
    let chosen = choose(json!([tickets[1]])).await;
    assert_eq!(chosen.status, 200, "{:?}", chosen.body);
    assert_eq!(chosen.body["status"], "COMPLETED");
    let again = choose(json!([tickets[0]])).await;
    assert_eq!(
        (again.status, &again.body["error"]),
        (409, &json!("refund_decided"))
    );

    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A1"].as_str(), map["A2"].as_str()),
        (Some("sold"), Some("available"))
    );
    let order = api
        .admin(Method::GET, &format!("/api/admin/orders/{order_id}"), None)
        .await;
    assert_eq!(order.body["order"]["status"], "paid");
    assert_eq!(order.body["tickets"][1]["status"], "void");
    assert_eq!(
        order.body["refunds"][0]["ticket_ids"],
        json!(format!("[\"{}\"]", tickets[1]))
    );
    // Staff settle the lost seat by hand: it leaves the list, and its
    // history says what was done. An unknown payment is not theirs to close.
    let handled = |oid: String, note: &str| {
        let api = api.clone();
        let body = json!({ "note": note });
        async move {
            api.admin_post(&format!("/api/admin/orders/{oid}/handled"), Some(body))
                .await
        }
    };
    let empty = handled(lost_id.clone(), "  ").await;
    assert_eq!(
        (empty.status, &empty.body["error"]),
        (400, &json!("bad_note"))
    );
    let unsettled = handled(pending_id.clone(), "called Square").await;
    assert_eq!(
        (unsettled.status, &unsettled.body["error"]),
        (409, &json!("payment_unsettled"))
    );
    let done = handled(lost_id.clone(), "wrote to the buyer, nothing was charged").await;
    assert_eq!(done.status, 204, "{:?}", done.body);
    let again = handled(lost_id.clone(), "again").await;
    assert_eq!(again.status, 409);
    let missing = handled("no-such-order".to_string(), "x").await;
    assert_eq!(missing.status, 404);
    let history = api
        .admin(Method::GET, &format!("/api/admin/orders/{lost_id}"), None)
        .await;
    let last = history.body["events"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["detail"],
        "handled by staff: wrote to the buyer, nothing was charged"
    );

    let mut kinds = attention_kinds(&attention().await["items"]);
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ("paid_without_tickets".to_string(), rival_id),
            ("payment_unknown".to_string(), pending_id),
        ]
    );
}
