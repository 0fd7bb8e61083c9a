//! Text scripts for the desk: one call a line, `@now_ms verb args => what
//! the desk answered`, run against a real SQLite store that every decision
//! is written to; `restart` loads a fresh desk from that store, as an
//! evicted object does. A mismatch shows the whole script as it ran.

#[path = "../support/mod.rs"]
mod support;

mod checkouts;
mod codes;
mod holds;
mod limits;
mod live;
mod moves;
mod seating;
mod waitlist;

use desk::protocol::{
    Caller, CheckoutRequest, HoldRef, Idempotency, NewHold, PaymentObserved, ShowingSetup,
};
use desk::square::SquareReply;
use desk::{Answer, Decision, Desk, Effect, Reply, Request, Settings, StoreOutcome};
use support::Sqlite;

pub struct Script {
    /// The showing as set up, for `window` to edit.
    setup: ShowingSetup,
    db: Sqlite,
    desk: Desk,
    settings: Settings,
    /// Effects handed out and not answered yet, by order: (step, effect).
    pending: Vec<(String, checkout::StepTag, Effect)>,
    orders: Vec<String>,
    /// The message of the last map push.
    last_push: Option<String>,
    /// Each limited code's uses, as its object would decide them, and the
    /// messages the desk sent them not yet delivered.
    codes: std::collections::BTreeMap<String, uses::Uses>,
    code_mail: Vec<desk::CodeSent>,
}

fn category(id: &str, amount: u64) -> desk::protocol::PriceCategory {
    desk::protocol::PriceCategory {
        id: id.into(),
        name: id.into(),
        amount,
    }
}

/// What a code takes off, as scripts write it: `10%`, `200` off each
/// ticket, or `300/order`.
fn off_of(text: &str) -> checkout::discount::Off {
    match text {
        pct if pct.ends_with('%') => checkout::discount::Off::Percent {
            percent: pct.trim_end_matches('%').parse().expect("a percentage"),
        },
        order if order.ends_with("/order") => checkout::discount::Off::Amount {
            amount: order.trim_end_matches("/order").parse().expect("an amount"),
            per_order: true,
        },
        each => checkout::discount::Off::Amount {
            amount: each.parse().expect("an amount"),
            per_order: false,
        },
    }
}

fn token(name: &str) -> String {
    // Hold names in scripts are short; the token is their bytes in hex,
    // padded to the 32 characters the desk wants.
    format!("{:0>32}", hex::encode(name.as_bytes()))
}

impl Script {
    pub fn new(settings: Settings, seats: &[&str]) -> Script {
        let setup = ShowingSetup {
            showing_id: "0123456789abcdef".into(),
            units: desk::protocol::Units {
                names: seats.iter().map(|s| s.to_string()).collect(),
                blocked: vec![],
                // The last seat is a wheelchair space sold at the box office.
                desk_only: seats.last().map(|s| s.to_string()).into_iter().collect(),
                seating: None,
            },
            price: desk::protocol::Money {
                amount: 1200,
                currency: "GBP".into(),
            },
            max_seats_per_hold: 4,
            hold_ttl_ms: 300_000,
            payment_cap_ms: 600_000,
            sales: Default::default(),
            categories: vec![category("adult", 1200), category("child", 800)],
            waiting_room: false,
        };
        let (db, mut desk) = crate::support::showing(settings.clone(), setup.clone());
        // One browser watches the map throughout, its socket open across
        // restarts as a hibernated one is.
        desk.set_watchers(1);
        Script {
            setup,
            db,
            desk,
            settings,
            pending: Vec::new(),
            orders: Vec::new(),
            last_push: None,
            codes: Default::default(),
            code_mail: Vec::new(),
        }
    }

