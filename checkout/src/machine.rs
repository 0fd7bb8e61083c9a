//! How events change a checkout: starting, answers, webhooks, timeouts.
//!
//! Every handler follows one shape: check that the event belongs to what
//! is in flight (else change nothing), record what it says as facts, then
//! `advance`: ask `decide.rs` for the next step, start it if it differs from
//! the one in flight, and put an audit row first.

use crate::actions::{Action, Stage, Step, StepTag};
use crate::answers::Applied;
use crate::config::Config;
use crate::events::{Event, PaymentStatus};
use crate::keys::authorization_key;
use crate::order::{NewCheckout, StartError};
use crate::requests::{is_square_id, Reply};
use crate::state::{
    Authorization, CardToken, InFlight, PaymentFacts, Refund, Seats, SquareOrder, State, Tickets,
    Waiting,
};
use crate::status::{ORDER_UNANSWERED, PAYMENT_FAILED};

/// Longest audit detail; longer ones are cut at a character boundary.
pub const MAX_AUDIT_DETAIL_BYTES: usize = 1_024;

impl State {
    pub fn start(
        new: NewCheckout,
        now_ms: u64,
        config: &Config,
    ) -> Result<(State, Vec<Action>), StartError> {
        config.validate().map_err(StartError::Config)?;
        new.validate()?;
        let key = authorization_key(&new.hold_id, &new.source_id);
        let credited = match &new.credit {
            Some(credit) => format!(
                " ({} credited from order {})",
                credit.amount_minor, credit.from_order
            ),
            None => String::new(),
        };
        let detail = format!(
            "checkout of {} for {} {}{credited}, hold {}, authorization key {key}",
            new.seats.join(" "),
            new.amount_minor,
            new.currency,
            new.hold_id,
        );
        // A free order, one its credit pays in full, or one paid at the box
        // office asks Square for nothing, so it keeps no card token.
        let free = new.charged_elsewhere();
        let itemized =
            !free && config.square_orders && new.credit.is_none() && !new.prices.is_empty();
        let mut state = State {
            config: config.clone(),
            order: new.order(),
            source_id: (!free).then_some(CardToken(new.source_id)),
            verification_token: (!free && !new.verification_token.is_empty())
                .then_some(CardToken(new.verification_token)),
            authorization_key: key,
            payment: PaymentFacts::default(),
            authorization: match free {
                true => Authorization::NotCharged,
                false => Authorization::Awaiting { unknown_answers: 0 },
            },
            seats: Seats::Held,
            tickets: Tickets::NotWritten,
            refund: Refund::NotStarted,
            square_order: match itemized {
                true => SquareOrder::Creating,
                false => SquareOrder::NotUsed,
            },
            outcome: None,
            final_recorded: false,
            in_flight: None,
            steps_started: 0,
            latest_now_ms: now_ms,
        };
        let actions = state.advance(now_ms, Stage::New, detail, true);
        Ok((state, actions))
    }

    pub fn handle_event(&mut self, event: Event, now_ms: u64) -> Vec<Action> {
        let now_ms = self.read_clock(now_ms);
        match event {
            Event::Answer { step, answer } => {
                self.handle_reply(step, Reply::Answer(answer), now_ms)
            }
            Event::PaymentObserved { payment_id, status } => {
                self.handle_observed(&payment_id, status, now_ms)
            }
        }
    }

    /// Sends the step's request again when its retry is due, or counts a
    /// request unanswered past `answer_timeout_ms` as an unknown outcome.
    pub fn handle_timeout(&mut self, now_ms: u64) -> Vec<Action> {
        let now_ms = self.read_clock(now_ms);
        let Some(in_flight) = &self.in_flight else {
            return Vec::new();
        };
        if in_flight.waiting.due_at_ms() > now_ms {
            return Vec::new();
        }
        match in_flight.waiting {
            Waiting::Answer { .. } => {
                let tag = in_flight.tag;
                self.handle_reply(tag, Reply::Silence, now_ms)
            }
            Waiting::Retry { .. } => {
                let (step, attempt) = (in_flight.step, in_flight.sent.saturating_add(1));
                let request = self.send(now_ms);
                let detail = format!("attempt {attempt} of {step:?}");
                vec![self.audit(now_ms, step.stage(), detail), request]
            }
        }
    }

    pub fn poll_timeout(&self) -> Option<u64> {
        self.in_flight.as_ref().map(|f| f.waiting.due_at_ms())
    }

