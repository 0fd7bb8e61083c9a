//! CreatePayment, CompletePayment, CancelPayment, cancel-by-key, GetPayment,
//! authentication and the field checks.

use serde_json::{json, Value};

use crate::harness::{error_code, standin, standin_with, test_config, ACCESS_TOKEN};

#[tokio::test]
async fn a_default_payment_completes_at_once_with_squares_fields() {
    let standin = standin().await;
    let (status, body) = standin.pay("buy-1", "cnon:card-nonce-ok", 1250, true).await;
    assert_eq!(status, 200, "{body}");
    let payment = &body["payment"];
    assert_eq!(payment["status"], "COMPLETED");
    assert_eq!(payment["card_details"]["status"], "CAPTURED");
    assert_eq!(
        payment["amount_money"],
        json!({"amount": 1250, "currency": "USD"})
    );
    assert_eq!(
        payment["approved_money"],
        json!({"amount": 1250, "currency": "USD"})
    );
    assert_eq!(payment["card_details"]["card"]["card_brand"], "VISA");
    assert_eq!(payment["card_details"]["card"]["last_4"], "1111");
    assert_eq!(payment["reference_id"], "order-42");
    assert_eq!(payment["buyer_email_address"], "viewer@example.com");
    assert_eq!(payment["location_id"], "LSTANDIN0001");
    for field in [
        "id",
        "delayed_until",
        "created_at",
        "updated_at",
        "version_token",
    ] {
        assert!(payment[field].is_string(), "{field} missing in {payment}");
    }
    let (status, fetched) = standin
        .get(&format!("/v2/payments/{}", payment["id"].as_str().unwrap()))
        .await;
    assert_eq!((status, &fetched["payment"]), (200, payment));
}

#[tokio::test]
async fn an_authorization_is_captured_once() {
    let standin = standin().await;
    let (_, body) = standin
        .pay("auth-1", "cnon:card-nonce-ok", 900, false)
        .await;
    assert_eq!(body["payment"]["status"], "APPROVED");
    assert_eq!(body["payment"]["card_details"]["status"], "AUTHORIZED");
    let id = body["payment"]["id"].as_str().unwrap();
    let version_token = body["payment"]["version_token"].clone();
    let complete = format!("/v2/payments/{id}/complete");
    let (status, captured) = standin
        .post(&complete, json!({"version_token": version_token}))
        .await;
    assert_eq!(status, 200, "{captured}");
    assert_eq!(captured["payment"]["status"], "COMPLETED");
    assert_eq!(captured["payment"]["card_details"]["status"], "CAPTURED");
    let (status, again) = standin.post(&complete, json!({})).await;
    assert_eq!(
        (status, &again),
        (200, &captured),
        "completing twice changes nothing"
    );
    let (status, voided) = standin
        .post(&format!("/v2/payments/{id}/cancel"), json!({}))
        .await;
    assert_eq!(
        (status, error_code(&voided)),
        (400, "DELAYED_TRANSACTION_CAPTURED")
    );
}

#[tokio::test]
async fn a_stale_version_token_cannot_capture() {
    let standin = standin().await;
    let (_, body) = standin
        .pay("auth-v", "cnon:card-nonce-ok", 900, false)
        .await;
    let id = body["payment"]["id"].as_str().unwrap();
    let (status, refused) = standin
        .post(
            &format!("/v2/payments/{id}/complete"),
            json!({"version_token": "old"}),
        )
        .await;
    assert_eq!((status, error_code(&refused)), (400, "VERSION_MISMATCH"));
}

