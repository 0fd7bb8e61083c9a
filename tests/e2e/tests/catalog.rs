//! Films and screens: kept once, referred to by showings. A showing of a
//! film takes its title, one in a screen its saved layout (wheelchair
//! spaces and all); editing the film or the screen carries over to the
//! showings that have sold nothing and never to one that has; the listing
//! groups showings by film.

use e2e::{Api, Method, Stack};
use serde_json::{json, Value};

async fn showing_in(api: &Api, film: &str, screen: &str, starts_at: &str) -> String {
    api.create_showing(json!({
        "film_id": film, "screen_id": screen, "starts_at": starts_at,
        "price": {"amount": 1000, "currency": "USD"}
    }))
    .await
}

fn listed<'a>(list: &'a Value, sid: &str) -> &'a Value {
    list["showings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == sid)
        .expect("listed")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn showings_take_their_film_and_screen_and_edits_spare_those_with_sales() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let film = api
        .admin_post(
            "/api/admin/films",
            Some(json!({
                "title": "Paris, Texas", "runtime_minutes": 145, "certificate": "15",
                "synopsis": "A man walks out of the desert.",
                "poster_url": "https://images.example/paris-texas.jpg"
            })),
        )
        .await;
    assert_eq!(film.status, 201, "{:?}", film.body);
    let film_id = film.body["id"].as_str().unwrap().to_string();
    let refused = api
        .admin_post(
            "/api/admin/films",
            Some(json!({"title": "X", "poster_url": "javascript:alert(1)"})),
        )
        .await;
    assert_eq!(
        (refused.status, &refused.body["error"]),
        (400, &json!("invalid_catalog"))
    );
    let screen = api
        .admin_post(
            "/api/admin/screens",
            Some(json!({"name": "Screen 1", "layout": {"rows": [
                {"name": "A", "seats": 6, "wheelchair": [1], "companion": [2]},
                {"name": "B", "seats": 6}
            ], "wheelchair_at_desk_only": true}})),
        )
        .await;
    assert_eq!(screen.status, 201, "{:?}", screen.body);
    assert_eq!(screen.body["seat_count"], 12);
    let screen_id = screen.body["id"].as_str().unwrap().to_string();

    let sold = showing_in(&api, &film_id, &screen_id, "2099-12-05T19:30:00Z").await;
    let unsold = showing_in(&api, &film_id, &screen_id, "2099-12-06T19:30:00Z").await;
    let read = api.get(&format!("/api/showings/{sold}")).await;
    assert_eq!(read.body["showing"]["title"], "Paris, Texas");
    let version = read.body["showing"]["layout_version"].as_str().unwrap();
    let layout = api.get(&format!("/api/layouts/{version}")).await;
    assert_eq!(layout.body["rows"][0]["wheelchair"], json!([1]));
    // The wheelchair space and its companion seat are sold at the desk.
    let online = api.hold(&sold, &["A1", "A2"], None).await;
    assert_eq!(
        (online.status, &online.body["error"]),
        (409, &json!("box_office_only")),
        "{:?}",
        online.body
    );
    let desk = api
        .admin_post(
            &format!("/api/admin/showings/{sold}/box-office"),
            Some(json!({"seats": ["A1", "A2"], "paid": "cash"})),
        )
        .await;
    assert_eq!(desk.status, 201, "{:?}", desk.body);
    api.buy(&sold, &["B3"]).await;

    // Edits carry over to the showing that sold nothing only.
    let retitled = api
        .admin(
            Method::PUT,
            &format!("/api/admin/films/{film_id}"),
            Some(json!({
                "title": "Paris, Texas (4K restoration)", "runtime_minutes": 147,
                "certificate": "15", "poster_url": "https://images.example/paris-texas.jpg"
            })),
        )
        .await;
    assert_eq!(retitled.status, 200, "{:?}", retitled.body);
    assert_eq!(retitled.body["showings_updated"], json!([unsold]));
    let relaid = api
        .admin(
            Method::PUT,
            &format!("/api/admin/screens/{screen_id}"),
            Some(json!({"name": "Screen 1", "layout": {"rows": [
                {"name": "A", "seats": 8, "wheelchair": [1], "companion": [2]},
                {"name": "B", "seats": 8}
            ]}})),
        )
        .await;
    assert_eq!(relaid.status, 200, "{:?}", relaid.body);
    assert_eq!(relaid.body["showings_updated"], json!([unsold]));
    let title_of = |sid: String| {
        let api = &api;
        async move { api.get(&format!("/api/showings/{sid}")).await.body["showing"].clone() }
    };
    let kept = title_of(sold.clone()).await;
    assert_eq!(kept["title"], "Paris, Texas");
    assert_eq!(kept["seat_count"], 12);
    let changed = title_of(unsold.clone()).await;
    assert_eq!(changed["title"], "Paris, Texas (4K restoration)");
    assert_eq!(changed["seat_count"], 16);
    assert_eq!(api.seat_map(&unsold).await["A8"], "available");
    // No longer desk-only in the new layout: a buyer may hold A1 now.
    assert_eq!(api.hold(&unsold, &["A1"], None).await.status, 201);

    // The listing names the film once, with its details.
    let list = api.get("/api/showings").await.body;
    assert_eq!(listed(&list, &sold)["film_id"], film_id.as_str());
    assert_eq!(list["films"][&film_id]["runtime_minutes"], 147);
    assert_eq!(
        list["films"][&film_id]["poster_url"],
        "https://images.example/paris-texas.jpg"
    );
    let missing = api
        .admin_post(
            "/api/admin/showings",
            Some(
                json!({"film_id": "0000000000000000", "screen_id": screen_id,
                "starts_at": "2099-12-07T19:30:00Z", "price": {"amount": 1000, "currency": "USD"}}),
            ),
        )
        .await;
    assert_eq!(
        (missing.status, &missing.body["error"]),
        (400, &json!("invalid_showing"))
    );
}

