//! Discount codes applied to holds through the real Worker, the showings'
//! objects and each limited code's own object: a rush on a limited code,
//! uses coming back when holds lapse, the limit per buyer across orders,
//! every reason a code is refused, and what a discounted order is paid
//! and refunded.

use e2e::{Api, Method, Reply, Stack, StackOptions};
use serde_json::{json, Value};
use tokio::task::JoinSet;

/// A room of `rows` rows of 20 seats at $12, holds lasting `hold_ttl_ms`.
fn room(title: &str, rows: usize, hold_ttl_ms: u64) -> Value {
    let rows: Vec<Value> = (0..rows)
        .map(|i| json!({"name": ((b'A' + i as u8) as char).to_string(), "seats": 20}))
        .collect();
    json!({
        "title": title,
        "starts_at": "2099-12-05T19:30:00Z",
        "price": {"amount": 1200, "currency": "USD"},
        "hold_ttl_ms": hold_ttl_ms,
        "layout": {"rows": rows, "allow_single_seats": true}
    })
}

/// Seat `n` of a room of rows of 20: A1…A20, B1…
fn seat(n: usize) -> String {
    format!("{}{}", (b'A' + (n / 20) as u8) as char, n % 20 + 1)
}

async fn define(api: &Api, code: Value) {
    let made = api.admin_post("/api/admin/codes", Some(code)).await;
    assert_eq!(made.status, 201, "{:?}", made.body);
}

/// `POST …/holds/{hold}/code` as the hold's buyer.
async fn apply(api: &Api, sid: &str, hold: &Reply, code: &str, email: &str) -> Reply {
    apply_from(api, sid, hold, code, email, "127.0.0.1").await
}

/// [`apply`] from the client network `network`.
async fn apply_from(
    api: &Api,
    sid: &str,
    hold: &Reply,
    code: &str,
    email: &str,
    network: &str,
) -> Reply {
    let hold_id = hold.body["hold_id"].as_str().expect("a granted hold");
    let cookie = hold.cookie.as_deref().expect("the hold's session");
    let body = json!({"code": code, "email": email}).to_string();
    api.send(
        Method::POST,
        &format!("/api/showings/{sid}/holds/{hold_id}/code"),
        Some(body.into_bytes()),
        &[("cookie", cookie), ("cf-connecting-ip", network)],
    )
    .await
}

async fn get_hold(api: &Api, sid: &str, hold: &Reply) -> Value {
    let hold_id = hold.body["hold_id"].as_str().unwrap();
    let cookie = hold.cookie.as_deref().unwrap();
    api.send(
        Method::GET,
        &format!("/api/showings/{sid}/holds/{hold_id}"),
        None,
        &[("cookie", cookie)],
    )
    .await
    .body
}

/// Holds one seat each for `count` new buyers, seats `from..from+count`.
async fn holds(api: &Api, sid: &str, from: usize, count: usize) -> Vec<Reply> {
    let mut set = JoinSet::new();
    for n in from..from + count {
        let (api, sid) = (api.clone(), sid.to_string());
        set.spawn(async move { (n, api.hold(&sid, &[&seat(n)], None).await) });
    }
    let mut held = set.join_all().await;
    held.sort_by_key(|(n, _)| *n);
    held.into_iter()
        .map(|(n, reply)| {
            assert_eq!(reply.status, 201, "seat {}: {:?}", seat(n), reply.body);
            reply
        })
        .collect()
}

fn buyer(n: usize) -> String {
    format!("buyer{n}@example.com")
}

