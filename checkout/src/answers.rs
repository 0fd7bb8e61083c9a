//! What each answer means for the step it answers: the facts it adds, or
//! that it settles nothing and the step must be sent again.

use crate::actions::Step;
use crate::events::{Answer, OrderLine, PaymentStatus};
use crate::order::line_uid;
use crate::requests::{bounded_code, bounded_text, is_square_id, Reply};
use crate::state::{Authorization, Refund, Seats, SquareOrder, State, Tickets};
use crate::status::ORDER_TOTAL_MISMATCH;

/// Most requests (UpdateOrder and RetrieveOrder together) spent on
/// cancelling a Square order nobody will pay before it is left OPEN.
pub const MAX_ORDER_CANCEL_SENDS: u32 = 6;

/// What a reply did to the facts.
pub(crate) enum Applied {
    /// It does not fit the step in flight (a caller bug, or a malformed id).
    Ignored,
    /// No definite answer: the step must be sent again.
    Unanswered(String),
    /// Square made the payment and it is PENDING: an answer, so it is not
    /// counted as a missing one, but it settles nothing yet.
    Pending(String),
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
            Step::CreateOrder => self.apply_order_created(answer),
            Step::CancelOrder => self.apply_order_cancel(answer),
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
                    return Applied::Pending(format!(
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
                self.drop_card();
                Applied::Learned(detail)
            }
            Answer::Rejected { code } => {
                let code = bounded_code(&code);
                let detail = format!("CreatePayment: rejected {code}, voiding by key");
                self.authorization = Authorization::Refused { code };
                self.drop_card();
                Applied::Learned(detail)
            }
            Answer::OutcomeUnknown | Answer::PaymentNotFound => {
                Applied::Unanswered("CreatePayment: outcome unknown".to_owned())
            }
            _ => Applied::Ignored,
        }
    }

    fn apply_order_created(&mut self, answer: Answer) -> Applied {
        match answer {
            Answer::OrderCreated {
                order_id,
                version,
                total_minor,
                lines,
            } if is_square_id(&order_id) => {
                let charge = self.order.charge_minor();
                self.square_order = SquareOrder::Open {
                    id: order_id.clone(),
                    version,
                };
                if total_minor != charge {
                    // Paying it would be refused, and its lines would not be
                    // what the buyer was shown: nothing is charged.
                    self.authorization = Authorization::Rejected {
                        code: ORDER_TOTAL_MISMATCH.to_owned(),
                    };
                    self.drop_card();
                    return Applied::Learned(format!(
                        "CreateOrder: order {order_id} comes to {total_minor}, the seats to {charge}: not paying"
                    ));
                }
                let adopted = self.adopt_lines(&lines);
                Applied::Learned(format!(
                    "CreateOrder: order {order_id} version {version}, {total_minor} {}{}",
                    self.order.currency,
                    if adopted {
                        ", Square's shares of the tax kept"
                    } else {
                        ""
                    }
                ))
            }
            Answer::Rejected { code } => {
                let code = bounded_code(&code);
                // Nothing was asked of the card, so nothing is voided.
                self.authorization = Authorization::Rejected { code: code.clone() };
                self.square_order = SquareOrder::NotUsed;
                self.drop_card();
                Applied::Learned(format!("CreateOrder: rejected {code}, not paying"))
            }
            Answer::OutcomeUnknown | Answer::PaymentNotFound => {
                Applied::Unanswered("CreateOrder: outcome unknown".to_owned())
            }
            _ => Applied::Ignored,
        }
    }

    /// Square's own line totals and taxes, when they differ from the
    /// seats' and still add up to the same charge: a refund of one seat
    /// then returns exactly its line item. True if any seat changed.
    fn adopt_lines(&mut self, lines: &[OrderLine]) -> bool {
        let matched: Option<Vec<&OrderLine>> = self
            .order
            .prices
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let uid = line_uid(i, &p.seat);
                lines.iter().find(|l| l.uid == uid)
            })
            .collect();
        let Some(matched) = matched else { return false };
        let sum = matched
            .iter()
            .try_fold(0u64, |sum, l| sum.checked_add(l.total_minor));
        let consistent = lines.len() == matched.len()
            && sum == Some(self.order.amount_minor)
            && matched.iter().all(|l| l.tax_minor <= l.total_minor);
        let differs = matched
            .iter()
            .zip(&self.order.prices)
            .any(|(l, p)| (l.total_minor, l.tax_minor) != (p.amount_minor, p.tax_minor));
        if !consistent || !differs {
            return false;
        }
        for (price, line) in self.order.prices.iter_mut().zip(matched) {
            price.amount_minor = line.total_minor;
            price.tax_minor = line.tax_minor;
        }
        true
    }

    /// UpdateOrder and RetrieveOrder alternate until the order is seen
    /// CANCELED (or COMPLETED: then there was nothing to cancel), or
    /// [`MAX_ORDER_CANCEL_SENDS`] requests went by.
    fn apply_order_cancel(&mut self, answer: Answer) -> Applied {
        let SquareOrder::Open { id, version } = &self.square_order else {
            return Applied::Ignored;
        };
        let id = id.clone();
        let detail = match answer {
            Answer::OrderSeen {
                order_id,
                version: seen,
                state,
            } if order_id == id => {
                let state = bounded_code(&state);
                if matches!(state.as_str(), "CANCELED" | "COMPLETED") {
                    let detail = format!("CancelOrder: order {id} {state}");
                    self.square_order = SquareOrder::Closed { id, state };
                    return Applied::Learned(detail);
                }
                let version = (*version).max(seen);
                self.square_order = SquareOrder::Open {
                    id: id.clone(),
                    version,
                };
                format!("CancelOrder: order {id} {state} at version {version}")
            }
            Answer::Rejected { code } => {
                format!("CancelOrder: rejected {}", bounded_code(&code))
            }
            Answer::OutcomeUnknown | Answer::PaymentNotFound => {
                "CancelOrder: outcome unknown".to_owned()
            }
            _ => return Applied::Ignored,
        };
        let sent = self.in_flight.as_ref().map_or(0, |f| f.sent);
        if sent >= MAX_ORDER_CANCEL_SENDS {
            self.square_order = SquareOrder::LeftOpen { id };
            return Applied::Learned(format!("{detail}; left OPEN after {sent} requests"));
        }
        Applied::Unanswered(detail)
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
