//! A deterministic simulation of an order's refunds, driving the machine
//! and the loop that ship (`refunds::run`, `refunds::sweep`).
//!
//! Each case sets up 1 to 4 paid orders (some free, one perhaps a checkout
//! whose seats were lost and whose payment the showing's object refunds
//! whole), a simulated Square that speaks like the real one (one pending
//! refund a payment, `REFUND_ALREADY_PENDING`; no more than is left,
//! `REFUND_AMOUNT_INVALID`; nothing after a FAILED refund; the same
//! answer for a key sent again with the same body), a simulated D1 whose
//! writes keep the SQL's rules, and a showing's seats. A random phase
//! interleaves staff refunds, buyers' cancellations with a fee, refunds
//! started in the Dashboard, staff choosing what a partial one covers,
//! Square settling pending refunds COMPLETED, REJECTED or FAILED, webhooks
//! delivered late, twice, out of order or never, sweeps, and faults: an
//! action failing before it is done, or after (a lost answer, a crash).
//! A quiet phase then delivers everything and sweeps until nothing moves,
//! with one order's every write failing, and checks that every other
//! order settled. The rules are checked after every step (see `check`).
//!
//! `REFUNDS_SIM_CASES` sets the number of cases (2,000 by default),
//! `REFUNDS_SIM_SEED` the first seed; a failing case prints its seed and
//! the trace of its last steps.

use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use refunds::{
    Action, Answer, Book, Bought, Credit, Elsewhere, Event, Fee, Io, Order, OrderStatus, Refund,
    RefundRequest, Status, Ticket,
};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len() as u64) as usize)
        }
    }
}

fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(value) => value,
        Poll::Pending => panic!("nothing in the simulation waits"),
    }
}

#[derive(Clone, Debug)]
struct SquareRefund {
    id: String,
    key: Option<String>,
    payment_id: String,
    amount: u64,
    status: Status,
    body: serde_json::Value,
}

#[derive(Default)]
struct Square {
    captured: BTreeMap<String, u64>,
    refunds: Vec<SquareRefund>,
    /// Webhooks not yet delivered: (square id, amount, status).
    webhooks: Vec<(String, u64, Status)>,
}

impl Square {
    fn of_payment(&self, payment_id: &str) -> impl Iterator<Item = &SquareRefund> {
        let payment_id = payment_id.to_string();
        self.refunds
            .iter()
            .filter(move |r| r.payment_id == payment_id)
    }

    fn refund_payment(&mut self, request: &RefundRequest) -> Answer {
        let body = request.body();
        if let Some(same) = self
            .refunds
            .iter()
            .find(|r| r.key.as_deref() == Some(&request.idempotency_key))
        {
            if same.body != body {
                return refused("IDEMPOTENCY_KEY_REUSED");
            }
            return Answer::Took {
                square_id: same.id.clone(),
                status: same.status,
            };
        }
        let Some(&captured) = self.captured.get(&request.payment_id) else {
            return refused("NOT_FOUND");
        };
        if self
            .of_payment(&request.payment_id)
            .any(|r| r.status == Status::Failed)
        {
            return refused("REFUND_DECLINED");
        }
        if self
            .of_payment(&request.payment_id)
            .any(|r| r.status == Status::Pending)
        {
            return refused(refunds::ALREADY_PENDING);
        }
        if request.amount == 0 || request.amount > captured - self.taken(&request.payment_id) {
            return refused("REFUND_AMOUNT_INVALID");
        }
        let refund = self.create(
            &request.payment_id,
            request.amount,
            Some(request.idempotency_key.clone()),
            body,
        );
        Answer::Took {
            square_id: refund.id,
            status: refund.status,
        }
    }

    fn taken(&self, payment_id: &str) -> u64 {
        self.of_payment(payment_id)
            .filter(|r| matches!(r.status, Status::Pending | Status::Completed))
            .map(|r| r.amount)
            .sum()
    }

    fn create(
        &mut self,
        payment_id: &str,
        amount: u64,
        key: Option<String>,
        body: serde_json::Value,
    ) -> SquareRefund {
        let refund = SquareRefund {
            id: format!("{payment_id}_{}", self.refunds.len()),
            key,
            payment_id: payment_id.to_string(),
            amount,
            status: Status::Pending,
            body,
        };
        self.refunds.push(refund.clone());
        self.webhooks
            .push((refund.id.clone(), amount, Status::Pending));
        refund
    }

    fn settle(&mut self, index: usize, status: Status) {
        let refund = &mut self.refunds[index];
        refund.status = status;
        self.webhooks
            .push((refund.id.clone(), refund.amount, status));
    }
}

fn refused(code: &str) -> Answer {
    Answer::Refused {
        code: code.to_string(),
        detail: format!("{code} (simulated)"),
    }
}

#[derive(Clone, Debug)]
struct Row {
    refund: Refund,
}

/// The D1 tables refunds touch, with the SQL's rules.
#[derive(Default)]
struct Store {
    orders: BTreeMap<String, Order>,
    tickets: BTreeMap<String, (String, Ticket)>,
    rows: BTreeMap<String, Row>,
    /// Messages queued for buyers, by (refund, kind): at most one each.
    mails: BTreeSet<(String, &'static str)>,
    /// Exchanges asked for: the order they buy → how it stands.
    exchanges: BTreeMap<String, Exchange>,
}

/// An order bought by an exchange, as its showing's object decides it.
#[derive(Clone, Debug)]
struct Exchange {
    from_order: String,
    /// The old tickets' worth, the most its credit may be.
    worth: u64,
    /// The new seats and their prices.
    seats: Vec<(String, u64)>,
    outcome: Outcome,
}

#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    Paying,
    /// Paid, with this credit of the old order's payment.
    Paid(u64),
    Failed,
}