    fn decide(&mut self, decision: Decision) -> Decision {
        self.db.apply(&decision.writes);
        for effect in &decision.effects {
            match effect {
                Effect::Square { order_id, step, .. }
                | Effect::Refund { order_id, step, .. }
                | Effect::Store { order_id, step, .. } => {
                    self.pending.push((order_id.clone(), *step, effect.clone()));
                }
                Effect::Push { message, .. } => self.last_push = Some(message.clone()),
                Effect::CodeUse(sent) => self.code_mail.push(sent.clone()),
                _ => {}
            }
        }
        decision
    }

    fn run(&mut self, line: &str) -> String {
        let mut words = line.split_whitespace();
        let at = words.next().expect("a line starts with @now_ms");
        let now: u64 = at[1..].parse().expect("@ is followed by a number");
        let verb = words.next().expect("a verb");
        let args: Vec<&str> = words.collect();
        let hold_ref = |buyer: &str, hold: &str| HoldRef {
            buyer: buyer.into(),
            token: token(hold),
        };
        let request = match verb {
            "restart" => {
                self.desk = self.db.load_at(self.settings.clone(), now);
                self.desk.set_watchers(1);
                self.pending.clear();
                self.code_mail.clear();
                return "restarted".into();
            }
            "next" => return format!("{:?}", self.desk.poll_timeout()),
            // What the last push said, word for word.
            "pushed" => return self.last_push.clone().unwrap_or_default(),
            "alarm" => {
                let d = self.desk.handle_timeout(now);
                let d = self.decide(d);
                return effects(&d);
            }
            "rows" => return format!("{}", self.db.count(args[0])),
            "perform" => return self.perform(now, &args),
            "hold" => {
                // hold <buyer> <name> [key=K] [from=IP] seats… (a seat
                // as A2:child names its price)
                let (mut key, mut client, mut seats) = (None, "1.1.1.1".to_string(), Vec::new());
                let mut prices = std::collections::BTreeMap::new();
                for arg in &args[2..] {
                    if let Some(k) = arg.strip_prefix("key=") {
                        key = Some(k.to_string());
                    } else if let Some(ip) = arg.strip_prefix("from=") {
                        client = ip.to_string();
                    } else if let Some((seat, price)) = arg.split_once(':') {
                        seats.push(seat.to_string());
                        prices.insert(seat.to_string(), price.to_string());
                    } else {
                        seats.push(arg.to_string());
                    }
                }
                let fingerprint = seats.join(",");
                Request::Hold(NewHold {
                    caller: Caller {
                        buyer: args[0].into(),
                        client,
                    },
                    idempotency: key.map(|key| Idempotency { key, fingerprint }),
                    seats,
                    prices,
                    token: token(args[1]),
                    best: None,
                    admitted: false,
                })
            }
            // best <buyer> <hold> <count> [split] [accessible] [category=N…]:
            // best available.
            "best" => {
                let mut categories = std::collections::BTreeMap::new();
                for arg in &args[3..] {
                    if let Some((id, n)) = arg.split_once('=') {
                        categories.insert(id.to_string(), n.parse().expect("a count"));
                    }
                }
                Request::Hold(NewHold {
                    caller: Caller {
                        buyer: args[0].into(),
                        client: "1.1.1.1".into(),
                    },
                    idempotency: None,
                    seats: Vec::new(),
                    prices: Default::default(),
                    token: token(args[1]),
                    best: Some(desk::protocol::BestHold {
                        count: args[2].parse().expect("a count"),
                        together: !args.contains(&"split"),
                        accessible: args.contains(&"accessible"),
                        categories,
                        zone: None,
                    }),
                    admitted: false,
                })
            }
            // suggest <count> [accessible]: the box office's best seats.
            "suggest" => Request::BestSeats(desk::protocol::BestHold {
                count: args[0].parse().expect("a count"),
                together: true,
                accessible: args.contains(&"accessible"),
                categories: Default::default(),
                zone: None,
            }),
            // room <aisle after…|-> [best=<seat>] [singles]: the 8 seats
            // become one row, cut by aisles after those seats.
            "room" => {
                let aisles_after = args.iter().filter_map(|a| a.parse().ok()).collect();
                self.setup.units.seating = Some(ledger::Seating {
                    rows: vec![ledger::SeatRow {
                        seats: self.setup.units.names.len() as u32,
                        aisles_after,
                    }],
                    best_seat: args
                        .iter()
                        .find_map(|a| a.strip_prefix("best="))
                        .map(str::to_string),
                    allow_single_seats: args.contains(&"singles"),
                    ..Default::default()
                });
                Request::Configure(self.setup.clone())
            }
            "get" => Request::GetHold(hold_ref(args[0], args[1])),
            // desk <hold> <cash|card_at_desk|comp> [reason=…]
            // [code=<code>:<off>[:limited]] seats…: a box-office sale.
            "desk" => {
                let paid: desk::protocol::PaidAtDesk =
                    serde_json::from_value(serde_json::json!(args[1])).expect("a way to pay");
                let reason = args[2..]
                    .iter()
                    .find_map(|a| a.strip_prefix("reason="))
                    .map(str::to_string);
                let code = args[2..]
                    .iter()
                    .find_map(|a| a.strip_prefix("code="))
                    .map(|c| {
                        let mut parts = c.split(':');
                        desk::protocol::CodeTerms {
                            code: parts.next().expect("a code").into(),
                            off: off_of(parts.next().expect("what it takes off")),
                            categories: Vec::new(),
                            limited: parts.next() == Some("limited"),
                        }
                    });
                let seats = args[2..]
                    .iter()
                    .filter(|a| !a.starts_with("reason=") && !a.starts_with("code="))
                    .map(|s| s.to_string())
                    .collect();
                Request::BoxOffice(desk::protocol::BoxOfficeSale {
                    seats,
                    prices: Default::default(),
                    payment: desk::protocol::DeskPayment { paid, reason },
                    name: String::new(),
                    email: String::new(),
                    token: token(args[0]),
                    order_nonce: format!("{:0>24}", self.orders.len() + 1),
                    allocation: None,
                    code,
                })
            }
            // priced <buyer> <hold>: each seat's price and the total.
            "priced" => {
                let d = self
                    .desk
                    .handle_request(now, Request::GetHold(hold_ref(args[0], args[1])));
                let d = self.decide(d);
                return match d.reply {
                    Some(Ok(Reply::Hold(view))) => {
                        let each: Vec<String> = view
                            .prices
                            .iter()
                            .map(|p| format!("{} {} {}", p.seat, p.category, p.amount_minor))
                            .collect();
                        format!("{} = {}", each.join(", "), view.amount.amount)
                    }
                    other => format!("{other:?}"),
                };
            }
            // charged <order>: the amount its payment in flight asks for.
            "charged" => {
                let order_id = self.order(args[0]);
                return self
                    .pending
                    .iter()
                    .find_map(|(o, _, effect)| match effect {
                        Effect::Square { call, .. } if *o == order_id => call
                            .body
                            .as_ref()
                            .map(|b| b["amount_money"]["amount"].to_string()),
                        _ => None,
                    })
                    .unwrap_or_else(|| "nothing in flight".into());
            }
            // prices adult=N child=N: staff change the prices.
            "prices" => {
                self.setup.categories = args
                    .iter()
                    .map(|a| {
                        let (id, amount) = a.split_once('=').expect("id=amount");
                        category(id, amount.parse().expect("an amount"))
                    })
                    .collect();
                Request::Configure(self.setup.clone())
            }
            // reserve <code> <hold> <max> [buyer]: the Worker reserves one of
            // a code's uses for the hold, as the route does first.
            "reserve" => {
                let key = desk::use_key(
                    &self.setup.showing_id,
                    desk::hold_id_of(&token(args[1])).as_str(),
                );
                let request = uses::Request::Reserve {
                    key,
                    buyer: args.get(3).unwrap_or(&"ana").to_string(),
                    until_ms: now + 4_200_000,
                    limits: uses::Limits {
                        max_uses: Some(args[2].parse().expect("a limit")),
                        max_uses_per_buyer: None,
                    },
                };
                let uses = self.codes.entry(args[0].to_string()).or_default();
                return format!("{:?}", uses.decide(now, request).0);
            }
            // code <buyer> <hold> <code> <off> [limited] [cat=<id>]: the
            // buyer applies a code: `10%`, `200` off each ticket, or
            // `300/order`.
            "code" => {
                let off = off_of(args[3]);
                let categories = args[4..]
                    .iter()
                    .filter_map(|a| a.strip_prefix("cat="))
                    .map(String::from)
                    .collect();
                Request::ApplyCode(desk::protocol::ApplyCode {
                    hold: hold_ref(args[0], args[1]),
                    terms: desk::protocol::CodeTerms {
                        code: args[2].into(),
                        off,
                        categories,
                        limited: args[4..].contains(&"limited"),
                    },
                    email: "ana@example.com".into(),
                })
            }
            // deliver [down]: the codes' objects get every message sent,
            // or cannot be reached.
            "deliver" => return self.deliver(now, args.first() == Some(&"down")),
            // uses <code>: the code's uses, by stage.
            "uses" => {
                let counts = self
                    .codes
                    .get(args[0])
                    .map(|u| u.counts())
                    .unwrap_or_default();
                return format!(
                    "reserved {} held {} committed {}",
                    counts.reserved, counts.held, counts.committed
                );
            }
            "release" => Request::ReleaseHold(hold_ref(args[0], args[1])),
            "map" => Request::SeatCodes,
            // A second browser starts watching.
            "watch" => Request::Watch { watchers: 1 },
            // window <opens_at_ms> <closes_at_ms>: staff set when it sells.
            "window" => {
                let at = |i: usize| args[i].parse::<u64>().expect("a time");
                self.setup.sales = desk::window::SalesWindow {
                    opens_at_ms: at(0),
                    closes_at_ms: at(1),
                };
                Request::Configure(self.setup.clone())
            }
            "cancel" => Request::Cancel,
            // move <order> <ticket> <from> <to>: staff move a sold ticket.
            "move" => Request::MoveTicket(desk::protocol::MoveTicket {
                order_id: self.order(args[0]),
                ticket_id: args[1].into(),
                from: args[2].into(),
                to: args[3].into(),
            }),
            // void <order> <seats…>: a completed refund reopens seats.
            "void" => Request::VoidSeats(desk::protocol::VoidSeats {
                order_id: self.order(args[0]),
                seats: args[1..].iter().map(|s| s.to_string()).collect(),
            }),
            // checkout <buyer> <hold> <card> [exchange=<order>:<limit>]:
            // the card is `-` for none; an exchange pays with an earlier
            // order's tickets, worth up to the limit.
            "checkout" => Request::Checkout(CheckoutRequest {
                hold: hold_ref(args[0], args[1]),
                verification_token: String::new(),
                source_id: args[2].trim_start_matches('-').into(),
                email: "ana@example.com".into(),
                name: "Ana".into(),
                order_nonce: format!("{:0>24}", self.orders.len() + 1),
                client: "1.1.1.1".into(),
                item_name: "Vertigo, Fri 19:30".into(),
                exchange: args.get(3).map(|arg| {
                    let (from, limit) = arg
                        .strip_prefix("exchange=")
                        .and_then(|a| a.split_once(':'))
                        .expect("exchange=<order>:<limit>");
                    desk::protocol::ExchangeCredit {
                        from_order: from.into(),
                        credit_limit_minor: limit.parse().expect("a limit"),
                    }
                }),
            }),
            // waitlist <entry> <email> <seats> [from=IP]: a buyer joins the
            // waiting list; the entry's offer token is its name's.
            "waitlist" => Request::JoinWaitlist(desk::protocol::JoinWaitlist {
                id: args[0].into(),
                email: args[1].into(),
                seats: args[2].parse().expect("a count"),
                token: token(args[0]),
                client: args
                    .iter()
                    .find_map(|a| a.strip_prefix("from="))
                    .unwrap_or("1.1.1.1")
                    .into(),
            }),
            "waiting" => Request::Waitlist,
            // claim <entry> <buyer> [key=<name>]: the offer's link opened,
            // with the entry's own token unless another is named.
            "claim" => Request::ClaimOffer(desk::protocol::ClaimOffer {
                entry: args[0].into(),
                token: token(
                    args.iter()
                        .find_map(|a| a.strip_prefix("key="))
                        .unwrap_or(args[0]),
                ),
                buyer: Caller {
                    buyer: args[1].into(),
                    client: "1.1.1.1".into(),
                },
                hold_token: token(&format!("{}{}", args[0], args[1])),
            }),
            "status" => Request::OrderStatus {
                order_id: self.order(args[0]),
            },
            "webhook" => Request::PaymentObserved(PaymentObserved {
                order_id: self.order(args[0]),
                payment_id: args[1].into(),
                status: args[2].into(),
            }),
            other => panic!("unknown verb {other}"),
        };
        let d = self.desk.handle_request(now, request);
        let d = self.decide(d);
        let reply = match d.reply.clone().expect("a request has a reply") {
            Ok(reply) => self.reply(reply),
            Err(refusal) => {
                let mut line = format!("{} {}", refusal.status(), refusal.code.as_str());
                if let Some(s) = refusal.retry_after_s {
                    line += &format!(" retry {s}");
                }
                // What a seat-picking refusal names.
                let named = match refusal.code {
                    desk::Code::LeavesSingleSeat => Some("seat"),
                    desk::Code::NoAdjacentSeats => Some("largest_block"),
                    desk::Code::NotEnoughSeats | desk::Code::SeatsAvailable => Some("available"),
                    desk::Code::OfferEnded => Some("state"),
                    _ => None,
                };
                if let Some(value) = named.and_then(|key| Some((key, refusal.extra.get(key)?))) {
                    let (key, value) = value;
                    line += &format!(
                        " {key}={}",
                        value.as_str().map_or(value.to_string(), str::to_string)
                    );
                }
                line
            }
        };
        match effects(&d) {
            e if e.is_empty() => reply,
            e => format!("{reply}; {e}"),
        }
    }

