//! A small client for the product's HTTP API, so tests read like the
//! behaviour they check.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::Stack;

/// One answer: status, JSON body (or `Null`), and the headers tests look at.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
    /// The `name=value` part of a `Set-Cookie` header, ready to send back.
    pub cookie: Option<String>,
    /// The whole `Set-Cookie` header, attributes included.
    pub set_cookie: Option<String>,
    pub retry_after: Option<String>,
    /// Every header, names in lower case.
    pub headers: Vec<(String, String)>,
    /// The dev server lost the first answer and the request was sent again
    /// (see [`Api::send`]).
    pub resent: bool,
}

impl Reply {
    /// A header's value, if it was sent.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Clone)]
pub struct Api {
    http: reqwest::Client,
    base: String,
    admin_token: String,
}

/// A 16-seat room (rows A and B of 8) far in the future, as the admin API
/// takes it; `hold_ttl_ms` shortens holds for expiry tests.
/// A showing with two prices, adult 1200 and child 800 (USD), and one row
/// of eight seats.
pub fn family_showing() -> Value {
    json!({
        "title": "My Neighbour Totoro",
        "starts_at": "2099-12-05T15:00:00Z",
        "currency": "USD",
        "prices": [
            {"id": "adult", "name": "Adult", "amount": 1200},
            {"id": "child", "name": "Child", "amount": 800}
        ],
        "layout": {"rows": [{"name": "A", "seats": 8}], "allow_single_seats": true}
    })
}

/// Rows A and B of 8 seats at $12. Single seats may be left: the tests
/// that take this room name the seats what they test needs, and the rule
/// that keeps buyers from stranding one is tested on rooms of its own
/// (`tests/seating.rs`, `browser/best_seats.mjs`).
pub fn sixteen_seat_room(hold_ttl_ms: Option<u64>) -> Value {
    let mut body = json!({
        "title": "Paris, Texas",
        "starts_at": "2099-12-05T19:30:00Z",
        "price": {"amount": 1200, "currency": "USD"},
        "layout": {
            "rows": [{"name": "A", "seats": 8}, {"name": "B", "seats": 8}],
            "allow_single_seats": true
        }
    });
    if let Some(ttl) = hold_ttl_ms {
        body["hold_ttl_ms"] = json!(ttl);
    }
    body
}

impl Api {
    pub fn new(stack: &Stack) -> Api {
        Api {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(256)
                // No request should take this long; a hang fails the test
                // instead of stalling the suite.
                .timeout(std::time::Duration::from_secs(60))
                .build()
                .expect("http client"),
            base: stack.base_url.clone(),
            admin_token: stack.admin_token.clone(),
        }
    }

    pub fn admin_token(&self) -> &str {
        &self.admin_token
    }

    /// Sends a request; `body` is sent as raw bytes with a JSON content type.
    ///
    /// wrangler dev's proxy sometimes loses a request on its way to the
    /// Worker and answers 503 "Your worker restarted mid-request" without
    /// the Worker having restarted (workers-sdk issue 14641: its keep-alive
    /// to workerd). The Worker never answers that itself, so such an
    /// answer is the dev server's, and the request is sent once more.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let reply = self
            .send_once(method.clone(), path, body.clone(), headers)
            .await;
        let lost = reply.status == 503
            && reply
                .body
                .as_str()
                .is_some_and(|b| b.starts_with("Your worker restarted mid-request"));
        if !lost {
            return reply;
        }
        eprintln!(
            "e2e: wrangler dev lost {method} {path} on its way to the Worker; sending it again"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        Reply {
            resent: true,
            ..self.send_once(method, path, body, headers).await
        }
    }

