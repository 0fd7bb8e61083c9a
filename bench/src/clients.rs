//! What each simulated client does in a loop: hit a floor, hold and release
//! seats as a buyer, watch the seat map as a viewer (over a socket, or by
//! polling), or hold and pay.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Method;

use crate::http::Http;
use crate::load::{back_off, Kind, Recorder};
use crate::room::{hold_body, Room};

/// Posts to a floor endpoint as fast as answers come.
pub async fn floor(http: Http, path: Arc<str>, kind: Kind, mut rec: Recorder) -> Recorder {
    while rec.running() {
        let started = Instant::now();
        match http.send(Method::POST, &path, None, None).await {
            Ok(answer) => rec.record_seq(
                kind,
                answer.status,
                started,
                answer.body.len(),
                None,
                decided_at(&answer.body),
            ),
            Err(_) => {
                rec.record(kind, 0, started, 0);
                back_off().await;
            }
        }
    }
    rec
}

/// One hold request, recorded as [`Kind::Hold`]; keeps the session cookie
/// it is given, and answers the hold's id when granted. A request that
/// got no answer backs off first.
async fn hold(
    http: &Http,
    holds: &str,
    seats: &[String],
    cookie: &mut Option<String>,
    rec: &mut Recorder,
) -> Option<String> {
    let started = Instant::now();
    let sent = http
        .send(
            Method::POST,
            holds,
            Some(hold_body(seats)),
            cookie.as_deref(),
        )
        .await;
    let Ok(answer) = sent else {
        rec.record(Kind::Hold, 0, started, 0);
        back_off().await;
        return None;
    };
    rec.record(Kind::Hold, answer.status, started, answer.body.len());
    if answer.cookie.is_some() {
        *cookie = answer.cookie;
    }
    (answer.status == 201).then(|| hold_id(&answer.body))?
}

fn hold_id(body: &[u8]) -> Option<String> {
    let granted: serde_json::Value = serde_json::from_slice(body).ok()?;
    granted["hold_id"].as_str().map(str::to_string)
}

/// One buyer with one session: holds a random pair of seats and, when it
/// gets them, releases them at once (a buyer may have one live hold per
/// showing), then tries again. Both requests are recorded, as
/// [`Kind::Hold`] and [`Kind::Release`].
pub async fn buyer(http: Http, sid: Arc<str>, room: Room, mut rec: Recorder) -> Recorder {
    let holds = format!("/api/showings/{sid}/holds");
    let mut cookie: Option<String> = None;
    while rec.running() {
        let Some(hold) = hold(&http, &holds, &room.random_pair(), &mut cookie, &mut rec).await
        else {
            continue;
        };
        let started = Instant::now();
        let status = http
            .send(
                Method::DELETE,
                &format!("{holds}/{hold}"),
                None,
                cookie.as_deref(),
            )
            .await
            .map_or(0, |a| a.status);
        rec.record(Kind::Release, status, started, 0);
    }
    rec
}

/// How often a viewer's page polls the seat map when it has no socket
/// (`REFRESH_MS` in `public/showing.js`).
pub const VIEWER_POLL: Duration = Duration::from_secs(10);

/// A viewer whose page has no socket (a network that blocks WebSockets):
/// GETs the seat map every [`VIEWER_POLL`] (the compact form), starting at
/// a random moment within the first period so that viewers spread evenly.
pub async fn viewer(http: Http, sid: Arc<str>, mut rec: Recorder) -> Recorder {
    let seats = format!("/api/showings/{sid}/seats?format=codes");
    let offset = Duration::from_millis(fastrand::u64(0..VIEWER_POLL.as_millis() as u64));
    let mut next = Instant::now() + offset;
    loop {
        tokio::time::sleep_until(next.min(rec.end()).into()).await;
        if !rec.running() {
            return rec;
        }
        next += VIEWER_POLL;
        let started = Instant::now();
        match http.send(Method::GET, &seats, None, None).await {
            Ok(answer) => rec.record(Kind::SeatMap, answer.status, started, answer.body.len()),
            Err(_) => rec.record(Kind::SeatMap, 0, started, 0),
        }
    }
}

