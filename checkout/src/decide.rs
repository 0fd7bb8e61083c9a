//! The next step, read from the facts alone.
//!
//! Deciding from facts rather than from the path taken means a webhook, a
//! late answer or a reload can only ever add a fact, and the next step
//! follows. The order of questions is the order of what matters most:
//!
//! 1. Money moved (COMPLETED): the buyer ends with tickets, or a refund.
//! 2. The authorization is uncertain: void it by key before anything else.
//! 3. Nothing will be charged: undo what was done (tickets, then seats).
//! 4. Authorized: take the seats, write the tickets, then capture.

use crate::actions::Step;
use crate::events::PaymentStatus;
use crate::state::{Authorization, Refund, Seats, SquareOrder, State, Tickets};
use crate::status::{
    AttentionReason, Outcome, AUTHORIZATION_VOIDED, PAYMENT_STILL_PENDING, PAYMENT_UNCERTAIN,
};

/// What the facts call for.
pub(crate) enum Next {
    Run(Step),
    Finish(Outcome),
}

impl State {
    /// The step to run next, or `None` when nothing is left. Sets the
    /// outcome the first time the facts settle it.
    pub fn next_step(&mut self) -> Option<Step> {
        if self.outcome.is_none() {
            match self.next() {
                Next::Run(step) => return Some(step),
                Next::Finish(outcome) => self.outcome = Some(outcome),
            }
        }
        // The outcome is fixed. A capture that happened anyway (by hand, in
        // Square's dashboard) must still not keep money for no seats.
        let paid = self.outcome == Some(Outcome::Paid);
        if self.payment.is(PaymentStatus::Completed) && !paid && self.refund == Refund::NotStarted {
            return Some(Step::Refund);
        }
        if !self.final_recorded {
            return Some(Step::RecordFinal);
        }
        // After the buyer is told: a payment given up on while PENDING is
        // watched until Square settles it, and cancelled by its id if
        // approved, so that no buyer's money stays held for nothing.
        if self.authorization == Authorization::StoppedWaiting
            && matches!(
                self.payment.status,
                Some(PaymentStatus::Pending | PaymentStatus::Approved)
            )
        {
            return Some(Step::VoidAuthorization);
        }
        // Last, and after the buyer has their answer: the Square order of
        // a payment that will never be taken is cancelled, so that no
        // unpaid order lingers in the cinema's Dashboard.
        self.square_order_unpaid().then_some(Step::CancelOrder)
    }

    /// The checkout made a Square order that nothing will pay: no capture
    /// happened and no authorization can remain. After a void by key that
    /// Square refused one may, and Square would refuse the cancel.
    fn square_order_unpaid(&self) -> bool {
        let open = matches!(self.square_order, SquareOrder::Open { .. });
        let lingering = match self.authorization {
            Authorization::VoidByKeyRejected { .. } | Authorization::GivenUp => true,
            // Square refuses to cancel an order while its payment may still
            // be taken.
            Authorization::StoppedWaiting => !matches!(
                self.payment.status,
                Some(PaymentStatus::Canceled | PaymentStatus::Failed)
            ),
            _ => false,
        };
        open && self.outcome != Some(Outcome::Paid)
            && !self.payment.is(PaymentStatus::Completed)
            && self.nothing_will_be_charged()
            && !lingering
    }

    fn next(&self) -> Next {
        if self.payment.is(PaymentStatus::Completed) {
            return self.next_when_captured();
        }
        if self.authorization == Authorization::NotCharged {
            return self.next_when_free();
        }
        match self.authorization {
            Authorization::Awaiting { .. } if self.square_order == SquareOrder::Creating => {
                return Next::Run(Step::CreateOrder)
            }
            Authorization::Awaiting { .. } => return Next::Run(Step::Authorize),
            Authorization::GivenUp | Authorization::Refused { .. } => {
                return Next::Run(Step::VoidUncertainPayment)
            }
            _ => {}
        }
        if self.nothing_will_be_charged() {
            return self.next_when_nothing_charged();
        }
        self.next_when_authorized()
    }

    /// Square will never charge this payment: it failed, was voided, or
    /// never existed.
    fn nothing_will_be_charged(&self) -> bool {
        let voided = matches!(
            self.payment.status,
            Some(PaymentStatus::Canceled | PaymentStatus::Failed)
        );
        voided || !matches!(self.authorization, Authorization::Approved)
    }

    fn next_when_authorized(&self) -> Next {
        debug_assert!(self.payment.is(PaymentStatus::Approved));
        match (&self.seats, &self.tickets) {
            (Seats::Held | Seats::MaybeCommitted, _) => Next::Run(Step::CommitSeats),
            (Seats::Committed, Tickets::NotWritten | Tickets::MaybeWritten) => {
                Next::Run(Step::WriteOrder)
            }
            (Seats::Committed, Tickets::Written) => Next::Run(Step::Capture),
            (Seats::Committed, Tickets::Conflict { .. }) => Next::Run(Step::VoidAuthorization),
            (Seats::Taken { .. } | Seats::Refused { .. }, _) => Next::Run(Step::VoidAuthorization),
            (seats, tickets) => unreachable!(
                "checked by check_invariants: {seats:?} with {tickets:?} needs a capture or a void first"
            ),
        }
    }