    fn order(&self, name: &str) -> String {
        let n: usize = name[1..].parse().expect("orders are o1, o2, …");
        self.orders[n - 1].clone()
    }

    fn reply(&mut self, reply: Reply) -> String {
        match reply {
            Reply::Done => "204".into(),
            Reply::Held(h) => format!("201 held {} until {}", h.seats.join(" "), h.expires_at_ms),
            Reply::Replayed { status, .. } => format!("replayed {status}"),
            Reply::Hold(view) => {
                let mut line = format!("{} {}", view.state, view.seats.join(" "));
                if let Some(left) = view.expires_in_ms {
                    line += &format!(" left {left}");
                }
                if let Some(order_id) = view.order_id {
                    let n = self.orders.iter().position(|o| *o == order_id).unwrap() + 1;
                    line += &format!(" o{n}");
                }
                if let Some(discount) = view.discount {
                    line += &format!(
                        " {} -{} = {}",
                        discount.code, discount.amount, view.amount.amount
                    );
                }
                line
            }
            Reply::Codes(codes) => codes.codes,
            Reply::Watch { map } => map,
            Reply::Order(order) => {
                if !self.orders.contains(&order.order_id) {
                    self.orders.push(order.order_id.clone());
                }
                let name = self
                    .orders
                    .iter()
                    .position(|o| *o == order.order_id)
                    .unwrap()
                    + 1;
                let settling = if order.settling { " settling" } else { "" };
                let credit = match order.credit {
                    0 => String::new(),
                    credit => format!(" credit {credit} of {}", order.amount.amount),
                };
                format!("o{name} {}{credit}{settling}", order.status.name())
            }
            Reply::Best { seats } => format!("best {}", seats.join(" ")),
            Reply::WaitlistJoined(place) => format!(
                "{} {} for {}{}{}",
                place.id,
                place.position,
                place.seats,
                if place.new { "" } else { " again" },
                if place.offered { " offered" } else { "" },
            ),
            Reply::Waitlist { entries } => entries
                .iter()
                .map(|e| {
                    let mut line = format!("{} {}", e.id, e.state);
                    if !e.offered_seats.is_empty() {
                        line += &format!(" {}", e.offered_seats.join(" "));
                    }
                    if let Some(until) = e.until_ms {
                        line += &format!(" until {until}");
                    }
                    if e.claimed {
                        line += " claimed";
                    }
                    line
                })
                .collect::<Vec<_>>()
                .join(", "),
            Reply::Moved(m) => format!(
                "moved {} {} to {} as ticket {} at {}",
                m.ticket_id, m.from, m.to, m.ticket_number, m.moved_at_ms
            ),
            Reply::Cancelled {
                new,
                cancelled_at_ms,
            } => format!(
                "cancelled{} at {cancelled_at_ms}",
                if new { " now" } else { "" }
            ),
            other => format!("{other:?}"),
        }
    }