impl Store {
    fn book(&self, order_id: &str) -> Option<Book> {
        let order = self.orders.get(order_id)?.clone();
        let tickets = self
            .tickets
            .values()
            .filter(|(o, _)| o == order_id)
            .map(|(_, t)| t.clone())
            .collect();
        Some(Book {
            order,
            tickets,
            refunds: Vec::new(),
            elsewhere: Vec::new(),
        })
    }
}

struct World {
    rng: Rng,
    square: Square,
    store: Store,
    /// Seats of the showing: seat → the order holding it, or free.
    seats: BTreeMap<String, Option<String>>,
    /// Refund row ids are the machine's keys; the store files them by order.
    order_of_key: BTreeMap<String, String>,
    faults: bool,
    poisoned: Option<String>,
    /// Events run, by name, for the run's summary.
    events: BTreeMap<String, u64>,
    now_ms: u64,
    trace: Vec<String>,
    broken: Vec<String>,
}

impl World {
    fn order_of_refund(&self, refund_id: &str) -> Option<String> {
        self.order_of_key.get(refund_id).cloned()
    }

    /// The payment a stored row draws on, whichever order it is of.
    fn payment_of_row(&self, refund: &Refund) -> Option<String> {
        let order_id = self.order_of_refund(&refund.id)?;
        refund
            .payment_id
            .clone()
            .or_else(|| self.store.orders.get(&order_id)?.payment_id.clone())
    }

    /// What the Worker's D1 reads give: the order, its credit from the
    /// order row, its refund rows, and the other orders' rows of the
    /// payments it draws on.
    fn store_book(&self, order_id: &str) -> Option<Book> {
        let mut book = self.store.book(order_id)?;
        book.refunds = self
            .store
            .rows
            .values()
            .filter(|row| self.order_of_refund(&row.refund.id).as_deref() == Some(order_id))
            .map(|row| row.refund.clone())
            .collect();
        let payments: Vec<String> = book
            .sources()
            .into_iter()
            .filter_map(|s| s.payment_id)
            .collect();
        book.elsewhere = self
            .store
            .rows
            .values()
            .filter(|row| self.order_of_refund(&row.refund.id).as_deref() != Some(order_id))
            .filter(|row| row.refund.exchange_to.is_none())
            .filter_map(|row| {
                let payment_id = self.payment_of_row(&row.refund)?;
                payments.contains(&payment_id).then_some(Elsewhere {
                    payment_id,
                    status: row.refund.status,
                    amount: row.refund.amount,
                })
            })
            .collect();
        Some(book)
    }

    fn broke(&mut self, rule: String) {
        self.broken.push(rule);
    }
}

/// The simulated shell: the same loop as the Worker's, over the world.
struct Shell<'w> {
    world: &'w mut World,
    order_id: String,
}

#[derive(Debug)]
struct Fault;

impl Io for Shell<'_> {
    type Error = Fault;

    async fn load(&mut self, order_id: &str) -> Result<Option<Book>, Fault> {
        self.order_id = order_id.to_string();
        Ok(self.world.store_book(order_id))
    }

    async fn perform(&mut self, action: &Action) -> Result<Option<Event>, Fault> {
        let world = &mut *self.world;
        let poisoned = world.poisoned.as_deref() == Some(self.order_id.as_str());
        if poisoned || (world.faults && world.rng.chance(8)) {
            world.trace.push(format!("  fails before {}", name(action)));
            return Err(Fault);
        }
        let answer = perform(world, &self.order_id, action);
        if world.faults && world.rng.chance(8) {
            world
                .trace
                .push(format!("  done, then lost: {}", name(action)));
            return Err(Fault);
        }
        Ok(answer)
    }
}

fn name(action: &Action) -> String {
    let text = format!("{action:?}");
    text.chars().take(160).collect()
}

