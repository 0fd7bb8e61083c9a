//! What each answer means for the step it answers: the facts it adds, or
//! that it settles nothing and the step must be sent again.

use crate::actions::Step;
use crate::events::{Answer, PaymentStatus};
use crate::requests::{bounded_code, bounded_text, is_square_id, Reply};
use crate::state::{Authorization, Refund, Seats, State, Tickets};

/// What a reply did to the facts.
pub(crate) enum Applied {
    /// It does not fit the step in flight (a caller bug, or a malformed id).
    Ignored,
    /// No definite answer: the step must be sent again.
    Unanswered(String),
    /// The facts moved forward.
    Learned(String),
}

impl State {
    /// Records what a reply says about the step it answers.
    pub(crate) fn apply(&mut self, step: Step, reply: Reply) -> Applied {
        let answer = match reply {
            Reply::Silence => {
                return Applied::Unanswered(format!("{step:?}: no answer in time"));
            }
            Reply::Answer(answer) => answer,
        };
        match step {
            Step::Authorize => self.apply_authorization(answer),
            Step::VoidUncertainPayment => self.apply_void_by_key(answer),
            Step::Capture | Step::VoidAuthorization => self.apply_payment_move(step, answer),
            Step::Refund => self.apply_refund(answer),
            _ => self.apply_local(step, answer),
        }
    }

    fn apply_authorization(&mut self, answer: Answer) -> Applied {
        match answer {
            Answer::Payment { payment_id, status } if is_square_id(&payment_id) => {
                if status == PaymentStatus::Pending {
                    // Not made again: the next attempt looks this one up.
                    self.payment.merge(&payment_id, status);
                    return Applied::Unanswered(format!(
                        "CreatePayment: payment {payment_id} PENDING, looking it up"
                    ));
                }
                self.payment.merge(&payment_id, status);
                self.settle_authorization(status);
                Applied::Learned(format!(
                    "CreatePayment: payment {payment_id} {}",
                    status.as_str()
                ))
            }
            Answer::Declined { code, payment_id } => {
                let code = bounded_code(&code);
                let failed = payment_id.filter(|id| is_square_id(id));
                if let Some(id) = &failed {
                    self.payment.merge(id, PaymentStatus::Failed);
                }
                let detail = format!("CreatePayment: declined {code}, payment {failed:?}");
                self.authorization = Authorization::Declined { code };
                self.source_id = None;
                Applied::Learned(detail)
            }
            Answer::Rejected { code } => {
                let code = bounded_code(&code);
                let detail = format!("CreatePayment: rejected {code}, voiding by key");
                self.authorization = Authorization::Refused { code };
                self.source_id = None;
                Applied::Learned(detail)
            }
            Answer::OutcomeUnknown | Answer::PaymentNotFound => {
                Applied::Unanswered("CreatePayment: outcome unknown".to_owned())
            }
            _ => Applied::Ignored,
        }
    }

    fn apply_void_by_key(&mut self, answer: Answer) -> Applied {
        match answer {
            Answer::CanceledByKey => {
                self.authorization = match &self.authorization {
                    Authorization::Refused { code } => {
                        Authorization::Rejected { code: code.clone() }
                    }
                    _ => Authorization::VoidedByKey,
                };
                // Whatever the key made is void, or never existed.
                if !self.payment.status.is_some_and(PaymentStatus::is_final) {
                    self.payment.status = Some(PaymentStatus::Canceled);
                }
                Applied::Learned("CancelPaymentByKey: canceled".to_owned())
            }
            Answer::Rejected { code } => {
                let code = bounded_code(&code);
                let detail = format!("CancelPaymentByKey: rejected {code}");
                self.authorization = Authorization::VoidByKeyRejected { code };
                Applied::Learned(detail)
            }
            Answer::OutcomeUnknown => {
                Applied::Unanswered("CancelPaymentByKey: outcome unknown".to_owned())
            }
            _ => Applied::Ignored,
        }
    }

    /// Capture and void: a payment report settles them if it moved the
    /// status; anything else (a refusal included) is answered by asking
    /// Square for the payment next, since the two requests alternate.
    fn apply_payment_move(&mut self, step: Step, answer: Answer) -> Applied {
        match answer {
            Answer::Payment { payment_id, status } => {
                if self.payment.id.as_deref() != Some(payment_id.as_str()) {
                    return Applied::Ignored;
                }
                let detail = format!("{step:?}: payment {payment_id} {}", status.as_str());
                if self.payment.merge(&payment_id, status) {
                    Applied::Learned(detail)
                } else {
                    Applied::Unanswered(detail)
                }
            }
            Answer::Rejected { code } => Applied::Unanswered(format!(
                "{step:?}: rejected {}, asking for the payment",
                bounded_code(&code)
            )),
            Answer::OutcomeUnknown | Answer::PaymentNotFound => {
                Applied::Unanswered(format!("{step:?}: outcome unknown"))
            }
            _ => Applied::Ignored,
        }
    }

