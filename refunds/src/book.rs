//! One paid order as its refunds see it: the payment, the tickets and
//! every refund asked of it so far. The shell loads a book from D1 for each
//! event; the machine changes it in memory and says which rows to write.

use serde::{Deserialize, Serialize};

use crate::status::Status;

/// Most tickets an order holds (the desk sells at most 10 a hold).
pub const MAX_TICKETS: usize = 64;

/// Most refunds of one order a book holds: a refund a ticket at most, and
/// [`crate::MAX_ATTEMPTS`] tries of each, fit well below it.
pub const MAX_REFUNDS: usize = 200;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum OrderStatus {
    Paid,
    /// Waiting for staff, for one: to say what a partial refund from the
    /// Square Dashboard covers.
    NeedsAttention,
    /// Every ticket of it is void.
    Refunded,
    /// Anything else (still paying, failed): nothing to refund.
    Other(String),
}

impl OrderStatus {
    pub fn from_stored(word: &str) -> OrderStatus {
        match word {
            "paid" => OrderStatus::Paid,
            "needs_attention" => OrderStatus::NeedsAttention,
            "refunded" => OrderStatus::Refunded,
            other => OrderStatus::Other(other.to_string()),
        }
    }

    pub fn stored(&self) -> &str {
        match self {
            OrderStatus::Paid => "paid",
            OrderStatus::NeedsAttention => "needs_attention",
            OrderStatus::Refunded => "refunded",
            OrderStatus::Other(word) => word,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    pub id: String,
    pub showing_id: String,
    /// Square's payment; `None` for an order charged nothing through Square
    /// (free, paid at the box office, or wholly paid by its credit).
    pub payment_id: Option<String>,
    /// What its own payment took, in the currency's minor units (for a box
    /// office sale, what was paid at the desk).
    pub amount: u64,
    pub currency: String,
    pub status: OrderStatus,
    /// The part of its price paid by the order it was exchanged from.
    #[serde(default)]
    pub credit: Option<Credit>,
}

/// Money an exchanged order draws on from its old order's payment: that
/// order's exchange row moved exactly this much to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credit {
    pub from_order: String,
    pub payment_id: String,
    pub amount: u64,
    /// What that payment took: refunds of it from the Dashboard may leave
    /// less of it than the credit.
    pub payment_amount: u64,
}

/// A refund of another order on a payment this book draws on: what it may
/// not ignore (one pending at a time, none after a FAILED one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Elsewhere {
    pub payment_id: String,
    pub status: Status,
    pub amount: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ticket {
    pub id: String,
    pub seat: String,
    pub live: bool,
    /// Admitted at the door: a buyer may no longer cancel it (staff may
    /// still refund it).
    pub checked_in: bool,
    /// What it was sold at; `None` if sold before tickets had prices.
    pub price: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refund {
    /// The idempotency key of a refund started here; `square:<id>` for one
    /// first heard of from Square.
    pub id: String,
    pub square_id: Option<String>,
    /// The tickets it voids once completed; `None` while staff have not
    /// said what a partial Dashboard refund covers, empty for money back on
    /// tickets that stay valid.
    pub tickets: Option<Vec<String>>,
    pub amount: u64,
    pub status: Status,
    /// Its tickets are void and their seats back on sale.
    pub applied: bool,
    /// Why it did not happen, once staff have been told.
    pub failure: Option<String>,
    /// The payment it draws on: `None` for the order's own, the old order's
    /// for money of an exchanged order's credit.
    #[serde(default)]
    pub payment_id: Option<String>,
    /// An exchange: it moves its tickets, and `amount` of the payment, to
    /// this order; never sent to Square. Asked until that order is paid
    /// (then completed) or ends without tickets (then superseded).
    #[serde(default)]
    pub exchange_to: Option<String>,
    /// When it was first written (0 if not known).
    #[serde(default)]
    pub asked_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Book {
    pub order: Order,
    pub tickets: Vec<Ticket>,
    /// Oldest first.
    pub refunds: Vec<Refund>,
    /// Other orders' refunds of the payments this one draws on.
    #[serde(default)]
    pub elsewhere: Vec<Elsewhere>,
}

/// One payment a book may refund from, and how much of it is its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// As a refund row names it: `None` for the order's own payment.
    pub key: Option<String>,
    /// Square's payment, if money went through Square.
    pub payment_id: Option<String>,
    pub cap: u64,
}

impl Book {
    pub fn refund(&self, id: &str) -> Option<&Refund> {
        self.refunds.iter().find(|r| r.id == id)
    }

    pub(crate) fn refund_mut(&mut self, id: &str) -> Option<&mut Refund> {
        self.refunds.iter_mut().find(|r| r.id == id)
    }

    pub fn live_tickets(&self) -> Vec<String> {
        self.tickets
            .iter()
            .filter(|t| t.live)
            .map(|t| t.id.clone())
            .collect()
    }

    /// What the named tickets cost: each at the price it was sold at, or,
    /// for a ticket sold before tickets had their own prices, an equal
    /// share of the order.
    pub fn worth(&self, ids: &[String]) -> u64 {
        self.prices(ids).sum()
    }

    /// Each named ticket's price, as [`Book::worth`] counts it.
    pub fn prices<'a>(&'a self, ids: &'a [String]) -> impl Iterator<Item = u64> + 'a {
        let count = u64::try_from(self.tickets.len().max(1)).unwrap_or(u64::MAX);
        let share = self.order.amount / count;
        self.tickets
            .iter()
            .filter(move |t| ids.contains(&t.id))
            .map(move |t| t.price.unwrap_or(share))
    }

    /// The payments it may refund from, its own first.
    pub fn sources(&self) -> Vec<Source> {
        let own = Source {
            key: None,
            payment_id: self.order.payment_id.clone(),
            cap: self.order.amount,
        };
        let credit = self.order.credit.as_ref().map(|c| Source {
            key: Some(c.payment_id.clone()),
            payment_id: Some(c.payment_id.clone()),
            cap: c.amount,
        });
        std::iter::once(own).chain(credit).collect()
    }

    /// Square's payment a refund draws on, if any.
    pub fn payment_of(&self, refund: &Refund) -> Option<String> {
        refund
            .payment_id
            .clone()
            .or_else(|| self.order.payment_id.clone())
    }

    /// Money of `key`'s payment that has gone back, or may be going back,
    /// or was moved by an exchange: completed refunds and those in flight.
    pub fn committed_on(&self, key: &Option<String>) -> u64 {
        self.refunds
            .iter()
            .filter(|r| &r.payment_id == key)
            .filter(|r| r.status == Status::Completed || r.status.in_flight())
            .map(|r| r.amount)
            .sum()
    }

    /// What is left to refund from a source: its share, and for a credit
    /// no more than its payment has left after every order's refunds.
    pub fn free_on(&self, source: &Source) -> u64 {
        let share = source.cap.saturating_sub(self.committed_on(&source.key));
        let (Some(payment_id), Some(credit)) = (&source.key, &self.order.credit) else {
            return share;
        };
        let going = |status: Status| status == Status::Completed || status.in_flight();
        let here: u64 = self
            .refunds
            .iter()
            .filter(|r| r.payment_id.as_ref() == Some(payment_id) && going(r.status))
            .map(|r| r.amount)
            .sum();
        let there: u64 = self
            .elsewhere
            .iter()
            .filter(|r| &r.payment_id == payment_id && going(r.status))
            .map(|r| r.amount)
            .sum();
        share.min(credit.payment_amount.saturating_sub(here + there))
    }

    /// Every refund's amount that has gone back or may: across payments.
    pub fn committed(&self) -> u64 {
        self.sources()
            .iter()
            .map(|s| self.committed_on(&s.key))
            .sum()
    }

    /// Square allows no refund of a payment after one FAILED, whichever
    /// order asked for it.
    pub fn closed_on(&self, payment_id: &str) -> bool {
        self.refunds.iter().any(|r| {
            r.status == Status::Failed && self.payment_of(r).as_deref() == Some(payment_id)
        }) || self
            .elsewhere
            .iter()
            .any(|r| r.status == Status::Failed && r.payment_id == payment_id)
    }

    /// Whether a refund of any payment this book draws on FAILED.
    pub fn refunds_closed(&self) -> bool {
        self.sources()
            .iter()
            .filter_map(|s| s.payment_id.as_deref())
            .any(|p| self.closed_on(p))
    }

    /// Whether something may be pending at Square on this payment (or an
    /// exchange holds it), here or in another order drawing on it.
    pub fn in_flight_on(&self, payment_id: Option<&str>) -> bool {
        let Some(payment_id) = payment_id else {
            // Money that never went through Square: only an exchange waits.
            return self
                .refunds
                .iter()
                .any(|r| r.status.in_flight() && r.exchange_to.is_some());
        };
        self.refunds
            .iter()
            .any(|r| r.status.in_flight() && self.payment_of(r).as_deref() == Some(payment_id))
            || self
                .elsewhere
                .iter()
                .any(|r| r.status.in_flight() && r.payment_id == payment_id)
    }

    /// A refund of this book that may be pending at Square, if any.
    pub fn in_flight(&self) -> Option<&Refund> {
        self.refunds.iter().find(|r| r.status.in_flight())
    }

    /// Tickets a refund that has not ended without money moving already
    /// covers: a second refund of them would pay them back twice.
    pub fn covered(&self) -> Vec<String> {
        self.refunds
            .iter()
            .filter(|r| !r.status.did_not_happen())
            .filter_map(|r| r.tickets.as_ref())
            .flatten()
            .cloned()
            .collect()
    }

    /// What a buyer would get back for each ticket they may cancel now
    /// (live, not admitted, not being refunded), keeping `fee`: the same
    /// sums a cancellation of any of them refunds.
    pub fn cancel_quote(&self, fee: crate::Fee) -> Vec<(String, u64)> {
        let covered = self.covered();
        self.tickets
            .iter()
            .filter(|t| t.live && !t.checked_in && !covered.contains(&t.id))
            .map(|t| {
                let ids = [t.id.clone()];
                let price = self.worth(&ids);
                (t.id.clone(), price - fee.of(price))
            })
            .collect()
    }

    pub fn seats_of(&self, ids: &[String]) -> Vec<String> {
        self.tickets
            .iter()
            .filter(|t| ids.contains(&t.id))
            .map(|t| t.seat.clone())
            .collect()
    }
}