fn perform(world: &mut World, order_id: &str, action: &Action) -> Option<Event> {
    world.trace.push(format!("  {}", name(action)));
    match action {
        Action::Save { refund, news, .. } => {
            if news.is_some() {
                world.store.mails.insert((refund.id.clone(), "failed"));
            }
            world
                .order_of_key
                .insert(refund.id.clone(), order_id.to_string());
            match world.store.rows.get_mut(&refund.id) {
                None if refund.status == Status::Asked && !refund.id.starts_with("square:") => {
                    // A new refund decided here: the rules of asking, as
                    // the rows tell the payment now.
                    if let Some(rule) = new_ask_breaks(world, order_id, refund) {
                        world.broke(rule);
                    }
                    world.store.rows.insert(
                        refund.id.clone(),
                        Row {
                            refund: refund.clone(),
                        },
                    );
                }
                None => {
                    world.store.rows.insert(
                        refund.id.clone(),
                        Row {
                            refund: refund.clone(),
                        },
                    );
                }
                Some(row) => {
                    let stored = &mut row.refund;
                    if stored.status != refund.status {
                        if stored.status.may_become(refund.status) {
                            stored.status = refund.status;
                        } else {
                            let rule = format!(
                                "refund {} written back from {:?} to {:?}",
                                refund.id, stored.status, refund.status
                            );
                            world.broken.push(rule);
                        }
                    }
                    let stored = &mut world.store.rows.get_mut(&refund.id).unwrap().refund;
                    stored.square_id = stored.square_id.clone().or(refund.square_id.clone());
                    stored.tickets = stored.tickets.clone().or(refund.tickets.clone());
                    stored.failure = refund.failure.clone().or(stored.failure.clone());
                }
            }
            None
        }
        Action::AskSquare { refund_id, request } => {
            let answer = world.square.refund_payment(request);
            // Sometimes the answer is lost after Square took it.
            if world.faults && world.rng.chance(10) {
                return Some(Event::Answered {
                    refund_id: refund_id.clone(),
                    answer: Answer::Unknown,
                });
            }
            Some(Event::Answered {
                refund_id: refund_id.clone(),
                answer,
            })
        }
        Action::LookUp { square_id, .. } => {
            let refund = world.square.refunds.iter().find(|r| &r.id == square_id)?;
            Some(Event::Reported {
                square_id: refund.id.clone(),
                payment_id: refund.payment_id.clone(),
                amount: refund.amount,
                status: refund.status,
                looked_up: true,
            })
        }
        Action::LookUpExchange {
            refund_id,
            order_id: bought,
        } => {
            let outcome = match world.store.exchanges.get(bought).map(|e| &e.outcome) {
                None => Bought::Missing,
                Some(Outcome::Paying) => Bought::Paying,
                Some(Outcome::Paid(credit)) => Bought::Paid { credit: *credit },
                Some(Outcome::Failed) => Bought::Ended,
            };
            Some(Event::Exchanged {
                refund_id: refund_id.clone(),
                outcome,
            })
        }
        Action::VoidTickets { tickets, .. } => {
            for id in tickets {
                if let Some((_, ticket)) = world.store.tickets.get_mut(id) {
                    ticket.live = false;
                }
            }
            None
        }
        Action::ReopenSeats { seats, .. } => {
            for seat in seats {
                let live = world
                    .store
                    .tickets
                    .values()
                    .any(|(_, t)| &t.seat == seat && t.live);
                if live {
                    world.broke(format!(
                        "seat {seat} offered again while its ticket is live"
                    ));
                }
                world.seats.insert(seat.clone(), None);
            }
            None
        }
        Action::MarkApplied {
            refund_id,
            exchange,
            ..
        } => {
            if let Some(row) = world.store.rows.get_mut(refund_id) {
                row.refund.applied = true;
            }
            let all_void = world
                .store
                .tickets
                .values()
                .filter(|(o, _)| o == order_id)
                .all(|(_, t)| !t.live);
            if let Some(order) = world.store.orders.get_mut(order_id) {
                if order.status == OrderStatus::Paid && all_void {
                    order.status = OrderStatus::Refunded;
                }
            }
            if !exchange {
                world.store.mails.insert((refund_id.clone(), "completed"));
            }
            None
        }
        Action::NeedsStaff { .. } => {
            if let Some(order) = world.store.orders.get_mut(order_id) {
                order.status = OrderStatus::NeedsAttention;
            }
            None
        }
        Action::AttentionSettled { .. } => {
            let undecided = world.store.rows.values().any(|row| {
                world.order_of_key.get(&row.refund.id).map(String::as_str) == Some(order_id)
                    && row.refund.tickets.is_none()
            });
            if let Some(order) = world.store.orders.get_mut(order_id) {
                if order.status == OrderStatus::NeedsAttention && !undecided {
                    order.status = OrderStatus::Paid;
                }
            }
            None
        }
    }
}

/// Whether a refund newly asked for breaks a rule of asking: another of
/// the same payment may be pending (whichever order asked), one FAILED,
/// or more than is left of the payment. Exchanges move nothing at Square.
fn new_ask_breaks(world: &World, order_id: &str, refund: &Refund) -> Option<String> {
    if refund.exchange_to.is_some() {
        return None;
    }
    let row_payment = |r: &Refund| -> Option<String> {
        r.payment_id.clone().or_else(|| {
            let owner = world
                .order_of_key
                .get(&r.id)
                .map(String::as_str)
                .unwrap_or(order_id);
            world.store.orders.get(owner)?.payment_id.clone()
        })
    };
    let payment_id = row_payment(refund)?;
    let rows: Vec<&Refund> = world
        .store
        .rows
        .values()
        .map(|row| &row.refund)
        .filter(|r| r.id != refund.id && r.exchange_to.is_none())
        .filter(|r| row_payment(r).as_deref() == Some(payment_id.as_str()))
        .collect();
    if rows.iter().any(|r| r.status.in_flight()) {
        return Some(format!(
            "{} asked while another refund of {payment_id} may be pending",
            refund.id
        ));
    }
    if rows.iter().any(|r| r.status == Status::Failed) {
        return Some(format!(
            "{} asked after a refund of {payment_id} FAILED",
            refund.id
        ));
    }
    let known: u64 = rows
        .iter()
        .filter(|r| r.status == Status::Completed || r.status.in_flight())
        .map(|r| r.amount)
        .sum();
    let captured = world.square.captured.get(&payment_id).copied().unwrap_or(0);
    (refund.amount + known > captured).then(|| {
        format!(
            "{} asked {} of {captured}, {known} already going back",
            refund.id, refund.amount
        )
    })
}

