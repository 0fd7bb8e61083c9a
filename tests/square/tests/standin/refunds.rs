//! RefundPayment, GetRefund, held refunds and refunds from the Dashboard.

use serde_json::{json, Value};

use crate::harness::{error_code, eventually, standin};

/// Waits until a refund (made while they complete by themselves) has.
async fn completed(standin: &crate::harness::Standin, answer: &Value) {
    let id = answer["refund"]["id"].as_str().expect("a refund");
    eventually(standin, &format!("/v2/refunds/{id}"), |b| {
        b["refund"]["status"] == "COMPLETED"
    })
    .await;
}

fn refund(key: &str, payment_id: &str, amount: i64) -> Value {
    json!({
        "idempotency_key": key,
        "payment_id": payment_id,
        "amount_money": {"amount": amount, "currency": "USD"},
        "reason": "Showing cancelled",
    })
}

#[tokio::test]
async fn a_refund_is_pending_then_completes() {
    let standin = standin().await;
    let payment_id = standin.paid("p", 2500).await;
    let (status, body) = standin
        .post("/v2/refunds", refund("r", &payment_id, 2500))
        .await;
    assert_eq!(status, 200, "{body}");
    let created = &body["refund"];
    assert_eq!(created["status"], "PENDING");
    assert_eq!(created["payment_id"], payment_id.as_str());
    assert_eq!(
        created["amount_money"],
        json!({"amount": 2500, "currency": "USD"})
    );
    let refund_id = created["id"].as_str().unwrap();
    assert!(
        refund_id.starts_with(&format!("{payment_id}_")),
        "{refund_id}"
    );
    let settled = eventually(&standin, &format!("/v2/refunds/{refund_id}"), |b| {
        b["refund"]["status"] == "COMPLETED"
    })
    .await;
    assert_eq!(settled["refund"]["status"], "COMPLETED");
    let (_, payment) = standin.get(&format!("/v2/payments/{payment_id}")).await;
    assert_eq!(payment["payment"]["refund_ids"], json!([refund_id]));
    assert_eq!(
        payment["payment"]["refunded_money"],
        json!({"amount": 2500, "currency": "USD"})
    );
}

#[tokio::test]
async fn refunds_are_refused_the_ways_square_refuses_them() {
    let standin = standin().await;
    let (_, approved) = standin.pay("auth", "cnon:card-nonce-ok", 2000, false).await;
    let approved_id = approved["payment"]["id"].as_str().unwrap();
    let (status, body) = standin
        .post("/v2/refunds", refund("r1", approved_id, 100))
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (400, "REFUND_ERROR_PAYMENT_NEEDS_COMPLETION")
    );
    assert_eq!(body["errors"][0]["category"], "REFUND_ERROR");
    let paid = standin.paid("p", 2000).await;
    let (status, first) = standin.post("/v2/refunds", refund("r2", &paid, 1500)).await;
    assert_eq!(status, 200);
    let (status, body) = standin.post("/v2/refunds", refund("r3", &paid, 100)).await;
    assert_eq!(
        (status, error_code(&body)),
        (400, "REFUND_ALREADY_PENDING"),
        "no second refund while the first is pending"
    );
    completed(&standin, &first).await;
    let (status, body) = standin.post("/v2/refunds", refund("r3", &paid, 501)).await;
    assert_eq!((status, error_code(&body)), (400, "REFUND_AMOUNT_INVALID"));
    let (status, _) = standin.post("/v2/refunds", refund("r4", &paid, 500)).await;
    assert_eq!(status, 200, "exactly what is left can be refunded");
    let (status, body) = standin
        .post("/v2/refunds", refund("r5", "missing", 1))
        .await;
    assert_eq!((status, error_code(&body)), (404, "NOT_FOUND"));
    let (status, body) = standin.get("/v2/refunds/missing").await;
    assert_eq!((status, error_code(&body)), (404, "NOT_FOUND"));
    let mut long_reason = refund("r6", &paid, 1);
    long_reason["reason"] = json!("x".repeat(193));
    let (status, body) = standin.post("/v2/refunds", long_reason).await;
    assert_eq!((status, error_code(&body)), (400, "VALUE_TOO_LONG"));
}