#[tokio::test]
async fn a_voided_authorization_cannot_be_captured() {
    let standin = standin().await;
    let (_, body) = standin
        .pay("auth-2", "cnon:card-nonce-ok", 900, false)
        .await;
    let id = body["payment"]["id"].as_str().unwrap();
    let (status, voided) = standin
        .post(&format!("/v2/payments/{id}/cancel"), json!({}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(voided["payment"]["status"], "CANCELED");
    assert_eq!(voided["payment"]["card_details"]["status"], "VOIDED");
    let (status, refused) = standin
        .post(&format!("/v2/payments/{id}/complete"), json!({}))
        .await;
    assert_eq!(
        (status, error_code(&refused)),
        (400, "DELAYED_TRANSACTION_CANCELED")
    );
}

#[tokio::test]
async fn cancel_by_key_voids_what_the_key_made_and_accepts_unknown_keys() {
    let standin = standin().await;
    let (_, body) = standin
        .pay("auth-3", "cnon:card-nonce-ok", 900, false)
        .await;
    let id = body["payment"]["id"].as_str().unwrap();
    let (status, answer) = standin
        .post("/v2/payments/cancel", json!({"idempotency_key": "auth-3"}))
        .await;
    assert_eq!((status, answer), (200, json!({})));
    let (_, fetched) = standin.get(&format!("/v2/payments/{id}")).await;
    assert_eq!(fetched["payment"]["status"], "CANCELED");
    let (status, _) = standin
        .post(
            "/v2/payments/cancel",
            json!({"idempotency_key": "never-used"}),
        )
        .await;
    assert_eq!(status, 200);
    let (status, refused) = standin.post("/v2/payments/cancel", json!({})).await;
    assert_eq!(
        (status, error_code(&refused)),
        (400, "MISSING_REQUIRED_PARAMETER")
    );
}

#[tokio::test]
async fn an_unknown_payment_is_not_found() {
    let standin = standin().await;
    for (status, body) in [
        standin.get("/v2/payments/nope").await,
        standin.post("/v2/payments/nope/complete", json!({})).await,
        standin.post("/v2/payments/nope/cancel", json!({})).await,
    ] {
        assert_eq!((status, error_code(&body)), (404, "NOT_FOUND"));
        assert_eq!(body["errors"][0]["category"], "INVALID_REQUEST_ERROR");
    }
}

#[tokio::test]
async fn a_missing_or_wrong_token_is_unauthorized() {
    let standin = standin().await;
    let url = standin.url("/v2/payments/x");
    for auth in [None, Some("Bearer wrong"), Some(ACCESS_TOKEN)] {
        let mut request = standin.client.get(&url);
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        assert_eq!(status, 401, "{auth:?}");
        assert_eq!(body["errors"][0]["category"], "AUTHENTICATION_ERROR");
        assert_eq!(error_code(&body), "UNAUTHORIZED");
    }
}

fn payment_body() -> Value {
    json!({
        "idempotency_key": "checks",
        "source_id": "cnon:card-nonce-ok",
        "amount_money": {"amount": 100, "currency": "USD"},
    })
}

#[tokio::test]
async fn each_field_check_answers_its_code() {
    let standin = standin().await;
    let cases: Vec<(&str, Value, &str)> = vec![
        ("idempotency_key", json!("k".repeat(46)), "VALUE_TOO_LONG"),
        ("idempotency_key", Value::Null, "MISSING_REQUIRED_PARAMETER"),
        ("idempotency_key", json!(""), "VALUE_TOO_SHORT"),
        ("source_id", Value::Null, "MISSING_REQUIRED_PARAMETER"),
        ("amount_money", Value::Null, "MISSING_REQUIRED_PARAMETER"),
        (
            "amount_money",
            json!({"amount": 0, "currency": "USD"}),
            "VALUE_TOO_LOW",
        ),
        (
            "amount_money",
            json!({"amount": -5, "currency": "USD"}),
            "VALUE_TOO_LOW",
        ),
        (
            "amount_money",
            json!({"amount": 1.5, "currency": "USD"}),
            "EXPECTED_INTEGER",
        ),
        (
            "amount_money",
            json!({"amount": "100", "currency": "USD"}),
            "EXPECTED_INTEGER",
        ),
        ("reference_id", json!("r".repeat(41)), "VALUE_TOO_LONG"),
        ("note", json!("n".repeat(501)), "VALUE_TOO_LONG"),
        (
            "buyer_email_address",
            json!(format!("{}@example.com", "b".repeat(244))),
            "VALUE_TOO_LONG",
        ),
        ("autocomplete", json!("yes"), "EXPECTED_BOOLEAN"),
        ("delay_duration", json!("PT30S"), "INVALID_VALUE"),
    ];
    for (field, value, code) in cases {
        let mut body = payment_body();
        body[field] = value.clone();
        let (status, answer) = standin.post("/v2/payments", body).await;
        assert_eq!(
            (status, error_code(&answer)),
            (400, code),
            "{field} = {value}"
        );
        assert_eq!(answer["errors"][0]["category"], "INVALID_REQUEST_ERROR");
    }
    let mut at_limits = payment_body();
    at_limits["idempotency_key"] = json!("k".repeat(45));
    at_limits["reference_id"] = json!("r".repeat(40));
    at_limits["note"] = json!("n".repeat(500));
    at_limits["buyer_email_address"] = json!(format!("{}@example.com", "b".repeat(243)));
    let (status, body) = standin.post("/v2/payments", at_limits).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        standin.payment_count().await,
        1,
        "refused requests create nothing"
    );
}

#[tokio::test]
async fn malformed_and_oversized_bodies_are_refused() {
    let standin = standin().await;
    let response = standin
        .client
        .post(standin.url("/v2/payments"))
        .bearer_auth(ACCESS_TOKEN)
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let huge = json!({"idempotency_key": "big", "note": "x".repeat(70 * 1024)});
    let (status, body) = standin.post("/v2/payments", huge).await;
    assert_eq!(
        (status, error_code(&body)),
        (413, "REQUEST_ENTITY_TOO_LARGE")
    );
}

#[tokio::test]
async fn each_sandbox_decline_token_fails_the_payment() {
    let standin = standin().await;
    let cases = [
        ("cnon:card-nonce-declined", "GENERIC_DECLINE"),
        ("cnon:card-nonce-rejected-cvv", "CVV_FAILURE"),
        (
            "cnon:card-nonce-rejected-postalcode",
            "ADDRESS_VERIFICATION_FAILURE",
        ),
        ("cnon:card-nonce-rejected-expiration", "INVALID_EXPIRATION"),
    ];
    for (i, (token, code)) in cases.into_iter().enumerate() {
        let (status, body) = standin.pay(&format!("decline-{i}"), token, 700, true).await;
        assert_eq!((status, error_code(&body)), (400, code), "{token}");
        assert_eq!(body["errors"][0]["category"], "PAYMENT_METHOD_ERROR");
        assert_eq!(body["payment"]["status"], "FAILED");
        assert_eq!(body["payment"]["card_details"]["status"], "FAILED");
    }
    let (status, _) = standin
        .pay("ok-after-declines", "cnon:card-nonce-ok", 700, true)
        .await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_decline_status_is_configurable() {
    let standin = standin_with(square_standin::Config {
        decline_status: 402,
        ..test_config()
    })
    .await;
    let (status, body) = standin
        .pay("d", "cnon:card-nonce-declined", 700, true)
        .await;
    assert_eq!((status, error_code(&body)), (402, "GENERIC_DECLINE"));
}

#[tokio::test]
async fn a_foreign_location_or_unknown_token_is_refused() {
    let standin = standin().await;
    let mut body = payment_body();
    body["location_id"] = json!("ELSEWHERE");
    let (status, answer) = standin.post("/v2/payments", body).await;
    assert_eq!((status, error_code(&answer)), (404, "NOT_FOUND"));
    let (status, answer) = standin
        .pay("unknown-token", "cnon:made-up", 100, true)
        .await;
    assert_eq!((status, error_code(&answer)), (404, "NOT_FOUND"));
    assert_eq!(answer["errors"][0]["field"], "source_id");
}

#[tokio::test]
async fn a_lapsed_authorization_is_voided() {
    let standin = standin().await;
    let (_, body) = standin.pay("lapse", "cnon:card-nonce-ok", 900, false).await;
    let id = body["payment"]["id"].as_str().unwrap();
    let (status, lapsed) = standin
        .control(&format!("/_control/payments/{id}/lapse"), json!({}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(lapsed["payment"]["status"], "CANCELED");
}
