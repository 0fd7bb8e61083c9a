//! Turnstile in front of holds and order lookups, verified against a
//! stand-in of its siteverify that mirrors Cloudflare's test keys.

use e2e::{sixteen_seat_room, Api, Method, Stack, StackOptions};
use serde_json::json;

const PASSING_SITE_KEY: &str = "1x00000000000000000000AA";
const ALWAYS_PASSES: &str = "1x0000000000000000000000000000000AA";
const ALWAYS_FAILS: &str = "2x0000000000000000000000000000000AA";
/// The token Turnstile's test sitekeys give the page.
const DUMMY_TOKEN: &str = "XXXX.DUMMY.TOKEN.XXXX";

fn turnstile_on(secret: &str) -> StackOptions {
    StackOptions::default()
        .var("TURNSTILE_SITE_KEY", PASSING_SITE_KEY)
        .var("TURNSTILE_SECRET_KEY", secret)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_turnstile_on_a_hold_or_lookup_needs_a_token_siteverify_accepts() {
    let mut stack = Stack::start_with(turnstile_on(ALWAYS_PASSES));
    let api = Api::new(&stack);
    let config = api.get("/api/config").await;
    assert_eq!(config.body["turnstile_site_key"], PASSING_SITE_KEY);
    let sid = api.create_showing(sixteen_seat_room(None)).await;
    let path = format!("/api/showings/{sid}/holds");
    let body = || Some(json!({ "seats": ["A1"] }).to_string().into_bytes());
    let before = api.seat_map(&sid).await;

    let bare = api.send(Method::POST, &path, body(), &[]).await;
    assert_eq!(
        (bare.status, &bare.body["error"]),
        (403, &json!("turnstile_required"))
    );
    let forged = api
        .send(
            Method::POST,
            &path,
            body(),
            &[("x-turnstile-token", "forged")],
        )
        .await;
    assert_eq!(
        (forged.status, &forged.body["error"]),
        (403, &json!("turnstile_failed"))
    );
    assert_eq!(api.seat_map(&sid).await, before, "nothing was held");

    let cookie = api
        .get(&format!("/api/showings/{sid}"))
        .await
        .cookie
        .unwrap();
    let headers = [
        ("x-turnstile-token", DUMMY_TOKEN),
        ("idempotency-key", "turnstile-retry-1"),
        ("cookie", cookie.as_str()),
    ];
    let held = api.send(Method::POST, &path, body(), &headers).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    // The retry of an idempotent hold sends its token again, with the same
    // siteverify idempotency key (which the stand-in checks is a UUID).
    let again = api.send(Method::POST, &path, body(), &headers).await;
    assert_eq!((again.status, &again.body), (201, &held.body));

    let lookup = |token: Option<&'static str>| {
        let api = api.clone();
        async move {
            let body = json!({ "email": "ana@example.com" })
                .to_string()
                .into_bytes();
            let headers: Vec<(&str, &str)> = token
                .map(|t| vec![("x-turnstile-token", t)])
                .unwrap_or_default();
            api.send(Method::POST, "/api/orders/lookup", Some(body), &headers)
                .await
        }
    };
    assert_eq!(lookup(None).await.status, 403);
    assert_eq!(lookup(Some(DUMMY_TOKEN)).await.status, 202);

    // A secret that always fails: the page's token is refused. Then
    // siteverify out of reach: closed, not open.
    let unreachable = "http://127.0.0.1:9/siteverify";
    for (options, status, error) in [
        (turnstile_on(ALWAYS_FAILS), 403, "turnstile_failed"),
        (
            turnstile_on(ALWAYS_PASSES).var("TURNSTILE_VERIFY_URL", unreachable),
            503,
            "turnstile_unavailable",
        ),
    ] {
        stack.restart_with(options);
        let api = Api::new(&stack);
        let path = format!("/api/showings/{sid}/holds");
        let token = [("x-turnstile-token", DUMMY_TOKEN)];
        let refused = api.send(Method::POST, &path, body(), &token).await;
        assert_eq!(
            (refused.status, &refused.body["error"]),
            (status, &json!(error))
        );
        assert_eq!(api.seat_map(&sid).await["A2"], "available");
    }

    stack.restart_with(turnstile_on(STANDIN_SECRET));
    a_token_counts_only_for_this_site_and_its_action(&stack).await;
}

