//! The rules a checkout's state keeps between events. Checked whenever a
//! checkout is read back from storage, and by the tests after every step;
//! `decide.rs` relies on them.

use crate::actions::Step;
use crate::config::ConfigError;
use crate::events::PaymentStatus;
use crate::keys::MAX_IDEMPOTENCY_KEY_CHARS;
use crate::order::StartError;
use crate::requests::is_square_id;
use crate::state::{Authorization, Refund, Seats, SquareOrder, State, Tickets, Waiting};
use crate::status::Outcome;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A broken rule, by name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum InvariantError {
    Config(ConfigError),
    Order(StartError),
    AuthorizationKeyMalformed,
    /// The card token is kept after the authorization was settled, or is
    /// missing while CreatePayment may still be sent.
    CardTokenMisplaced,
    PaymentIdMalformed,
    /// APPROVED or COMPLETED, but no payment id.
    PaymentIdMissing,
    /// The payment's status does not fit where the authorization stands.
    StatusContradictsAuthorization,
    /// Seats sold, tickets paid or a refund without a capture.
    FactsAheadOfPayment,
    /// Tickets exist (or may) for seats that are not the order's.
    TicketsContradictSeats,
    /// Paid without sold seats and valid tickets, or the reverse.
    OutcomeContradictsFacts,
    /// The step in flight is not the one the facts call for.
    StepNotCalledFor {
        in_flight: Option<Step>,
        called_for: Option<Step>,
    },
    /// A step's tag is not below the number of steps started.
    StepTagAhead,
    /// A Square order is being made for a payment no longer to be asked
    /// for, or a payment is asked for while it is being made.
    SquareOrderContradictsAuthorization,
}

impl fmt::Display for InvariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl std::error::Error for InvariantError {}

impl State {
    pub fn check_invariants(&self) -> Result<(), InvariantError> {
        self.config.validate().map_err(InvariantError::Config)?;
        self.order.validate().map_err(InvariantError::Order)?;
        self.check_authorization()?;
        self.check_facts()?;
        self.check_step()
    }

    fn check_authorization(&self) -> Result<(), InvariantError> {
        let key = &self.authorization_key;
        if !key.starts_with("auth-") || key.len() > MAX_IDEMPOTENCY_KEY_CHARS {
            return Err(InvariantError::AuthorizationKeyMalformed);
        }
        let awaiting = matches!(self.authorization, Authorization::Awaiting { .. });
        if awaiting != self.source_id.is_some() || (!awaiting && self.verification_token.is_some())
        {
            return Err(InvariantError::CardTokenMisplaced);
        }
        if self
            .payment
            .id
            .as_deref()
            .is_some_and(|id| !is_square_id(id))
        {
            return Err(InvariantError::PaymentIdMalformed);
        }
        let status = self.payment.status;
        let named = matches!(
            status,
            Some(PaymentStatus::Approved | PaymentStatus::Completed)
        );
        if named && self.payment.id.is_none() {
            return Err(InvariantError::PaymentIdMissing);
        }
        let fits = match &self.authorization {
            Authorization::NotCharged => status.is_none() && self.payment.id.is_none(),
            Authorization::Awaiting { .. } => matches!(status, None | Some(PaymentStatus::Pending)),
            Authorization::Approved => status.is_some_and(|s| s != PaymentStatus::Pending),
            // A webhook may have named the payment PENDING before the answer.
            Authorization::Declined { .. } => matches!(
                status,
                None | Some(PaymentStatus::Pending | PaymentStatus::Failed)
            ),
            Authorization::Refused { .. } => matches!(status, None | Some(PaymentStatus::Pending)),
            // The void by key cancels whatever the key made.
            Authorization::Rejected { .. } => matches!(
                status,
                None | Some(PaymentStatus::Pending | PaymentStatus::Canceled)
            ),
            Authorization::GivenUp | Authorization::VoidByKeyRejected { .. } => true,
            // Stopped waiting for a payment Square named; it may since have
            // gone anywhere, a capture by hand included.
            Authorization::StoppedWaiting => self.payment.id.is_some(),
            Authorization::VoidedByKey => status.is_some_and(PaymentStatus::is_final),
        };
        if !fits {
            return Err(InvariantError::StatusContradictsAuthorization);
        }
        let creating = self.square_order == SquareOrder::Creating;
        if creating && (!awaiting || self.payment.id.is_some()) {
            return Err(InvariantError::SquareOrderContradictsAuthorization);
        }
        Ok(())
    }

    fn check_facts(&self) -> Result<(), InvariantError> {
        let captured = self.payment.is(PaymentStatus::Completed);
        // A free order is settled from the start, and never refunded.
        let settled = captured || self.authorization == Authorization::NotCharged;
        let needs_settling = self.seats == Seats::Sold || self.tickets == Tickets::Paid;
        if (needs_settling && !settled) || (self.refund != Refund::NotStarted && !captured) {
            return Err(InvariantError::FactsAheadOfPayment);
        }
        let seats_fit = match &self.tickets {
            Tickets::NotWritten => true,
            Tickets::MaybeWritten => self.seats == Seats::Committed,
            Tickets::Written => matches!(self.seats, Seats::Committed | Seats::Sold),
            Tickets::Paid => self.seats == Seats::Sold,
            Tickets::Conflict { .. } | Tickets::Voided => {
                matches!(self.seats, Seats::Committed | Seats::Released)
            }
        };
        // Seats are abandoned only once no live ticket can remain; sold
        // seats always have their tickets written.
        let released_fits = self.seats != Seats::Released
            || !matches!(self.tickets, Tickets::Written | Tickets::MaybeWritten);
        let sold_fits =
            self.seats != Seats::Sold || matches!(self.tickets, Tickets::Written | Tickets::Paid);
        if !seats_fit || !released_fits || !sold_fits {
            return Err(InvariantError::TicketsContradictSeats);
        }
        let paid_facts = self.seats == Seats::Sold && self.tickets == Tickets::Paid;
        let paid_outcome = self.outcome == Some(Outcome::Paid);
        if paid_outcome != paid_facts {
            return Err(InvariantError::OutcomeContradictsFacts);
        }
        // Undoing is for payments that will not be charged: while the
        // authorization stands, released seats and void tickets cannot happen.
        let authorized = self.payment.is(PaymentStatus::Approved)
            && self.authorization == Authorization::Approved;
        if authorized && (self.seats == Seats::Released || self.tickets == Tickets::Voided) {
            return Err(InvariantError::TicketsContradictSeats);
        }
        Ok(())
    }

    fn check_step(&self) -> Result<(), InvariantError> {
        if let Some(in_flight) = &self.in_flight {
            if in_flight.tag.0 >= self.steps_started {
                return Err(InvariantError::StepTagAhead);
            }
        }
        // The checks above make every combination decide.rs meets valid.
        let mut probe = self.clone();
        let called_for = probe.next_step();
        let in_flight = self.in_flight.as_ref().map(|f| f.step);
        let deferred = self
            .in_flight
            .as_ref()
            .is_some_and(|f| f.step.is_local() && matches!(f.waiting, Waiting::Answer { .. }));
        if in_flight != called_for && !(deferred && called_for.is_some()) {
            return Err(InvariantError::StepNotCalledFor {
                in_flight,
                called_for,
            });
        }
        Ok(())
    }
}
