//! Unfit secrets are named by `/api/health` (never their values) and stop
//! the Worker deciding anything, before any money moves; staff sessions end
//! on sign-out everywhere.

use e2e::{sixteen_seat_room, Api, Method, Stack, StackOptions};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_session_secret_is_named_by_health_and_checkout_refuses_before_square() {
    let mut stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let hold = api.hold(&sid, &["A1"], None).await;
    assert_eq!(hold.status, 201);

    // Redeployed with a short session secret and a ticket key too short.
    stack.restart_with(
        StackOptions::default()
            .var("SESSION_SECRET", "only-twenty-bytes-!")
            .var("TICKET_SIGNING_KEYS", "t1:short-ticket-key"),
    );
    let api = Api::new(&stack);
    let health = api.get("/api/health").await;
    assert_eq!(health.status, 503);
    assert_eq!(health.body["ok"], false);
    let named: Vec<&str> = health.body["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(named, ["SESSION_SECRET", "TICKET_SIGNING_KEYS"]);
    let text = health.body.to_string();
    assert!(
        !text.contains("only-twenty") && !text.contains("short-ticket"),
        "{text}"
    );

    let before = stack.square.calls().await.len();
    let paid = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(
        (paid.status, &paid.body["error"]),
        (503, &json!("not_configured")),
        "{:?}",
        paid.body
    );
    let another = api.hold(&sid, &["A2"], None).await;
    assert_eq!(another.status, 503);
    assert_eq!(
        stack.square.calls().await.len(),
        before,
        "Square was not asked"
    );

    // Fixed and redeployed: the hold is still there and pays.
    stack.restart_with(StackOptions::default());
    let api = Api::new(&stack);
    assert_eq!(api.get("/api/health").await.status, 200);
    let paid = api.checkout(&sid, &hold, "cnon:card-nonce-ok").await;
    assert_eq!(paid.status, 201, "{:?}", paid.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn signing_out_ends_this_session_signing_out_everywhere_ends_all_and_so_does_a_new_admin_token(
) {
    let mut stack = Stack::start();
    let api = Api::new(&stack);
    let sign_in = |api: Api, token: String| async move {
        let body = json!({ "token": token }).to_string().into_bytes();
        let reply = api
            .send(Method::POST, "/api/admin/session", Some(body), &[])
            .await;
        assert_eq!(reply.status, 200, "{:?}", reply.body);
        let cookie = reply.cookie.unwrap();
        let csrf = reply.body["csrf"].as_str().unwrap().to_string();
        (cookie, csrf)
    };
    let token = stack.admin_token.clone();
    let (desk, _) = sign_in(api.clone(), token.clone()).await;
    let (office, office_csrf) = sign_in(api.clone(), token.clone()).await;
    let read = |cookie: String| {
        let api = api.clone();
        async move {
            api.send(
                Method::GET,
                "/api/admin/showings",
                None,
                &[("cookie", &cookie)],
            )
            .await
            .status
        }
    };
    assert_eq!(read(desk.clone()).await, 200);
    assert_eq!(read(office.clone()).await, 200);

    // A DELETE with the session's cookie and, when given, its CSRF token.
    let delete = |path: &'static str, cookie: String, csrf: Option<String>| {
        let api = api.clone();
        async move {
            let mut headers = vec![("cookie", cookie.as_str())];
            if let Some(csrf) = &csrf {
                headers.push(("x-csrf-token", csrf.as_str()));
            }
            api.send(Method::DELETE, path, None, &headers).await
        }
    };

    // "Sign out" ends this browser's session only, even if its cookie
    // was copied; the other browser stays signed in.
    let this_one = "/api/admin/session";
    let out = delete(this_one, office.clone(), Some(office_csrf.clone())).await;
    assert_eq!(out.status, 204);
    assert!(out.set_cookie.unwrap().contains("Max-Age=0"));
    assert_eq!(read(office.clone()).await, 401);
    assert_eq!(read(desk.clone()).await, 200, "the other browser stays in");
    let again = delete(this_one, office, Some(office_csrf)).await;
    assert_eq!(again.status, 401, "an ended session cannot act");

    // "Sign out on every device" ends them all, and needs the CSRF token.
    let every = "/api/admin/sessions";
    let (lost, lost_csrf) = sign_in(api.clone(), token.clone()).await;
    assert_eq!(delete(every, lost.clone(), None).await.status, 403);
    assert_eq!(read(desk.clone()).await, 200);
    assert_eq!(
        delete(every, lost.clone(), Some(lost_csrf)).await.status,
        204
    );
    assert_eq!(read(lost).await, 401);
    assert_eq!(read(desk.clone()).await, 401, "the other browser too");

    // A new session works until the admin token is changed.
    let (fresh, _) = sign_in(api.clone(), token).await;
    assert_eq!(read(fresh.clone()).await, 200);
    let new_token = format!("{}-rotated", stack.admin_token);
    stack.restart_with(StackOptions::default().var("ADMIN_TOKEN", &new_token));
    let api = Api::new(&stack);
    let status = api
        .send(
            Method::GET,
            "/api/admin/showings",
            None,
            &[("cookie", &fresh)],
        )
        .await
        .status;
    assert_eq!(status, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_tokens_are_throttled_per_network_even_the_right_one_after() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let right = format!("Bearer {}", stack.admin_token);
    let read = |ip: &'static str, token: String| {
        let api = api.clone();
        async move {
            let headers = [("cf-connecting-ip", ip), ("authorization", token.as_str())];
            api.send(Method::GET, "/api/admin/showings", None, &headers)
                .await
        }
    };
    // Ten wrong admin tokens from one IPv6 /64, from several addresses of it.
    for n in 0..10 {
        let ip = ["2001:db8:9:9::1", "2001:db8:9:9::2"][n % 2];
        let wrong = read(ip, format!("Bearer guess-{n:02}-of-a-32-byte-admin-token")).await;
        assert_eq!(wrong.status, 401, "{:?}", wrong.body);
    }
    let throttled = read("2001:db8:9:9::3", right.clone()).await;
    assert_eq!(
        (throttled.status, &throttled.body["error"]),
        (429, &json!("too_many_attempts"))
    );
    assert_eq!(throttled.header("retry-after"), Some("900"));
    // The sign-in and the door token count against the same network.
    let sign_in = json!({ "token": stack.admin_token })
        .to_string()
        .into_bytes();
    let signed = api
        .send(
            Method::POST,
            "/api/admin/session",
            Some(sign_in),
            &[("cf-connecting-ip", "2001:db8:9:9::4")],
        )
        .await;
    assert_eq!(signed.status, 429);

    // Another network is not held back, and its right token works.
    assert_eq!(read("203.0.113.20", right).await.status, 200);
}