/// The stand-in's one real-like widget secret: its tokens say where they
/// were solved.
const STANDIN_SECRET: &str = "0x4AAAAAAAStandinSecretKeyForTests00";

/// The token a page on `hostname` gets from a widget rendered for `action`.
async fn token(stack: &Stack, hostname: &str, action: &str) -> String {
    let issued = stack
        .square
        .control(
            "/turnstile/v0/_standin/token",
            json!({ "hostname": hostname, "action": action }),
        )
        .await;
    issued["token"].as_str().expect("a token").to_string()
}

/// A token solved on another site, or on the lookup page, buys nothing;
/// one solved on this site's seat map holds seats, and a free checkout
/// needs one too.
async fn a_token_counts_only_for_this_site_and_its_action(stack: &Stack) {
    let api = Api::new(stack);
    let mut free = sixteen_seat_room(None);
    free["price"]["amount"] = json!(0);
    let sid = api.create_showing(free).await;
    // The tests ask the Worker at 127.0.0.1, as the page's browser would.
    let host = "127.0.0.1";
    let path = format!("/api/showings/{sid}/holds");
    let cookie = api
        .get(&format!("/api/showings/{sid}"))
        .await
        .cookie
        .unwrap();
    let hold = |token: String| {
        let (api, path, cookie) = (api.clone(), path.clone(), cookie.clone());
        async move {
            let body = json!({ "seats": ["B1"] }).to_string().into_bytes();
            let headers = [
                ("x-turnstile-token", token.as_str()),
                ("cookie", cookie.as_str()),
            ];
            api.send(Method::POST, &path, Some(body), &headers).await
        }
    };
    for (hostname, action) in [("tickets.elsewhere.example", "buy"), (host, "lookup")] {
        let refused = hold(token(stack, hostname, action).await).await;
        assert_eq!(
            (refused.status, &refused.body["error"]),
            (403, &json!("turnstile_failed")),
            "solved on {hostname} for {action}"
        );
    }
    let spent = token(stack, host, "buy").await;
    let held = hold(spent.clone()).await;
    assert_eq!(held.status, 201, "{:?}", held.body);
    let hold_id = held.body["hold_id"].as_str().unwrap().to_string();

    let checkout = |token: Option<String>| {
        let (api, cookie) = (api.clone(), cookie.clone());
        let path = format!("/api/showings/{sid}/holds/{hold_id}/checkout");
        async move {
            let body = json!({ "email": "ana@example.com", "name": "Ana" });
            let mut headers = vec![("cookie", cookie.clone())];
            if let Some(token) = token {
                headers.push(("x-turnstile-token", token));
            }
            let headers: Vec<(&str, &str)> =
                headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            api.send(
                Method::POST,
                &path,
                Some(body.to_string().into_bytes()),
                &headers,
            )
            .await
        }
    };
    let bare = checkout(None).await;
    assert_eq!(
        (bare.status, &bare.body["error"]),
        (403, &json!("turnstile_required"))
    );
    let reused = checkout(Some(spent)).await;
    assert_eq!(
        (reused.status, &reused.body["error"]),
        (403, &json!("turnstile_failed")),
        "a token is spent once"
    );
    let issued = checkout(Some(token(stack, host, "buy").await)).await;
    assert_eq!(issued.status, 201, "{:?}", issued.body);
    // Sent again with no token (its answer was lost, and the page's token
    // went with the first try): the order it began, not a refusal.
    let again = checkout(None).await;
    assert!(matches!(again.status, 200 | 201), "{:?}", again.body);
    assert_eq!(again.body["order_id"], issued.body["order_id"]);

    let lookup = |token: String| {
        let api = api.clone();
        async move {
            let body = json!({ "email": "ana@example.com" })
                .to_string()
                .into_bytes();
            let headers = [("x-turnstile-token", token.as_str())];
            api.send(Method::POST, "/api/orders/lookup", Some(body), &headers)
                .await
        }
    };
    let wrong = lookup(token(stack, host, "buy").await).await;
    assert_eq!(wrong.status, 403, "{:?}", wrong.body);
    let right = lookup(token(stack, host, "lookup").await).await;
    assert_eq!(right.status, 202, "{:?}", right.body);
}
