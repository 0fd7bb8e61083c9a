//! Signed webhooks: delivery, retries, duplicates, holding and reordering.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use square_standin::signature::sign;

use crate::harness::{receiver, standin_posting_to, Received, NOTIFICATION_URL, SIGNATURE_KEY};

fn types(received: &[Received]) -> Vec<String> {
    received
        .iter()
        .map(|r| r.json()["type"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn each_change_is_posted_signed_for_the_subscribed_url() {
    let receiver = receiver(0, Duration::ZERO).await;
    let standin = standin_posting_to(&receiver).await;
    let (_, body) = standin.pay("auth", "cnon:card-nonce-ok", 1200, false).await;
    let id = body["payment"]["id"].as_str().unwrap().to_owned();
    let received = receiver.wait_for(1).await;
    standin
        .post(&format!("/v2/payments/{id}/complete"), json!({}))
        .await;
    let received_after_capture = receiver.wait_for(2).await;
    assert_eq!(
        types(&received_after_capture),
        ["payment.created", "payment.updated"]
    );
    let first = &received[0];
    assert_eq!(
        first.header("x-square-hmacsha256-signature"),
        Some(sign(SIGNATURE_KEY, NOTIFICATION_URL, first.body.as_bytes()).as_str())
    );
    assert_eq!(first.header("square-environment"), Some("Sandbox"));
    assert!(first.header("square-initial-delivery-timestamp").is_some());
    assert!(first.header("square-retry-number").is_none());
    let envelope = first.json();
    assert_eq!(envelope["merchant_id"], "MSTANDIN0001");
    assert!(envelope["event_id"].as_str().is_some_and(|e| e.len() == 36));
    assert!(envelope["created_at"].is_string());
    assert_eq!(envelope["data"]["type"], "payment");
    assert_eq!(envelope["data"]["id"], id.as_str());
    assert_eq!(envelope["data"]["object"]["payment"]["status"], "APPROVED");
    assert_eq!(
        received_after_capture[1].json()["data"]["object"]["payment"]["status"],
        "COMPLETED"
    );
}

#[tokio::test]
async fn a_refund_sends_created_then_updated() {
    let receiver = receiver(0, Duration::ZERO).await;
    let standin = standin_posting_to(&receiver).await;
    let payment_id = standin.paid("p", 3000).await;
    standin
        .control(
            "/_control/dashboard/refund",
            json!({"payment_id": payment_id}),
        )
        .await;
    let received = receiver.wait_for(4).await;
    let kinds = types(&received);
    assert_eq!(kinds[0], "payment.created");
    assert!(kinds.contains(&"refund.created".to_owned()), "{kinds:?}");
    assert!(kinds.contains(&"payment.updated".to_owned()), "{kinds:?}");
    let updated = received
        .iter()
        .map(Received::json)
        .find(|e| e["type"] == "refund.updated")
        .expect("refund.updated");
    assert_eq!(updated["data"]["type"], "refund");
    assert_eq!(updated["data"]["object"]["refund"]["status"], "COMPLETED");
    let created = received
        .iter()
        .map(Received::json)
        .find(|e| e["type"] == "refund.created")
        .unwrap();
    assert_eq!(created["data"]["object"]["refund"]["status"], "PENDING");
}

#[tokio::test]
async fn a_failed_delivery_is_retried_with_the_same_event() {
    let receiver = receiver(2, Duration::ZERO).await;
    let standin = standin_posting_to(&receiver).await;
    standin.paid("p", 1000).await;
    let received = receiver.wait_for(3).await;
    assert_eq!(received.len(), 3);
    let event_ids: Vec<Value> = received
        .iter()
        .map(|r| r.json()["event_id"].clone())
        .collect();
    assert!(event_ids.iter().all(|id| *id == event_ids[0]));
    let initial = received[0]
        .header("square-initial-delivery-timestamp")
        .unwrap();
    for (retry, delivery) in received.iter().enumerate().skip(1) {
        assert_eq!(
            delivery.header("square-retry-number"),
            Some(retry.to_string().as_str())
        );
        assert_eq!(delivery.header("square-retry-reason"), Some("http_error"));
        assert_eq!(
            delivery.header("square-initial-delivery-timestamp"),
            Some(initial)
        );
        assert_eq!(delivery.body, received[0].body);
    }
    // The stand-in records a delivery's status once its answer is read,
    // which can be a moment after the receiver has the delivery.
    let mut statuses: Vec<Value> = Vec::new();
    for _ in 0..100 {
        let report = standin.inspect("/_control/webhooks").await;
        statuses = report["deliveries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["status"].clone())
            .collect();
        if statuses.len() >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(statuses, [json!(500), json!(500), json!(200)]);
}

#[tokio::test]
async fn retries_stop_after_the_last_pause() {
    let receiver = receiver(100, Duration::ZERO).await;
    let standin = standin_posting_to(&receiver).await;
    standin.paid("p", 1000).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(receiver.received().len(), 4, "one try and three retries");
}

#[tokio::test]
async fn a_slow_receiver_does_not_slow_the_api() {
    let receiver = receiver(0, Duration::from_millis(1500)).await;
    let standin = standin_posting_to(&receiver).await;
    let started = Instant::now();
    for n in 0..3 {
        standin.paid(&format!("p{n}"), 1000).await;
    }
    assert!(
        started.elapsed() < Duration::from_millis(1000),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn duplicate_mode_posts_each_event_twice() {
    let receiver = receiver(0, Duration::ZERO).await;
    let standin = standin_posting_to(&receiver).await;
    standin
        .control("/_control/webhooks", json!({"duplicate": true}))
        .await;
    standin.paid("p", 1000).await;
    let received = receiver.wait_for(2).await;
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].body, received[1].body);
}

#[tokio::test]
async fn held_events_are_released_in_the_asked_order() {
    let receiver = receiver(0, Duration::ZERO).await;
    let standin = standin_posting_to(&receiver).await;
    standin
        .control("/_control/webhooks", json!({"hold": true}))
        .await;
    let (_, body) = standin.pay("auth", "cnon:card-nonce-ok", 1000, false).await;
    let id = body["payment"]["id"].as_str().unwrap();
    standin
        .post(&format!("/v2/payments/{id}/complete"), json!({}))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(receiver.received().is_empty(), "held events are not sent");
    assert_eq!(
        standin.inspect("/_control/webhooks").await["held"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let (_, released) = standin
        .control("/_control/webhooks/release", json!({"order": "reverse"}))
        .await;
    assert_eq!(released["released"], 2);
    let received = receiver.wait_for(2).await;
    assert_eq!(types(&received), ["payment.updated", "payment.created"]);
}

#[tokio::test]
async fn a_shuffle_with_a_seed_is_a_permutation() {
    let receiver = receiver(0, Duration::ZERO).await;
    let standin = standin_posting_to(&receiver).await;
    standin
        .control("/_control/webhooks", json!({"hold": true}))
        .await;
    for n in 0..5 {
        standin.paid(&format!("p{n}"), 1000 + n).await;
    }
    let (_, released) = standin
        .control(
            "/_control/webhooks/release",
            json!({"order": "shuffle", "seed": 42}),
        )
        .await;
    assert_eq!(
        (released["released"].clone(), released["seed"].clone()),
        (json!(5), json!(42))
    );
    let mut amounts: Vec<i64> = receiver
        .wait_for(5)
        .await
        .iter()
        .map(|r| {
            r.json()["data"]["object"]["payment"]["amount_money"]["amount"]
                .as_i64()
                .unwrap()
        })
        .collect();
    amounts.sort_unstable();
    assert_eq!(amounts, [1000, 1001, 1002, 1003, 1004]);
}

#[tokio::test]
async fn without_a_webhook_url_events_are_recorded_only() {
    let standin = crate::harness::standin().await;
    standin.paid("p", 1000).await;
    let report = standin.inspect("/_control/webhooks").await;
    assert_eq!(report["events"][0]["type"], "payment.created");
    assert_eq!(report["target"], Value::Null);
}
