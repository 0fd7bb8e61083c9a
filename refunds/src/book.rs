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
    /// Square's payment; `None` for an order that cost nothing.
    pub payment_id: Option<String>,
    /// What was captured, in the currency's minor units.
    pub amount: u64,
    pub currency: String,
    pub status: OrderStatus,
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
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Book {
    pub order: Order,
    pub tickets: Vec<Ticket>,
    /// Oldest first.
    pub refunds: Vec<Refund>,
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

    /// Money that has gone back or may be going back: completed refunds and
    /// those that may be pending at Square.
    pub fn committed(&self) -> u64 {
        self.refunds
            .iter()
            .filter(|r| r.status == Status::Completed || r.status.in_flight())
            .map(|r| r.amount)
            .sum()
    }

    /// Square allows no refund of a payment after one FAILED.
    pub fn refunds_closed(&self) -> bool {
        self.refunds.iter().any(|r| r.status == Status::Failed)
    }

    /// The refund that may be pending at Square, if any.
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