    /// The instant to decide at: an earlier `now_ms` than seen before is read
    /// as the latest. Stored only when the state changes (`advance`,
    /// `send`), so that an ignored event leaves the checkout as it was.
    fn read_clock(&self, now_ms: u64) -> u64 {
        self.latest_now_ms.max(now_ms)
    }

    fn handle_reply(&mut self, tag: StepTag, reply: Reply, now_ms: u64) -> Vec<Action> {
        let Some(in_flight) = &self.in_flight else {
            return Vec::new();
        };
        if in_flight.tag != tag {
            return Vec::new();
        }
        let (step, from) = (in_flight.step, in_flight.step.stage());
        let awaiting = matches!(in_flight.waiting, Waiting::Answer { .. });
        match self.apply(step, reply) {
            Applied::Ignored => Vec::new(),
            // A retry is already scheduled; a second shrug changes nothing.
            Applied::Unanswered(_) | Applied::Pending(_) if !awaiting => Vec::new(),
            Applied::Unanswered(detail) | Applied::Pending(detail) if self.waits_for_pending() => {
                let detail = self.wait_for_pending(now_ms, detail);
                self.advance(now_ms, from, detail, true)
            }
            Applied::Unanswered(detail) | Applied::Pending(detail) => {
                let detail = self.count_unanswered(step, detail);
                self.advance(now_ms, from, detail, true)
            }
            Applied::Learned(detail) => self.advance(now_ms, from, detail, true),
        }
    }

    /// Square named the payment and it is PENDING, and the order says how
    /// long it may be: the lookups go on until then however many go
    /// unanswered, since the payment exists and will not be made again.
    pub(crate) fn waits_for_pending(&self) -> bool {
        matches!(self.authorization, Authorization::Awaiting { .. })
            && self.payment.is(PaymentStatus::Pending)
            && self.payment.id.is_some()
            && self.order.pay_by_ms.is_some()
    }

    /// Past `pay_by_ms` the checkout stops waiting: the buyer is told, and
    /// the payment is watched and cancelled by its id if Square approves it.
    fn wait_for_pending(&mut self, now_ms: u64, detail: String) -> String {
        let pay_by_ms = self.order.pay_by_ms.unwrap_or(now_ms);
        if now_ms < pay_by_ms {
            return format!("{detail} (until {pay_by_ms})");
        }
        self.authorization = Authorization::StoppedWaiting;
        self.drop_card();
        format!("{detail}: still PENDING at {pay_by_ms}, not waiting any longer")
    }

    /// The authorization, and the Square order before it, give up after
    /// `max_authorization_attempts` unanswered requests between them; every
    /// other step retries without limit.
    fn count_unanswered(&mut self, step: Step, detail: String) -> String {
        if !matches!(step, Step::Authorize | Step::CreateOrder) {
            return detail;
        }
        let Authorization::Awaiting { unknown_answers } = &mut self.authorization else {
            unreachable!("Authorize is in flight only while the authorization is awaited");
        };
        *unknown_answers = unknown_answers.saturating_add(1);
        let (count, max) = (*unknown_answers, self.config.max_authorization_attempts);
        if count < max {
            return format!("{detail} ({count} of {max})");
        }
        if step == Step::CreateOrder {
            // No payment was asked for, so there is nothing to void. An
            // order Square made meanwhile stays OPEN with nothing to pay.
            self.authorization = Authorization::Rejected {
                code: ORDER_UNANSWERED.to_owned(),
            };
            self.square_order = SquareOrder::NotUsed;
            self.drop_card();
            return format!("{detail} ({count} of {max}): no Square order, not paying");
        }
        self.authorization = Authorization::GivenUp;
        self.drop_card();
        format!("{detail} ({count} of {max}): payment uncertain, voiding by key")
    }

    fn handle_observed(
        &mut self,
        payment_id: &str,
        status: PaymentStatus,
        now_ms: u64,
    ) -> Vec<Action> {
        // A free order has no payment to hear of.
        if !is_square_id(payment_id) || self.authorization == Authorization::NotCharged {
            return Vec::new();
        }
        let ours = match &self.payment.id {
            Some(known) => known == payment_id,
            // Until an answer names the payment, the key's payment is the
            // order's only one, and the webhook was routed by order id.
            None => matches!(
                self.authorization,
                Authorization::Awaiting { .. }
                    | Authorization::GivenUp
                    | Authorization::Refused { .. }
                    | Authorization::VoidByKeyRejected { .. }
            ),
        };
        let from = self.stage();
        if !ours || !self.payment.merge(payment_id, status) {
            return Vec::new();
        }
        if let Authorization::Awaiting { .. } = self.authorization {
            self.settle_authorization(status);
        }
        let detail = format!("webhook: payment {payment_id} {}", status.as_str());
        self.advance(now_ms, from, detail, false)
    }