/// A watching page's socket.
pub type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How often a watching page checks its socket with "ping" (`PING_MS` in
/// `public/app.js`).
pub const VIEWER_PING: Duration = Duration::from_secs(30);

/// Opens `count` watching sockets on the showing, `at_once` at a time, as
/// that many seat map pages would; answers them and how long opening them
/// took. Opening is not measured with the load: a page opens its socket
/// once, and the measure is what watching costs after.
pub async fn open_watchers(
    http: &Http,
    sid: &str,
    count: usize,
    at_once: usize,
) -> (Vec<Socket>, Duration) {
    let url = http.ws_url(&format!("/api/showings/{sid}/live"));
    let started = Instant::now();
    let mut sockets = Vec::with_capacity(count);
    while sockets.len() < count {
        let batch = at_once.min(count - sockets.len());
        let opening = (0..batch).map(|_| tokio_tungstenite::connect_async(url.as_str()));
        for opened in futures_util::future::join_all(opening).await {
            match opened {
                Ok((socket, _)) => sockets.push(socket),
                Err(e) => panic!("a watcher's socket did not open: {e}"),
            }
        }
    }
    (sockets, started.elapsed())
}

/// A viewer whose page has its socket open, as the seat map page does:
/// it reads every push and sends "ping" every [`VIEWER_PING`] from a
/// random start. (The page reads the map over HTTP only when a push does
/// not follow the one before it, which on a socket that stays open
/// happens at most once, just after it opens.)
pub async fn live_viewer(mut socket: Socket, mut rec: Recorder) -> Recorder {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let offset = Duration::from_millis(fastrand::u64(0..VIEWER_PING.as_millis() as u64));
    let mut ping = Instant::now() + offset;
    while rec.running() {
        tokio::select! {
            message = socket.next() => match message {
                Some(Ok(Message::Text(text))) if text.as_str() != "pong" => {
                    rec.record(Kind::Push, 200, Instant::now(), text.len());
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => {
                    rec.record(Kind::Push, 0, Instant::now(), 0);
                    return rec;
                }
            },
            _ = tokio::time::sleep_until(ping.min(rec.end()).into()) => {
                if Instant::now() >= ping {
                    ping += VIEWER_PING;
                    let _ = socket.send(Message::text("ping")).await;
                }
            }
        }
    }
    let _ = socket.close(None).await;
    rec
}

/// The card token the Square stand-in approves.
pub const APPROVED_CARD: &str = "cnon:card-nonce-ok";

/// A buyer who pays: holds the next pair of seats in its own row (so
/// buyers never collide) and checks out with the approved test card.
/// Records the hold and the checkout; `lane` is the row.
pub async fn payer(
    http: Http,
    sid: Arc<str>,
    room: Room,
    lane: u32,
    mut rec: Recorder,
) -> Recorder {
    let holds = format!("/api/showings/{sid}/holds");
    let mut cookie: Option<String> = None;
    let mut first = 1;
    while rec.running() && first < room.per_row {
        let seats = room.pair(lane % room.rows, first);
        first += 2;
        let Some(hold) = hold(&http, &holds, &seats, &mut cookie, &mut rec).await else {
            continue;
        };
        let pay = serde_json::json!({
            "source_id": APPROVED_CARD, "email": "bench@example.com", "name": "Bench Buyer"
        })
        .to_string();
        let started = Instant::now();
        let path = format!("{holds}/{hold}/checkout");
        match http
            .send(Method::POST, &path, Some(pay), cookie.as_deref())
            .await
        {
            Ok(answer) => rec.record(Kind::Checkout, answer.status, started, answer.body.len()),
            Err(_) => rec.record(Kind::Checkout, 0, started, 0),
        }
    }
    rec
}

/// Seats of each showing in the one-seat measures, as in the reference.
pub const SEATS_PER_SHOWING: usize = 60;

/// Where one-seat requests go: the next seat of the next showing of 60,
/// shared by every client of a phase, so each request asks for a seat
/// nobody asked for before, as a new buyer (no cookie), and the stream
/// moves on to a new showing every 60 seats.
pub struct SeatStream {
    next: std::sync::atomic::AtomicUsize,
    /// Each showing's request path.
    paths: Vec<String>,
    /// The body names the seat as the reference reads it (`{"seat"}`), or
    /// as the product does (`{"seats": […]}`).
    reference: bool,
}

impl SeatStream {
    /// The product's showings, by id.
    pub fn product(showings: &[Arc<str>]) -> SeatStream {
        SeatStream {
            next: 0.into(),
            paths: showings
                .iter()
                .map(|sid| format!("/api/showings/{sid}/holds"))
                .collect(),
            reference: false,
        }
    }

    /// The hold's Worker half (`/api/bench/showings/{sid}/hold-worker`) for
    /// the same showings: the same requests, with an empty call to the
    /// object in place of the hold.
    pub fn worker_half(showings: &[Arc<str>]) -> SeatStream {
        SeatStream {
            next: 0.into(),
            paths: showings
                .iter()
                .map(|sid| format!("/api/bench/showings/{sid}/hold-worker"))
                .collect(),
            reference: false,
        }
    }

    /// The reference's showings, made by name on first use.
    pub fn reference(tag: &str, showings: usize) -> SeatStream {
        SeatStream {
            next: 0.into(),
            paths: (0..showings).map(|n| format!("/book/{tag}-{n}")).collect(),
            reference: true,
        }
    }

    /// The next request: its path, its body, and its place in the stream.
    fn next(&self) -> (&str, String, u32) {
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = &self.paths[(n / SEATS_PER_SHOWING) % self.paths.len()];
        let seat = format!("A{}", n % SEATS_PER_SHOWING + 1);
        let body = if self.reference {
            serde_json::json!({ "seat": seat }).to_string()
        } else {
            hold_body(&[seat])
        };
        (path, body, n as u32)
    }
}

/// When the server decided a one-seat request, by its clock (ms since the
/// epoch), from the answer: the reference's `at`, or a granted hold's
/// expiry less the time it had left (`expires_at_ms - expires_in_ms`,
/// both from the object's one reading of its clock).
fn decided_at(body: &[u8]) -> Option<u64> {
    #[derive(serde::Deserialize)]
    struct Times {
        at: Option<u64>,
        expires_at_ms: Option<u64>,
        expires_in_ms: Option<u64>,
    }
    let times: Times = serde_json::from_slice(body).ok()?;
    times.at.or_else(|| {
        let expires = times.expires_at_ms.filter(|&ms| ms > 0)?;
        Some(expires - times.expires_in_ms?.min(expires))
    })
}

/// Asks for the stream's next seat as a new buyer, as fast as answers come.
pub async fn one_seat(
    http: Http,
    stream: Arc<SeatStream>,
    kind: Kind,
    mut rec: Recorder,
) -> Recorder {
    while rec.running() {
        let (path, body, seq) = stream.next();
        let started = Instant::now();
        match http.send(Method::POST, path, Some(body), None).await {
            Ok(answer) => rec.record_seq(
                kind,
                answer.status,
                started,
                answer.body.len(),
                Some(seq),
                decided_at(&answer.body),
            ),
            Err(_) => {
                rec.record_seq(kind, 0, started, 0, Some(seq), None);
                back_off().await;
            }
        }
    }
    rec
}

#[cfg(test)]
mod tests {
    use super::decided_at;

    #[test]
    fn the_decision_time_is_read_from_either_kind_of_answer() {
        assert_eq!(
            decided_at(br#"{"ok":true,"at":1700000000123}"#),
            Some(1_700_000_000_123)
        );
        let hold = br#"{"hold_id":"h","seats":["A1"],"expires_at_ms":1700000600000,"expires_in_ms":600000}"#;
        assert_eq!(decided_at(hold), Some(1_700_000_000_000));
        // The product's floors and refusals say nothing of when.
        assert_eq!(decided_at(br#"{"ok":true}"#), None);
        assert_eq!(decided_at(br#"{"error":{"code":"seats_taken"}}"#), None);
        assert_eq!(decided_at(b"not json"), None);
    }
}
