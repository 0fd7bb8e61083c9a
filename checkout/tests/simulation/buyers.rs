//! The buyers: each holds overlapping seats when their time comes, and
//! may pay the same hold with a second card after a decline.

use crate::rng::Rng;
use crate::world::{Run, World, SEATS};
use checkout::{Checkout, NewCheckout, PublicStatus};
use ledger::HoldId;
use std::collections::VecDeque;

const DECLINES: [&str; 3] = ["GENERIC_DECLINE", "CVV_FAILURE", "INSUFFICIENT_FUNDS"];

pub struct Buyer {
    pub seats: Vec<String>,
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
        self.runs
            .iter()
            .any(|r| r.buyer == buyer && matches!(r.live.status(), PublicStatus::Declined { .. }))
    }

    fn try_hold(&mut self, buyer: usize) -> Result<(), String> {
        let b = &mut self.buyers[buyer];
        b.hold_tries_left -= 1;
        let hold_id = format!("hold-{buyer}-{}", b.hold_tries_left);
        let hold = HoldId::new(hold_id.clone()).expect("sim hold ids are valid");
        let granted = self.ledger.hold(self.now_ms, &hold, &b.seats).result;
        self.note(|| format!("buyer {buyer} holds: {granted:?}"));
        if granted.is_err() {
            let wait = self.rng.between(5_000, 90_000);
            self.buyers[buyer].start_at_ms = self.now_ms + wait;
            return Ok(());
        }
        self.buyers[buyer].hold_id = Some(hold_id);
        self.start_checkout(buyer)
    }

    /// As the object does: mark the hold as paying, then start a checkout.
    fn start_checkout(&mut self, buyer: usize) -> Result<(), String> {
        let b = &mut self.buyers[buyer];
        let hold_id = b.hold_id.clone().expect("a held buyer");
        let hold = HoldId::new(hold_id.clone()).expect("sim hold ids are valid");
        if self
            .ledger
            .start_payment(self.now_ms, &hold)
            .result
            .is_err()
        {
            return Ok(());
        }
        b.cards_used += 1;
        let token = match (b.cards_used, b.first_card_declines) {
            (1, Some(code)) => format!("cnon:decline-{code}-{buyer}"),
            (n, _) => format!("cnon:ok-{buyer}-{n}"),
        };
        let order_id = format!("order-{buyer}-{}", b.cards_used);
        let new = NewCheckout {
            order_id: order_id.clone(),
            hold_id,
            seats: b.seats.clone(),
            amount_minor: 1_200 * b.seats.len() as u64,
            currency: "USD".to_owned(),
            source_id: token.clone(),
            buyer_email: format!("buyer{buyer}@example.com"),
            buyer_name: format!("Buyer {buyer}"),
        };
        let (checkout, actions) =
            Checkout::start(new, self.now_ms, &self.config).map_err(|e| e.to_string())?;
        self.stats.orders += 1;
        self.runs.push(Run {
            buyer,
            order_id,
            token,
            persisted: checkout.clone(),
            live: checkout,
            outbox: VecDeque::new(),
            seen_final: None,
        });
        self.feed(self.runs.len() - 1, actions)
    }
}
