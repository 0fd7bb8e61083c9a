//! Seats the way cinemas sell them, through the real Worker and object:
//! best available in one decision, the single-seat rule for buyers, and
//! staff exempt from it at the box office.

use std::collections::BTreeSet;

use e2e::{Api, Reply, Stack};
use serde_json::{json, Value};
use tokio::task::JoinSet;

async fn hold(api: &Api, sid: &str, body: Value) -> Reply {
    api.hold_with(sid, body).await
}

fn seats(reply: &Reply) -> Vec<String> {
    let list = reply.body["seats"]
        .as_array()
        .unwrap_or_else(|| panic!("no seats in {:?}", reply.body));
    list.iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Rows A to C of 8 seats; C1 is a wheelchair space and C2 its
/// companion's seat.
fn room(extra: Value) -> Value {
    let mut body = json!({
        "title": "Stalker",
        "starts_at": "2099-12-05T19:30:00Z",
        "price": {"amount": 900, "currency": "USD"},
        "prices": [
            {"id": "adult", "name": "Adult", "amount": 900},
            {"id": "child", "name": "Child", "amount": 600}
        ],
        "currency": "USD",
        "max_seats_per_hold": 6,
        "layout": {"rows": [
            {"name": "A", "seats": 8},
            {"name": "B", "seats": 8},
            {"name": "C", "seats": 8, "wheelchair": [1], "companion": [2]}
        ]}
    });
    body.as_object_mut().unwrap().remove("price");
    if let Value::Object(extra) = extra {
        for (key, value) in extra {
            body["layout"][key] = value;
        }
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn best_available_holds_the_best_block_and_a_buyer_cannot_strand_a_seat() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    let sid = api.create_showing(room(json!({}))).await;

    // The best spot is the centre of the row two thirds back: between B
    // and C, the front one winning the tie; the block left of centre
    // wins the tie across.
    let first = hold(&api, &sid, json!({"best": 3, "prices": {"child": 1}})).await;
    assert_eq!(first.status, 201, "{:?}", first.body);
    assert_eq!(seats(&first), ["B3", "B4", "B5"]);
    let priced: Vec<(&str, u64)> = first.body["prices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["category"].as_str().unwrap(),
                p["amount_minor"].as_u64().unwrap(),
            )
        })
        .collect();
    // The categories asked for come first, the default after.
    assert_eq!(priced, [("child", 600), ("adult", 900), ("adult", 900)]);
    assert_eq!(first.body["amount"]["amount"], 2400);

    // Row B is broken up around the best spot now: the best three left
    // together are in row C, level with the centre (C1 and C2 are the
    // wheelchair space and its companion's seat, passed over).
    let second = hold(&api, &sid, json!({"best": 3})).await;
    assert_eq!(second.status, 201, "{:?}", second.body);
    assert_eq!(seats(&second), ["C3", "C4", "C5"]);

    // A buyer naming seats may not leave one alone, and is told which.
    let stranding = hold(&api, &sid, json!({"seats": ["A2"]})).await;
    assert_eq!(stranding.status, 409, "{:?}", stranding.body);
    assert_eq!(stranding.body["error"], "leaves_single_seat");
    assert_eq!(stranding.body["seat"], "A1");
    let map = api.seat_map(&sid).await;
    assert_eq!(map["A1"], "available");
    assert_eq!(map["A2"], "available", "a refused hold holds nothing");

    // The box office is offered the best seats at the counter, and may
    // sell a seat a buyer could not.
    let offered = api
        .admin_get(&format!("/api/admin/showings/{sid}/best?count=2"))
        .await;
    assert_eq!(offered.status, 200, "{:?}", offered.body);
    // B1 and B2 are free but far to the side; the wheelchair space and
    // its companion's seat are not offered unless asked for.
    assert_eq!(seats(&offered), ["A4", "A5"]);
    let sale = api
        .admin_post(
            &format!("/api/admin/showings/{sid}/box-office"),
            Some(json!({"seats": ["A2"], "paid": "cash"})),
        )
        .await;
    assert_eq!(sale.status, 201, "staff are exempt: {:?}", sale.body);

    // Six together: A1 is alone already beside the seat the box office
    // sold, and nothing is left alone at the other end.
    let third = hold(&api, &sid, json!({"best": 6})).await;
    assert_eq!(third.status, 201, "{:?}", third.body);
    assert_eq!(seats(&third), ["A3", "A4", "A5", "A6", "A7", "A8"]);

    // Bad input is refused before the object is asked.
    for (body, code) in [
        (json!({"best": 0}), "no_seats"),
        (json!({"best": 11}), "too_many_seats"),
        (
            json!({"best": 2, "prices": {"child": 3}}),
            "invalid_request",
        ),
        (json!({"best": 2, "seats": ["A1"]}), "bad_json"),
        (json!({"best": "two"}), "bad_json"),
    ] {
        let reply = hold(&api, &sid, body.clone()).await;
        assert_eq!(reply.body["error"], code, "{body}: {:?}", reply.body);
    }
    let unknown = hold(&api, &sid, json!({"best": 2, "prices": {"senior": 1}})).await;
    assert_eq!(unknown.body["error"], "unknown_price", "{:?}", unknown.body);
}