/// The rush: 200 buyers apply a 50-use code at once and exactly 50
/// get it; 40 pay, the other 10 let their holds lapse, and then exactly 10
/// more buyers get it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_buyers_rushing_a_fifty_use_code_get_fifty_and_lapsed_holds_give_theirs_back() {
    let stack = Stack::start_with(StackOptions::default().var("HOLD_SEATS_PER_CLIENT", "1000"));
    let api = Api::new(&stack);
    // The rush's holds last 30 s: long enough for every buyer to apply and
    // the first 40 winners to start paying on a busy machine, short enough
    // to watch the other 10 lapse.
    let rush = api.create_showing(room("Premiere", 10, 30_000)).await;
    let later = api.create_showing(room("Matinee", 1, 600_000)).await;
    define(
        &api,
        json!({"code": "FIRST50", "percent_off": 50, "max_uses": 50}),
    )
    .await;
    let held = holds(&api, &rush, 0, 200).await;

    // Each buyer applies the code; the first 40 to get it pay at once, at
    // half price, and the other 10 who got it leave.
    let payers = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut set = JoinSet::new();
    for (n, hold) in held.iter().enumerate() {
        let (api, rush, hold, payers) = (api.clone(), rush.clone(), hold.clone(), payers.clone());
        // Any case: codes are compared without it.
        let code = if n % 2 == 0 { "first50" } else { "FIRST50" };
        set.spawn(async move {
            let answer = apply(&api, &rush, &hold, code, &buyer(n)).await;
            let pays = answer.status == 200
                && payers.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < 40;
            let paid = match pays {
                true => Some(
                    api.checkout_as(&rush, &hold, "cnon:card-nonce-ok", &buyer(n), "Buyer")
                        .await,
                ),
                false => None,
            };
            (n, answer, paid)
        });
    }
    let answers = set.join_all().await;
    let mut leaving = Vec::new();
    for (n, answer, paid) in &answers {
        match (answer.status, paid) {
            (200, paid) => {
                assert_eq!(
                    answer.body["discount"],
                    json!({"code": "FIRST50", "amount": 600})
                );
                assert_eq!(answer.body["amount"]["amount"], 600, "buyer {n}");
                match paid {
                    Some(paid) => {
                        assert_eq!(paid.status, 201, "{:?}", paid.body);
                        assert_eq!(paid.body["amount"]["amount"], 600);
                    }
                    None => leaving.push(*n),
                }
            }
            _ => assert_eq!(
                (answer.status, &answer.body["error"]),
                (409, &json!("code_used_up")),
                "buyer {n}: {:?}",
                answer.body
            ),
        }
    }
    let won = answers.iter().filter(|(_, a, _)| a.status == 200).count();
    assert_eq!(won, 50, "exactly the first 50 got it");
    assert_eq!(leaving.len(), 10);

    let newcomers = holds(&api, &later, 0, 11).await;

    // The 10 leavers' holds lapse; each buyer's page sees it, and their
    // uses are back by then.
    for &n in &leaving {
        for tries in 0.. {
            let seen = get_hold(&api, &rush, &held[n]).await;
            if seen["state"] == "expired" {
                break;
            }
            assert!(tries < 400, "buyer {n}'s hold never lapsed: {seen}");
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        }
    }
    for (i, hold) in newcomers.iter().enumerate().take(10) {
        let got = apply(&api, &later, hold, "FIRST50", &buyer(500 + i)).await;
        assert_eq!(got.status, 200, "newcomer {i}: {:?}", got.body);
    }
    let eleventh = apply(&api, &later, &newcomers[10], "FIRST50", &buyer(600)).await;
    assert_eq!(
        eleventh.body["error"], "code_used_up",
        "{:?}",
        eleventh.body
    );

    // Staff see the code's uses: 40 paid, 10 on holds, none left.
    let seen = api
        .admin(Method::GET, "/api/admin/codes/first50", None)
        .await;
    let uses = &seen.body["uses"];
    assert_eq!(
        (
            &uses["paid"],
            &uses["committed"],
            &uses["on_holds"],
            &uses["left"]
        ),
        (&json!(40), &json!(40), &json!(10), &json!(0)),
        "{:?}",
        seen.body
    );
    assert_eq!(uses["discounted_minor"], 40 * 600);
}

