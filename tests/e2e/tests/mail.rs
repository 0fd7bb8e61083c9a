//! E-mail through the outbox: a paid order's tickets mail (its QR images
//! scan at the door), retries through a refusing transport, staff resends,
//! and order links by address. The mail is the platform's own: wrangler
//! dev's `send_email` binding, read back from the files it writes.

use std::time::Duration;

use e2e::mailbox::SentMail;
use e2e::{sixteen_seat_room, Api, Method, Reply, Stack, StackOptions};
use serde_json::{json, Value};

const BUYER: &str = "ana@example.com";

/// The QR codes in a mail's inline PNG images, in attachment order.
fn qr_codes(mail: &SentMail) -> Vec<String> {
    mail.attachments
        .iter()
        .filter(|(name, disposition, _)| name.ends_with(".png") && disposition == "inline")
        .map(|(_, _, bytes)| {
            let decoder = png::Decoder::new(std::io::Cursor::new(bytes.clone()));
            let mut reader = decoder.read_info().expect("a PNG");
            let mut buf = vec![0; reader.output_buffer_size().expect("size")];
            let info = reader.next_frame(&mut buf).expect("a frame");
            let (w, h) = (info.width as usize, info.height as usize);
            let mut image =
                rqrr::PreparedImage::prepare_from_greyscale(w, h, |x, y| buf[y * w + x]);
            let grids = image.detect_grids();
            assert_eq!(grids.len(), 1, "one QR code per image");
            grids[0].decode().expect("the QR code decodes").1
        })
        .collect()
}

