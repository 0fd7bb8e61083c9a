//! A checkout driven by a script: each line is one event and what must
//! come out of it, so a test reads like the behaviour it pins.
//!
//! Expected actions are written short: `audit` for an audit row, the
//! action's name otherwise, with the payment id for Square calls on a
//! payment (`CompletePayment pay-1`), joined by `, `; `` for "nothing
//! happened". Statuses are written `pending`, `paid`, `declined CODE`,
//! `seat_lost A1 A2`, `needs_attention`, `failed CODE`.
//!
//! After every line the helper also checks the invariants, that the
//! checkout survives a JSON round trip unchanged, that an audit row comes
//! first whenever anything comes out, and that no audit row and no stored
//! state past the authorization holds the card token.

#![allow(dead_code)]

use checkout::{
    Action, Answer, Checkout, Config, Event, NewCheckout, PaymentStatus, PublicStatus, Step,
    StepTag,
};

pub const START_MS: u64 = 1_000_000;
pub const TOKEN: &str = "cnon:card-nonce-ok";
/// The default order's `pay_by_ms`: ten minutes after it starts.
pub const PAY_BY_MS: u64 = START_MS + 600_000;

pub fn new_checkout() -> NewCheckout {
    NewCheckout {
        order_id: "order-1".to_owned(),
        hold_id: "hold-1".to_owned(),
        seats: vec!["A1".to_owned(), "A2".to_owned()],
        amount_minor: 2_400,
        currency: "USD".to_owned(),
        source_id: TOKEN.to_owned(),
        verification_token: String::new(),
        buyer_email: "ada@example.com".to_owned(),
        buyer_name: "Ada Lovelace".to_owned(),
        prices: ["A1", "A2"]
            .iter()
            .map(|seat| checkout::SeatPrice {
                seat: seat.to_string(),
                category: "adult".to_owned(),
                name: "Adult".to_owned(),
                amount_minor: 1_200,
                tax_minor: 200,
                tax_rate_bps: 2_000,
                discount_minor: 0,
            })
            .collect(),
        paid_at_desk: false,
        credit: None,
        item_name: "Vertigo, Fri 26 Mar 19:30".to_owned(),
        pay_by_ms: Some(PAY_BY_MS),
        discount_code: None,
    }
}

/// The configuration of a card payment made without a Square order, as an
/// exchange's is: most scripts pin the payment's own steps with it.
pub fn without_square_order() -> Config {
    Config {
        square_orders: false,
        ..Config::default()
    }
}

/// The lines of a paid checkout from the approval on: seats, tickets,
/// capture, sold, paid.
pub fn approved_to_paid() -> Vec<(Do, &'static str, &'static str)> {
    vec![
        (Do::Answer(approved()), "audit, CommitSeats", "pending"),
        (
            Do::Answer(Answer::SeatsCommitted),
            "audit, WriteOrder",
            "pending",
        ),
        (
            Do::Answer(Answer::OrderWritten),
            "audit, CompletePayment pay-1",
            "pending",
        ),
        (
            Do::Answer(payment("pay-1", PaymentStatus::Completed)),
            "audit, ConfirmSeats",
            "pending",
        ),
        (
            Do::Answer(Answer::SeatsConfirmed),
            "audit, MarkPaid",
            "pending",
        ),
        (Do::Answer(Answer::Stored), "audit", "paid"),
    ]
}

/// What the actions of a script that `pick` picks out say.
pub fn picked<T>(script: &Script, pick: impl Fn(&Action) -> Option<T>) -> Vec<T> {
    script.actions.iter().filter_map(pick).collect()
}

/// One line of a script.
pub enum Do {
    /// Answer the step in flight.
    Answer(Answer),
    /// Answer the latest step of this kind that was in flight, usually one
    /// the checkout has left (a late duplicate).
    AnswerStale(Step, Answer),
    /// A webhook.
    Observe(&'static str, PaymentStatus),
    /// Let this much time pass, then call `handle_timeout`.
    Wait(u64),
    /// Drop the checkout and read it back from its JSON.
    Reload,
}

pub fn approved() -> Answer {
    payment("pay-1", PaymentStatus::Approved)
}

pub fn payment(id: &str, status: PaymentStatus) -> Answer {
    Answer::Payment {
        payment_id: id.to_owned(),
        status,
    }
}

pub struct Script {
    pub checkout: Checkout,
    pub now_ms: u64,
    /// The step in flight after each line, for `AnswerStale`.
    steps: Vec<(StepTag, Step)>,
    /// Every action that came out, in order.
    pub actions: Vec<Action>,
}

impl Script {
    /// Starts the default checkout, paying without a Square order; the
    /// first line must be its actions.
    pub fn start(expected: &str) -> Script {
        Script::start_with(new_checkout(), &without_square_order(), expected)
    }

    /// Starts the default checkout as the shop pays: through a Square order.
    pub fn itemized(expected: &str) -> Script {
        Script::start_with(new_checkout(), &Config::default(), expected)
    }

    pub fn start_with(new: NewCheckout, config: &Config, expected: &str) -> Script {
        let (checkout, actions) = Checkout::start(new, START_MS, config).expect("a valid checkout");
        let mut script = Script {
            checkout,
            now_ms: START_MS,
            steps: Vec::new(),
            actions: Vec::new(),
        };
        script.expect("start", actions, expected, "pending");
        script
    }

