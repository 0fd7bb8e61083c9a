//! The distributor return: a week of two films with 20 % VAT included, a
//! comp and a refund, against figures worked out by hand.

use e2e::{now_ms, Api, Method, StackOptions};
use serde_json::{json, Value};

async fn report(api: &Api, query: &str) -> Value {
    let reply = api
        .admin_get(&format!("/api/admin/reports/distributor?{query}"))
        .await;
    assert_eq!(reply.status, 200, "{:?}", reply.body);
    reply.body
}

/// A cinema selling with 20 % VAT included, on UTC's clock (dates in the
/// test and the cinema's are then the same).
fn vat_in_utc() -> e2e::Stack {
    let vat = StackOptions::default()
        .var("TAX_RATE_BPS", "2000")
        .var("TAX_NAME", "VAT")
        .var("TAX_INCLUSIVE", "true")
        .var("VENUE_TIME_ZONE", "UTC");
    e2e::Stack::start_with(vat)
}

/// Today's date in UTC.
fn today() -> jiff::civil::Date {
    let now = jiff::Timestamp::from_millisecond(now_ms()).unwrap();
    jiff::tz::TimeZone::UTC.to_datetime(now).date()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weeks_return_gives_each_films_sales_comps_and_the_weeks_refunds() {
    let stack = vat_in_utc();
    let api = Api::new(&stack);
    let stalker = api.create_film("Stalker").await;
    let alien = api.create_film("Alien").await;
    // Friday 4 and Saturday 5 December 2099: one cinema week (Friday on).
    let s1 = api
        .create_showing_of(&stalker, "2099-12-04T19:30:00Z", 1000)
        .await;
    let s2 = api
        .create_showing_of(&alien, "2099-12-05T15:00:00Z", 800)
        .await;
    api.buy(&s1, &["A1", "A2"]).await;
    let comp = api
        .admin_post(
            &format!("/api/admin/showings/{s1}/box-office"),
            Some(json!({"seats": ["A3"], "paid": "comp", "reason": "Press"})),
        )
        .await;
    assert_eq!(comp.status, 201, "{:?}", comp.body);
    let refunded = api.buy(&s2, &["B1"]).await;
    api.refund_until_void(&stack, refunded.body["order_id"].as_str().unwrap())
        .await;

    // The showings' week, from any day of it: Stalker 2 × 10.00, VAT 20/120
    // of 20.00 = 3.33, a comp apart; Alien 8.00, VAT 1.33. The refund was
    // made this week, so it is not here.
    let week = report(&api, "week=2099-12-08").await;
    assert_eq!(
        week["week"],
        json!({"from": "2099-12-04", "to": "2099-12-10", "first_day": "friday"})
    );
    let films: Vec<(&str, i64, i64, i64, i64, i64)> = week["films"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let n = |k: &str| f[k].as_i64().unwrap();
            (
                f["film"].as_str().unwrap(),
                n("admissions"),
                n("comps"),
                n("gross"),
                n("tax"),
                n("net"),
            )
        })
        .collect();
    assert_eq!(
        films,
        [
            ("Alien", 1, 0, 800, 133, 667),
            ("Stalker", 2, 1, 2000, 333, 1667)
        ]
    );
    let showing = &week["films"][1]["showings"][0];
    assert_eq!(showing["starts_at"], "2099-12-04 19:30:00 UTC");
    assert_eq!(
        showing["categories"],
        json!([{"name": "Standard", "admissions": 2, "gross": 2000, "tax": 333, "net": 1667}])
    );

    // This week: no showing, Alien's refund of 8.00 with its 1.33 of VAT.
    let today = today();
    let this_week = report(&api, &format!("week={today}")).await;
    let alien_now = &this_week["films"][0];
    assert_eq!(
        (&alien_now["film"], &alien_now["refunds"]),
        (
            &json!("Alien"),
            &json!({"tickets": 1, "gross": 800, "tax": 133, "net": 667})
        )
    );
    assert_eq!(
        (
            &alien_now["admissions"],
            &alien_now["gross"],
            &alien_now["net"]
        ),
        (&json!(-1), &json!(-800), &json!(-667))
    );

    let csv = api
        .admin_get("/api/admin/reports/distributor?week=2099-12-04&format=csv")
        .await;
    let text = csv.body.as_str().expect("CSV text").to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        r#""film","showing","category","admissions","gross","tax","net","comps""#
    );
    assert!(
        lines.contains(
            &r#""Stalker","2099-12-04 19:30:00 UTC","Comps","1","0.00","0.00","0.00","""#
        ) && lines.contains(&r#""Stalker","","Total","2","20.00","3.33","16.67","1""#),
        "{text}"
    );

    let bad = api
        .admin_get("/api/admin/reports/distributor?week=last-friday")
        .await;
    assert_eq!(
        (bad.status, &bad.body["error"]),
        (400, &json!("invalid_request"))
    );
    let stranger = api
        .send(
            Method::GET,
            "/api/admin/reports/distributor?week=2099-12-04",
            None,
            &[],
        )
        .await;
    assert_eq!(stranger.status, 401);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_days_sales_by_channel_and_category_and_its_summary_agree_with_square() {
    let stack = vat_in_utc();
    let api = Api::new(&stack);
    let film = api.create_film("Solaris").await;
    let sid = api
        .create_showing_of(&film, "2099-12-04T19:30:00Z", 1200)
        .await;
    // Online 2 × 12.00, one of them refunded; cash 12.00; a comp.
    let online = api.buy(&sid, &["A1", "A2"]).await;
    let order_id = online.body["order_id"].as_str().unwrap().to_string();
    for body in [
        json!({"seats": ["A3"], "paid": "cash"}),
        json!({"seats": ["A4"], "paid": "comp", "reason": "Press"}),
    ] {
        let sold = api
            .admin_post(&format!("/api/admin/showings/{sid}/box-office"), Some(body))
            .await;
        assert_eq!(sold.status, 201, "{:?}", sold.body);
    }
    let ticket = &online.body["tickets"][0];
    let refund = api.refund_tickets(&order_id, &[ticket["id"].clone()]).await;
    assert_eq!(refund.status, 202, "{:?}", refund.body);
    // Its seat is back on sale once the money went back.
    api.seat_map_when(&sid, ticket["seat"].as_str().unwrap(), "available")
        .await;

    let today = today();
    let sales = api
        .admin_get(&format!("/api/admin/reports/sales?from={today}&to={today}"))
        .await;
    assert_eq!(sales.status, 200, "{:?}", sales.body);
    let sales = sales.body;
    // Sold today: 4 tickets, 36.00 (VAT 20/120 of 24.00 online, 2.00 +
    // 2.00, and of 12.00 cash, 2.00; none on the comp). Square took 24.00
    // and gave 12.00 back.
    assert_eq!(
        sales["days"],
        json!([{"date": today.to_string(), "tickets": 4, "gross": 3600, "tax": 600, "net": 3000,
            "square": {"captured": 2400, "refunded": 1200, "net": 1200}}])
    );
    assert_eq!(
        sales["by_channel"],
        json!([
            {"name": "online", "tickets": 2, "gross": 2400, "tax": 400, "net": 2000},
            {"name": "cash", "tickets": 1, "gross": 1200, "tax": 200, "net": 1000},
            {"name": "comp", "tickets": 1, "gross": 0, "tax": 0, "net": 0}
        ])
    );
    // A comp is sold at the box office's "Comp" price.
    assert_eq!(
        sales["by_category"],
        json!([
            {"name": "Comp", "tickets": 1, "gross": 0, "tax": 0, "net": 0},
            {"name": "Standard", "tickets": 3, "gross": 3600, "tax": 600, "net": 3000}
        ])
    );
    let daily = api
        .admin_get(&format!("/api/admin/reports/daily?date={today}"))
        .await;
    assert_eq!(daily.status, 200, "{:?}", daily.body);
    let daily = daily.body;
    assert_eq!(
        (&daily["captured"], &daily["refunded"], &daily["net"]),
        (&json!(2400), &json!(1200), &json!(1200)),
        "the sales report's figures: {daily}"
    );
    assert_eq!(
        daily["square"],
        json!({"captured": 2400, "payments": 1, "differences": []})
    );
    assert_eq!(daily["agrees"], true);

    let csv = api
        .admin_get(&format!(
            "/api/admin/reports/sales?from={today}&to={today}&format=csv"
        ))
        .await;
    let text = csv.body.as_str().expect("CSV text").to_string();
    assert!(
        text.contains(&format!(
            r#""day","{today}","4","36.00","6.00","30.00","24.00","12.00","12.00""#
        )),
        "{text}"
    );
    let wide = api
        .admin_get("/api/admin/reports/sales?from=2026-01-01&to=2027-06-01")
        .await;
    assert_eq!(wide.status, 400, "{:?}", wide.body);
}