#[tokio::test]
async fn a_refusal_does_not_use_up_the_key() {
    let standin = standin().await;
    let (_, approved) = standin.pay("auth", "cnon:card-nonce-ok", 2000, false).await;
    let id = approved["payment"]["id"].as_str().unwrap();
    let (status, _) = standin
        .post("/v2/refunds", refund("retry-me", id, 2000))
        .await;
    assert_eq!(status, 400);
    standin
        .post(&format!("/v2/payments/{id}/complete"), json!({}))
        .await;
    let (status, body) = standin
        .post("/v2/refunds", refund("retry-me", id, 2000))
        .await;
    assert_eq!(status, 200, "{body}");
}

/// Square: "There is a limit of 20 refunds per payment ID"
/// (<https://developer.squareup.com/docs/payments-api/refund-payments>).
#[tokio::test]
async fn a_payment_is_refunded_at_most_twenty_times() {
    let standin = standin().await;
    let payment_id = standin.paid("p", 2500).await;
    for n in 1..=20 {
        let (status, body) = standin
            .post("/v2/refunds", refund(&format!("r{n}"), &payment_id, 100))
            .await;
        assert_eq!(status, 200, "refund {n}: {body}");
        completed(&standin, &body).await;
    }
    let (status, body) = standin
        .post("/v2/refunds", refund("r21", &payment_id, 100))
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(error_code(&body), "PAYMENT_NOT_REFUNDABLE");
    let (_, payment) = standin.get(&format!("/v2/payments/{payment_id}")).await;
    assert_eq!(
        payment["payment"]["refunded_money"],
        json!({"amount": 2000, "currency": "USD"}),
        "the refused refund took nothing"
    );
}

#[tokio::test]
async fn held_refunds_wait_for_the_control_api() {
    let standin = standin().await;
    let (status, _) = standin
        .control("/_control/refunds", json!({"auto_complete_ms": null}))
        .await;
    assert_eq!(status, 200);
    let payment_id = standin.paid("p", 3000).await;
    let (_, a) = standin
        .post("/v2/refunds", refund("a", &payment_id, 1000))
        .await;
    let a = a["refund"]["id"].as_str().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        standin.get(&format!("/v2/refunds/{a}")).await.1["refund"]["status"],
        "PENDING"
    );
    let (status, completed) = standin
        .control(&format!("/_control/refunds/{a}/complete"), json!({}))
        .await;
    assert_eq!(
        (status, &completed["refund"]["status"]),
        (200, &json!("COMPLETED"))
    );
    let (_, b) = standin
        .post("/v2/refunds", refund("b", &payment_id, 1000))
        .await;
    let b = b["refund"]["id"].as_str().unwrap();
    let (status, rejected) = standin
        .control(&format!("/_control/refunds/{b}/reject"), json!({}))
        .await;
    assert_eq!(
        (status, &rejected["refund"]["status"]),
        (200, &json!("REJECTED"))
    );
    let (status, _) = standin
        .control(&format!("/_control/refunds/{b}/complete"), json!({}))
        .await;
    assert_eq!(status, 409, "a settled refund stays settled");
    let (status, _) = standin
        .control("/_control/refunds/nope/complete", json!({}))
        .await;
    assert_eq!(status, 404);
    let (_, payment) = standin.get(&format!("/v2/payments/{payment_id}")).await;
    assert_eq!(
        payment["payment"]["refunded_money"]["amount"], 1000,
        "the rejected refund is not counted"
    );
    let listed = standin.inspect("/_control/refunds").await;
    assert_eq!(listed["refunds"].as_array().unwrap().len(), 2);
    assert_eq!(listed["auto_complete_ms"], Value::Null);
}

#[tokio::test]
async fn a_dashboard_refund_takes_what_is_left_by_default() {
    let standin = standin().await;
    let payment_id = standin.paid("p", 4000).await;
    let (_, first) = standin
        .post("/v2/refunds", refund("r", &payment_id, 1000))
        .await;
    completed(&standin, &first).await;
    let (status, body) = standin
        .control(
            "/_control/dashboard/refund",
            json!({"payment_id": payment_id, "reason": "Projector broke"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["refund"]["amount_money"]["amount"], 3000);
    assert_eq!(body["refund"]["reason"], "Projector broke");
    let (status, body) = standin
        .control(
            "/_control/dashboard/refund",
            json!({"payment_id": payment_id, "amount": 1}),
        )
        .await;
    assert_eq!((status, error_code(&body)), (400, "REFUND_AMOUNT_INVALID"));
    let (status, _) = standin
        .control(
            "/_control/dashboard/refund",
            json!({"payment_id": "missing"}),
        )
        .await;
    assert_eq!(status, 404);
}
