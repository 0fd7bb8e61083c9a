//! [`Checkout`]: the public face of one order's checkout.

use crate::actions::{Action, Stage, Step, StepTag};
use crate::config::Config;
use crate::events::{Event, PaymentStatus};
use crate::invariants::InvariantError;
use crate::order::{NewCheckout, Order, StartError};
use crate::state::State;
use crate::status::{Outcome, PublicStatus};
use serde::{Deserialize, Serialize};

/// The checkout of one order, as a state machine with no I/O and no clock.
///
/// The `Showtime` Durable Object drives it: it feeds events (answers,
/// webhooks, `handle_timeout` from its alarm), persists the checkout (serde,
/// e.g. JSON) **before** performing the actions a call returned, performs
/// them in order (skipping any that [`Checkout::is_current`] refuses), and
/// feeds each answer back with its step tag. A crash at
/// any point resumes from storage: the reloaded checkout sends the request
/// in flight again once `poll_timeout` is due, and every request is safe to
/// repeat.
///
/// Reading a checkout back (deserializing) checks its invariants and fails
/// on a broken one, so a corrupted row never drives a payment.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "State", into = "State")]
pub struct Checkout {
    state: State,
}

impl Checkout {
    /// Starts paying for a hold the ledger has marked as paying. Returns the
    /// checkout and its first actions: an audit row and CreatePayment.
    pub fn start(
        new: NewCheckout,
        now_ms: u64,
        config: &Config,
    ) -> Result<(Checkout, Vec<Action>), StartError> {
        let (state, actions) = State::start(new, now_ms, config)?;
        Ok((Checkout { state }, actions))
    }

    /// Takes an answer or a webhook into account. An answer for a step no
    /// longer in flight, a repeated or stale webhook, or an answer that does
    /// not fit its step changes nothing and returns no actions.
    pub fn handle_event(&mut self, event: Event, now_ms: u64) -> Vec<Action> {
        self.state.handle_event(event, now_ms)
    }

    /// Sends the request in flight again if it is due; call it when the
    /// alarm set to [`Checkout::poll_timeout`] fires, and after a reload.
    pub fn handle_timeout(&mut self, now_ms: u64) -> Vec<Action> {
        self.state.handle_timeout(now_ms)
    }

    /// When `handle_timeout` has work next; `None` once finished.
    pub fn poll_timeout(&self) -> Option<u64> {
        self.state.poll_timeout()
    }

    /// What the buyer's order page shows.
    pub fn status(&self) -> PublicStatus {
        self.state
            .outcome
            .as_ref()
            .map_or(PublicStatus::Pending, Outcome::public)
    }

    /// How the checkout ended, with the reason staff need; `None` while pending.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.state.outcome.as_ref()
    }

    /// The latest time this checkout was told of (its last step, answer or
    /// webhook).
    pub fn last_active_ms(&self) -> u64 {
        self.state.latest_now_ms
    }

    /// True once nothing is left to do: the outcome is known and recorded.
    pub fn is_finished(&self) -> bool {
        self.state.in_flight.is_none()
    }

    pub fn stage(&self) -> Stage {
        self.state.stage()
    }

    /// Whether an action may still be performed: an audit row always, a
    /// request only while its step is in flight. The Durable Object checks
    /// this right before performing each action, so that a request queued
    /// twice (a retry, or a batch interrupted by another event) never runs
    /// after the checkout has moved on: a late `CommitSeats` would take
    /// seats for an order that has already ended.
    pub fn is_current(&self, action: &Action) -> bool {
        match action.step() {
            None => true,
            Some(step) => self.step_in_flight().is_some_and(|(tag, _)| tag == step),
        }
    }

    /// The step in flight and its tag.
    pub fn step_in_flight(&self) -> Option<(StepTag, Step)> {
        self.state.in_flight.as_ref().map(|f| (f.tag, f.step))
    }

    pub fn order(&self) -> &Order {
        &self.state.order
    }

    /// Square's payment id, once an answer or a webhook named it.
    pub fn payment_id(&self) -> Option<&str> {
        self.state.payment.id.as_deref()
    }

    /// The furthest payment status known.
    pub fn payment_status(&self) -> Option<PaymentStatus> {
        self.state.payment.status
    }

    /// The CreatePayment idempotency key (see [`crate::authorization_key`]).
    pub fn authorization_key(&self) -> &str {
        &self.state.authorization_key
    }

    /// Whether the card token is still kept: only until the authorization
    /// is settled or given up.
    pub fn holds_card_token(&self) -> bool {
        self.state.source_id.is_some()
    }

    pub fn check_invariants(&self) -> Result<(), InvariantError> {
        self.state.check_invariants()
    }
}

impl TryFrom<State> for Checkout {
    type Error = InvariantError;

    fn try_from(state: State) -> Result<Checkout, InvariantError> {
        state.check_invariants()?;
        Ok(Checkout { state })
    }
}

impl From<Checkout> for State {
    fn from(checkout: Checkout) -> State {
        checkout.state
    }
}