/// A showing of `layout` at $9 a seat, holds of up to 6 seats.
async fn showing_in(api: &Api, layout: Value) -> String {
    api.create_showing(json!({
        "title": "Ran",
        "starts_at": "2099-12-05T19:30:00Z",
        "price": {"amount": 900, "currency": "USD"},
        "max_seats_per_hold": 6,
        "layout": layout
    }))
    .await
}

/// `buyers` new buyers sending `body` at once.
async fn race(api: &Api, sid: &str, buyers: usize, body: Value) -> Vec<Reply> {
    let mut set = JoinSet::new();
    for _ in 0..buyers {
        let (api, sid, body) = (api.clone(), sid.to_string(), body.clone());
        set.spawn(async move { hold(&api, &sid, body).await });
    }
    set.join_all().await
}

async fn held_count(api: &Api, sid: &str) -> usize {
    let map = api.seat_map(sid).await;
    let states = map.as_object().unwrap().values();
    states.filter(|v| *v == "held").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_buyers_race_for_best_seats_and_no_seat_is_held_twice() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    // The single-seat rule on: it lets the last seats of each run go, so
    // the room still sells out.
    let rows = json!({"rows": [{"name": "A", "seats": 8}, {"name": "B", "seats": 8}]});
    let sid = showing_in(&api, rows).await;
    let mut taken = BTreeSet::new();
    for reply in race(&api, &sid, 200, json!({"best": 1})).await {
        match reply.status {
            201 => {
                for seat in seats(&reply) {
                    assert!(taken.insert(seat.clone()), "{seat} held twice");
                }
            }
            409 => assert_eq!(reply.body["error"], "not_enough_seats", "{:?}", reply.body),
            _ => panic!("{:?}", reply.body),
        }
    }
    assert_eq!(taken.len(), 16, "every seat held once: {taken:?}");
    assert_eq!(held_count(&api, &sid).await, 16);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_block_too_large_is_refused_with_the_largest_left_and_split_seats_are_taken_when_asked() {
    let stack = Stack::start();
    let api = Api::new(&stack);
    // One row of 8 with an aisle down the middle: blocks of 4 at most.
    let sid = showing_in(
        &api,
        json!({"rows": [{"name": "A", "seats": 8, "gaps_after": [4]}]}),
    )
    .await;
    let five = hold(&api, &sid, json!({"best": 5})).await;
    assert_eq!(five.status, 409, "{:?}", five.body);
    assert_eq!(five.body["error"], "no_adjacent_seats");
    assert_eq!(five.body["largest_block"], 4);
    let split = hold(&api, &sid, json!({"best": 5, "together": false})).await;
    assert_eq!(split.status, 201, "{:?}", split.body);
    assert_eq!(seats(&split).len(), 5);

    // Many buyers racing for best pairs: each winner gets two seats side
    // by side, and no seat is held twice.
    let rows = json!({"rows": [
        {"name": "A", "seats": 8}, {"name": "B", "seats": 8}, {"name": "C", "seats": 8}
    ]});
    let sid = showing_in(&api, rows).await;
    let replies = race(&api, &sid, 10, json!({"best": 2})).await;
    let mut taken = BTreeSet::new();
    let mut won = 0;
    for reply in &replies {
        match reply.status {
            201 => {
                won += 1;
                let pair = seats(reply);
                let (row, numbers): (BTreeSet<char>, Vec<u32>) = (
                    pair.iter().map(|s| s.chars().next().unwrap()).collect(),
                    pair.iter().map(|s| s[1..].parse().unwrap()).collect(),
                );
                assert_eq!(row.len(), 1, "one row: {pair:?}");
                assert_eq!(numbers[1], numbers[0] + 1, "side by side: {pair:?}");
                for seat in pair {
                    assert!(taken.insert(seat.clone()), "{seat} held twice");
                }
            }
            409 => assert!(
                ["no_adjacent_seats", "not_enough_seats"]
                    .contains(&reply.body["error"].as_str().unwrap()),
                "{:?}",
                reply.body
            ),
            _ => panic!("{:?}", reply.body),
        }
    }
    assert_eq!(held_count(&api, &sid).await, 2 * won);
    // Whatever order they arrive in, the same pairs are sold: centre
    // first, then either side, each row's end seats left as singles
    // that a pair could not take without stranding one.
    let want: BTreeSet<String> = ["A", "B", "C"]
        .iter()
        .flat_map(|row| (2..=7).map(move |n| format!("{row}{n}")))
        .collect();
    assert_eq!((won, taken), (9, want));
}
