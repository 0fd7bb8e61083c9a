//! The reconciliation of one showing before its doors open: what its
//! object sold, what D1 records and what Square took, compared seat by
//! seat and payment by payment. Each difference is a [`Finding`] with
//! what every side says; where the right repair is provable it carries a
//! [`Fix`] for the shell to carry out, and the rest is for staff.
//!
//! Provable, and so repaired: a seat the object sold to an order whose
//! payment Square captured, with no live ticket in D1 (the ticket is
//! written back, at the place and price the order gave it); and an
//! authorization Square holds for this showing that no order knows
//! (cancelled, so nobody is charged for nothing). For staff: a live ticket
//! for a seat the object does not give its order (the object lost the
//! seat, or sold it again), a captured payment no order knows, and an
//! order D1 calls paid whose payment Square did not take.

use serde::{Deserialize, Serialize};

use crate::protocol::SeatSale;

/// Most findings one reconciliation reports; a showing with more is
/// broken in a way a list cannot help with, and the count says so.
pub const MAX_FINDINGS: usize = 200;

/// A live ticket of the showing as D1 has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveTicket {
    pub id: String,
    pub order_id: String,
    pub seat: String,
    /// `valid` or `pending`.
    pub status: String,
}

/// An order of the showing as D1 has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRecord {
    pub id: String,
    pub status: String,
    pub payment_id: Option<String>,
    /// Its price, the seats' prices together.
    pub amount: u64,
    /// What its ticket rows (live or void) were sold at, together.
    pub tickets_amount: u64,
}

/// A Square payment: one an order names (GetPayment), or one ListPayments
/// found over the showing's sales.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payment {
    pub id: String,
    /// Square's status: APPROVED, COMPLETED, CANCELED, FAILED, PENDING.
    pub status: String,
    pub amount: u64,
    pub reference_id: Option<String>,
}

/// What one reconciliation is given.
pub struct Sides<'a> {
    pub showing_id: &'a str,
    pub seats: &'a [SeatSale],
    pub tickets: &'a [LiveTicket],
    pub orders: &'a [OrderRecord],
    pub payments: &'a [Payment],
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    TicketMissing,
    SeatLost,
    UnknownAuthorization,
    UnknownPayment,
    PaymentNotTaken,
}

impl Kind {
    pub fn as_str(&self) -> &'static str {
        match self {
            Kind::TicketMissing => "ticket_missing",
            Kind::SeatLost => "seat_lost_by_object",
            Kind::UnknownAuthorization => "unknown_authorization",
            Kind::UnknownPayment => "unknown_payment",
            Kind::PaymentNotTaken => "payment_not_taken",
        }
    }
}

/// A repair the facts prove right.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "fix", rename_all = "snake_case")]
pub enum Fix {
    /// Write the order's ticket of `place` back, `valid`, for `seat`.
    RestoreTicket {
        order_id: String,
        seat: String,
        place: usize,
        price: Option<checkout::SeatPrice>,
        /// The price when the checkout is forgotten but it is the order's
        /// one missing ticket: its price less its other tickets'.
        amount: Option<u64>,
    },
    /// Void the authorization: CancelPayment.
    CancelPayment { payment_id: String },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    pub kind: Kind,
    /// What it is about: a seat, or a payment.
    pub subject: String,
    pub order_id: Option<String>,
    pub payment_id: Option<String>,
    /// What the object, D1 and Square each say.
    pub object: String,
    pub d1: String,
    pub square: String,
    pub fix: Option<Fix>,
}

/// The differences between the three sides, seats first, at most
/// [`MAX_FINDINGS`] of them.
pub fn reconcile(sides: &Sides<'_>) -> Vec<Finding> {
    let mut found = Vec::new();
    seats(sides, &mut found);
    payments(sides, &mut found);
    found.truncate(MAX_FINDINGS);
    found
}

fn payment_of<'a>(sides: &'a Sides<'_>, id: &str) -> Option<&'a Payment> {
    sides.payments.iter().find(|p| p.id == id)
}