impl World {
    fn new(seed: u64) -> World {
        let mut world = World {
            rng: Rng(seed),
            square: Square::default(),
            store: Store::default(),
            seats: BTreeMap::new(),
            order_of_key: BTreeMap::new(),
            faults: true,
            poisoned: None,
            events: BTreeMap::new(),
            now_ms: 1_000_000,
            trace: Vec::new(),
            broken: Vec::new(),
        };
        let orders = 1 + world.rng.below(4);
        let mut seat = 0;
        for n in 0..orders {
            let order_id = format!("o{n}");
            let free = world.rng.chance(15);
            let count = 1 + world.rng.below(4);
            let mut amount = 0;
            for t in 0..count {
                seat += 1;
                let price = if free {
                    0
                } else {
                    500 + 250 * world.rng.below(4)
                };
                // Tickets sold before prices were kept share the order.
                let priced = !world.rng.chance(20);
                amount += price;
                let ticket = Ticket {
                    id: format!("{order_id}t{t}"),
                    seat: format!("A{seat}"),
                    live: true,
                    checked_in: world.rng.chance(10),
                    price: priced.then_some(price),
                };
                world
                    .seats
                    .insert(ticket.seat.clone(), Some(order_id.clone()));
                world
                    .store
                    .tickets
                    .insert(ticket.id.clone(), (order_id.clone(), ticket));
            }
            if world
                .store
                .tickets
                .values()
                .filter(|(o, _)| *o == order_id)
                .any(|(_, t)| t.price.is_none())
            {
                // Shares are equal only if the prices were.
                let share = amount / count;
                amount = share * count;
                for (o, t) in world.store.tickets.values_mut() {
                    if *o == order_id && t.price.is_some() {
                        t.price = Some(share);
                    }
                }
            }
            let payment_id = (!free).then(|| format!("pay{n}"));
            if let Some(p) = &payment_id {
                world.square.captured.insert(p.clone(), amount);
            }
            world.store.orders.insert(
                order_id.clone(),
                Order {
                    id: order_id.clone(),
                    showing_id: "show".into(),
                    payment_id,
                    amount,
                    currency: "GBP".into(),
                    status: OrderStatus::Paid,
                    credit: None,
                },
            );
        }
        if world.rng.chance(30) {
            // A checkout whose seats were lost after the payment was taken:
            // its object refunds it whole, recording the refund first.
            let order_id = "lost".to_string();
            let payment_id = "paylost".to_string();
            world.square.captured.insert(payment_id.clone(), 1500);
            world.store.orders.insert(
                order_id.clone(),
                Order {
                    id: order_id.clone(),
                    showing_id: "show".into(),
                    payment_id: Some(payment_id.clone()),
                    amount: 1500,
                    currency: "GBP".into(),
                    status: OrderStatus::Other("failed".into()),
                    credit: None,
                },
            );
            let request = RefundRequest {
                idempotency_key: "refund-lost".into(),
                payment_id,
                amount: 1500,
                currency: "GBP".into(),
                seats: Vec::new(),
            };
            world
                .order_of_key
                .insert(request.idempotency_key.clone(), order_id.clone());
            world.run(
                &order_id,
                Event::CheckoutRefund {
                    request: request.clone(),
                },
            );
            if world.store.rows.contains_key("refund-lost") {
                let answer = world.square.refund_payment(&request);
                if world.rng.chance(70) {
                    world.run(
                        &order_id,
                        Event::Answered {
                            refund_id: request.idempotency_key.clone(),
                            answer,
                        },
                    );
                }
            }
        }
        world
    }

    /// The Dashboard refunds of an order whose tickets staff have not named.
    fn undecided(&self, order_id: &str) -> Vec<String> {
        self.store
            .rows
            .values()
            .filter(|row| self.order_of_refund(&row.refund.id).as_deref() == Some(order_id))
            .filter(|row| row.refund.tickets.is_none())
            .map(|row| row.refund.id.clone())
            .collect()
    }

    fn order_ids(&self) -> Vec<String> {
        self.store.orders.keys().cloned().collect()
    }

    /// Runs an event through the loop that ships; answers the book as it
    /// left it, unless it failed.
    fn run(&mut self, order_id: &str, event: Event) -> Option<Book> {
        let text = format!("{event:?}");
        let name: String = text.chars().take_while(|c| c.is_alphanumeric()).collect();
        *self.events.entry(name).or_default() += 1;
        self.trace.push(format!("{order_id}: {text}"));
        let now = self.now_ms;
        let mut shell = Shell {
            world: self,
            order_id: order_id.to_string(),
        };
        match block_on(refunds::run(&mut shell, order_id, event, now)) {
            Ok(ran) => Some(ran.book),
            Err(e) => {
                self.trace.push(format!("  -> {e:?}"));
                None
            }
        }
    }

    fn step(&mut self) {
        self.now_ms += 1 + self.rng.below(60_000);
        let orders = self.order_ids();
        let Some(order_id) = self.rng.pick(&orders).cloned() else {
            return;
        };
        match self.rng.below(11) {
            9 => self.exchange(&order_id),
            10 => self.exchange_ends(),
            0 | 1 => {
                // Staff refund some or all.
                let tickets = self.some_tickets(&order_id);
                self.run(&order_id, Event::Ask { tickets });
            }
            2 => {
                // A buyer cancels some seats, less a fee.
                let tickets = self.some_tickets(&order_id).unwrap_or_default();
                let fee = match self.rng.below(3) {
                    0 => Fee::None,
                    1 => Fee::Fixed(self.rng.below(800)),
                    _ => Fee::Percent(self.rng.below(101) as u8),
                };
                self.run(&order_id, Event::Cancel { tickets, fee });
            }
            3 => self.dashboard(&order_id),
            4 => self.settle_one(),
            5 | 6 => self.deliver_one(),
            7 => self.choose(&order_id),
            _ => {
                let now = self.now_ms;
                let _ = block_on(refunds::sweep(
                    &mut Shell {
                        order_id: String::new(),
                        world: self,
                    },
                    &orders,
                    now,
                ));
            }
        }
    }

