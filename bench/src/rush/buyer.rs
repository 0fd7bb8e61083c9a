//! One buyer of the rush, as the showing page behaves: arrives, waits in
//! the showing's line when it has one (polling as `waitInLine()` in
//! `public/showing.js` does), holds 1 to 4 seats (best available, or
//! chosen from the seat map), and pays, or walks away from the hold.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde::Deserialize;
use serde_json::json;

use crate::clients::APPROVED_CARD;
use crate::http::{Answer, Http};
use crate::load::Kind;
use crate::room::Room;

/// The stand-in's card that is declined (GENERIC_DECLINE).
pub const DECLINED_CARD: &str = "cnon:card-nonce-declined";
/// Holds a buyer tries one after another before waiting: seats chosen
/// from a map a second old can be taken by the time they are asked for.
const QUICK_ATTEMPTS: usize = 6;
/// How long the page waits after an answer that was not 200, before
/// asking the line again.
const RETRY_AFTER_ERROR: Duration = Duration::from_secs(5);
/// How often the page asks again while the showing is sold out for now.
const SOLD_OUT_POLL: Duration = Duration::from_secs(10);
/// How soon a buyer in line asks again if the line's answer did not say
/// (it always does while waiting).
const ASK_AGAIN_UNTOLD_MS: u64 = 10_000;

/// Most requests the buyers have in flight at once. `wrangler dev`'s proxy
/// holds several file descriptors for each open connection and crashed
/// (out of descriptors, at 20,000) with 5,000 buyers each holding one.
pub const MAX_IN_FLIGHT: usize = 1024;

/// What is the same for every buyer of one phase.
pub struct Sale {
    pub http: Http,
    /// Requests of all buyers in flight at once, at most
    /// [`MAX_IN_FLIGHT`]; a buyer waits for a slot, and the wait counts in
    /// its request's time.
    pub slots: tokio::sync::Semaphore,
    pub sid: Arc<str>,
    pub room: Room,
    /// The showing has a waiting room.
    pub line: bool,
    pub opens_at: Instant,
    /// No buyer starts a request after this: the phase has gone on too long.
    pub deadline: Instant,
}

/// What one buyer will do, drawn before the phase.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub arrive_at: Instant,
    pub seats: u32,
    /// Best available (`{"best": n}`), or seats picked from the map.
    pub best: bool,
    /// The first card is declined; the second is approved.
    pub declined_once: bool,
    /// Holds, then walks away without paying: the hold lapses.
    pub abandons: bool,
}

impl Plan {
    /// A buyer of `1..=4` seats arriving at `arrive_at`; one in ten has a
    /// card declined once, one in twenty walks away from the hold.
    pub fn draw(arrive_at: Instant) -> Plan {
        Plan {
            arrive_at,
            seats: fastrand::u32(1..=4),
            best: fastrand::bool(),
            declined_once: fastrand::u32(0..10) == 0,
            abandons: fastrand::u32(0..20) == 0,
        }
    }
}

/// How a buyer's visit ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Paid (201), or the order was finishing in the background (202).
    Paid,
    /// Held seats and walked away.
    Abandoned,
    /// A poll of the line answered `sold_out`.
    ToldSoldOut,
    /// Admitted (or with no line), a hold found no free seat and the map
    /// no hold whose seats could come back.
    FoundNoSeats,
    /// A request the buyer could not go on from (`not_admitted`, a
    /// checkout refused), or the phase's deadline came first.
    Stuck,
}

/// One request a buyer sent.
#[derive(Debug, Clone, Copy)]
pub struct Sent {
    pub kind: Kind,
    pub status: u16,
    /// When it left, once it had a slot.
    pub at: Instant,
    /// Its round trip.
    pub micros: u32,
    /// How long it waited for a slot before it left.
    pub slot_micros: u32,
}

/// What a buyer did, for the figures.
#[derive(Debug, Clone)]
pub struct Visit {
    pub plan: Plan,
    /// When its first request left.
    pub arrived_at: Option<Instant>,
    /// Joined the line before the opening (placed at random).
    pub early: bool,
    /// Its place in line, once it had one.
    pub place: Option<u32>,
    pub admitted_at: Option<Instant>,
    /// When it learnt it would get no seat.
    pub told_at: Option<Instant>,
    pub ending: Ending,
    pub seats_held: u32,
    pub requests: Vec<Sent>,
    /// The error of each hold refused with 409.
    pub refusals: Vec<String>,
}

/// Where a session stands in line, as `POST …/queue` answers.
#[derive(Deserialize)]
struct Standing {
    place: Option<u32>,
    /// When the line says to ask again, as the page does.
    ask_again_ms: Option<u64>,
    #[serde(default)]
    sold_out: bool,
    queue_token: Option<String>,
    admission: Option<String>,
}

/// What a refused hold says.
#[derive(Deserialize)]
struct Refused {
    error: Option<String>,
    available: Option<u32>,
}

struct Buyer<'a> {
    sale: &'a Sale,
    cookie: Option<String>,
    visit: Visit,
}