fn order_of<'a>(sides: &'a Sides<'_>, id: &str) -> Option<&'a OrderRecord> {
    sides.orders.iter().find(|o| o.id == id)
}

fn seats(sides: &Sides<'_>, found: &mut Vec<Finding>) {
    for seat in sides.seats {
        let ticket = sides.tickets.iter().find(|t| t.seat == seat.seat);
        match (seat.state.as_str(), &seat.order_id, ticket) {
            ("sold", Some(order_id), None) => {
                if let Some(finding) = missing_ticket(sides, seat, order_id) {
                    found.push(finding);
                }
            }
            (_, object_order, Some(ticket)) if object_order.as_ref() != Some(&ticket.order_id) => {
                let object = match object_order {
                    Some(order) => format!("{} {} to order {order}", seat.seat, seat.state),
                    None => format!("{} {}", seat.seat, seat.state),
                };
                found.push(Finding {
                    kind: Kind::SeatLost,
                    subject: seat.seat.clone(),
                    order_id: Some(ticket.order_id.clone()),
                    payment_id: order_of(sides, &ticket.order_id)
                        .and_then(|o| o.payment_id.clone()),
                    object,
                    d1: format!(
                        "ticket {} {} for order {}",
                        ticket.id, ticket.status, ticket.order_id
                    ),
                    square: String::new(),
                    fix: None,
                });
            }
            _ => {}
        }
    }
}

/// A seat sold with no live ticket: provably the order's if Square
/// captured its payment (or it was paid without Square) and D1 still
/// calls the order paid; then its ticket is written back.
fn missing_ticket(sides: &Sides<'_>, seat: &SeatSale, order_id: &str) -> Option<Finding> {
    let order = order_of(sides, order_id);
    let payment = order
        .and_then(|o| o.payment_id.as_deref())
        .filter(|id| !id.is_empty())
        .and_then(|id| payment_of(sides, id));
    let captured = match (order, payment) {
        (Some(order), Some(p)) => order.status == "paid" && p.status == "COMPLETED",
        // Paid at the box office or free: nothing for Square to say.
        (Some(order), None) => {
            order.status == "paid" && order.payment_id.as_deref().unwrap_or("").is_empty()
        }
        (None, _) => false,
    };
    let fix = match (captured, seat.place) {
        (true, Some(place)) => {
            let missing = sides
                .seats
                .iter()
                .filter(|s| s.order_id.as_deref() == Some(order_id) && s.state == "sold")
                .filter(|s| !sides.tickets.iter().any(|t| t.seat == s.seat))
                .count();
            let amount = order.and_then(|o| {
                (missing == 1 && seat.price.is_none())
                    .then(|| o.amount.saturating_sub(o.tickets_amount))
            });
            Some(Fix::RestoreTicket {
                order_id: order_id.to_string(),
                seat: seat.seat.clone(),
                place,
                price: seat.price.clone(),
                amount,
            })
        }
        _ => None,
    };
    Some(Finding {
        kind: Kind::TicketMissing,
        subject: seat.seat.clone(),
        order_id: Some(order_id.to_string()),
        payment_id: payment.map(|p| p.id.clone()),
        object: format!("{} sold to order {order_id}", seat.seat),
        d1: match order {
            Some(o) => format!(
                "order {} {}, no live ticket for {}",
                o.id, o.status, seat.seat
            ),
            None => format!("no order {order_id}"),
        },
        square: match payment {
            Some(p) => format!("payment {} {} {}", p.id, p.status, p.amount),
            None => "no payment".to_string(),
        },
        fix,
    })
}

