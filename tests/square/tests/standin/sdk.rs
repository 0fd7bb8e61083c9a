//! The Web Payments SDK stand-in: the script and its tokenize call.

use serde_json::json;

use crate::harness::{error_code, standin};

#[tokio::test]
async fn square_js_is_served_as_javascript() {
    let standin = standin().await;
    let response = standin
        .client
        .get(standin.url("/v1/square.js"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        content_type.starts_with("application/javascript"),
        "{content_type}"
    );
    let script = response.text().await.unwrap();
    for needle in [
        "window.Square",
        "payments",
        "attach",
        "tokenize",
        "destroy",
        "currentScript",
        "/_sdk/tokenize",
    ] {
        assert!(script.contains(needle), "square.js lacks {needle}");
    }
}

#[tokio::test]
async fn tokenize_answers_cross_origin_pages() {
    let standin = standin().await;
    let preflight = standin
        .client
        .request(reqwest::Method::OPTIONS, standin.url("/_sdk/tokenize"))
        .header("origin", "http://127.0.0.1:8787")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.status().as_u16(), 204);
    assert_eq!(preflight.headers()["access-control-allow-origin"], "*");
    assert!(preflight.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .contains("content-type"));
    let minted = standin
        .tokenize("4111111111111111", "12/35", "111", "94103")
        .await;
    assert_eq!(minted["status"], "OK");
    assert!(minted["token"].as_str().unwrap().starts_with("cnon:"));
    assert_eq!(minted["details"]["card"]["last4"], "1111");
    assert_eq!(minted["details"]["card"]["brand"], "VISA");
}

#[tokio::test]
async fn malformed_cards_are_invalid_before_any_token() {
    let standin = standin().await;
    let result = standin
        .tokenize("4111 1111 1111 1112", "13/35", "111", "94103")
        .await;
    assert_eq!(result["status"], "Invalid");
    let fields: Vec<_> = result["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].clone())
        .collect();
    assert_eq!(fields, [json!("cardNumber"), json!("expirationDate")]);
    assert_eq!(result["errors"][0]["type"], "VALIDATION_ERROR");
}

#[tokio::test]
async fn the_typed_card_decides_the_charge() {
    let standin = standin().await;
    let cases = [
        (
            "4000 0000 0000 0002",
            "12/35",
            "111",
            "94103",
            "GENERIC_DECLINE",
        ),
        (
            "4111 1111 1111 1111",
            "12/35",
            "911",
            "94103",
            "CVV_FAILURE",
        ),
        (
            "4111 1111 1111 1111",
            "12/35",
            "111",
            "99999",
            "ADDRESS_VERIFICATION_FAILURE",
        ),
        (
            "4111 1111 1111 1111",
            "01/40",
            "111",
            "94103",
            "INVALID_EXPIRATION",
        ),
        (
            "4000 0000 0000 9995",
            "12/35",
            "111",
            "94103",
            "INSUFFICIENT_FUNDS",
        ),
    ];
    for (i, (number, expiry, cvv, postal, code)) in cases.into_iter().enumerate() {
        let minted = standin.tokenize(number, expiry, cvv, postal).await;
        let token = minted["token"].as_str().unwrap();
        let (status, body) = standin.pay(&format!("typed-{i}"), token, 500, true).await;
        assert_eq!(
            (status, error_code(&body)),
            (400, code),
            "{number} {expiry} {cvv} {postal}"
        );
    }
    let minted = standin
        .tokenize("5105 1051 0510 5100", "12/35", "111", "94103")
        .await;
    let (status, body) = standin
        .pay("mastercard", minted["token"].as_str().unwrap(), 500, true)
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["payment"]["card_details"]["card"]["card_brand"],
        "MASTERCARD"
    );
    assert_eq!(body["payment"]["card_details"]["card"]["last_4"], "5100");
}

#[tokio::test]
async fn a_page_for_another_application_gets_an_error() {
    let standin = standin().await;
    let body = json!({
        "application_id": "someone-else",
        "location_id": "LSTANDIN0001",
        "card_number": "4111111111111111",
        "expiration": "12/35",
        "cvv": "111",
        "postal_code": "94103",
    });
    let result: serde_json::Value = standin
        .client
        .post(standin.url("/_sdk/tokenize"))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(result["status"], "Error");
}

#[tokio::test]
async fn no_card_number_is_kept_or_logged() {
    let standin = standin().await;
    let minted = standin
        .tokenize("4111 1111 1111 1111", "12/35", "111", "94103")
        .await;
    standin
        .pay("logged", minted["token"].as_str().unwrap(), 500, true)
        .await;
    let mut everything = String::new();
    for path in [
        "/_control/requests",
        "/_control/payments",
        "/_control/webhooks",
    ] {
        everything.push_str(&standin.inspect(path).await.to_string());
    }
    assert!(!everything.contains("4111111111111111"));
    assert!(!everything.contains("4111 1111 1111 1111"));
}
