//! Injected faults: slow answers, lost answers, 5xx without the work.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::{error_code, standin, ACCESS_TOKEN};

#[tokio::test]
async fn a_delay_slows_the_answer_but_not_the_work() {
    let standin = standin().await;
    let fault = json!({"endpoint": "create_payment", "fault": {"delay_ms": 400}});
    assert_eq!(standin.control("/_control/faults", fault).await.0, 200);
    let started = Instant::now();
    let (status, _) = standin.pay("slow", "cnon:card-nonce-ok", 100, true).await;
    assert_eq!(status, 200);
    assert!(
        started.elapsed() >= Duration::from_millis(400),
        "{:?}",
        started.elapsed()
    );
    let started = Instant::now();
    standin.pay("fast", "cnon:card-nonce-ok", 100, true).await;
    assert!(
        started.elapsed() < Duration::from_millis(400),
        "the fault applied once"
    );
}

#[tokio::test]
async fn a_dropped_answer_still_charges_and_its_key_finds_the_payment() {
    let standin = standin().await;
    let fault = json!({"endpoint": "create_payment", "fault": "drop"});
    assert_eq!(standin.control("/_control/faults", fault).await.0, 200);
    let body = json!({
        "idempotency_key": "lost-answer",
        "source_id": "cnon:card-nonce-ok",
        "amount_money": {"amount": 1800, "currency": "USD"},
        "autocomplete": false,
    });
    let lost = standin
        .client
        .post(standin.url("/v2/payments"))
        .bearer_auth(ACCESS_TOKEN)
        .json(&body)
        .send()
        .await;
    assert!(
        lost.is_err(),
        "the connection closes without an answer: {lost:?}"
    );
    assert_eq!(standin.payment_count().await, 1, "the work was done");
    let (status, retried) = standin.post("/v2/payments", body).await;
    assert_eq!(status, 200);
    let listed = standin.inspect("/_control/payments").await;
    assert_eq!(
        retried["payment"]["id"], listed["payments"][0]["id"],
        "the retry finds the same payment"
    );
    let (status, _) = standin
        .post(
            "/v2/payments/cancel",
            json!({"idempotency_key": "lost-answer"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        standin.inspect("/_control/payments").await["payments"][0]["status"],
        "CANCELED"
    );
    let calls = standin.inspect("/_control/requests").await;
    assert_eq!(calls["requests"][0]["fault"], "drop");
    assert_eq!(calls["requests"][0]["status"], 200);
}

#[tokio::test]
async fn a_5xx_does_nothing() {
    let standin = standin().await;
    let fault = json!({"endpoint": "create_payment", "fault": {"status": 500}});
    standin.control("/_control/faults", fault).await;
    let (status, body) = standin.pay("k", "cnon:card-nonce-ok", 100, true).await;
    assert_eq!((status, error_code(&body)), (500, "INTERNAL_SERVER_ERROR"));
    assert_eq!(body["errors"][0]["category"], "API_ERROR");
    assert_eq!(standin.payment_count().await, 0);
    let (status, _) = standin.pay("k", "cnon:card-nonce-ok", 100, true).await;
    assert_eq!(status, 200, "the same key works once the fault has passed");
}

#[tokio::test]
async fn a_fault_can_repeat_and_be_cleared() {
    let standin = standin().await;
    let payment_id = standin.paid("p", 1000).await;
    let fault = json!({"endpoint": "get_payment", "fault": {"status": 503}, "times": 3});
    standin.control("/_control/faults", fault).await;
    let path = format!("/v2/payments/{payment_id}");
    for _ in 0..2 {
        let (status, body) = standin.get(&path).await;
        assert_eq!((status, error_code(&body)), (503, "SERVICE_UNAVAILABLE"));
    }
    let cleared = standin
        .client
        .delete(standin.url("/_control/faults"))
        .send()
        .await
        .unwrap();
    assert_eq!(cleared.status().as_u16(), 200);
    assert_eq!(standin.get(&path).await.0, 200);
}

#[tokio::test]
async fn refund_and_capture_faults_leave_state_untouched() {
    let standin = standin().await;
    let (_, body) = standin.pay("auth", "cnon:card-nonce-ok", 1000, false).await;
    let id = body["payment"]["id"].as_str().unwrap();
    standin
        .control(
            "/_control/faults",
            json!({"endpoint": "complete_payment", "fault": {"status": 500}}),
        )
        .await;
    assert_eq!(
        standin
            .post(&format!("/v2/payments/{id}/complete"), json!({}))
            .await
            .0,
        500
    );
    assert_eq!(
        standin.get(&format!("/v2/payments/{id}")).await.1["payment"]["status"],
        "APPROVED"
    );
    standin
        .post(&format!("/v2/payments/{id}/complete"), json!({}))
        .await;
    standin
        .control(
            "/_control/faults",
            json!({"endpoint": "refund", "fault": {"status": 429}}),
        )
        .await;
    let refund = json!({"idempotency_key": "r", "payment_id": id, "amount_money": {"amount": 10, "currency": "USD"}});
    let (status, body) = standin.post("/v2/refunds", refund).await;
    assert_eq!((status, error_code(&body)), (429, "RATE_LIMITED"));
    assert!(standin.inspect("/_control/refunds").await["refunds"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn bad_fault_requests_are_refused() {
    let standin = standin().await;
    let cases = [
        json!({"endpoint": "create_payment", "fault": {"status": 418}}),
        json!({"endpoint": "create_payment", "fault": {"delay_ms": 3_600_000}}),
        json!({"endpoint": "teleport", "fault": "drop"}),
        json!({"endpoint": "refund", "fault": "explode"}),
    ];
    for case in cases {
        assert_eq!(
            standin.control("/_control/faults", case.clone()).await.0,
            400,
            "{case}"
        );
    }
}
