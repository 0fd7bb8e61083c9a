//! The request each step sends, and the bounds on text that answers bring in.

use crate::actions::{Action, Step, StepTag};
use crate::events::{Answer, PaymentStatus};
use crate::keys::{order_cancel_key, order_key, refund_key};
use crate::order::{check_id, check_text};
use crate::state::{Authorization, SquareOrder, State};

/// Longest Square id (payment, refund) accepted from an answer or webhook.
/// Square's are about 30 characters; the bound keeps stored state small.
pub const MAX_SQUARE_ID_BYTES: usize = 192;
/// Longest error code kept from Square; longer ones are cut.
pub const MAX_CODE_BYTES: usize = 64;
/// Longest free text kept from an answer (a refusal's reason, a seat name).
pub const MAX_REASON_BYTES: usize = 200;

/// What came back for a step's request.
pub(crate) enum Reply {
    Answer(Answer),
    /// Nothing came back within `answer_timeout_ms`.
    Silence,
}

pub(crate) fn is_square_id(id: &str) -> bool {
    check_id(id, MAX_SQUARE_ID_BYTES).is_ok()
}

/// A Square error code as kept: printable ASCII, at most [`MAX_CODE_BYTES`].
pub(crate) fn bounded_code(code: &str) -> String {
    let kept: String = code
        .chars()
        .filter(char::is_ascii_graphic)
        .take(MAX_CODE_BYTES)
        .collect();
    if kept.is_empty() {
        "UNKNOWN_CODE".to_owned()
    } else {
        kept
    }
}

/// Free text as kept: no control characters, at most [`MAX_REASON_BYTES`].
pub(crate) fn bounded_text(text: &str) -> String {
    cut_text(text, MAX_REASON_BYTES)
}

/// `text` without control characters, cut to at most `max` bytes at a
/// character boundary.
pub fn cut_text(text: &str, max: usize) -> String {
    if check_text(text, max).is_ok() {
        return text.to_owned();
    }
    let mut kept = String::new();
    for c in text.chars().filter(|c| !c.is_control()) {
        if kept.len() + c.len_utf8() > max {
            break;
        }
        kept.push(c);
    }
    kept
}

impl State {
    /// The request for `step`, the `sent`-th time it is sent. Capture and
    /// void alternate with GetPayment: a request that went unanswered or was
    /// refused is followed by asking Square where the payment stands.
    pub(crate) fn request(&self, tag: StepTag, step: Step, sent: u32) -> Action {
        let order = &self.order;
        let ask_first = sent % 2 == 1;
        match step {
            Step::CreateOrder => Action::CreateOrder {
                step: tag,
                idempotency_key: order_key(&order.order_id),
                reference_id: order.order_id.clone(),
                item_name: order.item_name.clone(),
                currency: order.currency.clone(),
                prices: order.prices.clone(),
                discount_code: order.discount_code.clone(),
            },
            Step::CancelOrder => {
                let SquareOrder::Open { id, version } = &self.square_order else {
                    unreachable!("CancelOrder runs only for an open Square order")
                };
                match ask_first {
                    true => Action::GetOrder {
                        step: tag,
                        order_id: id.clone(),
                    },
                    false => Action::CancelOrder {
                        step: tag,
                        order_id: id.clone(),
                        version: *version,
                        idempotency_key: order_cancel_key(id, *version),
                    },
                }
            }
            // A PENDING payment is looked up, never made again.
            Step::Authorize
                if self.payment.is(PaymentStatus::Pending) && self.payment.id.is_some() =>
            {
                Action::GetPayment {
                    step: tag,
                    payment_id: self.payment.id.clone().unwrap_or_default(),
                }
            }
            Step::Authorize => Action::CreatePayment {
                step: tag,
                idempotency_key: self.authorization_key.clone(),
                source_id: match &self.source_id {
                    Some(token) => token.0.clone(),
                    None => unreachable!("check_invariants: the token is kept while authorizing"),
                },
                // An exchange's credit was paid through another order.
                amount_minor: order.charge_minor(),
                currency: order.currency.clone(),
                reference_id: order.order_id.clone(),
                buyer_email: order.buyer_email.clone(),
                autocomplete: false,
                square_order_id: self.square_order.id().map(str::to_owned),
                verification_token: self.verification_token.as_ref().map(|t| t.0.clone()),
            },
            Step::VoidUncertainPayment => Action::CancelPaymentByKey {
                step: tag,
                idempotency_key: self.authorization_key.clone(),
            },
            Step::CommitSeats => Action::CommitSeats {
                step: tag,
                hold_id: order.hold_id.clone(),
                order_id: order.order_id.clone(),
                seats: order.seats.clone(),
            },
            Step::WriteOrder => Action::WriteOrder {
                step: tag,
                order_id: order.order_id.clone(),
                hold_id: order.hold_id.clone(),
                seats: order.seats.clone(),
                amount_minor: order.amount_minor,
                currency: order.currency.clone(),
                buyer_email: order.buyer_email.clone(),
                buyer_name: order.buyer_name.clone(),
                prices: order.prices.clone(),
                payment_id: self.known_payment_id(),
                credit: order.credit.clone(),
            },
            Step::Capture if ask_first => self.get_payment(tag),
            Step::Capture => Action::CompletePayment {
                step: tag,
                payment_id: self.known_payment_id(),
            },
            // Square cancels nothing PENDING: it is watched until it settles.
            Step::VoidAuthorization if ask_first || self.payment.is(PaymentStatus::Pending) => {
                self.get_payment(tag)
            }
            Step::VoidAuthorization => Action::CancelPayment {
                step: tag,
                payment_id: self.known_payment_id(),
            },
            Step::Refund => Action::RefundPayment {
                step: tag,
                payment_id: self.known_payment_id(),
                idempotency_key: refund_key(&order.order_id),
                // All this payment took: the credit stays with the order
                // it was drawn from.
                amount_minor: order.charge_minor(),
                currency: order.currency.clone(),
            },
            Step::ConfirmSeats => Action::ConfirmSeats {
                step: tag,
                order_id: order.order_id.clone(),
            },
            Step::MarkPaid => Action::MarkPaid {
                step: tag,
                order_id: order.order_id.clone(),
                payment_id: self.known_payment_id(),
            },
            Step::VoidTickets => Action::VoidTickets {
                step: tag,
                order_id: order.order_id.clone(),
            },
            Step::AbandonSeats => Action::AbandonSeats {
                step: tag,
                order_id: order.order_id.clone(),
            },
            Step::RecordFinal => Action::RecordFinal {
                step: tag,
                order_id: order.order_id.clone(),
                outcome: match &self.outcome {
                    Some(outcome) => outcome.clone(),
                    None => unreachable!("RecordFinal runs once the outcome is set"),
                },
                payment_id: self.payment.id.clone(),
            },
        }
    }

    fn get_payment(&self, tag: StepTag) -> Action {
        Action::GetPayment {
            step: tag,
            payment_id: self.known_payment_id(),
        }
    }

    /// Every step past the authorization that names the payment runs only
    /// once an APPROVED or COMPLETED report named it (see check_invariants);
    /// a free order has none, written as "".
    fn known_payment_id(&self) -> String {
        match &self.payment.id {
            Some(id) => id.clone(),
            None if self.authorization == Authorization::NotCharged => String::new(),
            None => unreachable!("check_invariants: an authorized payment has an id"),
        }
    }
}