    /// `perform <order> <answer…>`: answers the order's effect in flight.
    /// Hands each code message to its code's uses and the answer back to
    /// the desk; says what each was and how it was answered.
    fn deliver(&mut self, now: u64, down: bool) -> String {
        let mail = std::mem::take(&mut self.code_mail);
        let mut said = Vec::new();
        for sent in mail {
            let code = &sent.code;
            let kind = serde_json::to_value(&sent.request).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string();
            let answer = match down {
                true => desk::CodeAnswer::Unreachable,
                false => {
                    let uses = self.codes.entry(code.clone()).or_default();
                    desk::CodeAnswer::Answered(uses.decide(now, sent.request.clone()).0)
                }
            };
            said.push(match &answer {
                desk::CodeAnswer::Answered(Ok(_)) => format!("{code} {kind} ok"),
                desk::CodeAnswer::Answered(Err(e)) => format!("{code} {kind} {e:?}"),
                desk::CodeAnswer::Unreachable => format!("{code} {kind} unreachable"),
            });
            let d = self.desk.handle_code_answer(now, &sent, answer);
            self.decide(d);
        }
        said.join(", ")
    }

    fn perform(&mut self, now: u64, args: &[&str]) -> String {
        let order_id = self.order(args[0]);
        let at = self
            .pending
            .iter()
            .position(|(o, ..)| *o == order_id)
            .expect("an effect in flight");
        let (_, step, effect) = self.pending.remove(at);
        let answer = match (&effect, args[1]) {
            (Effect::Store { .. }, "stored") => Answer::Store(StoreOutcome::Stored),
            (Effect::Store { .. }, "down") => Answer::Store(StoreOutcome::Unavailable),
            (Effect::Square { .. } | Effect::Refund { .. }, "timeout") => {
                Answer::Square(SquareReply::Unknown("timeout".into()))
            }
            (Effect::Square { .. }, "payment") => Answer::Square(SquareReply::Ok(
                serde_json::json!({"payment": {"id": args[2], "status": args[3]}}),
            )),
            (Effect::Square { .. }, "declined") => Answer::Square(SquareReply::Refused {
                status: 402,
                category: "PAYMENT_METHOD_ERROR".into(),
                code: args[2].into(),
                detail: String::new(),
                payment: None,
            }),
            // order <id> <total>: CreateOrder made the order.
            (Effect::Square { .. }, "order") => {
                Answer::Square(SquareReply::Ok(serde_json::json!({
                    "order": {"id": args[2], "version": 1, "state": "OPEN",
                        "total_money": {"amount": args[3].parse::<u64>().expect("a total"), "currency": "USD"},
                        "line_items": []}
                })))
            }
            // order-state <id> <version> <state>: the order as read or updated.
            (Effect::Square { .. }, "order-state") => {
                Answer::Square(SquareReply::Ok(serde_json::json!({
                    "order": {"id": args[2], "version": args[3].parse::<u64>().expect("a version"),
                        "state": args[4]}
                })))
            }
            (effect, answer) => panic!("cannot answer {effect:?} with {answer}"),
        };
        let d = self.desk.handle_answer(now, &order_id, step, answer);
        let d = self.decide(d);
        effects(&d)
    }
}

