//! The waiting list of a sold-out showing through the real Worker, object,
//! D1 and e-mail binding: a refund after the sell-out offers the seats to
//! the first person on the list (held, so the public cannot take them),
//! mailed as a signed link; unclaimed, the offer lapses and the next
//! person is mailed; they claim it and pay, and staff see the whole list.

use e2e::{Api, Method, Reply, Stack};
use serde_json::{json, Value};

/// A room of one row of four seats far in the future.
fn four_seats() -> Value {
    json!({
        "title": "Wings of Desire",
        "starts_at": "2099-12-05T19:30:00Z",
        "price": {"amount": 900, "currency": "USD"},
        "layout": {"rows": [{"name": "A", "seats": 4}], "allow_single_seats": true}
    })
}

async fn join(api: &Api, sid: &str, email: &str, seats: u32) -> Reply {
    let body = json!({ "email": email, "seats": seats });
    api.send(
        Method::POST,
        &format!("/api/showings/{sid}/waitlist"),
        Some(body.to_string().into_bytes()),
        &[],
    )
    .await
}

/// The offer in a mail: its entry and key, from the link.
fn offer_link(text: &str, sid: &str) -> (String, String) {
    let start = text
        .find(&format!("/showings/{sid}?offer="))
        .unwrap_or_else(|| panic!("no offer link in {text}"));
    let query = text[start..]
        .split_whitespace()
        .next()
        .and_then(|link| link.split_once('?'))
        .map(|(_, q)| q.to_string())
        .expect("a link with a query");
    let param = |name: &str| {
        query
            .split('&')
            .find_map(|p| p.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name} in {query}"))
            .to_string()
    };
    (param("offer"), param("key"))
}

async fn claim(api: &Api, sid: &str, entry: &str, key: &str) -> Reply {
    api.send(
        Method::POST,
        &format!("/api/showings/{sid}/offers/{entry}/claim"),
        Some(json!({ "key": key }).to_string().into_bytes()),
        &[],
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refund_after_the_sell_out_is_offered_to_the_first_on_the_list_then_the_next() {
    // Offers last three seconds here, so the first one lapses in the test.
    let stack = Stack::start_with(e2e::StackOptions::default().var("WAITLIST_OFFER_MS", "3000"));
    let api = Api::new(&stack);
    let sid = api.create_showing(four_seats()).await;

    // While seats can be bought, nobody is put on the list.
    let early = join(&api, &sid, "cat@example.com", 2).await;
    assert_eq!(early.status, 409, "{:?}", early.body);
    assert_eq!(early.body["error"], "seats_available");
    assert_eq!(early.body["available"], 2);

    let first = api
        .buy_as(&sid, &["A1", "A2"], "eve@example.com", "Eve")
        .await;
    api.buy_as(&sid, &["A3", "A4"], "fay@example.com", "Fay")
        .await;

    let ana = join(&api, &sid, "ana@example.com", 2).await;
    assert_eq!(ana.status, 201, "{:?}", ana.body);
    assert_eq!(ana.body["position"], 1);
    let bob = join(&api, &sid, "bob@example.com", 2).await;
    assert_eq!(bob.body["position"], 2, "{:?}", bob.body);
    let again = join(&api, &sid, " ANA@example.com", 1).await;
    assert_eq!(again.status, 200, "the same address is told its place");
    assert_eq!(
        (again.body["position"].clone(), again.body["new"].clone()),
        (json!(1), json!(false))
    );
    for bad in [
        json!({"email": "nobody", "seats": 1}),
        json!({"email": "a@example.com", "seats": 0}),
    ] {
        let refused = api
            .send(
                Method::POST,
                &format!("/api/showings/{sid}/waitlist"),
                Some(bad.to_string().into_bytes()),
                &[],
            )
            .await;
        assert_eq!(
            (refused.status, refused.body["error"].clone()),
            (400, json!("invalid_waitlist"))
        );
    }

    // A refund brings A1 and A2 back: they are held for Ana at once.
    let order = first.body["order_id"]
        .as_str()
        .expect("an order")
        .to_string();
    api.refund_until_void(&stack, &order).await;
    let mail = stack.wait_for_mail("ana@example.com", 1);
    let offer = &mail[0];
    assert!(
        offer
            .subject
            .starts_with("Seats for Wings of Desire are yours to buy until"),
        "{}",
        offer.subject
    );
    assert!(offer.text.contains("A1, A2"), "{}", offer.text);
    let (ana_entry, ana_key) = offer_link(&offer.text, &sid);
    let taken = api.hold(&sid, &["A1"], None).await;
    assert_eq!(
        taken.status, 409,
        "the offered seats are not for sale: {:?}",
        taken.body
    );

    // A wrong key opens nothing; Ana lets her offer lapse, and Bob is mailed.
    let mut wrong = ana_key.clone().into_bytes();
    wrong[0] = if wrong[0] == b'0' { b'1' } else { b'0' };
    let forged = claim(&api, &sid, &ana_entry, std::str::from_utf8(&wrong).unwrap()).await;
    assert_eq!(
        (forged.status, forged.body["error"].clone()),
        (404, json!("not_found"))
    );
    let mail = stack.wait_for_mail("bob@example.com", 1);
    let (bob_entry, bob_key) = offer_link(&mail[0].text, &sid);
    assert_ne!(bob_entry, ana_entry);
    let late = claim(&api, &sid, &ana_entry, &ana_key).await;
    assert_eq!(
        (late.status, late.body["error"].clone()),
        (409, json!("offer_ended"))
    );

    // Bob claims: the seats become his hold, which he pays for.
    let held = claim(&api, &sid, &bob_entry, &bob_key).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    assert_eq!(held.body["seats"], json!(["A1", "A2"]));
    let twice = claim(&api, &sid, &bob_entry, &bob_key).await;
    assert_eq!(twice.body["state"], "claimed", "{:?}", twice.body);
    let paid = api
        .checkout_as(&sid, &held, "cnon:card-nonce-ok", "bob@example.com", "Bob")
        .await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
    assert_eq!(paid.body["status"], "paid", "{:?}", paid.body);

    // Staff see who waited and how each offer ended; nobody was offered twice.
    let list = api
        .admin(
            Method::GET,
            &format!("/api/admin/showings/{sid}/waitlist"),
            None,
        )
        .await;
    assert_eq!(list.status, 200, "{:?}", list.body);
    let states: Vec<(String, String)> = list.body["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            (
                e["email"].as_str().unwrap().into(),
                e["state"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("ana@example.com".to_string(), "lapsed".to_string()),
            ("bob@example.com".into(), "bought".into())
        ]
    );
    assert_eq!(stack.sent_to("ana@example.com"), 1, "one offer each");
    let map = api.seat_map(&sid).await;
    assert_eq!(
        (map["A1"].clone(), map["A2"].clone()),
        (json!("sold"), json!("sold"))
    );
}