/// Staff define discount codes: kept in upper case and compared without
/// case (a second "premiere" is refused), each bad field named, listed
/// with what they take off, paused and resumed.
#[tokio::test]
async fn staff_define_list_pause_and_resume_discount_codes() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let made = api
        .admin_post(
            "/api/admin/codes",
            Some(json!({"code": "premiere", "percent_off": 20, "max_uses": 50, "max_uses_per_buyer": 2})),
        )
        .await;
    assert_eq!(made.status, 201, "{:?}", made.body);
    assert_eq!(made.body["code"]["code"], "PREMIERE");
    let again = api
        .admin_post(
            "/api/admin/codes",
            Some(json!({"code": "Premiere", "amount_off": 300})),
        )
        .await;
    assert_eq!(
        (again.status, &again.body["error"]),
        (409, &json!("code_exists"))
    );
    let bad = api
        .admin_post(
            "/api/admin/codes",
            Some(json!({"code": "TEN", "percent_off": 120})),
        )
        .await;
    assert_eq!(
        (bad.status, &bad.body["error"]),
        (400, &json!("invalid_discount_code"))
    );
    assert!(bad.body["detail"]
        .as_str()
        .unwrap()
        .starts_with("percent_off"));
    let fiver = api
        .admin_post(
            "/api/admin/codes",
            Some(json!({"code": "FIVER", "amount_off": 500, "per": "order", "box_office_only": true})),
        )
        .await;
    assert_eq!(fiver.status, 201, "{:?}", fiver.body);

    let paused = api
        .admin_post("/api/admin/codes/premiere/pause", None)
        .await;
    assert_eq!(paused.status, 200, "{:?}", paused.body);
    let listed = api.admin(Method::GET, "/api/admin/codes", None).await.body;
    let codes = listed["codes"].as_array().unwrap();
    let premiere = codes.iter().find(|c| c["code"] == "PREMIERE").unwrap();
    assert_eq!(premiere["off"], json!({"kind": "percent", "percent": 20}));
    assert_eq!(
        (&premiere["max_uses"], &premiere["max_uses_per_buyer"]),
        (&json!(50), &json!(2))
    );
    assert!(premiere["paused_at_ms"].is_number(), "{premiere}");
    let fiver = codes.iter().find(|c| c["code"] == "FIVER").unwrap();
    assert_eq!(
        fiver["off"],
        json!({"kind": "amount", "amount": 500, "per_order": true})
    );
    assert_eq!(fiver["box_office_only"], true);
    assert!(fiver["paused_at_ms"].is_null());

    api.admin_post("/api/admin/codes/PREMIERE/resume", None)
        .await;
    let listed = api.admin(Method::GET, "/api/admin/codes", None).await.body;
    let premiere = listed["codes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["code"] == "PREMIERE")
        .unwrap()
        .clone();
    assert!(premiere["paused_at_ms"].is_null(), "{premiere}");
    assert_eq!(
        api.admin_post("/api/admin/codes/NONE/pause", None)
            .await
            .status,
        404
    );
    let stranger = api.send(Method::GET, "/api/admin/codes", None, &[]).await;
    assert_eq!(stranger.status, 401);
}
