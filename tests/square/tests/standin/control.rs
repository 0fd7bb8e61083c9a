//! The request log, listing and reset.

use serde_json::json;

use crate::harness::standin;

#[tokio::test]
async fn the_request_log_shows_each_call_with_its_key_and_answer() {
    let standin = standin().await;
    let (_, body) = standin
        .pay("auth-key", "cnon:card-nonce-ok", 1000, false)
        .await;
    let id = body["payment"]["id"].as_str().unwrap();
    standin
        .post(&format!("/v2/payments/{id}/complete"), json!({}))
        .await;
    standin.get("/v2/payments/missing").await;
    let log = standin.inspect("/_control/requests").await;
    let calls = log["requests"].as_array().unwrap();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0]["method"], "POST");
    assert_eq!(calls[0]["path"], "/v2/payments");
    assert_eq!(calls[0]["idempotency_key"], "auth-key");
    assert_eq!(calls[0]["body"]["source_id"], "cnon:card-nonce-ok");
    assert_eq!(calls[0]["body"]["autocomplete"], false);
    assert_eq!(calls[0]["status"], 200);
    assert_eq!(calls[1]["path"], format!("/v2/payments/{id}/complete"));
    assert_eq!(calls[2]["status"], 404);
}

#[tokio::test]
async fn reset_forgets_everything() {
    let standin = standin().await;
    standin.paid("p", 1000).await;
    standin
        .control(
            "/_control/faults",
            json!({"endpoint": "create_payment", "fault": {"status": 500}}),
        )
        .await;
    standin
        .control("/_control/webhooks", json!({"hold": true}))
        .await;
    assert_eq!(standin.control("/_control/reset", json!({})).await.0, 200);
    assert_eq!(standin.payment_count().await, 0);
    assert!(standin.inspect("/_control/requests").await["requests"]
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(standin.inspect("/_control/webhooks").await["hold"], false);
    let (status, _) = standin.pay("p", "cnon:card-nonce-ok", 1000, true).await;
    assert_eq!(status, 200, "faults and keys are gone too");
}

#[tokio::test]
async fn unknown_paths_answer_square_shaped_not_found() {
    let standin = standin().await;
    let (status, body) = standin.get("/v2/locations").await;
    assert_eq!(
        (status, body["errors"][0]["code"].as_str()),
        (404, Some("NOT_FOUND"))
    );
}
