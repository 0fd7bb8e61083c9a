//! The buyers: each holds overlapping seats when their time comes (named,
//! or as many by best available), and may pay the same hold with a second
//! card after a decline.

use crate::rng::Rng;
use crate::world::{Run, World, SEATS};
use checkout::PublicStatus;
use desk::protocol::{Caller, CheckoutRequest, HoldRef, NewHold};
use desk::{Reply, Request};

const DECLINES: [&str; 3] = ["GENERIC_DECLINE", "CVV_FAILURE", "INSUFFICIENT_FUNDS"];

pub struct Buyer {
    pub seats: Vec<String>,
    /// Asks best available for as many seats instead, together or not.
    pub best: Option<bool>,
    pub start_at_ms: u64,
    pub hold_tries_left: u32,
    pub hold_id: Option<String>,
    /// The decline code this buyer's first card gets.
    pub first_card_declines: Option<&'static str>,
    pub cards_used: u32,
    pub retries_after_decline: bool,
}

impl Buyer {
    pub fn random(rng: &mut Rng, seat_count: usize) -> Buyer {
        let wanted = rng.between(1, 3) as usize;
        let mut seats: Vec<String> = Vec::new();
        while seats.len() < wanted {
            let seat = SEATS[rng.index(seat_count)].to_owned();
            if !seats.contains(&seat) {
                seats.push(seat);
            }
        }
        Buyer {
            seats,
            best: rng.chance(30).then(|| rng.chance(50)),
            start_at_ms: 1_000_000 + rng.between(0, 200_000),
            hold_tries_left: rng.between(1, 4) as u32,
            hold_id: None,
            first_card_declines: rng.chance(20).then(|| DECLINES[rng.index(DECLINES.len())]),
            cards_used: 0,
            retries_after_decline: rng.chance(60),
        }
    }
}

impl World {
    /// Buyers whose time has come hold their seats and start paying; a
    /// buyer whose card was declined may pay the same hold with another.
    pub fn buyers_act(&mut self) -> Result<(), String> {
        if self.quiet {
            return Ok(());
        }
        for buyer in 0..self.buyers.len() {
            let b = &self.buyers[buyer];
            if b.hold_id.is_none() && b.hold_tries_left > 0 && b.start_at_ms <= self.now_ms {
                self.try_hold(buyer)?;
            } else if b.retries_after_decline && self.declined(buyer) {
                self.buyers[buyer].retries_after_decline = false;
                self.start_checkout(buyer)?;
            }
        }
        Ok(())
    }

    fn declined(&self, buyer: usize) -> bool {
        self.runs.iter().any(|r| {
            r.buyer == buyer
                && self
                    .desk
                    .checkout(&r.order_id)
                    .is_some_and(|c| matches!(c.status(), PublicStatus::Declined { .. }))
        })
    }

    fn try_hold(&mut self, buyer: usize) -> Result<(), String> {
        let b = &mut self.buyers[buyer];
        b.hold_tries_left -= 1;
        let token = format!("{:016x}{:016x}", buyer + 1, b.hold_tries_left + 1);
        let new = NewHold {
            prices: Default::default(),
            caller: Caller {
                buyer: format!("buyer{buyer}"),
                client: format!("10.0.0.{buyer}"),
            },
            seats: match b.best {
                None => b.seats.clone(),
                Some(_) => Vec::new(),
            },
            idempotency: None,
            token: token.clone(),
            best: b.best.map(|together| desk::protocol::BestHold {
                count: b.seats.len() as u32,
                together,
                accessible: false,
                categories: Default::default(),
                zone: None,
            }),
            admitted: false,
        };
        let decision = self.request(Request::Hold(new))?;
        let granted = decision.reply.expect("a reply");
        self.note(|| format!("buyer {buyer} holds: {granted:?}"));
        match granted {
            Ok(Reply::Held(_)) => {}
            Ok(other) => return Err(format!("a hold answered {other:?}")),
            Err(_) => {
                let wait = self.rng.between(5_000, 90_000);
                self.buyers[buyer].start_at_ms = self.now_ms + wait;
                return Ok(());
            }
        }
        self.buyers[buyer].hold_id = Some(token);
        self.start_checkout(buyer)
    }

    /// As the Worker does: a checkout request with a fresh card token.
    fn start_checkout(&mut self, buyer: usize) -> Result<(), String> {
        let b = &mut self.buyers[buyer];
        let token = b.hold_id.clone().expect("a held buyer");
        b.cards_used += 1;
        let card = match (b.cards_used, b.first_card_declines) {
            (1, Some(code)) => format!("cnon:decline-{code}-{buyer}"),
            (n, _) => format!("cnon:ok-{buyer}-{n}"),
        };
        let request = CheckoutRequest {
            hold: HoldRef {
                buyer: format!("buyer{buyer}"),
                token,
            },
            source_id: card.clone(),
            verification_token: String::new(),
            email: format!("buyer{buyer}@example.com"),
            name: format!("Buyer {buyer}"),
            order_nonce: format!("{:012x}{:012x}", buyer + 1, b.cards_used),
            client: format!("10.0.{}.{}", buyer / 256, buyer % 256),
            item_name: "Vertigo, Fri 19:30".into(),
            exchange: None,
        };
        let decision = self.request(Request::Checkout(request))?;
        match decision.reply.expect("a reply") {
            Ok(Reply::Order(order)) => {
                self.stats.orders += 1;
                self.note(|| format!("buyer {buyer} starts {}", order.order_id));
                self.runs.push(Run {
                    buyer,
                    order_id: order.order_id,
                    token: card,
                });
                Ok(())
            }
            // The hold lapsed before paying started: nothing to pay for.
            Err(refusal) if refusal.code == desk::Code::HoldExpired => Ok(()),
            other => Err(format!("a checkout answered {other:?}")),
        }
    }
}