fn payments(sides: &Sides<'_>, found: &mut Vec<Finding>) {
    for payment in sides.payments {
        // An order knows its payment by id once it is paid, and by its own
        // id (the payment's reference) while its checkout is under way:
        // that authorization is the checkout's to capture or void.
        let known = sides.orders.iter().any(|o| {
            o.payment_id.as_deref() == Some(payment.id.as_str())
                || payment.reference_id.as_deref() == Some(o.id.as_str())
        });
        // Only payments made for this showing: its orders' reference ids
        // begin with its id. The cinema's other sales at the location
        // (the bar, another app) are none of its business.
        let ours = payment
            .reference_id
            .as_deref()
            .is_some_and(|r| r.starts_with(sides.showing_id));
        if known || !ours {
            continue;
        }
        let (kind, fix) = match payment.status.as_str() {
            "APPROVED" => (
                Kind::UnknownAuthorization,
                Some(Fix::CancelPayment {
                    payment_id: payment.id.clone(),
                }),
            ),
            "COMPLETED" => (Kind::UnknownPayment, None),
            // Failed, cancelled or still pending: no money moved.
            _ => continue,
        };
        found.push(Finding {
            kind,
            subject: payment.id.clone(),
            order_id: payment.reference_id.clone(),
            payment_id: Some(payment.id.clone()),
            object: String::new(),
            d1: "no order has this payment".to_string(),
            square: format!(
                "payment {} {} {} for {}",
                payment.id,
                payment.status,
                payment.amount,
                payment.reference_id.as_deref().unwrap_or("no reference")
            ),
            fix,
        });
    }
    for order in sides.orders.iter().filter(|o| o.status == "paid") {
        let Some(id) = order.payment_id.as_deref().filter(|id| !id.is_empty()) else {
            continue;
        };
        let square = match payment_of(sides, id) {
            Some(p) if p.status == "COMPLETED" => continue,
            Some(p) => format!("payment {} {}", p.id, p.status),
            None => format!("no payment {id}"),
        };
        found.push(Finding {
            kind: Kind::PaymentNotTaken,
            subject: order.id.clone(),
            order_id: Some(order.id.clone()),
            payment_id: Some(id.to_string()),
            object: String::new(),
            d1: format!("order {} paid", order.id),
            square,
            fix: None,
        });
    }
}

/// A finding as staff read it: "seat A3: sold, no ticket".
pub fn describe(kind: &str, subject: &str) -> String {
    let what = match kind {
        "ticket_missing" => "sold and paid, but no ticket",
        "seat_lost_by_object" => "a ticket for a seat the showing does not hold for it",
        "unknown_authorization" => "a card authorization no order knows",
        "unknown_payment" => "a payment no order knows",
        "payment_not_taken" => "an order called paid whose payment Square did not take",
        other => other,
    };
    format!("{what} ({subject})")
}