    /// Runs each line and checks what came out and the status after it.
    pub fn run(mut self, lines: Vec<(Do, &str, &str)>) -> Script {
        for (number, (line, expected, status)) in lines.into_iter().enumerate() {
            let before = self.checkout.clone();
            let actions = self.perform(line);
            if actions.is_empty() {
                assert_eq!(
                    self.checkout,
                    before,
                    "line {}: nothing out, nothing changed",
                    number + 1
                );
            }
            self.expect(&format!("line {}", number + 1), actions, expected, status);
        }
        self
    }

    fn perform(&mut self, line: Do) -> Vec<Action> {
        match line {
            Do::Answer(answer) => {
                let (step, _) = self.checkout.step_in_flight().expect("a step in flight");
                self.checkout
                    .handle_event(Event::Answer { step, answer }, self.now_ms)
            }
            Do::AnswerStale(kind, answer) => {
                let step = self
                    .steps
                    .iter()
                    .rev()
                    .find(|(_, k)| *k == kind)
                    .map(|(tag, _)| *tag)
                    .expect("such a step was in flight");
                self.checkout
                    .handle_event(Event::Answer { step, answer }, self.now_ms)
            }
            Do::Observe(payment_id, status) => {
                let event = Event::PaymentObserved {
                    payment_id: payment_id.to_owned(),
                    status,
                };
                self.checkout.handle_event(event, self.now_ms)
            }
            Do::Wait(ms) => {
                self.now_ms += ms;
                self.checkout.handle_timeout(self.now_ms)
            }
            Do::Reload => {
                self.checkout = reload(&self.checkout);
                Vec::new()
            }
        }
    }

    fn expect(&mut self, line: &str, actions: Vec<Action>, expected: &str, status: &str) {
        let shown: Vec<String> = actions.iter().map(short).collect();
        assert_eq!(shown.join(", "), expected, "{line}: actions");
        assert_eq!(
            show_status(&self.checkout.status()),
            status,
            "{line}: status"
        );
        if let Some(first) = actions.first() {
            assert!(
                matches!(first, Action::Audit { .. }),
                "{line}: audit row first"
            );
        }
        for action in &actions {
            if let Action::Audit { detail, .. } = action {
                assert!(
                    !detail.contains(TOKEN),
                    "{line}: the card token in an audit row"
                );
            }
        }
        self.checkout
            .check_invariants()
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(
            reload(&self.checkout),
            self.checkout,
            "{line}: JSON round trip"
        );
        let json = serde_json::to_string(&self.checkout).unwrap();
        assert_eq!(
            json.contains(TOKEN),
            self.checkout.holds_card_token(),
            "{line}"
        );
        if self.checkout.holds_card_token() {
            assert!(
                matches!(
                    self.checkout.stage(),
                    checkout::Stage::Authorizing | checkout::Stage::CreatingOrder
                ),
                "{line}: the card token kept at {:?}",
                self.checkout.stage()
            );
        }
        self.steps.extend(self.checkout.step_in_flight());
        self.actions.extend(actions);
    }
}

pub fn reload(checkout: &Checkout) -> Checkout {
    let json = serde_json::to_string(checkout).expect("a checkout serializes");
    serde_json::from_str(&json).expect("a stored checkout reads back")
}

pub fn short(action: &Action) -> String {
    match action {
        Action::Audit { .. } => "audit".to_owned(),
        Action::CreatePayment { .. } => "CreatePayment".to_owned(),
        Action::CreateOrder { .. } => "CreateOrder".to_owned(),
        Action::GetOrder { order_id, .. } => format!("GetOrder {order_id}"),
        Action::CancelOrder {
            order_id, version, ..
        } => format!("CancelOrder {order_id} v{version}"),
        Action::GetPayment { payment_id, .. } => format!("GetPayment {payment_id}"),
        Action::CompletePayment { payment_id, .. } => format!("CompletePayment {payment_id}"),
        Action::CancelPayment { payment_id, .. } => format!("CancelPayment {payment_id}"),
        Action::CancelPaymentByKey { .. } => "CancelPaymentByKey".to_owned(),
        Action::RefundPayment { payment_id, .. } => format!("RefundPayment {payment_id}"),
        Action::CommitSeats { .. } => "CommitSeats".to_owned(),
        Action::ConfirmSeats { .. } => "ConfirmSeats".to_owned(),
        Action::AbandonSeats { .. } => "AbandonSeats".to_owned(),
        Action::WriteOrder { .. } => "WriteOrder".to_owned(),
        Action::MarkPaid { .. } => "MarkPaid".to_owned(),
        Action::VoidTickets { .. } => "VoidTickets".to_owned(),
        Action::RecordFinal { .. } => "RecordFinal".to_owned(),
    }
}

pub fn show_status(status: &PublicStatus) -> String {
    match status {
        PublicStatus::Pending => "pending".to_owned(),
        PublicStatus::Paid => "paid".to_owned(),
        PublicStatus::Declined { code } => format!("declined {code}"),
        PublicStatus::SeatLost { seats } => format!("seat_lost {}", seats.join(" ")),
        PublicStatus::NeedsAttention => "needs_attention".to_owned(),
        PublicStatus::Failed { code } => format!("failed {code}"),
    }
}