    /// The buyer exchanges some tickets for seats of another showing: the
    /// old order's book is asked first, and only if it kept the tickets
    /// for the exchange does the new order start paying.
    fn exchange(&mut self, order_id: &str) {
        let tickets = self.some_tickets(order_id).unwrap_or_default();
        let bought = format!("x{}", self.store.exchanges.len());
        let Some(book) = self.run(
            order_id,
            Event::Exchange {
                tickets: tickets.clone(),
                to_order: bought.clone(),
            },
        ) else {
            return;
        };
        let Some(row) = book
            .refunds
            .iter()
            .find(|r| r.exchange_to.as_deref() == Some(bought.as_str()))
        else {
            return;
        };
        let seats = (0..tickets.len())
            .map(|n| (format!("{bought}s{n}"), 500 + 250 * self.rng.below(5)))
            .collect();
        self.store.exchanges.insert(
            bought,
            Exchange {
                from_order: order_id.to_string(),
                worth: row.amount,
                seats,
                outcome: Outcome::Paying,
            },
        );
    }

    /// The orders exchanges bought that are still paying.
    fn paying(&self) -> Vec<String> {
        self.store
            .exchanges
            .iter()
            .filter(|(_, e)| e.outcome == Outcome::Paying)
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// The new showing's object ends one exchange's order: paid (charging
    /// the card only what the credit does not cover) or failed. Its
    /// report to the old order may be lost; the sweep then finds it.
    fn exchange_ends(&mut self) {
        let paying = self.paying();
        let Some(bought) = self.rng.pick(&paying).cloned() else {
            return;
        };
        let paid = self.rng.chance(75);
        self.end_exchange(&bought, paid);
        if !(self.faults && self.rng.chance(30)) {
            self.report_exchange(&bought);
        }
    }

    fn end_exchange(&mut self, bought: &str, paid: bool) {
        let exchange = self.store.exchanges[bought].clone();
        self.trace
            .push(format!("exchange {bought} ends paid: {paid}"));
        if !paid {
            self.store.exchanges.get_mut(bought).unwrap().outcome = Outcome::Failed;
            return;
        }
        let total: u64 = exchange.seats.iter().map(|(_, p)| p).sum();
        let credit = total.min(exchange.worth);
        let charge = total - credit;
        let payment_id = (charge > 0).then(|| format!("pay-{bought}"));
        if let Some(p) = &payment_id {
            self.square.captured.insert(p.clone(), charge);
        }
        let from = &self.store.orders[&exchange.from_order];
        let credit_of = from.payment_id.clone().map(|payment_id| Credit {
            from_order: exchange.from_order.clone(),
            payment_id,
            amount: credit,
            payment_amount: from.amount,
        });
        self.store.orders.insert(
            bought.to_string(),
            Order {
                id: bought.to_string(),
                showing_id: "other".into(),
                payment_id,
                amount: charge,
                currency: "GBP".into(),
                status: OrderStatus::Paid,
                credit: credit_of.filter(|c| c.amount > 0),
            },
        );
        for (n, (seat, price)) in exchange.seats.iter().enumerate() {
            let ticket = Ticket {
                id: format!("{bought}t{n}"),
                seat: seat.clone(),
                live: true,
                checked_in: false,
                price: Some(*price),
            };
            self.seats.insert(seat.clone(), Some(bought.to_string()));
            self.store
                .tickets
                .insert(ticket.id.clone(), (bought.to_string(), ticket));
        }
        self.store.exchanges.get_mut(bought).unwrap().outcome = Outcome::Paid(credit);
    }

    /// The new order's object tells the old order's book how it ended.
    fn report_exchange(&mut self, bought: &str) {
        let exchange = self.store.exchanges[bought].clone();
        let outcome = match exchange.outcome {
            Outcome::Paying => return,
            Outcome::Paid(credit) => Bought::Paid { credit },
            Outcome::Failed => Bought::Ended,
        };
        let row = self
            .store
            .rows
            .values()
            .find(|row| row.refund.exchange_to.as_deref() == Some(bought))
            .map(|row| row.refund.id.clone());
        if let Some(refund_id) = row {
            self.run(
                &exchange.from_order,
                Event::Exchanged { refund_id, outcome },
            );
        }
    }

    fn some_tickets(&mut self, order_id: &str) -> Option<Vec<String>> {
        if self.rng.chance(40) {
            return None;
        }
        let ids: Vec<String> = self
            .store
            .tickets
            .iter()
            .filter(|(_, (o, _))| o == order_id)
            .map(|(id, _)| id.clone())
            .filter(|_| self.rng.chance(50))
            .collect();
        Some(ids)
    }

    fn dashboard(&mut self, order_id: &str) {
        let Some(payment_id) = self.store.orders[order_id].payment_id.clone() else {
            return;
        };
        let captured = self.square.captured[&payment_id];
        let left = captured - self.square.taken(&payment_id);
        let blocked = self
            .square
            .of_payment(&payment_id)
            .any(|r| matches!(r.status, Status::Pending | Status::Failed));
        if blocked || left == 0 {
            return; // The Dashboard refuses it too.
        }
        let amount = if self.rng.chance(50) {
            left
        } else {
            1 + self.rng.below(left)
        };
        self.trace
            .push(format!("dashboard refund of {amount} on {payment_id}"));
        self.square
            .create(&payment_id, amount, None, serde_json::Value::Null);
    }

    fn settle_one(&mut self) {
        let pending: Vec<usize> = (0..self.square.refunds.len())
            .filter(|&i| self.square.refunds[i].status == Status::Pending)
            .collect();
        if let Some(&i) = self.rng.pick(&pending) {
            let status = match self.rng.below(10) {
                0 => Status::Failed,
                1 | 2 => Status::Rejected,
                _ => Status::Completed,
            };
            self.trace.push(format!(
                "square settles {} {status:?}",
                self.square.refunds[i].id
            ));
            self.square.settle(i, status);
        }
    }

    fn deliver_one(&mut self) {
        if self.square.webhooks.is_empty() {
            return;
        }
        let i = self.rng.below(self.square.webhooks.len() as u64) as usize;
        if self.faults && self.rng.chance(10) {
            // Not answered in time: Square sends it again later.
            let hook = &self.square.webhooks[i];
            self.trace.push(format!("webhook {hook:?} not answered"));
            return;
        }
        let hook = self.square.webhooks[i].clone();
        // Delivered, and sometimes again later; a report the machine could
        // not place yet is answered with an error, so Square sends it again.
        if self.deliver(hook) && !(self.faults && self.rng.chance(20)) {
            self.square.webhooks.remove(i);
        }
    }

    /// Delivers a webhook; answers whether it was taken in.
    fn deliver(&mut self, (square_id, amount, status): (String, u64, Status)) -> bool {
        let Some(refund) = self.square.refunds.iter().find(|r| r.id == square_id) else {
            return true;
        };
        let payment_id = refund.payment_id.clone();
        // As the Worker finds it: the order whose row names the refund,
        // else one with a refund of that payment not yet answered, else
        // the payment's own order.
        let named = self
            .store
            .rows
            .values()
            .find(|row| row.refund.square_id.as_deref() == Some(square_id.as_str()))
            .and_then(|row| self.order_of_refund(&row.refund.id));
        let unnamed = || {
            self.store
                .rows
                .values()
                .find(|row| {
                    row.refund.square_id.is_none()
                        && row.refund.status == Status::Asked
                        && row.refund.exchange_to.is_none()
                        && self.payment_of_row(&row.refund).as_deref() == Some(payment_id.as_str())
                })
                .and_then(|row| self.order_of_refund(&row.refund.id))
        };
        let owner = || {
            self.store
                .orders
                .values()
                .find(|o| o.payment_id.as_deref() == Some(&payment_id))
                .map(|o| o.id.clone())
        };
        let Some(order_id) = named.or_else(unnamed).or_else(owner) else {
            return true;
        };
        let book = self.run(
            &order_id,
            Event::Reported {
                square_id: square_id.clone(),
                payment_id,
                amount,
                status,
                looked_up: false,
            },
        );
        book.is_some_and(|b| {
            b.refunds
                .iter()
                .any(|r| r.square_id.as_deref() == Some(&square_id))
        })
    }

    fn choose(&mut self, order_id: &str) {
        let undecided = self.undecided(order_id);
        let Some(refund_id) = self.rng.pick(&undecided).cloned() else {
            return;
        };
        let tickets = self.some_tickets(order_id).unwrap_or_default();
        self.run(order_id, Event::Choose { refund_id, tickets });
    }

    /// Everything delivered, everything settled, sweeps until nothing
    /// changes; one order's every action fails meanwhile.
    fn quiet(&mut self) {
        self.faults = false;
        let orders = self.order_ids();
        if orders.len() > 1 && self.rng.chance(50) {
            self.poisoned = self.rng.pick(&orders).cloned();
            self.trace.push(format!("poisoned: {:?}", self.poisoned));
        }
        let paying = self.paying();
        for bought in paying {
            let paid = self.rng.chance(70);
            self.end_exchange(&bought, paid);
        }
        let orders = self.order_ids();
        for _ in 0..12 {
            let hooks = std::mem::take(&mut self.square.webhooks);
            for hook in hooks {
                if !self.deliver(hook.clone()) {
                    self.square.webhooks.push(hook);
                }
            }
            for i in 0..self.square.refunds.len() {
                if self.square.refunds[i].status == Status::Pending {
                    let status = if self.rng.chance(80) {
                        Status::Completed
                    } else {
                        Status::Rejected
                    };
                    self.square.settle(i, status);
                }
            }
            // Staff answer every partial refund, with no tickets.
            for order_id in &orders {
                if self.poisoned.as_deref() != Some(order_id) {
                    self.choose_none(order_id);
                }
            }
            self.now_ms += 3_600_000;
            let now = self.now_ms;
            let swept = block_on(refunds::sweep(
                &mut Shell {
                    order_id: String::new(),
                    world: self,
                },
                &orders,
                now,
            ));
            let unexpected: Vec<&String> = swept
                .failed
                .iter()
                .map(|(o, _)| o)
                .filter(|o| self.poisoned.as_deref() != Some(o.as_str()))
                .collect();
            if !unexpected.is_empty() {
                let rule = format!("sweep failed for {unexpected:?} without a fault");
                self.broken.push(rule);
            }
        }
    }

    fn choose_none(&mut self, order_id: &str) {
        let undecided = self.undecided(order_id);
        for refund_id in undecided {
            self.run(
                order_id,
                Event::Choose {
                    refund_id,
                    tickets: Vec::new(),
                },
            );
        }
    }
}

/// The rules that hold after every step.
fn check(world: &World) -> Result<(), String> {
    if let Some(rule) = world.broken.first() {
        return Err(rule.clone());
    }
    for (payment_id, &captured) in &world.square.captured {
        let pending = world
            .square
            .of_payment(payment_id)
            .filter(|r| r.status == Status::Pending)
            .count();
        if pending > 1 {
            return Err(format!(
                "{pending} refunds of {payment_id} pending at Square"
            ));
        }
        let taken = world.square.taken(payment_id);
        if taken > captured {
            return Err(format!("{taken} refunded of {payment_id}'s {captured}"));
        }
    }
    // No ticket covered by two refunds that completed at Square.
    let mut paid_back: BTreeMap<&str, &str> = BTreeMap::new();
    for row in world.store.rows.values() {
        let completed_at_square = world.square.refunds.iter().any(|r| {
            r.status == Status::Completed
                && (row.refund.square_id.as_deref() == Some(r.id.as_str())
                    || r.key.as_deref() == Some(row.refund.id.as_str()))
        });
        if !completed_at_square {
            continue;
        }
        for ticket in row.refund.tickets.iter().flatten() {
            if let Some(other) = paid_back.insert(ticket, &row.refund.id) {
                return Err(format!(
                    "ticket {ticket} refunded by {other} and {}",
                    row.refund.id
                ));
            }
        }
    }
    // An exchange moved the old tickets only if the order it bought was
    // paid, and gave them back only if that order failed.
    for row in world.store.rows.values() {
        let Some(bought) = &row.refund.exchange_to else {
            continue;
        };
        let outcome = world.store.exchanges.get(bought).map(|e| &e.outcome);
        let fits = match row.refund.status {
            Status::Completed => matches!(outcome, Some(Outcome::Paid(_))),
            Status::Superseded => matches!(outcome, None | Some(Outcome::Failed)),
            Status::Asked => true,
            _ => false,
        };
        if !fits {
            return Err(format!(
                "exchange {} is {:?} while {bought} is {outcome:?}",
                row.refund.id, row.refund.status
            ));
        }
    }
    // A free seat has no live ticket.
    for (seat, holder) in &world.seats {
        let live = world
            .store
            .tickets
            .values()
            .any(|(_, t)| &t.seat == seat && t.live);
        if holder.is_none() && live {
            return Err(format!("seat {seat} free with a live ticket"));
        }
    }
    Ok(())
}

/// What must be true once everything has been delivered and swept.
fn check_at_rest(world: &World) -> Result<(), String> {
    let payments = |order: &Order| -> Vec<String> {
        order
            .payment_id
            .iter()
            .chain(order.credit.iter().map(|c| &c.payment_id))
            .cloned()
            .collect()
    };
    let poisoned: Vec<String> = world
        .poisoned
        .as_ref()
        .and_then(|id| world.store.orders.get(id))
        .map(payments)
        .unwrap_or_default();
    for order in world.store.orders.values() {
        // A poisoned order's rows never change, and what another order
        // shares a payment with waits on them.
        if world.poisoned.as_deref() == Some(order.id.as_str())
            || payments(order).iter().any(|p| poisoned.contains(p))
        {
            continue;
        }
        let on = |payment: &Option<String>| -> u64 {
            world
                .store
                .rows
                .values()
                .filter(|row| world.order_of_key.get(&row.refund.id) == Some(&order.id))
                .filter(|row| row.refund.exchange_to.is_none() && &row.refund.payment_id == payment)
                // The Dashboard may refund anything; Square keeps it within
                // the payment, and staff are told what it covers.
                .filter(|row| !row.refund.id.starts_with("square:"))
                .filter(|row| row.refund.status == Status::Completed)
                .map(|row| row.refund.amount)
                .sum()
        };
        // What an exchanged order drew on its credit stays within it, and
        // an order's own refunds and the credit it gave stay within its
        // payment.
        if let Some(credit) = &order.credit {
            let drawn = on(&Some(credit.payment_id.clone()));
            if drawn > credit.amount {
                return Err(format!(
                    "{} drew {drawn} of its credit {}",
                    order.id, credit.amount
                ));
            }
        }
        if let Some(payment_id) = &order.payment_id {
            let given: u64 = world
                .store
                .exchanges
                .values()
                .filter(|e| e.from_order == order.id)
                .filter_map(|e| match e.outcome {
                    Outcome::Paid(credit) => Some(credit),
                    _ => None,
                })
                .sum();
            let own = on(&None);
            let captured = world.square.captured[payment_id];
            if own + given > captured {
                return Err(format!(
                    "{} refunded {own} and gave {given} of {captured}",
                    order.id
                ));
            }
        }
        let rows: Vec<&Row> = world
            .store
            .rows
            .values()
            .filter(|row| world.order_of_key.get(&row.refund.id) == Some(&order.id))
            .collect();
        if let Some(payment_id) = &order.payment_id {
            for at_square in world.square.of_payment(payment_id) {
                // An exchanged order's refund of its credit is its own row.
                let row = world
                    .store
                    .rows
                    .values()
                    .find(|row| row.refund.square_id.as_deref() == Some(at_square.id.as_str()));
                let poisoned = row.and_then(|row| world.order_of_key.get(&row.refund.id));
                if poisoned.is_some() && poisoned == world.poisoned.as_ref() {
                    continue; // Another order's row, which no write reaches.
                }
                match row {
                    Some(row) if row.refund.status == at_square.status => {}
                    other => {
                        return Err(format!(
                            "{} is {:?} at Square but {:?} here",
                            at_square.id,
                            at_square.status,
                            other.map(|r| r.refund.status)
                        ))
                    }
                }
            }
        }
        for row in &rows {
            let refund = &row.refund;
            if matches!(
                refund.status,
                Status::Asked | Status::Pending | Status::Waiting
            ) {
                return Err(format!("{} still {:?} at rest", refund.id, refund.status));
            }
            if refund.status == Status::Completed && refund.tickets.is_some() && !refund.applied {
                return Err(format!("{} completed but not applied", refund.id));
            }
            if refund.status == Status::Completed && refund.applied {
                for ticket in refund.tickets.iter().flatten() {
                    let (_, t) = &world.store.tickets[ticket];
                    if t.live || world.seats[&t.seat].is_some() {
                        return Err(format!("{ticket} of applied {} still sold", refund.id));
                    }
                }
                let told = world
                    .store
                    .mails
                    .contains(&(refund.id.clone(), "completed"));
                if told == refund.exchange_to.is_some() {
                    return Err(format!("the buyer was not told of {}", refund.id));
                }
            }
            // The failure on the row is what the staff's attention list reads.
            if matches!(
                refund.status,
                Status::Rejected | Status::Failed | Status::Refused
            ) && refund.failure.is_none()
            {
                return Err(format!(
                    "staff were not told that {} is {:?}",
                    refund.id, refund.status
                ));
            }
            if matches!(refund.status, Status::Rejected | Status::Failed)
                && !world.store.mails.contains(&(refund.id.clone(), "failed"))
            {
                return Err(format!(
                    "the buyer was not told that {} is {:?}",
                    refund.id, refund.status
                ));
            }
        }
        // A failed exchange left its tickets with the buyer.
        for row in &rows {
            if row.refund.exchange_to.is_none() || row.refund.status != Status::Superseded {
                continue;
            }
            for ticket in row.refund.tickets.iter().flatten() {
                let taken = rows.iter().any(|other| {
                    !other.refund.status.did_not_happen()
                        && other.refund.tickets.iter().flatten().any(|t| t == ticket)
                });
                if !taken && !world.store.tickets[ticket].1.live {
                    return Err(format!("{ticket} lost to the failed {}", row.refund.id));
                }
            }
        }
        // Every live ticket still holds its seat.
        for (o, t) in world.store.tickets.values() {
            if o == &order.id
                && t.live
                && world.seats[&t.seat].as_deref() != Some(order.id.as_str())
            {
                return Err(format!("live ticket {} lost its seat", t.id));
            }
        }
    }
    Ok(())
}

fn simulate(seed: u64) -> (Result<(), String>, World) {
    let mut world = World::new(seed);
    let steps = 20 + world.rng.below(80);
    for _ in 0..steps {
        world.step();
        if let Err(e) = check(&world) {
            return (Err(e), world);
        }
    }
    world.quiet();
    let result = check(&world).and_then(|()| check_at_rest(&world));
    (result, world)
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|text| {
            text.replace('_', "")
                .parse()
                .unwrap_or_else(|_| panic!("{name} must be a number, got {text}"))
        })
        .unwrap_or(default)
}