/// What each side says, as one line.
pub fn sides(object: &str, d1: &str, square: &str) -> String {
    [("seats", object), ("D1", d1), ("Square", square)]
        .iter()
        .filter(|(_, says)| !says.is_empty())
        .map(|(who, says)| format!("{who}: {says}"))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(name: &str, state: &str, order: Option<&str>, place: Option<usize>) -> SeatSale {
        SeatSale {
            seat: name.into(),
            state: state.into(),
            order_id: order.map(str::to_string),
            place,
            price: None,
        }
    }

    fn ticket(id: &str, order: &str, seat: &str) -> LiveTicket {
        LiveTicket {
            id: id.into(),
            order_id: order.into(),
            seat: seat.into(),
            status: "valid".into(),
        }
    }

    fn order(id: &str, payment: &str, amount: u64, tickets_amount: u64) -> OrderRecord {
        OrderRecord {
            id: id.into(),
            status: "paid".into(),
            payment_id: Some(payment.into()),
            amount,
            tickets_amount,
        }
    }

    fn payment(id: &str, status: &str, reference: &str) -> Payment {
        Payment {
            id: id.into(),
            status: status.into(),
            amount: 1200,
            reference_id: Some(reference.into()),
        }
    }

    /// What a reconciliation of showing `s1` finds.
    fn found_in(
        seats: &[SeatSale],
        tickets: &[LiveTicket],
        orders: &[OrderRecord],
        payments: &[Payment],
    ) -> Vec<Finding> {
        reconcile(&Sides {
            showing_id: "s1",
            seats,
            tickets,
            orders,
            payments,
        })
    }

    #[test]
    fn three_sides_that_agree_have_nothing_to_say() {
        let seats = [
            seat("A1", "sold", Some("s1o1"), Some(0)),
            seat("A2", "available", None, None),
        ];
        let tickets = [ticket("s1o1-1", "s1o1", "A1")];
        let orders = [order("s1o1", "p1", 1200, 1200)];
        let payments = [
            payment("p1", "COMPLETED", "s1o1"),
            payment("bar", "APPROVED", "bar-tab"),
        ];
        let sides = Sides {
            showing_id: "s1",
            seats: &seats,
            tickets: &tickets,
            orders: &orders,
            payments: &payments,
        };
        assert_eq!(reconcile(&sides), []);
    }

    #[test]
    fn each_difference_is_found_and_the_provable_ones_carry_their_repair() {
        let seats = [
            // Sold and paid, its ticket gone from D1: written back at its
            // place, at the order's price less its other tickets'.
            seat("A1", "sold", Some("s1o1"), Some(1)),
            seat("A2", "sold", Some("s1o1"), Some(0)),
            // A live ticket the object does not give its order.
            seat("B1", "available", None, None),
        ];
        let tickets = [
            ticket("s1o1-1", "s1o1", "A2"),
            ticket("s1o2-1", "s1o2", "B1"),
        ];
        let orders = [
            order("s1o1", "p1", 2400, 1200),
            order("s1o2", "p2", 1200, 1200),
        ];
        let payments = [
            payment("p1", "COMPLETED", "s1o1"),
            payment("p2", "CANCELED", "s1o2"),
            payment("p3", "APPROVED", "s1o9"),
            payment("p4", "COMPLETED", "s1o8"),
        ];
        let found = found_in(&seats, &tickets, &orders, &payments);
        let kinds: Vec<&Kind> = found.iter().map(|f| &f.kind).collect();
        assert_eq!(
            kinds,
            [
                &Kind::TicketMissing,
                &Kind::SeatLost,
                &Kind::UnknownAuthorization,
                &Kind::UnknownPayment,
                &Kind::PaymentNotTaken,
            ]
        );
        assert_eq!(
            found[0].fix,
            Some(Fix::RestoreTicket {
                order_id: "s1o1".into(),
                seat: "A1".into(),
                place: 1,
                price: None,
                amount: Some(1200),
            })
        );
        assert_eq!(found[1].fix, None);
        assert_eq!(found[1].object, "B1 available");
        assert_eq!(
            found[2].fix,
            Some(Fix::CancelPayment {
                payment_id: "p3".into()
            })
        );
        assert_eq!(found[3].fix, None, "money taken is for staff to return");
        assert_eq!(found[4].square, "payment p2 CANCELED");
    }

    #[test]
    fn an_authorization_a_checkout_under_way_made_is_left_to_it() {
        // The order is recorded pending, its payment not yet named: the
        // authorization is its own, to capture once its tickets are written.
        let pending = OrderRecord {
            id: "s1o3".into(),
            status: "pending".into(),
            payment_id: None,
            amount: 1200,
            tickets_amount: 0,
        };
        let payments = [payment("p9", "APPROVED", "s1o3")];
        assert_eq!(found_in(&[], &[], &[pending], &payments), []);
    }

    #[test]
    fn a_sold_seat_is_written_back_only_when_its_payment_was_captured() {
        let seats = [seat("A1", "sold", Some("s1o1"), Some(0))];
        let orders = [order("s1o1", "p1", 1200, 0)];
        let payments = [payment("p1", "APPROVED", "s1o1")];
        let found = found_in(&seats, &[], &orders, &payments);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].kind, Kind::TicketMissing);
        assert_eq!(found[0].fix, None);
        assert_eq!(found[1].kind, Kind::PaymentNotTaken);
    }
}