/// One buyer's whole visit.
pub async fn visit(sale: Arc<Sale>, plan: Plan) -> Visit {
    tokio::time::sleep_until(plan.arrive_at.into()).await;
    let mut buyer = Buyer {
        sale: &sale,
        cookie: None,
        visit: Visit {
            plan,
            arrived_at: None,
            early: false,
            place: None,
            admitted_at: None,
            told_at: None,
            ending: Ending::Stuck,
            seats_held: 0,
            requests: Vec::new(),
            refusals: Vec::new(),
        },
    };
    let admission = if sale.line {
        match buyer.wait_in_line().await {
            Some(admission) => Some(admission),
            None => return buyer.visit,
        }
    } else {
        // No line: the page counts down to the opening, then the buyer
        // tries at once.
        buyer.visit.arrived_at = Some(Instant::now());
        tokio::time::sleep_until(sale.opens_at.into()).await;
        None
    };
    if let Some(hold) = buyer.hold(admission.as_deref()).await {
        buyer.pay(&hold).await;
    }
    buyer.visit
}

impl Buyer<'_> {
    async fn send(
        &mut self,
        kind: Kind,
        method: Method,
        path: &str,
        body: Option<String>,
        admission: Option<&str>,
    ) -> Option<Answer> {
        let headers: Vec<(&str, &str)> =
            admission.map(|a| ("x-admission", a)).into_iter().collect();
        let asked = Instant::now();
        let slot = self
            .sale
            .slots
            .acquire()
            .await
            .expect("the slots stay open");
        let at = Instant::now();
        let sent = self
            .sale
            .http
            .send_with(method, path, body, self.cookie.as_deref(), &headers)
            .await;
        let micros = |from: Instant, to: Instant| {
            u32::try_from(to.duration_since(from).as_micros()).unwrap_or(u32::MAX)
        };
        self.visit.requests.push(Sent {
            kind,
            status: sent.as_ref().map_or(0, |a| a.status),
            at,
            micros: micros(at, Instant::now()),
            slot_micros: micros(asked, at),
        });
        drop(slot);
        let answer = sent.ok()?;
        if answer.cookie.is_some() {
            self.cookie.clone_from(&answer.cookie);
        }
        Some(answer)
    }

    fn past_deadline(&self) -> bool {
        Instant::now() >= self.sale.deadline
    }

    /// Joins the line and polls until admitted (answers the admission) or
    /// told the showing is sold out (answers `None`).
    async fn wait_in_line(&mut self) -> Option<String> {
        let path = format!("/api/showings/{}/queue", self.sale.sid);
        let mut token: Option<String> = None;
        while !self.past_deadline() {
            if self.visit.arrived_at.is_none() {
                self.visit.arrived_at = Some(Instant::now());
            }
            let body = token
                .as_ref()
                .map(|t| json!({ "queue_token": t }).to_string());
            let answer = self
                .send(Kind::Queue, Method::POST, &path, body, None)
                .await;
            let standing = answer
                .filter(|a| a.status == 200)
                .and_then(|a| serde_json::from_slice::<Standing>(&a.body).ok());
            let Some(standing) = standing else {
                tokio::time::sleep(RETRY_AFTER_ERROR).await;
                continue;
            };
            let first = token.is_none() && self.visit.place.is_none() && !self.visit.early;
            if first && standing.place.is_none() {
                self.visit.early = true;
            }
            if self.visit.place.is_none() {
                self.visit.place = standing.place;
            }
            token = standing.queue_token.clone();
            if let Some(admission) = standing.admission.clone() {
                self.visit.admitted_at = Some(Instant::now());
                return Some(admission);
            }
            if standing.sold_out {
                self.told(Ending::ToldSoldOut);
                return None;
            }
            // The line says when (`waitInLine()` follows it too).
            let again = standing.ask_again_ms.unwrap_or(ASK_AGAIN_UNTOLD_MS);
            tokio::time::sleep(Duration::from_millis(again)).await;
        }
        None
    }

    fn told(&mut self, ending: Ending) {
        self.visit.told_at = Some(Instant::now());
        self.visit.ending = ending;
    }

    /// Holds the seats the plan wants, or as many as are left; answers the
    /// hold's id, or `None` with the visit's ending set.
    async fn hold(&mut self, admission: Option<&str>) -> Option<String> {
        let holds = format!("/api/showings/{}/holds", self.sale.sid);
        let mut want = self.visit.plan.seats;
        let mut attempt = 0;
        while !self.past_deadline() {
            attempt += 1;
            // Picking from the map twice in vain, the buyer lets the
            // showing choose.
            let picked = match self.visit.plan.best || attempt > 2 {
                true => None,
                false => self.pick(want).await,
            };
            let body = match picked {
                Some(seats) => json!({ "seats": seats }),
                None => json!({ "best": want }),
            };
            let answer = self
                .send(
                    Kind::Hold,
                    Method::POST,
                    &holds,
                    Some(body.to_string()),
                    admission,
                )
                .await;
            let Some(answer) = answer else {
                crate::load::back_off().await;
                continue;
            };
            match answer.status {
                201 => {
                    let granted: serde_json::Value =
                        serde_json::from_slice(&answer.body).unwrap_or_default();
                    self.visit.seats_held =
                        granted["seats"].as_array().map_or(0, |s| s.len()) as u32;
                    return granted["hold_id"].as_str().map(str::to_string);
                }
                409 => {
                    let refused: Refused =
                        serde_json::from_slice(&answer.body).unwrap_or(Refused {
                            error: None,
                            available: None,
                        });
                    self.visit
                        .refusals
                        .push(refused.error.clone().unwrap_or_default());
                    let gone = match (refused.error.as_deref(), refused.available) {
                        (Some("not_enough_seats"), Some(0)) => true,
                        (Some("not_enough_seats"), Some(left)) => {
                            want = want.min(left);
                            false
                        }
                        _ => false,
                    };
                    // Every seat held by others, or lost to others a few
                    // times over: others' holds may lapse, and the buyer
                    // watches the map as a sold-out page does, trying
                    // again once it shows a free seat.
                    if gone || attempt >= QUICK_ATTEMPTS {
                        if !gone {
                            tokio::time::sleep(SOLD_OUT_POLL).await;
                        }
                        if !self.free_seat_shown().await {
                            return None;
                        }
                        attempt = 0;
                    }
                }
                403 => return None,
                _ => crate::load::back_off().await,
            }
        }
        None
    }

    /// Reads the Worker's copy of the map every [`SOLD_OUT_POLL`] until it
    /// shows a free seat (answers true) or no seat held either, which could
    /// come back if its buyer does not pay (told; answers false).
    async fn free_seat_shown(&mut self) -> bool {
        let path = format!("/api/showings/{}/seats?format=codes", self.sale.sid);
        while !self.past_deadline() {
            let answer = self
                .send(Kind::SeatMap, Method::GET, &path, None, None)
                .await;
            let map: serde_json::Value = answer
                .and_then(|a| serde_json::from_slice(&a.body).ok())
                .unwrap_or_default();
            match map["codes"].as_str() {
                Some(codes) if codes.contains('a') => return true,
                Some(codes) if !codes.contains('h') => {
                    self.told(Ending::FoundNoSeats);
                    return false;
                }
                _ => tokio::time::sleep(SOLD_OUT_POLL).await,
            }
        }
        false
    }

    /// `want` free seats side by side in one row of the Worker's copy of the
    /// map (about a second old), picked at random as a buyer picks them.
    async fn pick(&mut self, want: u32) -> Option<Vec<String>> {
        let path = format!("/api/showings/{}/seats?format=codes", self.sale.sid);
        let answer = self
            .send(Kind::SeatMap, Method::GET, &path, None, None)
            .await?;
        let map: serde_json::Value = serde_json::from_slice(&answer.body).ok()?;
        let blocks = free_blocks(self.sale.room, map["codes"].as_str()?, want);
        let (row, first) = *blocks.get(fastrand::usize(..blocks.len().max(1)))?;
        Some(
            (first..first + want)
                .map(|n| self.sale.room.seat_name(row, n))
                .collect(),
        )
    }

    /// Pays for the hold (after one declined card, for some), or walks
    /// away from it.
    async fn pay(&mut self, hold: &str) {
        if self.visit.plan.abandons {
            self.visit.ending = Ending::Abandoned;
            return;
        }
        let path = format!("/api/showings/{}/holds/{hold}/checkout", self.sale.sid);
        let pay = |card: &str| {
            json!({"source_id": card, "email": "rush@example.com", "name": "Rush Buyer"})
                .to_string()
        };
        if self.visit.plan.declined_once {
            self.send(
                Kind::Checkout,
                Method::POST,
                &path,
                Some(pay(DECLINED_CARD)),
                None,
            )
            .await;
        }
        let paid = self
            .send(
                Kind::Checkout,
                Method::POST,
                &path,
                Some(pay(APPROVED_CARD)),
                None,
            )
            .await;
        if paid.is_some_and(|a| a.status == 201 || a.status == 202) {
            self.visit.ending = Ending::Paid;
        }
    }
}

/// Where `want` free seats (`a` in the compact map, one letter a seat in
/// the layout's order) stand side by side: (row, first seat), 0-based row
/// and 1-based seat.
pub fn free_blocks(room: Room, codes: &str, want: u32) -> Vec<(u32, u32)> {
    let codes = codes.as_bytes();
    let mut blocks = Vec::new();
    for row in 0..room.rows {
        for first in 1..=room.per_row.saturating_sub(want) + 1 {
            let at = |n: u32| codes.get((row * room.per_row + n - 1) as usize);
            if (first..first + want).all(|n| at(n) == Some(&b'a')) {
                blocks.push((row, first));
            }
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_runs_of_free_seats_within_one_row() {
        let room = Room::new(2, 4);
        // Row A: free, held, free, free; row B: all free.
        let codes = "ahaaaaaa";
        assert_eq!(
            free_blocks(room, codes, 2),
            [(0, 3), (1, 1), (1, 2), (1, 3)]
        );
        assert_eq!(free_blocks(room, codes, 4), [(1, 1)]);
        assert_eq!(free_blocks(room, "ssssssss", 1), []);
    }
}