/// The effects a shell would perform, one word each.
fn effects(d: &Decision) -> String {
    d.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Square { call, .. } => Some(format!("square {:?} {}", call.method, call.path)),
            Effect::Refund { request, .. } => {
                let call = desk::square::refund_call(request);
                Some(format!("square {:?} {}", call.method, call.path))
            }
            Effect::Store { write, .. } => Some(format!("store {}", store_name(write))),
            Effect::Push { version, .. } => Some(format!("push {version}")),
            Effect::Crash { .. } => Some("crash".into()),
            Effect::ExchangeSettled { from_order, .. } => {
                Some(format!("exchange from {from_order} settled"))
            }
            Effect::OfferMail {
                entry_id, seats, ..
            } => Some(format!("offer {} to {entry_id}", seats.join(" "))),
            Effect::CodeUse(desk::CodeSent { code, request, .. }) => Some(format!(
                "code {code} {}",
                serde_json::to_value(request).unwrap()["kind"]
                    .as_str()
                    .unwrap()
            )),
            Effect::Record(_) => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn store_name(write: &desk::OrderWrite) -> String {
    match write {
        desk::OrderWrite::Order { .. } => "order".into(),
        desk::OrderWrite::MarkPaid { .. } => "paid".into(),
        desk::OrderWrite::VoidTickets => "void".into(),
        desk::OrderWrite::Final { status, .. } => format!("final {status}"),
    }
}

/// Runs `script` on a fresh 8-seat showing and compares every answer.
pub fn check(script: &str) {
    check_with(Settings::default(), script);
}

/// Runs `script` with these settings, but with the map pushed on every
/// change (a period of 0), so each script line shows the version its
/// decision made, and card payments made without a Square order, so each
/// shows the payment's own steps; `live.rs` checks the period itself with
/// [`check_live`], and [`check_itemized`] pays through Square orders.
pub fn check_with(settings: Settings, script: &str) {
    let settings = Settings {
        map_push: desk::PushPeriod::EVERY_CHANGE,
        checkout: checkout::Config {
            square_orders: false,
            ..settings.checkout
        },
        ..settings
    };
    check_live(settings, script);
}

/// Runs `script` as [`check`] does, but paying as the shop does: through a
/// Square order.
pub fn check_itemized(script: &str) {
    let settings = Settings {
        map_push: desk::PushPeriod::EVERY_CHANGE,
        ..Settings::default()
    };
    check_live(settings, script);
}

/// Runs `script` with these settings as they are.
pub fn check_live(settings: Settings, script: &str) {
    let seats = ["A1", "A2", "A3", "A4", "A5", "A6", "A7", "A8"];
    let mut run = Script::new(settings, &seats);
    let mut expected = Vec::new();
    let mut actual = Vec::new();
    for line in script.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (call, answer) = line.split_once("=>").expect("a line is `call => answer`");
        let call = call.trim();
        expected.push(format!("{call} => {}", answer.trim()));
        let answer = run.run(call);
        if std::env::var_os("DESK_SCRIPT_TRACE").is_some() {
            eprintln!("{call} => {answer}");
        }
        actual.push(format!("{call} => {answer}"));
    }
    if expected != actual {
        panic!(
            "the desk answered otherwise.\nexpected:\n  {}\nactual:\n  {}",
            expected.join("\n  "),
            actual.join("\n  ")
        );
    }
}