/// What the cases reached, so a run that proves little says so.
#[derive(Default, Debug)]
struct Reached {
    statuses: BTreeMap<String, u64>,
    events: BTreeMap<String, u64>,
    poisoned: u64,
    chosen: u64,
    /// Exchanges completed, and refunds drawn on an exchanged order's credit.
    exchanged: u64,
    credit_refunds: u64,
}

#[test]
fn refunds_keep_every_rule_through_faults_races_and_crashes() {
    let cases = env_number("REFUNDS_SIM_CASES", 2_000);
    let first = env_number("REFUNDS_SIM_SEED", 1);
    let started = std::time::Instant::now();
    let mut reached = Reached::default();
    for seed in first..first + cases {
        let (result, world) = simulate(seed);
        if let Err(rule) = result {
            // A replay of one case prints all of it.
            let keep = if cases == 1 { usize::MAX } else { 60 };
            let tail: Vec<&String> = world.trace.iter().rev().take(keep).collect();
            for line in tail.into_iter().rev() {
                eprintln!("{line}");
            }
            panic!("refunds simulation: seed {seed} broke a rule: {rule}\nreplay: REFUNDS_SIM_SEED={seed} REFUNDS_SIM_CASES=1 cargo test -p refunds --test simulation");
        }
        for row in world.store.rows.values() {
            *reached
                .statuses
                .entry(format!("{:?}", row.refund.status))
                .or_default() += 1;
            if row.refund.id.starts_with("square:")
                && row.refund.tickets.as_ref().is_some_and(|t| !t.is_empty())
            {
                reached.chosen += 1;
            }
            if row.refund.payment_id.is_some() && row.refund.status == Status::Completed {
                reached.credit_refunds += 1;
            }
            if row.refund.exchange_to.is_some() && row.refund.status == Status::Completed {
                reached.exchanged += 1;
            }
        }
        for (event, count) in &world.events {
            *reached.events.entry(event.clone()).or_default() += count;
        }
        reached.poisoned += u64::from(world.poisoned.is_some());
    }
    eprintln!(
        "refunds simulation: {cases} cases from seed {first}, all rules held ({} ms): {reached:#?}",
        started.elapsed().as_millis()
    );
    if cases >= 1_000 {
        // The run must have reached every path, or it proves little.
        for status in ["Completed", "Rejected", "Failed", "Refused", "Superseded"] {
            assert!(
                reached.statuses.contains_key(status),
                "no refund ended {status}: {reached:#?}"
            );
        }
        for event in [
            "Ask",
            "Cancel",
            "CheckoutRefund",
            "Answered",
            "Reported",
            "Choose",
            "Exchange",
            "Exchanged",
        ] {
            assert!(
                reached.events.contains_key(event),
                "no {event} event: {reached:#?}"
            );
        }
        assert!(reached.poisoned > 0 && reached.chosen > 0, "{reached:#?}");
        assert!(
            reached.exchanged > 0 && reached.credit_refunds > 0,
            "{reached:#?}"
        );
    }
}