    fn apply_refund(&mut self, answer: Answer) -> Applied {
        match answer {
            Answer::RefundAccepted { refund_id } if is_square_id(&refund_id) => {
                let detail = format!("RefundPayment: refund {refund_id} accepted");
                self.refund = Refund::Accepted { refund_id };
                Applied::Learned(detail)
            }
            Answer::Rejected { code } => {
                let code = bounded_code(&code);
                let detail = format!("RefundPayment: rejected {code}");
                self.refund = Refund::Rejected { code };
                Applied::Learned(detail)
            }
            Answer::OutcomeUnknown => {
                Applied::Unanswered("RefundPayment: outcome unknown".to_owned())
            }
            _ => Applied::Ignored,
        }
    }

    /// Ledger and D1 answers.
    fn apply_local(&mut self, step: Step, answer: Answer) -> Applied {
        let detail = format!("{step:?}: {}", describe(&answer));
        match (step, answer) {
            (Step::CommitSeats, Answer::SeatsCommitted) => self.seats = Seats::Committed,
            (Step::CommitSeats, Answer::SeatsTaken { seats }) => {
                self.seats = Seats::Taken {
                    seats: self.order_seats_among(&seats),
                }
            }
            (Step::CommitSeats, Answer::CommitRefused { reason }) => {
                self.seats = Seats::Refused {
                    reason: bounded_text(&reason),
                }
            }
            (Step::WriteOrder, Answer::OrderWritten) => self.tickets = Tickets::Written,
            (Step::WriteOrder, Answer::OrderConflict { seats }) => {
                self.tickets = Tickets::Conflict {
                    seats: self.order_seats_among(&seats),
                }
            }
            (Step::ConfirmSeats, Answer::SeatsConfirmed) => self.seats = Seats::Sold,
            (Step::AbandonSeats, Answer::SeatsAbandoned) => self.seats = Seats::Released,
            (Step::MarkPaid, Answer::Stored) => {
                self.tickets = Tickets::Paid;
                self.final_recorded = true;
            }
            (Step::VoidTickets, Answer::Stored) => self.tickets = Tickets::Voided,
            (Step::RecordFinal, Answer::Stored) => self.final_recorded = true,
            (
                Step::WriteOrder | Step::MarkPaid | Step::VoidTickets | Step::RecordFinal,
                Answer::StoreUnavailable,
            ) => return Applied::Unanswered(detail),
            _ => return Applied::Ignored,
        }
        Applied::Learned(detail)
    }

    /// The order's seats named in an answer, each once; all of them if the
    /// answer named none of the order's (it cannot be more precise than that).
    fn order_seats_among(&self, named: &[String]) -> Vec<String> {
        let seats: Vec<String> = self
            .order
            .seats
            .iter()
            .filter(|seat| named.contains(seat))
            .cloned()
            .collect();
        if seats.is_empty() {
            self.order.seats.clone()
        } else {
            seats
        }
    }
}

/// An answer for an audit row: its variant, and a few bounded fields.
fn describe(answer: &Answer) -> String {
    match answer {
        Answer::SeatsTaken { seats } | Answer::OrderConflict { seats } => {
            let shown: Vec<String> = seats.iter().take(10).map(|s| bounded_text(s)).collect();
            let name = if matches!(answer, Answer::SeatsTaken { .. }) {
                "SeatsTaken"
            } else {
                "OrderConflict"
            };
            format!("{name} {}", shown.join(" "))
        }
        Answer::CommitRefused { reason } => format!("CommitRefused {}", bounded_text(reason)),
        Answer::SeatsCommitted => "SeatsCommitted".to_owned(),
        Answer::SeatsConfirmed => "SeatsConfirmed".to_owned(),
        Answer::SeatsAbandoned => "SeatsAbandoned".to_owned(),
        Answer::OrderWritten => "OrderWritten".to_owned(),
        Answer::Stored => "Stored".to_owned(),
        Answer::StoreUnavailable => "StoreUnavailable".to_owned(),
        _ => "an answer for another step".to_owned(),
    }
}