/// Every reason a code does not apply is named; an unknown code is
/// counted against the network; a buyer's limit holds across orders; and
/// a discounted order is charged, itemized, receipted and refunded at
/// what was paid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_is_refused_with_its_reason_limited_per_buyer_and_refunded_at_what_was_paid() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(e2e::family_showing()).await;
    let other = api.create_showing(room("Vertigo", 1, 600_000)).await;
    define(
        &api,
        json!({"code": "LAST-YEAR", "amount_off": 300, "valid_until": 1_000}),
    )
    .await;
    define(
        &api,
        json!({"code": "VERTIGO", "amount_off": 300, "showings": [other]}),
    )
    .await;
    define(
        &api,
        json!({"code": "KIDS", "percent_off": 25, "categories": ["child"]}),
    )
    .await;
    define(
        &api,
        json!({"code": "ONCE", "percent_off": 50, "max_uses_per_buyer": 1}),
    )
    .await;
    define(
        &api,
        json!({"code": "DESK", "amount_off": 100, "box_office_only": true}),
    )
    .await;
    let held = api.hold_with(&sid, json!({"seats": ["A1"]})).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    let email = "ana@example.com";
    for (code, status, why) in [
        ("LAST-YEAR", 409, "dates"),
        ("VERTIGO", 409, "showing"),
        ("KIDS", 409, "category"),
        ("DESK", 409, "box_office"),
    ] {
        let refused = apply(&api, &sid, &held, code, email).await;
        assert_eq!(
            (refused.status, &refused.body["error"], &refused.body["why"]),
            (status, &json!("code_not_valid_here"), &json!(why)),
            "{code}: {:?}",
            refused.body
        );
    }
    // At the box office a desk-only code is taken; a code limited per
    // buyer needs the buyer's address there.
    let desk = format!("/api/admin/showings/{sid}/box-office");
    let sold = api
        .admin_post(
            &desk,
            Some(json!({"seats": ["A3"], "paid": "cash", "code": "desk"})),
        )
        .await;
    assert_eq!(sold.status, 201, "{:?}", sold.body);
    assert_eq!(sold.body["amount"]["amount"], 1100, "{:?}", sold.body);
    let nameless = api
        .admin_post(
            &desk,
            Some(json!({"seats": ["A4"], "paid": "cash", "code": "ONCE"})),
        )
        .await;
    assert_eq!(
        (nameless.status, &nameless.body["error"]),
        (400, &json!("invalid_sale")),
        "{:?}",
        nameless.body
    );
    let unknown = apply(&api, &sid, &held, "NOSUCH", email).await;
    assert_eq!(
        (unknown.status, &unknown.body["error"]),
        (404, &json!("unknown_code"))
    );
    // Guessing is bounded per network: after ten unknown codes, even a
    // real one waits.
    for i in 0..9 {
        let guess = apply(&api, &sid, &held, &format!("GUESS{i}"), email).await;
        assert_eq!(guess.status, 404, "{:?}", guess.body);
    }
    let blocked = apply(&api, &sid, &held, "ONCE", email).await;
    assert_eq!(blocked.status, 429, "{:?}", blocked.body);
    assert!(blocked.retry_after.is_some());
    let elsewhere = apply_from(&api, &sid, &held, "ONCE", email, "198.51.100.42").await;
    assert_eq!(elsewhere.status, 200, "{:?}", elsewhere.body);
    assert_eq!(elsewhere.body["amount"]["amount"], 600);
    assert_eq!(elsewhere.body["prices"][0]["discount_minor"], 600);

    // Paid with another address than the code's, the checkout says so.
    let wrong = api
        .checkout_as(&sid, &held, "cnon:card-nonce-ok", "bob@example.com", "Bob")
        .await;
    assert_eq!(
        (wrong.status, &wrong.body["field"]),
        (400, &json!("email")),
        "{:?}",
        wrong.body
    );
    let paid = api
        .checkout_as(&sid, &held, "cnon:card-nonce-ok", email, "Ana Lima")
        .await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    assert_eq!(paid.body["amount"]["amount"], 600);
    let order = stack.square.last_paid_order().await;
    assert_eq!(order["total_money"]["amount"], 600, "{order}");
    assert_eq!(order["total_discount_money"]["amount"], 600, "{order}");
    assert_eq!(order["discounts"][0]["name"], "ONCE");
    assert_eq!(order["line_items"][0]["base_price_money"]["amount"], 1200);
    // The receipt (the order page) and the e-mail say it.
    let order_id = paid.body["order_id"].as_str().unwrap();
    let page = api.get(paid.body["order_url"].as_str().unwrap()).await;
    assert_eq!(
        page.body["order"]["discount"],
        json!({"code": "ONCE", "amount": 600}),
        "{:?}",
        page.body
    );
    assert_eq!(page.body["tickets"][0]["discount"], 600);
    let mail = stack.wait_for_mail(email, 1);
    assert!(
        mail[0].text.contains("$6.00 off with code ONCE"),
        "{}",
        mail[0].text
    );

    // The same buyer's second order may not use it again.
    let again = api.hold_with(&sid, json!({"seats": ["A2"]})).await;
    let refused = apply_from(&api, &sid, &again, "once", email, "198.51.100.42").await;
    assert_eq!(
        (
            refused.status,
            &refused.body["error"],
            &refused.body["limit"]
        ),
        (409, &json!("code_limit_per_buyer"), &json!(1)),
        "{:?}",
        refused.body
    );

    // A full refund gives back what was paid, not the list price; staff
    // give the code's use back with it, and the buyer may use it again.
    let refund = api
        .admin_post(
            &format!("/api/admin/orders/{order_id}/refund"),
            Some(json!({"return_code_use": true})),
        )
        .await;
    assert!(refund.status < 300, "{:?}", refund.body);
    assert_eq!(refund.body["code_use_returned"], true, "{:?}", refund.body);
    let now_free = apply_from(&api, &sid, &again, "ONCE", email, "198.51.100.42").await;
    assert_eq!(now_free.status, 200, "{:?}", now_free.body);
    let refunds = stack.square.get("/_control/refunds").await;
    let amounts: Vec<i64> = refunds["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["amount_money"]["amount"].as_i64().unwrap())
        .collect();
    assert_eq!(amounts, [600]);
}
