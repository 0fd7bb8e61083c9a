//! Square's webhooks at the Worker: only correctly signed deliveries are
//! taken, and each event only once.

use e2e::square::{NOTIFICATION_URL, SIGNATURE_KEY};
use e2e::{Api, Method, Stack};
use serde_json::json;

fn event(event_id: &str) -> Vec<u8> {
    json!({
        "merchant_id": "MSTANDIN0001",
        "type": "payment.updated",
        "event_id": event_id,
        "created_at": "2026-11-29T19:02:11Z",
        "data": {"type": "payment", "id": "p-unknown", "object": {"payment": {
            "id": "p-unknown", "status": "COMPLETED", "reference_id": "not-one-of-ours"
        }}}
    })
    .to_string()
    .into_bytes()
}

async fn deliver(api: &Api, body: &[u8], signature: Option<&str>) -> e2e::Reply {
    let headers: Vec<(&str, &str)> = signature
        .map(|s| vec![("x-square-hmacsha256-signature", s)])
        .unwrap_or_default();
    api.send(
        Method::POST,
        "/webhooks/square",
        Some(body.to_vec()),
        &headers,
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_missing_or_altered_signatures_are_refused_and_change_nothing() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let body = event("evt-forged");
    let good = square_standin::signature::sign(SIGNATURE_KEY, NOTIFICATION_URL, &body);
    let forged = square_standin::signature::sign("not-the-key", NOTIFICATION_URL, &body);
    let wrong_url =
        square_standin::signature::sign(SIGNATURE_KEY, "https://elsewhere.test/hook", &body);
    let mut altered = body.clone();
    altered.extend_from_slice(b" ");

    for (name, body, signature) in [
        ("forged", &body, Some(forged.as_str())),
        ("missing", &body, None),
        ("other url", &body, Some(wrong_url.as_str())),
        ("altered body", &altered, Some(good.as_str())),
    ] {
        let reply = deliver(&api, body, signature).await;
        assert_eq!(reply.status, 401, "{name}: {:?}", reply.body);
        assert_eq!(reply.body["error"], "bad_signature", "{name}");
    }
    let recorded = stack.d1_query("SELECT COUNT(*) AS n FROM webhook_events");
    assert_eq!(recorded[0]["n"], 0, "no refused delivery was recorded");

    let first = deliver(&api, &body, Some(&good)).await;
    assert_eq!(first.status, 200, "{:?}", first.body);
    assert_eq!(first.body["duplicate"], serde_json::Value::Null);
    let again = deliver(&api, &body, Some(&good)).await;
    assert_eq!(
        (again.status, &again.body["duplicate"]),
        (200, &json!(true))
    );
    let recorded = stack.d1_query("SELECT event_id FROM webhook_events");
    assert_eq!(recorded, [json!({"event_id": "evt-forged"})]);
}
