//! The web app in a real headless Chromium (Playwright), against the real
//! stack. The browser script lives in `tests/browser/`.

use std::process::Command;

use e2e::{sixteen_seat_room, Api, Stack};

/// How many CreatePayments the stand-in saw, and every call it saw.
async fn authorizations(stack: &Stack) -> (usize, Vec<(String, String)>) {
    let calls = stack.square.calls().await;
    let creates = calls
        .iter()
        .filter(|(m, p)| m == "POST" && p == "/v2/payments")
        .count();
    (creates, calls)
}

fn run_browser_script(script: &str, stack: &Stack, showing_id: &str) -> String {
    run_browser_script_with(script, stack, showing_id, &[])
}

/// Runs a script and answers what it printed.
fn run_browser_script_with(
    script: &str,
    stack: &Stack,
    showing_id: &str,
    env: &[(&str, &str)],
) -> String {
    let root = e2e::repo_root();
    let shots = root.join("test-output/screenshots");
    std::fs::create_dir_all(&shots).expect("screenshot folder");
    let output = Command::new(root.join("node_modules/.bin/node"))
        .arg(root.join("tests/browser").join(script))
        .env("BASE_URL", &stack.base_url)
        .env("SHOWING_ID", showing_id)
        .env("SCREENSHOT_DIR", &shots)
        .envs(env.iter().copied())
        .output()
        .expect("run node");
    assert!(
        output.status.success(),
        "{script} failed:\n{}{}\nserver log:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        stack.log_tail()
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_picks_two_seats_pays_and_sees_tickets_with_qr_codes() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let _ = run_browser_script("buyer.mjs", &stack, &sid);
    let map = api.seat_map(&sid).await;
    for seat in ["A3", "A4", "B5", "B6"] {
        assert_eq!(map[seat], "sold", "{seat}");
    }
    // Two tickets mails, then the order links the find page asked for,
    // naming both orders.
    let mails = stack.wait_for_mail("ana@example.com", 3);
    assert_eq!(mails.len(), 3, "{}", stack.log_tail());
    let links = &mails[2];
    assert!(links.subject.contains("order"), "{}", links.subject);
    let orders = stack.d1_query(&format!("SELECT id FROM orders WHERE showing_id = '{sid}'"));
    assert_eq!(orders.len(), 2);
    for order in orders {
        let id = order["id"].as_str().unwrap();
        assert!(
            links.text.contains(&format!("/orders/{id}?key=")),
            "{}",
            links.text
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_buyers_race_for_a_seat_while_a_third_watches_the_map() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let _ = run_browser_script("race.mjs", &stack, &sid);
    assert_eq!(api.seat_map(&sid).await["A1"], "sold");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_page_admits_a_ticket_then_flags_the_second_scan() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    // The door lists today's showings: this one starts in an hour.
    let mut room = sixteen_seat_room(None);
    room["starts_at"] = serde_json::json!(e2e::time_from_now(3_600_000));
    let sid = api.create_showing(room).await;
    let hold = api.hold(&sid, &["A2"], None).await;
    let paid = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    let code = paid.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();
    // A second ticket, to be admitted by the number its page prints.
    let paid = api.buy(&sid, &["A3"]).await;
    let order = api.get(paid.body["order_url"].as_str().unwrap()).await;
    let short = order.body["tickets"][0]["short_code"]
        .as_str()
        .expect("a short code")
        .to_string();
    // A third, of another buyer, to be found by name at the door.
    api.buy_as(&sid, &["A4"], "bo@example.com", "Bo Chen").await;
    let pin = api.draw_door_pin(&sid).await;
    let _ = run_browser_script_with(
        "door.mjs",
        &stack,
        &sid,
        &[
            ("TICKET_CODE", &code),
            ("SHORT_CODE", &short),
            ("DOOR_PIN", &pin),
            ("ADMIN_TOKEN", api.admin_token()),
        ],
    );
}

/// A moved ticket at the door page with no network (`door_moved.mjs`):
/// its ticket list refuses the old code as moved and admits the new one,
/// and the scans it sends afterwards are recorded as it judged them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_page_offline_refuses_a_moved_ticket_and_admits_its_new_one() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut room = sixteen_seat_room(None);
    room["starts_at"] = serde_json::json!(e2e::time_from_now(3_600_000));
    let sid = api.create_showing(room).await;
    let paid = api.buy(&sid, &["A4"]).await;
    let old_id = paid.body["tickets"][0]["id"].as_str().unwrap().to_string();
    let old_code = paid.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();
    let moved = api
        .admin_post(
            &format!("/api/admin/tickets/{old_id}/move"),
            Some(serde_json::json!({"seat": "B4"})),
        )
        .await;
    assert_eq!(moved.status, 200, "{:?}", moved.body);
    let new_id = moved.body["id"].as_str().unwrap().to_string();
    let pin = api.draw_door_pin(&sid).await;
    let _ = run_browser_script_with(
        "door_moved.mjs",
        &stack,
        &sid,
        &[
            ("OLD_CODE", &old_code),
            ("NEW_CODE", moved.body["code"].as_str().unwrap()),
            ("DOOR_PIN", &pin),
        ],
    );
    let scans = stack.d1_query(&format!(
        "SELECT ticket_id, device_result AS result, offline FROM door_scans \
         WHERE showing_id = '{sid}' ORDER BY scanned_at_ms, device_result DESC"
    ));
    assert_eq!(
        scans,
        [
            serde_json::json!({"ticket_id": old_id, "result": "moved", "offline": 1}),
            serde_json::json!({"ticket_id": new_id, "result": "admitted", "offline": 1}),
        ]
    );
    let admitted = stack.d1_query(&format!(
        "SELECT seat FROM tickets WHERE showing_id = '{sid}' AND checked_in_at_ms IS NOT NULL"
    ));
    assert_eq!(admitted, [serde_json::json!({"seat": "B4"})]);
}

/// The door page with no network (`door_offline.mjs`), then D1 as the
/// devices left it: each device's scans recorded once, the first device's
/// offline admission standing, and of the two devices that admitted one
/// ticket offline, the admission of the one that came back first standing
/// (though the other admitted it earlier) and the other's listed as a
/// conflict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_door_page_scans_offline_and_its_scans_sync_where_the_first_admission_wins() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut room = sixteen_seat_room(None);
    room["title"] = serde_json::json!("Door test film");
    room["starts_at"] = serde_json::json!(e2e::time_from_now(3_600_000));
    let sid = api.create_showing(room).await;
    let mut codes = Vec::new();
    let mut orders = Vec::new();
    let mut order_urls = Vec::new();
    for seat in ["A1", "A2", "A3"] {
        let paid = api.buy(&sid, &[seat]).await;
        assert_eq!(paid.status, 201, "{:?}", paid.body);
        codes.push(
            paid.body["tickets"][0]["code"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        orders.push(paid.body["order_id"].as_str().unwrap().to_string());
        order_urls.push(paid.body["order_url"].as_str().unwrap().to_string());
    }
    api.refund_until_void(&stack, &orders[1]).await;
    // A1's order, for the number its ticket page prints.
    let first_order = api.get(&order_urls[0]).await;
    let a1 = &first_order.body["tickets"][0];
    let a1_short = a1["short_code"].as_str().unwrap().to_string();
    let a1_id = a1["id"].as_str().unwrap().to_string();
    let elsewhere = api.create_showing(sixteen_seat_room(None)).await;
    let other = api.buy(&elsewhere, &["B1"]).await;
    let other_code = other.body["tickets"][0]["code"]
        .as_str()
        .unwrap()
        .to_string();
    let pin = api.draw_door_pin(&sid).await;

    let printed = run_browser_script_with(
        "door_offline.mjs",
        &stack,
        &sid,
        &[
            ("TICKET_CODE", &codes[0]),
            ("REFUNDED_CODE", &codes[1]),
            ("TWICE_CODE", &codes[2]),
            ("ELSEWHERE_CODE", &other_code),
            ("SHORT_CODE", &a1_short),
            ("DOOR_PIN", &pin),
            ("ADMIN_TOKEN", api.admin_token()),
        ],
    );
    let devices: serde_json::Value = printed
        .lines()
        .find_map(|l| l.strip_prefix("devices "))
        .map(|json| serde_json::from_str(json).unwrap())
        .expect("the script names its devices");
    let device = |name: &str| devices[name].as_str().unwrap().to_string();

    let scans = stack.d1_query(&format!(
        "SELECT device_result AS result, offline, ticket_id FROM door_scans \
         WHERE showing_id = '{sid}' AND device = '{}' ORDER BY scanned_at_ms",
        device("first")
    ));
    let results: Vec<&str> = scans
        .iter()
        .map(|r| r["result"].as_str().unwrap())
        .collect();
    assert_eq!(
        results,
        [
            "admitted",
            "already_scanned",
            "invalid",
            "void",
            "wrong_showing",
            "already_scanned",
            "already_scanned",
            "already_scanned"
        ],
        "each offline scan once, as the device answered it"
    );
    // The typed number was sent as A1's whole id, and taken as A1.
    assert_eq!(scans[6]["ticket_id"], a1_id.as_str(), "{scans:?}");
    assert!(scans.iter().all(|r| r["offline"] == 1));
    let standing = |seat: &str| {
        stack.d1_query(&format!(
            "SELECT checked_in_by FROM tickets WHERE showing_id = '{sid}' AND seat = '{seat}' AND status = 'valid'"
        ))
    };
    assert_eq!(
        standing("A1"),
        [serde_json::json!({"checked_in_by": device("first")})]
    );
    assert_eq!(
        standing("A3"),
        [serde_json::json!({"checked_in_by": device("late")})]
    );
    let conflicts = api
        .admin(
            e2e::Method::GET,
            &format!("/api/admin/showings/{sid}/door-conflicts"),
            None,
        )
        .await;
    let listed: Vec<(String, String)> = conflicts.body["conflicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["seat"].as_str().unwrap().into(),
                c["device"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(listed, [("A3".to_string(), device("early"))]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_turnstile_on_the_pages_send_its_token_and_a_buyer_pays_as_before() {
    let stack = Stack::start_with(
        e2e::StackOptions::default()
            .var("TURNSTILE_SITE_KEY", "1x00000000000000000000AA")
            .var(
                "TURNSTILE_SECRET_KEY",
                "1x0000000000000000000000000000000AA",
            ),
    );
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let _ = run_browser_script("turnstile.mjs", &stack, &sid);
    assert_eq!(api.seat_map(&sid).await["A2"], "sold");
    // The tickets, then the links the find page asked for.
    assert_eq!(stack.wait_for_mail("ana@example.com", 2).len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_refund_an_order_in_admin_and_a_watching_buyer_sees_the_seats_reopen() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["A1", "A2"], None).await;
    let paid = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    let _ = run_browser_script_with(
        "admin.mjs",
        &stack,
        &sid,
        &[("ADMIN_TOKEN", api.admin_token())],
    );
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A1"].as_str(), map["A2"].as_str()),
        (Some("available"), Some("available"))
    );
    let order_id = paid.body["order_id"].as_str().unwrap();
    let tickets = stack.d1_query(&format!(
        "SELECT status FROM tickets WHERE order_id = '{order_id}'"
    ));
    assert!(tickets.iter().all(|t| t["status"] == "void"), "{tickets:?}");
    // A2 was moved to B5 on the way: its ticket names the one that
    // replaced it, which the refund voided with A1's.
    let moved = stack.d1_query(&format!(
        "SELECT t.seat, n.seat AS new_seat FROM tickets t JOIN tickets n ON n.id = t.moved_to \
         WHERE t.order_id = '{order_id}'"
    ));
    assert_eq!(moved, [serde_json::json!({"seat": "A2", "new_seat": "B5"})]);
    assert_eq!(map["B5"], "available");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_after_a_lost_answer_finds_the_same_hold_and_the_same_order() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let printed = run_browser_script("recovery.mjs", &stack, &sid);
    let seen: serde_json::Value = serde_json::from_str(printed.lines().last().unwrap_or_default())
        .expect("the script's JSON");
    let order_id = seen["order_id"].as_str().unwrap();

    // One declined card and two paid checkouts reached Square: a lost
    // answer was never sent again as a second authorization.
    let (creates, requests) = authorizations(&stack).await;
    assert_eq!(creates, 3, "{requests:?}");
    let orders = stack.d1_query(&format!(
        "SELECT id, status FROM orders WHERE showing_id = '{sid}' AND status = 'paid' ORDER BY id"
    ));
    assert_eq!(orders.len(), 2, "{orders:?}");
    assert!(orders.iter().any(|o| o["id"] == order_id), "{orders:?}");
    let tickets = stack.d1_query(&format!(
        "SELECT seat FROM tickets WHERE showing_id = '{sid}' AND status = 'valid' ORDER BY seat"
    ));
    assert_eq!(
        tickets,
        [
            serde_json::json!({"seat": "A1"}),
            serde_json::json!({"seat": "A2"})
        ]
    );
}

/// A cinema in Japan: its Square location takes yen, which has no minor
/// unit. A dollar price is refused when saved; a ¥1,500 showing charges
/// `amount: 1500` and every page shows ¥1,500.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_yen_showing_charges_whole_yen_and_a_dollar_one_is_refused() {
    let stack = Stack::start_with(e2e::StackOptions::default().square_currency("JPY"));
    let api = Api::new(&stack);
    let mut room = sixteen_seat_room(None);
    let refused = api
        .admin_post("/api/admin/showings", Some(room.clone()))
        .await;
    assert_eq!(
        (
            refused.status,
            &refused.body["error"],
            &refused.body["location_currency"]
        ),
        (
            400,
            &serde_json::json!("currency_mismatch"),
            &serde_json::json!("JPY")
        ),
        "{:?}",
        refused.body
    );
    room["price"] = serde_json::json!({"amount": 1500, "currency": "JPY"});
    let sid = api.create_showing(room).await;
    let paid = api.buy(&sid, &["A1"]).await;
    assert_eq!(
        paid.body["amount"],
        serde_json::json!({"amount": 1500, "currency": "JPY"})
    );
    let requests = stack.square.get("/_control/requests").await;
    let create = requests["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["method"] == "POST" && r["path"] == "/v2/payments")
        .unwrap()
        .clone();
    assert_eq!(
        create["body"]["amount_money"],
        serde_json::json!({"amount": 1500, "currency": "JPY"})
    );
    let health = api.admin(e2e::Method::GET, "/api/health", None).await;
    assert_eq!(
        health.body["square"],
        serde_json::json!({"location_currency": "JPY", "showings_in_another_currency": []})
    );
    let _ = run_browser_script_with(
        "yen.mjs",
        &stack,
        &sid,
        &[("ADMIN_TOKEN", api.admin_token())],
    );
}

/// Buyer verification with Square's SCA sandbox cards: a challenge passed
/// pays; a challenge cancelled asks Square for nothing; a card verified
/// without a challenge pays. Without verification the stand-in declines
/// such a card (`tests/square`), as Square does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sca_cards_pay_after_verification_and_a_cancelled_check_charges_nothing() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let _ = run_browser_script("sca.mjs", &stack, &sid);
    let (creates, requests) = authorizations(&stack).await;
    assert_eq!(
        creates, 2,
        "the cancelled check asked Square for nothing: {requests:?}"
    );
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A5"].as_str(), map["A6"].as_str()),
        (Some("sold"), Some("sold"))
    );
}

/// Google Pay through the SDK stand-in pays through the same checkout as a
/// card: one authorization, the seat sold; a closed sheet asked nothing.
/// The cinema is in the UK, where Square asks for buyer verification of
/// wallet payments too: the page verifies the wallet's token and sends
/// the verification with it (the stand-in declines it otherwise).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wallet_pays_through_the_same_checkout_as_a_card() {
    let stack = Stack::start_with(e2e::StackOptions::default().square_currency("GBP"));
    let api = Api::new(&stack);
    let mut room = sixteen_seat_room(None);
    room["price"] = serde_json::json!({"amount": 1200, "currency": "GBP"});
    let sid = api.create_showing(room).await;
    let _ = run_browser_script("wallet.mjs", &stack, &sid);
    let (creates, requests) = authorizations(&stack).await;
    assert_eq!(creates, 1, "{requests:?}");
    assert_eq!(api.seat_map(&sid).await["A8"], "sold");
    let logged = stack.square.get("/_control/requests").await;
    let create = logged["requests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["method"] == "POST" && r["path"] == "/v2/payments")
        .unwrap();
    assert!(
        create["body"]["verification_token"]
            .as_str()
            .is_some_and(|t| t.starts_with("verf:")),
        "{create}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_and_the_box_office_see_sales_tax_added_and_the_receipt_shows_each_line_and_staff_the_reports(
) {
    let sales_tax = e2e::StackOptions::default()
        .var("TAX_RATE_BPS", "875")
        .var("TAX_NAME", "Sales tax")
        .var("TAX_INCLUSIVE", "false");
    let stack = Stack::start_with(sales_tax);
    let api = Api::new(&stack);
    let sid = api.create_showing(e2e::family_showing()).await;
    let _ = run_browser_script_with(
        "tax.mjs",
        &stack,
        &sid,
        &[("ADMIN_TOKEN", api.admin_token())],
    );
    // A ticket D1 has for a seat the showing still sells (of an order that
    // failed, so no report counts it): the check before the showing finds
    // it, for staff to settle on the admin home.
    stack.d1_query(&format!(
        "INSERT INTO orders (id, showing_id, email, name, amount, currency, status, \
           created_at_ms, updated_at_ms) \
         VALUES ('{sid}stray', '{sid}', 'stray@example.com', 'Stray', 100, 'USD', 'failed', 0, 0); \
         INSERT INTO tickets (id, order_id, showing_id, seat, status, created_at_ms) \
         VALUES ('{sid}stray-1', '{sid}stray', '{sid}', 'A8', 'valid', 0)"
    ));
    let found = api
        .admin_post(&format!("/api/admin/showings/{sid}/reconcile"), None)
        .await;
    assert_eq!(
        found.body["findings"][0]["kind"], "seat_lost_by_object",
        "{:?}",
        found.body
    );
    // The same sales, read on the reports page.
    let _ = run_browser_script_with(
        "reports.mjs",
        &stack,
        &sid,
        &[("ADMIN_TOKEN", api.admin_token())],
    );
    let orders = stack.d1_query(&format!(
        "SELECT o.amount, SUM(t.price_tax) AS tax FROM orders o JOIN tickets t ON t.order_id = o.id \
         WHERE o.showing_id = '{sid}' AND o.status = 'paid' GROUP BY o.id ORDER BY o.amount DESC"
    ));
    assert_eq!(
        orders,
        [
            serde_json::json!({"amount": 2175, "tax": 175}),
            serde_json::json!({"amount": 1305, "tax": 105}),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_picks_an_adult_and_a_child_price_and_pays_the_sum() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(e2e::family_showing()).await;
    let _ = run_browser_script_with(
        "prices.mjs",
        &stack,
        &sid,
        &[("ADMIN_TOKEN", api.admin_token())],
    );
    let tickets = stack.d1_query(&format!(
        "SELECT seat, price_category, price_amount FROM tickets WHERE showing_id = '{sid}' ORDER BY seat"
    ));
    assert_eq!(
        tickets,
        [
            serde_json::json!({"seat": "A1", "price_category": "adult", "price_amount": 1200}),
            serde_json::json!({"seat": "A2", "price_category": "child", "price_amount": 800}),
        ]
    );
    let orders = stack.d1_query(&format!(
        "SELECT amount FROM orders WHERE showing_id = '{sid}'"
    ));
    assert_eq!(orders, [serde_json::json!({"amount": 2000})]);
    let public = api.get(&format!("/api/showings/{sid}")).await;
    let names: Vec<&str> = public.body["showing"]["prices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Adult", "Child", "Senior"], "staff added a price");
    assert_eq!(public.body["showing"]["prices"][2]["amount"], 950);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_free_screening_issues_tickets_without_a_card_form() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut free = sixteen_seat_room(None);
    free["price"]["amount"] = serde_json::json!(0);
    let sid = api.create_showing(free).await;
    let _ = run_browser_script("free.mjs", &stack, &sid);
    let orders = stack.d1_query(&format!(
        "SELECT amount, status, email FROM orders WHERE showing_id = '{sid}'"
    ));
    assert_eq!(
        orders,
        [serde_json::json!({"amount": 0, "status": "paid", "email": "kit@example.com"})]
    );
    let payments = stack
        .square
        .calls()
        .await
        .into_iter()
        .filter(|(_, path)| path.starts_with("/v2/payments"))
        .count();
    assert_eq!(payments, 0, "no card, no payment");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_sell_a_seat_at_the_box_office_on_the_admin_map() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(e2e::family_showing()).await;
    let _ = run_browser_script_with(
        "box_office.mjs",
        &stack,
        &sid,
        &[("ADMIN_TOKEN", api.admin_token())],
    );
    assert_eq!(api.seat_map(&sid).await["A5"], "sold");
    let orders = stack.d1_query(&format!(
        "SELECT channel, amount, name FROM orders WHERE showing_id = '{sid}'"
    ));
    assert_eq!(
        orders,
        [serde_json::json!({"channel": "cash", "amount": 800, "name": "Walk-in"})]
    );

    // General admission and an allocation on the same stack
    // (`allocations.mjs`).
    let mut mixed = e2e::sixteen_seat_room(None);
    mixed["layout"] = serde_json::json!({
        "rows": [{"name": "A", "seats": 8}],
        "allow_single_seats": true,
        "zones": [{"name": "Floor", "capacity": 5}]
    });
    let mixed = api.create_showing(mixed).await;
    let _ = run_browser_script_with(
        "allocations.mjs",
        &stack,
        &mixed,
        &[("ADMIN_TOKEN", api.admin_token())],
    );
    let orders = stack.d1_query(&format!(
        "SELECT channel, comp_reason, \
           (SELECT group_concat(seat, ' ') FROM tickets t WHERE t.order_id = o.id) AS seats \
         FROM orders o WHERE showing_id = '{mixed}' ORDER BY created_at_ms"
    ));
    assert_eq!(
        orders,
        [
            serde_json::json!({"channel": "cash", "comp_reason": null, "seats": "Floor§1 Floor§2"}),
            serde_json::json!({"channel": "channel", "comp_reason": "Lincoln School", "seats": "A1"}),
        ]
    );
    assert_eq!(api.seat_map(&mixed).await["A2"], "available");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_add_a_film_and_a_screen_and_buyers_see_the_film_and_its_wheelchair_space() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let _ = run_browser_script_with(
        "catalog.mjs",
        &stack,
        "",
        &[("ADMIN_TOKEN", api.admin_token())],
    );
    let showings = stack.d1_query(
        "SELECT s.title, f.title AS film, sc.name AS screen FROM showings s \
         JOIN films f ON f.id = s.film_id JOIN screens sc ON sc.id = s.screen_id",
    );
    assert_eq!(
        showings,
        [serde_json::json!({"title": "Stalker", "film": "Stalker", "screen": "Screen 1"})]
    );
    // The best seat staff marked is the screen's and its showing's.
    let best = stack.d1_query(
        "SELECT json_extract(s.layout_json, '$.best_seat') AS showing, \
         json_extract(sc.layout_json, '$.best_seat') AS screen \
         FROM showings s JOIN screens sc ON sc.id = s.screen_id",
    );
    assert_eq!(best, [serde_json::json!({"showing": "A5", "screen": "A5"})]);
}

/// The buyer's page as people use it (`seat_map.mjs`): a keyboard seat
/// map, a wide row on a phone, a seat taken by another buyer, a bad e-mail
/// and a declined card told by the Pay button, an expired hold redrawn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seat_map_is_one_tab_stop_and_payment_messages_are_told_by_the_pay_button() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let mut wide = sixteen_seat_room(None);
    wide["layout"] = serde_json::json!({"rows": [
        {"name": "A", "seats": 12, "gaps_after": [6]},
        {"name": "B", "seats": 12, "gaps_after": [6]}
    ], "allow_single_seats": true});
    let sid = api.create_showing(wide).await;
    let short = api.create_showing(sixteen_seat_room(Some(3_000))).await;
    // A room of three seats, one a house seat: two sold is sold out.
    let mut small = sixteen_seat_room(None);
    small["layout"] = serde_json::json!({"rows": [{"name": "A", "seats": 3, "blocked": [2]}], "allow_single_seats": true});
    let sold_out = api.create_showing(small).await;
    for seat in ["A1", "A3"] {
        api.buy(&sold_out, &[seat]).await;
    }
    let _ = run_browser_script_with(
        "seat_map.mjs",
        &stack,
        &sid,
        &[("SHORT_ID", &short), ("SOLD_OUT_ID", &sold_out)],
    );
    // The page put wes@ on the sold-out showing's waiting list; a refund
    // of A1 offers it to them, and they buy it from the mail's link
    // (`waitlist.mjs`).
    let a1 = stack.d1_query(&format!(
        "SELECT order_id FROM tickets WHERE showing_id = '{sold_out}' AND seat = 'A1'"
    ));
    let order = a1[0]["order_id"].as_str().expect("A1's order").to_string();
    api.refund_until_void(&stack, &order).await;
    let offer = stack.wait_for_mail("wes@example.com", 1);
    let link = offer[0]
        .text
        .split_whitespace()
        .find(|word| word.contains("?offer="))
        .expect("the offer's link")
        .to_string();
    let path = &link[link.find("/showings/").expect("a showing's page")..];
    let _ = run_browser_script_with("waitlist.mjs", &stack, &sold_out, &[("OFFER_PATH", path)]);
    let sold = stack.d1_query(&format!(
        "SELECT status FROM tickets WHERE showing_id = '{sold_out}' AND seat = 'A1' AND status = 'valid'"
    ));
    assert_eq!(sold.len(), 1, "A1 was bought again from the offer");
    // The declined cards charged nothing and sold nothing.
    let paid = stack.d1_query(&format!(
        "SELECT id FROM orders WHERE showing_id = '{sid}' AND status = 'paid'"
    ));
    assert!(paid.is_empty(), "{paid:?}");

    // Best available and the single-seat rule (`best_seats.mjs`), on the
    // same stack.
    let mut rows = sixteen_seat_room(None);
    rows["layout"] = serde_json::json!({"rows": [
        {"name": "A", "seats": 8}, {"name": "B", "seats": 8}, {"name": "C", "seats": 8}
    ]});
    rows["prices"] = serde_json::json!([
        {"id": "adult", "name": "Adult", "amount": 1200},
        {"id": "child", "name": "Child", "amount": 800}
    ]);
    rows["currency"] = serde_json::json!("USD");
    rows.as_object_mut().unwrap().remove("price");
    let best = api.create_showing(rows).await;
    let _ = run_browser_script("best_seats.mjs", &stack, &best);
    let held = api.seat_map(&best).await;
    assert_eq!(held["B4"], "available", "the page released its hold");

    // General admission (`zones.mjs`): a zone beside the rows, and a
    // showing of zones only.
    let mut mixed = sixteen_seat_room(None);
    mixed["max_seats_per_hold"] = serde_json::json!(4);
    mixed["layout"] = serde_json::json!({
        "rows": [{"name": "A", "seats": 8}],
        "zones": [{"name": "Floor", "capacity": 3}]
    });
    let mixed = api.create_showing(mixed).await;
    let mut class = sixteen_seat_room(None);
    class["layout"] = serde_json::json!({"zones": [{"name": "Class", "capacity": 20}]});
    let class = api.create_showing(class).await;
    let _ = run_browser_script_with("zones.mjs", &stack, &mixed, &[("ZONES_ONLY_ID", &class)]);
    let floor = api.seat_map(&mixed).await;
    assert_eq!(floor["Floor§1"], "available", "the page released its hold");

    // A waiting room (`waiting_room.mjs`): the second in line waits, then
    // chooses.
    let mut rush = sixteen_seat_room(None);
    rush["waiting_room"] = serde_json::json!({"admit_per_minute": 3});
    let rush = api.create_showing(rush).await;
    let _ = run_browser_script("waiting_room.mjs", &stack, &rush);
    assert_eq!(
        api.seat_map(&rush).await["A4"],
        "available",
        "the page released its hold"
    );
}

/// Sets the showing's buyer policy, buys A1 and A2 and answers the order
/// page's path.
async fn bought_under(api: &Api, sid: &str, policy: serde_json::Value) -> String {
    let set = api
        .admin(
            e2e::Method::PUT,
            &format!("/api/admin/showings/{sid}/policy"),
            Some(policy),
        )
        .await;
    assert_eq!(set.status, 200, "{:?}", set.body);
    let paid = api.buy(sid, &["A1", "A2"]).await;
    paid.body["order_url"]
        .as_str()
        .unwrap()
        .replacen("/api/orders/", "/orders/", 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_cancels_one_ticket_from_the_order_page_on_a_phone() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let policy =
        serde_json::json!({"cancel": {"until_minutes_before": 60, "fee": {"percent": 10}}});
    let page = bought_under(&api, &sid, policy).await;
    let _ = run_browser_script_with("cancel.mjs", &stack, &sid, &[("ORDER_PAGE", &page)]);
    let refunds = stack.square.get("/_control/refunds").await;
    let amounts: Vec<&serde_json::Value> = refunds["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["amount_money"]["amount"])
        .collect();
    assert_eq!(amounts, [1080], "one refund, the price less 10%");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_buyer_changes_showing_from_the_order_page_on_a_phone_paying_the_difference() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let film = api.create_film("Andrei Rublev").await;
    let sid = api
        .create_showing_of(&film, "2099-10-01T19:30:00Z", 1200)
        .await;
    let dearer = api
        .create_showing_of(&film, "2099-10-02T19:30:00Z", 1500)
        .await;
    let policy = serde_json::json!({"cancel": null, "exchange": {"until_minutes_before": 60}});
    let page = bought_under(&api, &sid, policy).await;
    let _ = run_browser_script_with(
        "exchange.mjs",
        &stack,
        &sid,
        &[("ORDER_PAGE", &page), ("NEW_SHOWING_ID", &dearer)],
    );
    // The card paid the difference only, and the old seats are on sale.
    let payments = stack.square.get("/_control/payments").await;
    let amounts: Vec<u64> = payments["payments"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["amount_money"]["amount"].as_u64())
        .collect();
    assert!(amounts.contains(&600), "{amounts:?}");
    api.seat_map_when(&sid, "A1", "available").await;
}

/// Staff set a showing's cancelling policy on its admin page
/// (`admin_policy.mjs`); the exchange the form does not show is kept.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_set_a_showings_cancel_fee_on_its_admin_page_then_its_default() {
    let stack = Stack::start_with(
        e2e::StackOptions::default()
            .var("CANCEL_UNTIL_MINUTES", "120")
            .var("CANCEL_FEE", "5%"),
    );
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let exchange_only =
        serde_json::json!({"cancel": null, "exchange": {"until_minutes_before": 60}});
    let path = format!("/api/admin/showings/{sid}/policy");
    let set = api
        .admin(e2e::Method::PUT, &path, Some(exchange_only))
        .await;
    assert_eq!(set.status, 200, "{:?}", set.body);
    let _ = run_browser_script_with(
        "admin_policy.mjs",
        &stack,
        &sid,
        &[("ADMIN_TOKEN", api.admin_token())],
    );
    let now = api.admin(e2e::Method::GET, &path, None).await;
    assert_eq!(now.body["own"], false, "{:?}", now.body);
}

/// The admin home shows the first-deploy checklist while a setting is
/// wrong, readable on a phone, and none once every line is right; there
/// staff define, pause and resume discount codes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_admin_home_lists_what_to_fix_before_selling_until_it_is_right_and_defines_codes() {
    let wrong = e2e::StackOptions::default().var("PUBLIC_URL", "http://tickets.cinema.example/");
    let mut stack = Stack::start_with(wrong);
    let token = Api::new(&stack).admin_token().to_string();
    let env = |mode: &'static str| {
        [
            ("ADMIN_TOKEN", token.clone()),
            ("CHECKLIST", mode.to_string()),
        ]
    };
    let run = |stack: &Stack, mode| {
        let env = env(mode);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        run_browser_script_with("checklist.mjs", stack, "", &env)
    };
    run(&stack, "wrong");
    stack.restart_with(e2e::StackOptions::default());
    run(&stack, "right");
    let env = [("ADMIN_TOKEN", token.as_str())];
    let sid = Api::new(&stack)
        .create_showing(e2e::sixteen_seat_room(None))
        .await;
    run_browser_script_with("codes.mjs", &stack, &sid, &env);
}
