//! Square's idempotency rules and single-use card tokens.

use serde_json::json;

use crate::harness::{error_code, standin};

#[tokio::test]
async fn the_same_request_is_answered_again_without_a_second_charge() {
    let standin = standin().await;
    let first = standin
        .pay("same-key", "cnon:card-nonce-ok", 1500, true)
        .await;
    let second = standin
        .pay("same-key", "cnon:card-nonce-ok", 1500, true)
        .await;
    assert_eq!(first.0, 200);
    assert_eq!(first, second);
    assert_eq!(standin.payment_count().await, 1);
}

#[tokio::test]
async fn the_same_key_with_another_request_is_refused() {
    let standin = standin().await;
    standin
        .pay("reused", "cnon:card-nonce-ok", 1500, true)
        .await;
    let (status, body) = standin
        .pay("reused", "cnon:card-nonce-ok", 1600, true)
        .await;
    assert_eq!((status, error_code(&body)), (400, "IDEMPOTENCY_KEY_REUSED"));
    assert_eq!(standin.payment_count().await, 1);
}

#[tokio::test]
async fn a_decline_is_replayed_for_its_key() {
    let standin = standin().await;
    let first = standin
        .pay("declined-key", "cnon:card-nonce-declined", 1500, true)
        .await;
    let again = standin
        .pay("declined-key", "cnon:card-nonce-declined", 1500, true)
        .await;
    assert_eq!(error_code(&first.1), "GENERIC_DECLINE");
    assert_eq!(first, again);
    let (status, body) = standin
        .pay("declined-key", "cnon:card-nonce-ok", 1500, true)
        .await;
    assert_eq!(
        (status, error_code(&body)),
        (400, "IDEMPOTENCY_KEY_REUSED"),
        "a new attempt needs a new key"
    );
}

#[tokio::test]
async fn a_minted_token_pays_once() {
    let standin = standin().await;
    let minted = standin
        .tokenize("4111 1111 1111 1111", "12/35", "111", "94103")
        .await;
    let token = minted["token"].as_str().unwrap();
    let (status, first) = standin.pay("token-a", token, 800, true).await;
    assert_eq!(status, 200, "{first}");
    let (status, body) = standin.pay("token-b", token, 800, true).await;
    assert_eq!((status, error_code(&body)), (400, "CARD_TOKEN_USED"));
    let replay = standin.pay("token-a", token, 800, true).await;
    assert_eq!(replay, (200, first), "its own key still replays");
}

#[tokio::test]
async fn a_refund_key_replays_its_refund() {
    let standin = standin().await;
    let payment_id = standin.paid("refund-pay", 3000).await;
    let refund = json!({
        "idempotency_key": "refund-key",
        "payment_id": payment_id,
        "amount_money": {"amount": 1000, "currency": "USD"},
    });
    let first = standin.post("/v2/refunds", refund.clone()).await;
    let again = standin.post("/v2/refunds", refund.clone()).await;
    assert_eq!(first.0, 200, "{}", first.1);
    assert_eq!(first, again);
    let mut changed = refund;
    changed["amount_money"]["amount"] = json!(999);
    let (status, body) = standin.post("/v2/refunds", changed).await;
    assert_eq!((status, error_code(&body)), (400, "IDEMPOTENCY_KEY_REUSED"));
    let (_, payment) = standin.get(&format!("/v2/payments/{payment_id}")).await;
    assert_eq!(
        payment["payment"]["refund_ids"].as_array().unwrap().len(),
        1
    );
}