    /// Once nothing more is to be charged (captured, or free): take the
    /// seats, write the tickets, sell the seats, mark the order paid.
    /// `None` when the seats or tickets cannot be had.
    fn next_toward_tickets(&self) -> Option<Next> {
        Some(match (&self.seats, &self.tickets) {
            (Seats::Held | Seats::MaybeCommitted, _) => Next::Run(Step::CommitSeats),
            (Seats::Committed, Tickets::NotWritten | Tickets::MaybeWritten) => {
                Next::Run(Step::WriteOrder)
            }
            (Seats::Committed, Tickets::Written) => Next::Run(Step::ConfirmSeats),
            (Seats::Sold, Tickets::Written) => Next::Run(Step::MarkPaid),
            (Seats::Sold, Tickets::Paid) => Next::Finish(Outcome::Paid),
            _ => return None,
        })
    }

    fn next_when_captured(&self) -> Next {
        if let Some(next) = self.next_toward_tickets() {
            return next;
        }
        match (&self.seats, &self.tickets) {
            // The money moved but the seats cannot be given: refund first,
            // then put the seats back on sale.
            (Seats::Committed, _) if self.refund == Refund::NotStarted => Next::Run(Step::Refund),
            (Seats::Committed, _) => Next::Run(Step::AbandonSeats),
            (Seats::Taken { .. } | Seats::Refused { .. } | Seats::Released, _) => {
                match &self.refund {
                    Refund::NotStarted => Next::Run(Step::Refund),
                    Refund::Accepted { refund_id } => {
                        Next::Finish(attention(AttentionReason::RefundedWithoutSeats {
                            refund_id: refund_id.clone(),
                        }))
                    }
                    Refund::Rejected { code } => {
                        Next::Finish(attention(AttentionReason::RefundRejected {
                            code: code.clone(),
                        }))
                    }
                }
            }
            (seats, tickets) => {
                unreachable!(
                    "checked by check_invariants: sold seats with tickets {tickets:?} ({seats:?})"
                )
            }
        }
    }

    /// Nothing to charge: the seats and tickets are taken as for a
    /// captured payment, and undone as for a void if they cannot be.
    fn next_when_free(&self) -> Next {
        self.next_toward_tickets()
            .unwrap_or_else(|| self.next_when_nothing_charged())
    }

    fn next_when_nothing_charged(&self) -> Next {
        // Tickets first: while they are live the seats must stay ours, or
        // the next buyer of those seats would hit the unique index.
        if matches!(self.tickets, Tickets::Written | Tickets::MaybeWritten) {
            return Next::Run(Step::VoidTickets);
        }
        if matches!(self.seats, Seats::Committed | Seats::MaybeCommitted) {
            return Next::Run(Step::AbandonSeats);
        }
        Next::Finish(self.uncharged_outcome())
    }

    fn uncharged_outcome(&self) -> Outcome {
        match &self.authorization {
            Authorization::Declined { code } => Outcome::Declined { code: code.clone() },
            Authorization::Rejected { code } => Outcome::Failed { code: code.clone() },
            Authorization::VoidedByKey => Outcome::Failed {
                code: PAYMENT_UNCERTAIN.to_owned(),
            },
            Authorization::StoppedWaiting => Outcome::Failed {
                code: PAYMENT_STILL_PENDING.to_owned(),
            },
            Authorization::VoidByKeyRejected { code } => {
                attention(AttentionReason::UncertainPaymentNotVoided { code: code.clone() })
            }
            Authorization::Approved | Authorization::NotCharged => {
                match (&self.seats, &self.tickets) {
                    (Seats::Taken { seats }, _) => Outcome::SeatLost {
                        seats: seats.clone(),
                    },
                    (Seats::Refused { reason }, _) => attention(AttentionReason::CommitRefused {
                        reason: reason.clone(),
                    }),
                    (_, Tickets::Conflict { seats }) => attention(AttentionReason::OrderConflict {
                        seats: seats.clone(),
                    }),
                    _ => Outcome::Failed {
                        code: AUTHORIZATION_VOIDED.to_owned(),
                    },
                }
            }
            Authorization::Awaiting { .. }
            | Authorization::GivenUp
            | Authorization::Refused { .. } => {
                unreachable!("next() runs Authorize or VoidUncertainPayment first")
            }
        }
    }
}

fn attention(reason: AttentionReason) -> Outcome {
    Outcome::NeedsAttention { reason }
}
