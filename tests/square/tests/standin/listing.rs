//! ListPayments as Square's reference describes it: the range of
//! `created_at`, newest first unless ASC, pages of at most 100 with a
//! cursor, `{}` when nothing matches.

use serde_json::Value;

use crate::harness::{error_code, standin};

fn ids(body: &Value) -> Vec<String> {
    body["payments"]
        .as_array()
        .map(|p| {
            p.iter()
                .map(|p| p["id"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn payments_are_listed_newest_first_a_page_at_a_time() {
    let standin = standin().await;
    let mut made = Vec::new();
    for n in 0..3 {
        made.push(standin.paid(&format!("list-{n}"), 100 + n).await);
    }
    let (status, all) = standin.get("/v2/payments").await;
    assert_eq!(status, 200, "{all}");
    let newest_first: Vec<String> = made.iter().rev().cloned().collect();
    assert_eq!(ids(&all), newest_first);
    assert!(all.get("cursor").is_none(), "one page: {all}");

    let (_, first) = standin.get("/v2/payments?sort_order=ASC&limit=2").await;
    assert_eq!(ids(&first), made[..2]);
    let cursor = first["cursor"].as_str().expect("a next page");
    let (_, rest) = standin
        .get(&format!(
            "/v2/payments?sort_order=ASC&limit=2&cursor={cursor}"
        ))
        .await;
    assert_eq!(ids(&rest), made[2..]);
    assert!(rest.get("cursor").is_none());

    // The reference's own example form of a time: UTC, and with an offset.
    let (status, none) = standin
        .get("/v2/payments?begin_time=2020-01-26T02:25:34Z&end_time=2020-01-25T19:25:34-08:00")
        .await;
    assert_eq!(
        (status, none),
        (200, serde_json::json!({})),
        "an empty page is {{}}"
    );
    let (_, located) = standin.get("/v2/payments?location_id=LSTANDIN0001").await;
    assert_eq!(ids(&located).len(), 3);
}

#[tokio::test]
async fn what_the_stand_in_cannot_filter_by_is_refused() {
    let standin = standin().await;
    for (query, code) in [
        ("sort_order=UP", "INVALID_VALUE"),
        ("begin_time=yesterday", "INVALID_VALUE"),
        ("limit=101", "INVALID_VALUE"),
        ("cursor=nonsense", "INVALID_VALUE"),
        ("last_4=1111", "INVALID_VALUE"),
        ("colour=red", "UNKNOWN_BODY_PARAMETER"),
        ("location_id=ELSEWHERE", "NOT_FOUND"),
        (
            "begin_time=2026-02-01T00:00:00Z&end_time=2026-01-01T00:00:00Z",
            "INVALID_VALUE",
        ),
    ] {
        let (status, body) = standin.get(&format!("/v2/payments?{query}")).await;
        assert!(status >= 400, "{query}: {status} {body}");
        assert_eq!(error_code(&body), code, "{query}: {body}");
    }
}