    async fn send_once(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        if let Some(body) = body {
            req = req.header("content-type", "application/json").body(body);
        }
        let resp = req.send().await.expect("request reached the server");
        let header = |name: &str| {
            resp.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let set_cookie = header("set-cookie");
        let cookie = set_cookie
            .as_deref()
            .and_then(|c| c.split(';').next().map(str::to_string));
        let retry_after = header("retry-after");
        let headers = resp
            .headers()
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_string(),
                    v.to_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let status = resp.status();
        let bytes = resp.bytes().await.expect("body");
        let body = if status == StatusCode::NO_CONTENT || bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| json!(String::from_utf8_lossy(&bytes)))
        };
        Reply {
            status: status.as_u16(),
            body,
            cookie,
            set_cookie,
            retry_after,
            headers,
            resent: false,
        }
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, None, &[]).await
    }

    pub async fn create_showing(&self, showing: Value) -> String {
        let auth = format!("Bearer {}", self.admin_token);
        let reply = self
            .send(
                Method::POST,
                "/api/admin/showings",
                Some(showing.to_string().into_bytes()),
                &[("authorization", &auth)],
            )
            .await;
        assert_eq!(reply.status, 201, "create showing: {:?}", reply.body);
        reply.body["id"].as_str().expect("id").to_string()
    }

    /// A film of this title; answers its id.
    pub async fn create_film(&self, title: &str) -> String {
        let film = self
            .admin_post("/api/admin/films", Some(json!({"title": title})))
            .await;
        assert_eq!(film.status, 201, "create film: {:?}", film.body);
        film.body["id"].as_str().expect("id").to_string()
    }

    /// A showing of `film` in a 16-seat room (rows A and B of 8) at one
    /// price in USD; answers its id.
    pub async fn create_showing_of(&self, film: &str, starts_at: &str, price: u64) -> String {
        self.create_showing(json!({
            "film_id": film, "starts_at": starts_at,
            "price": {"amount": price, "currency": "USD"},
            "layout": {
                "rows": [{"name": "A", "seats": 8}, {"name": "B", "seats": 8}],
                "allow_single_seats": true
            }
        }))
        .await
    }

    /// `GET` from an admin endpoint with the admin token.
    pub async fn admin_get(&self, path: &str) -> Reply {
        self.admin(Method::GET, path, None).await
    }

    /// `POST` to an admin endpoint with the admin token.
    pub async fn admin_post(&self, path: &str, body: Option<Value>) -> Reply {
        self.admin(Method::POST, path, body).await
    }

    /// Draws a new door PIN for a showing, as staff do in admin, and
    /// answers it.
    pub async fn draw_door_pin(&self, sid: &str) -> String {
        let path = format!("/api/admin/showings/{sid}/door-pin");
        let reply = self.admin_post(&path, None).await;
        assert_eq!(reply.status, 200, "draw a door PIN: {:?}", reply.body);
        reply.body["pin"].as_str().expect("a PIN").to_string()
    }

    /// Signs a door device in to `sid` with the staff door token: its door
    /// session and the device id the Worker drew, for `X-Door-Session`.
    pub async fn door_session(&self, sid: &str) -> (String, String) {
        let token = format!("Bearer door-{}", self.admin_token);
        let path = format!("/api/door/showings/{sid}/session");
        let reply = self
            .send(Method::POST, &path, None, &[("authorization", &token)])
            .await;
        assert_eq!(reply.status, 200, "a door session: {:?}", reply.body);
        let text = |key: &str| reply.body[key].as_str().expect(key).to_string();
        (text("session"), text("device"))
    }

    /// Any request to an admin endpoint with the admin token.
    pub async fn admin(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        let auth = format!("Bearer {}", self.admin_token);
        let body = body.map(|b| b.to_string().into_bytes());
        self.send(method, path, body, &[("authorization", &auth)])
            .await
    }

    /// `POST …/holds` for `seats`, as the buyer of `cookie` (a new buyer when `None`).
    pub async fn hold(&self, sid: &str, seats: &[&str], cookie: Option<&str>) -> Reply {
        let body = json!({ "seats": seats }).to_string().into_bytes();
        let mut headers = Vec::new();
        if let Some(cookie) = cookie {
            headers.push(("cookie", cookie));
        }
        self.send(
            Method::POST,
            &format!("/api/showings/{sid}/holds"),
            Some(body),
            &headers,
        )
        .await
    }

    /// `POST …/holds` with any body (best available's, a zone's count), as
    /// a new buyer.
    pub async fn hold_with(&self, sid: &str, body: Value) -> Reply {
        self.send(
            Method::POST,
            &format!("/api/showings/{sid}/holds"),
            Some(body.to_string().into_bytes()),
            &[],
        )
        .await
    }

    /// Holds `seats` and pays for them with a card the stand-in approves.
    pub async fn buy(&self, sid: &str, seats: &[&str]) -> Reply {
        self.buy_as(sid, seats, "ana@example.com", "Ana Lima").await
    }

    /// [`Api::buy`] as a buyer of the given e-mail and name.
    pub async fn buy_as(&self, sid: &str, seats: &[&str], email: &str, name: &str) -> Reply {
        let hold = self.hold(sid, seats, None).await;
        assert_eq!(hold.status, 201, "hold {seats:?}: {:?}", hold.body);
        let paid = self
            .checkout_as(sid, &hold, "cnon:card-nonce-ok", email, name)
            .await;
        assert_eq!(paid.status, 201, "{:?}", paid.body);
        paid
    }

    /// Staff refund these tickets of an order.
    pub async fn refund_tickets(&self, order_id: &str, ticket_ids: &[Value]) -> Reply {
        self.admin_post(
            &format!("/api/admin/orders/{order_id}/refund"),
            Some(json!({ "ticket_ids": ticket_ids })),
        )
        .await
    }

    /// Scans `code` at the door of `sid` with the staff door token; answers
    /// the body (`result`: admitted, already_checked_in, …).
    pub async fn door_scan(&self, code: &str, sid: &str) -> Value {
        let token = format!("Bearer door-{}", self.admin_token);
        let body = json!({"code": code, "showing_id": sid});
        self.send(
            Method::POST,
            "/api/door/checkin",
            Some(body.to_string().into_bytes()),
            &[("authorization", &token)],
        )
        .await
        .body
    }

    /// `POST …/holds/{hold}/checkout` paying with `source_id` (a card token).
    pub async fn checkout(&self, sid: &str, hold: &Reply, source_id: &str) -> Reply {
        self.checkout_as(sid, hold, source_id, "ana@example.com", "Ana Lima")
            .await
    }

    /// [`Api::checkout`] as a buyer of the given e-mail and name.
    pub async fn checkout_as(
        &self,
        sid: &str,
        hold: &Reply,
        source_id: &str,
        email: &str,
        name: &str,
    ) -> Reply {
        let hold_id = hold.body["hold_id"].as_str().expect("a granted hold");
        let cookie = hold.cookie.as_deref().expect("the hold's session");
        let body = json!({"source_id": source_id, "email": email, "name": name});
        let path = format!("/api/showings/{sid}/holds/{hold_id}/checkout");
        let headers = [("cookie", cookie)];
        let send = || {
            self.send(
                Method::POST,
                &path,
                Some(body.to_string().into_bytes()),
                &headers,
            )
        };
        let mut reply = send().await;
        // The dev server lost the first answer, not the request: the first
        // checkout is still settling the order, so the second was told
        // "pending" at once. Asked again, as the page does, it is answered
        // as the order ends (the first waits at most 20 s).
        for _ in 0..150 {
            if !(reply.resent && reply.status == 202) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            reply = Reply {
                resent: true,
                ..send().await
            };
        }
        reply
    }

    /// The seat map: seat name → "available" | "held" | "sold".
    /// The staff view's sales totals of a showing.
    pub async fn totals(&self, sid: &str) -> Value {
        let reply = self
            .admin(Method::GET, &format!("/api/admin/showings/{sid}"), None)
            .await;
        assert_eq!(reply.status, 200, "showing: {:?}", reply.body);
        reply.body["totals"].clone()
    }

    /// The showing's tickets export, as text.
    pub async fn tickets_csv(&self, sid: &str) -> String {
        let reply = self
            .admin(
                Method::GET,
                &format!("/api/admin/showings/{sid}/tickets.csv"),
                None,
            )
            .await;
        assert_eq!(reply.status, 200);
        reply.body.as_str().expect("CSV text").to_string()
    }

    /// The seat map as the showing's object has it now: the staff view,
    /// since the buyers' `…/seats` is the Worker's copy (about a second old).
    pub async fn seat_map(&self, sid: &str) -> Value {
        let reply = self
            .admin(Method::GET, &format!("/api/admin/showings/{sid}"), None)
            .await;
        assert_eq!(reply.status, 200, "seat map: {:?}", reply.body);
        reply.body["availability"]["seats"].clone()
    }

    /// The seat map once `seat` reads `want` (or as it is after 15 s, for
    /// the caller's assertion to show).
    pub async fn seat_map_when(&self, sid: &str, seat: &str, want: &str) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        loop {
            let map = self.seat_map(sid).await;
            if map[seat] == want || std::time::Instant::now() > deadline {
                return map;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
    }

    /// Staff refund a whole order, and its tickets are void once Square's
    /// webhook has come (up to ten seconds).
    pub async fn refund_until_void(&self, stack: &Stack, order_id: &str) {
        let asked = self
            .admin_post(&format!("/api/admin/orders/{order_id}/refund"), None)
            .await;
        assert_eq!(asked.status, 202, "{:?}", asked.body);
        let voided = format!("SELECT DISTINCT status FROM tickets WHERE order_id = '{order_id}'");
        for _ in 0..100 {
            if stack.d1_query(&voided) == [json!({"status": "void"})] {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!(
            "the order's tickets are not void: {:?}",
            stack.d1_query(&voided)
        );
    }

    pub async fn stats(&self, sid: &str) -> Value {
        let auth = format!("Bearer {}", self.admin_token);
        let reply = self
            .send(
                Method::GET,
                &format!("/api/admin/showings/{sid}/stats"),
                None,
                &[("authorization", &auth)],
            )
            .await;
        assert_eq!(reply.status, 200, "stats: {:?}", reply.body);
        reply.body
    }
}