    /// A definite report on the key's payment ends the wait for CreatePayment.
    pub(crate) fn settle_authorization(&mut self, status: PaymentStatus) {
        self.authorization = match status {
            PaymentStatus::Pending => return,
            PaymentStatus::Failed => Authorization::Declined {
                code: PAYMENT_FAILED.to_owned(),
            },
            PaymentStatus::Approved | PaymentStatus::Completed | PaymentStatus::Canceled => {
                Authorization::Approved
            }
        };
        self.drop_card();
    }

    /// Picks the step the facts call for and starts it, unless it is already
    /// in flight. `answered` says the step in flight just got its answer;
    /// otherwise (a webhook) a local step still awaiting its answer is left
    /// alone until the answer comes, so its write cannot land after the
    /// next step's.
    fn advance(&mut self, now_ms: u64, from: Stage, detail: String, answered: bool) -> Vec<Action> {
        self.latest_now_ms = now_ms;
        let deferred = !answered
            && self
                .in_flight
                .as_ref()
                .is_some_and(|f| f.step.is_local() && matches!(f.waiting, Waiting::Answer { .. }));
        let mut actions = Vec::new();
        if !deferred {
            let next = self.next_step();
            let delay_ms = self
                .in_flight
                .as_ref()
                .map(|f| self.config.retry_delay_ms(f.sent));
            let pending_until = self
                .waits_for_pending()
                .then_some(self.order.pay_by_ms)
                .flatten();
            match (&mut self.in_flight, next) {
                (_, None) => self.in_flight = None,
                (Some(in_flight), Some(step)) if in_flight.step == step => {
                    if answered {
                        let mut next_attempt_at_ms = now_ms.saturating_add(delay_ms.unwrap_or(0));
                        // The last lookup of a PENDING payment is at its
                        // deadline, not a whole backoff past it.
                        if let Some(pay_by_ms) = pending_until {
                            next_attempt_at_ms = next_attempt_at_ms.min(pay_by_ms.max(now_ms));
                        }
                        in_flight.waiting = Waiting::Retry { next_attempt_at_ms };
                    }
                }
                (_, Some(step)) => actions.push(self.begin(step, now_ms)),
            }
        }
        actions.insert(0, self.audit(now_ms, from, detail));
        actions
    }

    fn begin(&mut self, step: Step, now_ms: u64) -> Action {
        let tag = StepTag(self.steps_started);
        self.steps_started = self.steps_started.saturating_add(1);
        self.in_flight = Some(InFlight {
            tag,
            step,
            sent: 0,
            waiting: Waiting::Answer { due_at_ms: now_ms },
        });
        self.send(now_ms)
    }

    /// Sends the in-flight step's request (again). Once sent, a commit or an
    /// order write may have happened whatever the answer, and the facts say so.
    fn send(&mut self, now_ms: u64) -> Action {
        let (tag, step, sent) = match &self.in_flight {
            Some(f) => (f.tag, f.step, f.sent),
            None => unreachable!("send is called with a step in flight"),
        };
        let request = self.request(tag, step, sent);
        if step == Step::CommitSeats && self.seats == Seats::Held {
            self.seats = Seats::MaybeCommitted;
        }
        if step == Step::WriteOrder && self.tickets == Tickets::NotWritten {
            self.tickets = Tickets::MaybeWritten;
        }
        self.latest_now_ms = now_ms;
        let due_at_ms = now_ms.saturating_add(self.config.answer_timeout_ms);
        if let Some(in_flight) = &mut self.in_flight {
            in_flight.sent = sent.saturating_add(1);
            in_flight.waiting = Waiting::Answer { due_at_ms };
        }
        request
    }

    pub(crate) fn audit(&self, at_ms: u64, from: Stage, mut detail: String) -> Action {
        if detail.len() > MAX_AUDIT_DETAIL_BYTES {
            let mut end = MAX_AUDIT_DETAIL_BYTES;
            while !detail.is_char_boundary(end) {
                end -= 1;
            }
            detail.truncate(end);
        }
        Action::Audit {
            at_ms,
            order_id: self.order.order_id.clone(),
            from,
            to: self.stage(),
            detail,
        }
    }
}
