//! Turnstile's siteverify stand-in: Cloudflare's documented test secrets,
//! and refusals at least as strict as the real service's.

use serde_json::{json, Value};

use crate::harness::standin;

const DUMMY: &str = "XXXX.DUMMY.TOKEN.XXXX";
const PASSES: &str = "1x0000000000000000000000000000000AA";

fn codes(body: &Value) -> Vec<&str> {
    body["error-codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn the_test_secrets_pass_fail_and_spend_as_documented() {
    let standin = standin().await;
    let verify = |secret: &'static str, token: &'static str| {
        let standin = &standin;
        async move {
            standin
                .post(
                    "/turnstile/v0/siteverify",
                    json!({ "secret": secret, "response": token }),
                )
                .await
        }
    };
    let (status, passed) = verify(PASSES, DUMMY).await;
    assert_eq!(status, 200);
    assert_eq!(passed["success"], true);
    assert!(passed["challenge_ts"].is_string());
    for (secret, token, code) in [
        (
            "2x0000000000000000000000000000000AA",
            DUMMY,
            "invalid-input-response",
        ),
        (
            "3x0000000000000000000000000000000AA",
            DUMMY,
            "timeout-or-duplicate",
        ),
        ("a-real-looking-secret", DUMMY, "invalid-input-secret"),
        (PASSES, "a-real-looking-token", "invalid-input-response"),
        (PASSES, "", "missing-input-response"),
        ("", DUMMY, "missing-input-secret"),
    ] {
        let (status, body) = verify(secret, token).await;
        assert_eq!(status, 200);
        assert_eq!(body["success"], false, "{secret} {token}");
        assert_eq!(codes(&body), [code], "{secret} {token}");
    }
}

#[tokio::test]
async fn a_form_body_is_read_and_an_idempotency_key_must_be_a_uuid() {
    let standin = standin().await;
    let form = |extra: &str| format!("secret={PASSES}&response={DUMMY}{extra}");
    let send = |body: String| {
        let standin = &standin;
        async move {
            let response = standin
                .client
                .post(standin.url("/turnstile/v0/siteverify"))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body)
                .send()
                .await
                .unwrap();
            response.json::<Value>().await.unwrap()
        }
    };
    assert_eq!(send(form("")).await["success"], true);
    let uuid = "&idempotency_key=4f1c2c7e-6a7b-4c1d-9e2f-0a1b2c3d4e5f";
    assert_eq!(send(form(uuid)).await["success"], true);
    let bad = send(form("&idempotency_key=retry-1")).await;
    assert_eq!(codes(&bad), ["bad-request"]);
    let long = format!("secret={PASSES}&response={}", "X".repeat(2049));
    assert_eq!(codes(&send(long).await), ["invalid-input-response"]);
}

#[tokio::test]
async fn the_widget_script_is_served_as_javascript() {
    let standin = standin().await;
    let response = standin
        .client
        .get(standin.url("/turnstile/v0/api.js"))
        .send()
        .await
        .unwrap();
    assert!(response.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/javascript"));
    let script = response.text().await.unwrap();
    for needle in ["window.turnstile", "render", "getResponse", "reset", DUMMY] {
        assert!(script.contains(needle), "api.js lacks {needle}");
    }
}

/// The stand-in widget's tokens carry where they were solved, and are
/// verified once, or again only under the idempotency key first sent.
#[tokio::test]
async fn a_widget_token_tells_its_hostname_and_action_and_is_spent_once() {
    let standin = standin().await;
    let secret = "0x4AAAAAAAStandinSecretKeyForTests00";
    let (status, issued) = standin
        .post(
            "/turnstile/v0/_standin/token",
            json!({ "hostname": "tickets.example", "action": "buy" }),
        )
        .await;
    assert_eq!(status, 200);
    let token = issued["token"].as_str().unwrap().to_string();
    let key = "4f1c2c7e-6a7b-4c1d-9e2f-0a1b2c3d4e5f";
    let verify = |key: Option<&str>| {
        let mut body = json!({ "secret": secret, "response": token });
        if let Some(key) = key {
            body["idempotency_key"] = json!(key);
        }
        let standin = &standin;
        async move { standin.post("/turnstile/v0/siteverify", body).await.1 }
    };
    let first = verify(Some(key)).await;
    assert_eq!(
        (&first["success"], &first["hostname"], &first["action"]),
        (&json!(true), &json!("tickets.example"), &json!("buy"))
    );
    assert_eq!(
        verify(Some(key)).await["success"],
        true,
        "the same key again"
    );
    assert_eq!(codes(&verify(None).await), ["timeout-or-duplicate"]);
    let other = "0b7a6c1e-1c2d-4e3f-8a9b-0c1d2e3f4a5b";
    assert_eq!(codes(&verify(Some(other)).await), ["timeout-or-duplicate"]);
    let (_, unknown) = standin
        .post(
            "/turnstile/v0/siteverify",
            json!({ "secret": secret, "response": "standin.forged" }),
        )
        .await;
    assert_eq!(codes(&unknown), ["invalid-input-response"]);
    // The test secrets still take only the dummy token.
    let (_, dummy_secret) = standin
        .post(
            "/turnstile/v0/siteverify",
            json!({ "secret": PASSES, "response": token }),
        )
        .await;
    assert_eq!(codes(&dummy_secret), ["invalid-input-response"]);
}