async fn order_detail(api: &Api, order_id: &str) -> Value {
    let reply = api
        .admin(Method::GET, &format!("/api/admin/orders/{order_id}"), None)
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    reply.body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paid_order_mails_its_tickets_once_and_the_mailed_code_admits() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = api.buy(&sid, &["A3", "A4"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap();

    let mails = stack.wait_for_mail(BUYER, 1);
    assert_eq!(mails.len(), 1, "one tickets mail:\n{}", stack.log_tail());
    let mail = &mails[0];
    // Local time in the cinema's zone (wrangler.toml: Europe/London).
    assert_eq!(
        mail.subject,
        "Your tickets: Paris, Texas, Sat 5 Dec 2099, 19:30 GMT"
    );
    assert!(mail.from.contains("Showtime Cinema"), "{}", mail.from);
    assert!(mail.text.contains("Seats: A3, A4") && mail.text.contains("$24.00"));
    assert!(mail.html.contains("cid:ticket-1") && mail.html.contains("cid:ticket-2"));
    let link = format!("{}/orders/{order_id}?key=", stack.base_url);
    assert!(mail.text.contains(&link), "{}", mail.text);
    let ics = mail
        .attachments
        .iter()
        .find(|(name, disposition, _)| name == "showing.ics" && disposition == "attachment")
        .expect("a calendar file");
    let ics = String::from_utf8_lossy(&ics.2);
    assert!(ics.contains("DTSTART:20991205T193000Z"), "{ics}");

    let codes = qr_codes(mail);
    assert_eq!(codes.len(), 2);
    let tickets = paid.body["tickets"].as_array().unwrap();
    assert_eq!(codes[0], tickets[0]["code"].as_str().unwrap());
    assert_eq!(api.door_scan(&codes[0], &sid).await["result"], "admitted");
    assert_eq!(
        api.door_scan(&codes[0], &sid).await["result"],
        "already_checked_in"
    );

    let detail = order_detail(&api, order_id).await;
    let emails = detail["emails"].as_array().unwrap();
    assert_eq!(emails.len(), 1, "{emails:?}");
    assert_eq!(
        (&emails[0]["kind"], &emails[0]["to"], &emails[0]["status"]),
        (&json!("tickets"), &json!(BUYER), &json!("sent"))
    );
    assert!(emails[0]["sent_at_ms"].as_u64().is_some());
    assert!(detail["order_url"]
        .as_str()
        .unwrap()
        .starts_with(&format!("/orders/{order_id}?key=")));

    // The cron sweep finds nothing left to send: still one message.
    stack.run_sweep().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(stack.sent_mail().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusing_transport_is_retried_and_sends_once_it_recovers_leaving_the_order_alone() {
    // The binding may only send to another address, so the platform refuses
    // the buyer's mail as a misconfigured binding would.
    let refusing = StackOptions::default()
        .var("MAIL_RETRY_BASE_MS", "1000")
        .mail_only_to(&["box-office@cinema.example"]);
    let mut stack = Stack::start_with(refusing);
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = api.buy(&sid, &["B1"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap().to_string();

    // A try counts when it is claimed, before the send; the refusal is
    // recorded after it, so wait for both.
    let refused = wait_for_email_status(&api, &order_id, |m| {
        m["tries"].as_u64() >= Some(1) && m["last_error"].is_string()
    })
    .await;
    assert_eq!(refused["status"], "queued", "{refused:?}");
    assert!(
        refused["last_error"]
            .as_str()
            .unwrap_or_default()
            .contains("not allowed"),
        "{refused:?}"
    );
    let before = order_detail(&api, &order_id).await;
    assert_eq!(before["order"]["status"], "paid");
    assert!(stack.sent_mail().is_empty(), "nothing got through");

    // The binding is fixed and redeployed; the next sweep sends the mail.
    stack.restart_with(StackOptions::default().var("MAIL_RETRY_BASE_MS", "1000"));
    let api = Api::new(&stack);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    stack.run_sweep().await;
    let mails = stack.wait_for_mail(BUYER, 1);
    assert_eq!(mails.len(), 1, "{}", stack.log_tail());
    let sent = wait_for_email_status(&api, &order_id, |m| m["status"] == "sent").await;
    assert_eq!(sent["status"], "sent");

    let after = order_detail(&api, &order_id).await;
    assert_eq!(after["order"], before["order"], "the order is untouched");
    assert_eq!(after["tickets"], before["tickets"]);
}

/// Polls the order's one message until `done` holds (20 s at most).
async fn wait_for_email_status(api: &Api, order_id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    for _ in 0..100 {
        let detail = order_detail(api, order_id).await;
        last = detail["emails"][0].clone();
        if done(&last) {
            return last;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    last
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_resend_the_tickets_as_a_new_message() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = api.buy(&sid, &["A1"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap();
    assert_eq!(stack.wait_for_mail(BUYER, 1).len(), 1);

    let resent = api
        .admin(
            Method::POST,
            &format!("/api/admin/orders/{order_id}/resend"),
            None,
        )
        .await;
    assert_eq!(resent.status, 202, "{:?}", resent.body);
    assert_eq!(resent.body["email"]["status"], "sent", "{:?}", resent.body);
    let mails = stack.wait_for_mail(BUYER, 2);
    assert_eq!(mails.len(), 2);
    assert_eq!(qr_codes(&mails[1]), qr_codes(&mails[0]));
    let emails = order_detail(&api, order_id).await["emails"].clone();
    assert_eq!(emails.as_array().unwrap().len(), 2, "{emails:?}");

    let unknown = api
        .admin(Method::POST, "/api/admin/orders/nope/resend", None)
        .await;
    assert_eq!(unknown.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lookup_answers_alike_for_every_address_and_mails_only_a_buyer() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = api.buy(&sid, &["A2"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap();
    assert_eq!(stack.wait_for_mail(BUYER, 1).len(), 1);

    let ask = |email: &str| {
        let api = api.clone();
        let body = json!({ "email": email }).to_string().into_bytes();
        async move {
            api.send(
                Method::POST,
                "/api/orders/lookup",
                Some(body),
                &[("cf-connecting-ip", "198.51.100.7")],
            )
            .await
        }
    };
    let known = ask("Ana@Example.com").await;
    let unknown = ask("nobody@example.com").await;
    assert_eq!((known.status, unknown.status), (202, 202));
    assert_eq!(known.body, unknown.body);

    let mails = stack.wait_for_mail(BUYER, 2);
    assert_eq!(mails.len(), 2, "{}", stack.log_tail());
    assert!(mails[1].subject.starts_with("Your orders at"));
    assert!(mails[1].text.contains(&format!("/orders/{order_id}?key=")));
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert!(stack
        .sent_mail()
        .iter()
        .all(|m| m.to != "nobody@example.com"));

    // A couple of mails an hour per address, whoever asks; a few requests
    // an hour per client, answered with a wait.
    let again = ask(BUYER).await;
    assert_eq!(again.status, 202);
    let third = ask(BUYER).await;
    assert_eq!(third.status, 202);
    let fifth = ask("someone@example.com").await;
    assert_eq!(fifth.status, 202);
    // The second one to the buyer goes out; the third stays unsent.
    assert_eq!(stack.wait_for_mail(BUYER, 3).len(), 3);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let lookups = stack
        .sent_mail()
        .into_iter()
        .filter(|m| m.subject.starts_with("Your orders at"))
        .count();
    assert_eq!(lookups, 2, "at most two order-link mails an hour");
    let limited = ask(BUYER).await;
    assert_eq!(limited.status, 429, "{:?}", limited.body);
    assert_eq!(limited.body["error"], "rate_limited");
    assert!(limited.retry_after.is_some());

    let bad = ask("not an address").await;
    assert_eq!(bad.status, 400);

    // Whether an address bought is looked up after the answer: with the
    // outbox out of reach, a buyer's address and a stranger's are answered
    // alike all the same (what becomes of the mail work comes after).
    let elsewhere = |email: &str| {
        let api = api.clone();
        let body = json!({ "email": email }).to_string().into_bytes();
        async move {
            let from = [("cf-connecting-ip", "203.0.113.9")];
            api.send(Method::POST, "/api/orders/lookup", Some(body), &from)
                .await
        }
    };
    stack.d1_query("ALTER TABLE mail_outbox RENAME TO mail_outbox_away");
    let known = elsewhere(BUYER).await;
    let unknown = elsewhere("nobody@example.com").await;
    stack.d1_query("ALTER TABLE mail_outbox_away RENAME TO mail_outbox");
    assert_eq!(
        (known.status, unknown.status),
        (202, 202),
        "{:?} {:?}",
        known.body,
        unknown.body
    );
    assert_eq!(known.body, unknown.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn order_links_survive_a_new_session_secret() {
    let mut stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = api.buy(&sid, &["B4"]).await;
    let order_url = paid.body["order_url"].as_str().unwrap().to_string();
    assert!(order_url.contains("?key=o1."), "{order_url}");
    let mailed = stack.wait_for_mail(BUYER, 1);
    assert_eq!(mailed.len(), 1);
    // A live hold whose buyer cookie the session secret signs.
    let hold = api.hold(&sid, &["B5"], None).await;
    let hold_path = format!(
        "/api/showings/{sid}/holds/{}",
        hold.body["hold_id"].as_str().unwrap()
    );
    let cookie = hold.cookie.clone().unwrap();
    let get_hold = |api: Api| {
        let (path, cookie) = (hold_path.clone(), cookie.clone());
        async move {
            api.send(Method::GET, &path, None, &[("cookie", &cookie)])
                .await
                .status
        }
    };
    assert_eq!(get_hold(api.clone()).await, 200);

    stack.restart_with(
        StackOptions::default().var("SESSION_SECRET", "a-brand-new-session-secret-of-40-bytes!!"),
    );
    let api = Api::new(&stack);
    // The new secret is in force: the old buyer cookie names nobody now.
    assert_ne!(get_hold(api.clone()).await, 200);
    let order = api.get(&order_url).await;
    assert_eq!(order.status, 200, "{:?}", order.body);
    assert_eq!(order.body["order"]["status"], "paid");
    let ticket_page = order.body["tickets"][0]["page_url"].as_str().unwrap();
    let page = reqwest::get(stack.url(ticket_page)).await.unwrap();
    assert_eq!(page.status(), 200);
    // The link in the mail (made before the change) opens the order too.
    let path = mailed[0]
        .text
        .split_whitespace()
        .find(|w| w.contains("/orders/"))
        .and_then(|w| w.split_once("/orders/"))
        .map(|(_, rest)| format!("/api/orders/{rest}"))
        .expect("an order link in the mail");
    assert_eq!(api.get(&path).await.status, 200, "{path}");
    // A forged key still opens nothing.
    let forged = order_url.replace("?key=o1.", "?key=o1.A");
    assert_eq!(api.get(&forged).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn staff_get_one_digest_an_hour_of_what_has_waited_on_the_attention_list() {
    const STAFF: &str = "box-office@cinema.example";
    const AFTER_MS: u64 = 8_000;
    let stack = Stack::start_with(
        StackOptions::default()
            .var("STAFF_EMAIL", STAFF)
            .var("DIGEST_AFTER_MS", &AFTER_MS.to_string()),
    );
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let paid = api.buy(&sid, &["A7", "A8"]).await;
    let order_id = paid.body["order_id"].as_str().unwrap().to_string();
    let payment_id = stack.payment_of(&order_id);
    // A partial refund from the Dashboard: staff must choose its tickets.
    stack
        .square
        .control(
            "/_control/dashboard/refund",
            json!({"payment_id": payment_id, "amount": 500}),
        )
        .await;
    let waiting_for = || async {
        let list = api
            .admin(Method::GET, "/api/admin/attention", None)
            .await
            .body;
        let item = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["order_id"] == order_id.as_str())
            .cloned();
        item.map(|i| list["now_ms"].as_u64().unwrap() - i["since_ms"].as_u64().unwrap())
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut age = waiting_for().await;
    while age.is_none() && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(300)).await;
        age = waiting_for().await;
    }
    let age = age.expect("the order waits on the attention list");

    // Younger than DIGEST_AFTER_MS: the sweep mails nobody.
    if age + 3_000 < AFTER_MS {
        stack.run_sweep().await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        let staff_mail = stack.sent_to(STAFF);
        assert_eq!(staff_mail, 0, "nothing has waited long enough yet");
    }

    tokio::time::sleep(Duration::from_millis(AFTER_MS)).await;
    let hour = |ms: u128| ms / 3_600_000;
    let first_at = std::time::SystemTime::UNIX_EPOCH
        .elapsed()
        .unwrap()
        .as_millis();
    stack.run_sweep().await;
    let digests = stack.wait_for_mail(STAFF, 1);
    assert_eq!(digests.len(), 1, "{}", stack.log_tail());
    let digest = &digests[0];
    // The order is listed as needing attention and as a refund whose
    // tickets staff must choose.
    assert_eq!(digest.subject, "Showtime Cinema: 2 items waiting for staff");
    assert!(
        digest.text.contains("Dashboard refund: choose its tickets"),
        "{}",
        digest.text
    );
    assert!(
        digest.text.contains(&format!("order {order_id} (waiting ")),
        "{}",
        digest.text
    );
    assert!(
        digest
            .text
            .contains(&format!("/admin/showings/{sid}?order={order_id}")),
        "{}",
        digest.text
    );
    assert!(digest.html.contains("<li>"), "{}", digest.html);

    // The next sweep in the same hour sends no second digest.
    stack.run_sweep().await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let again = std::time::SystemTime::UNIX_EPOCH
        .elapsed()
        .unwrap()
        .as_millis();
    if hour(first_at) == hour(again) {
        let staff_mail = stack.sent_to(STAFF);
        assert_eq!(staff_mail, 1, "one digest an hour");
    }
}

/// The order's messages as the outbox holds them: kind and status.
fn outbox_of(stack: &Stack, order_id: &str) -> Vec<Value> {
    stack.d1_query(&format!(
        "SELECT kind, status FROM mail_outbox WHERE order_id = '{order_id}' ORDER BY id"
    ))
}

/// Waits until every webhook the stand-in sent was delivered (each copy)
/// and the Worker handled every event it stored.
async fn webhooks_settled(stack: &Stack) {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let report = stack.square.get("/_control/webhooks").await;
        let attempts = report["deliveries"].as_array().unwrap();
        let copy = |d: &Value| (d["event_id"].to_string(), d["copy"].to_string());
        let sent: std::collections::BTreeSet<_> = attempts.iter().map(copy).collect();
        let arrived: std::collections::BTreeSet<_> = attempts
            .iter()
            .filter(|d| d["delivered"] == true)
            .map(copy)
            .collect();
        let delivered = report["held"].as_array().is_some_and(Vec::is_empty) && sent == arrived;
        let unhandled =
            stack.d1_query("SELECT COUNT(*) AS n FROM webhook_events WHERE handled_at_ms IS NULL");
        if delivered && unhandled[0]["n"] == 0 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "webhooks not settled: {report}\n{}",
            stack.log_tail()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Checkouts whose first CreatePayment loses its answer (the stand-in
/// makes the payment, then drops the connection): the buyer is answered
/// `202 pending`, and the order moves on only when Square's webhooks are
/// released, not by its own retry (a minute away, past any test's end).
fn told_to_wait() -> StackOptions {
    StackOptions::default().var("CHECKOUT_RETRY_BASE_MS", "60000")
}

/// Holds Square's webhooks back (each to come twice when `duplicate`)
/// and loses the next authorization's answer, so that the next checkout's
/// buyer is told to wait and the order learns its fate from the webhooks.
async fn the_next_buyer_will_be_told_to_wait(stack: &Stack, duplicate: bool) {
    stack.square.hold_webhooks(duplicate).await;
    stack.square.lose_the_next_authorizations_answer().await;
}

/// The order of a checkout whose buyer was told to wait (`202 pending`).
fn pending_order(pending: &Reply) -> String {
    assert_eq!(pending.status, 202, "{:?}", pending.body);
    pending.body["order_id"].as_str().unwrap().to_string()
}

/// Releases the held webhooks in `order` (`as_is`, `reverse`) and waits
/// for the one message they bring `to`, headed `{headline}: ` and the
/// showing.
async fn the_mail_the_webhooks_bring(
    stack: &Stack,
    order: &str,
    to: &str,
    headline: &str,
) -> SentMail {
    stack.square.release_webhooks(order).await;
    let mut mails = stack.wait_for_mail(to, 1);
    assert_eq!(mails.len(), 1, "{}", stack.log_tail());
    let mail = mails.remove(0);
    assert_eq!(
        mail.subject,
        format!("{headline}: Paris, Texas, Sat 5 Dec 2099, 19:30 GMT")
    );
    mail
}

/// The order's one message is of `kind` and sent, nothing is left to
/// send, and `to` got one message.
fn mailed_once(stack: &Stack, order_id: &str, kind: &str, to: &str) {
    assert_eq!(
        outbox_of(stack, order_id),
        [json!({"kind": kind, "status": "sent"})],
        "one message, sent; nothing left to send"
    );
    assert_eq!(stack.sent_to(to), 1);
}

/// `text` says every one of `phrases`.
fn says(text: &str, phrases: &[&str]) {
    for phrase in phrases {
        assert!(text.contains(phrase), "no {phrase:?} in:\n{text}");
    }
}

/// The order's authorization at Square.
async fn authorization_of(stack: &Stack, order_id: &str) -> Value {
    let payments = stack.square.get("/_control/payments").await;
    payments["payments"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["reference_id"] == order_id)
        .expect("the authorization at Square")
        .clone()
}

/// A card declined after its buyer was told to wait is mailed to them
/// once, however often Square's webhook comes and the sweep runs; a
/// decline answered at once is on the buyer's page and mails nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_declined_after_the_buyer_was_told_to_wait_is_mailed_once() {
    let stack = Stack::start_with(told_to_wait());
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;

    // Declined at once: the page says so, and nothing is queued.
    let hold = api.hold(&sid, &["A1"], None).await;
    let at_once = api.checkout(&sid, &hold, "cnon:card-nonce-declined").await;
    assert_eq!(at_once.status, 402, "{:?}", at_once.body);
    let seen = at_once.body["order_id"].as_str().unwrap();
    assert_eq!(outbox_of(&stack, seen), Vec::<Value>::new());
    let row = stack.d1_query(&format!(
        "SELECT status, answered_pending_at_ms FROM orders WHERE id = '{seen}'"
    ));
    assert_eq!(
        row,
        [json!({"status": "declined", "answered_pending_at_ms": null})]
    );

    // Declined after the buyer was told to wait: Square's webhook (sent
    // twice) tells it.
    the_next_buyer_will_be_told_to_wait(&stack, true).await;
    let hold = api.hold(&sid, &["A5"], None).await;
    let pending = api.checkout(&sid, &hold, "cnon:card-nonce-declined").await;
    let order_id = pending_order(&pending);
    let mail = the_mail_the_webhooks_bring(&stack, "as_is", BUYER, "Payment declined").await;
    says(
        &mail.text,
        &[
            "Your bank declined your payment of $12.00",
            "Nothing was charged, and no tickets were issued.",
        ],
    );
    assert!(
        mail.text.contains(&format!(
            "choose your seats here: {}/showings/{sid}",
            stack.base_url
        )),
        "{}",
        mail.text
    );
    assert!(
        mail.text.contains(&format!(
            "Order {order_id}: {}/orders/{order_id}?key=",
            stack.base_url
        )),
        "{}",
        mail.text
    );
    assert!(mail.text.contains("Reply to this message"), "{}", mail.text);

    // Again: every copy of the webhook handled, the sweep run, the same
    // checkout sent again (now answered with the decline).
    webhooks_settled(&stack).await;
    stack.run_sweep().await;
    let again = api.checkout(&sid, &hold, "cnon:card-nonce-declined").await;
    assert_eq!(
        (again.status, &again.body["order_id"]),
        (402, &json!(order_id)),
        "{:?}",
        again.body
    );
    stack.run_sweep().await;
    mailed_once(&stack, &order_id, "declined", BUYER);
    let emails = order_detail(&api, &order_id).await["emails"].clone();
    assert_eq!(emails[0]["kind"], "declined", "{emails}");
}

/// A showing whose holds lapse after one second even while paying.
fn short_holds() -> Value {
    let mut showing = sixteen_seat_room(Some(1_000));
    showing["payment_cap_ms"] = json!(1_000);
    showing
}

/// The buyer was told to wait; meanwhile their hold ran out and another
/// buyer bought one of its seats. When Square's webhook says the card was
/// authorized, the authorization is cancelled and the buyer is told that
/// nothing was charged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_lost_after_payment_began_is_mailed_with_nothing_charged() {
    const LEFT: &str = "lee@example.com";
    let stack = Stack::start_with(told_to_wait());
    let api = Api::new(&stack);
    let sid = api.create_showing(short_holds()).await;
    the_next_buyer_will_be_told_to_wait(&stack, false).await;
    let hold = api.hold(&sid, &["A1", "A2"], None).await;
    let pending = api
        .checkout_as(&sid, &hold, "cnon:card-nonce-ok", LEFT, "Lee Park")
        .await;
    let order_id = pending_order(&pending);

    // The hold and its payment's grace run out; another buyer takes A2.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while api.seat_map(&sid).await["A2"] != "available" {
        assert!(
            std::time::Instant::now() < deadline,
            "the hold never lapsed"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let rival = api.hold(&sid, &["A2"], None).await;
    assert_eq!(rival.status, 201, "{:?}", rival.body);
    let bought = api.checkout(&sid, &rival, "cnon:card-nonce-ok").await;
    assert_eq!(bought.status, 201, "{:?}", bought.body);

    let mail =
        the_mail_the_webhooks_bring(&stack, "as_is", LEFT, "Seats no longer available").await;
    says(
        &mail.text,
        &[
            "your hold on seat A2 ran out and another buyer booked it",
            "We cancelled your payment.",
            "Nothing was charged",
        ],
    );
    let order = stack.d1_query(&format!(
        "SELECT status FROM orders WHERE id = '{order_id}'"
    ));
    assert_eq!(order, [json!({"status": "seat_lost"})]);
    let ours = authorization_of(&stack, &order_id).await;
    assert_eq!(ours["status"], "CANCELED", "nothing was charged");
    webhooks_settled(&stack).await;
    stack.run_sweep().await;
    mailed_once(&stack, &order_id, "seat_lost", LEFT);
}

/// The authorization of a buyer told to wait lapses at Square before it
/// is captured: the order fails with nothing charged, and the buyer is
/// mailed once though Square's webhooks come twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_authorization_is_mailed_once() {
    let stack = Stack::start_with(told_to_wait());
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    the_next_buyer_will_be_told_to_wait(&stack, true).await;
    let hold = api.hold(&sid, &["B3"], None).await;
    let pending = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    let order_id = pending_order(&pending);
    let payment = authorization_of(&stack, &order_id).await["id"]
        .as_str()
        .expect("the authorization's id")
        .to_string();
    stack
        .square
        .control(&format!("/_control/payments/{payment}/lapse"), json!({}))
        .await;
    // The cancellation's webhook first, then the authorization's (each
    // twice): the order learns it was cancelled before it was taken.
    let mail = the_mail_the_webhooks_bring(&stack, "reverse", BUYER, "Payment cancelled").await;
    says(
        &mail.text,
        &[
            "The $12.00 reserved on your card for Paris, Texas",
            "released before the payment was taken",
            "Nothing was charged",
        ],
    );
    webhooks_settled(&stack).await;
    stack.run_sweep().await;
    let order = stack.d1_query(&format!(
        "SELECT status, status_detail FROM orders WHERE id = '{order_id}'"
    ));
    assert_eq!(order[0]["status"], "failed", "{order:?}");
    assert!(
        order[0]["status_detail"]
            .as_str()
            .unwrap_or_default()
            .contains("AUTHORIZATION_VOIDED"),
        "{order:?}"
    );
    mailed_once(&stack, &order_id, "payment_cancelled", BUYER);
}
