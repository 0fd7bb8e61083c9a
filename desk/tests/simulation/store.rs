//! A simulated D1: orders and tickets, with the unique index that allows
//! one live ticket per seat, and tickets that staff insert by other means.

use checkout::Outcome;
use desk::StoreOutcome;
use std::collections::HashMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OrderRow {
    Pending,
    Paid,
    /// VoidTickets ran: a late WriteOrder must not write the tickets again.
    Voided,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TicketState {
    Pending,
    Valid,
    Void,
}

pub struct Ticket {
    pub order_id: String,
    pub seat: String,
    pub state: TicketState,
}

#[derive(Default)]
pub struct Store {
    pub orders: HashMap<String, OrderRow>,
    pub tickets: Vec<Ticket>,
    pub finals: HashMap<String, Outcome>,
    pub out_of_band: usize,
}

impl Store {
    pub fn live_tickets<'a>(&'a self, seat: &'a str) -> impl Iterator<Item = &'a Ticket> + 'a {
        self.tickets
            .iter()
            .filter(move |t| t.seat == seat && t.state != TicketState::Void)
    }

    /// One batch: the order and a pending ticket per seat, or nothing.
    pub fn write_order(&mut self, order_id: &str, seats: &[String]) -> StoreOutcome {
        match self.orders.get(order_id) {
            Some(OrderRow::Pending | OrderRow::Paid) => return StoreOutcome::Stored,
            Some(OrderRow::Voided) => panic!("WriteOrder for {order_id} after VoidTickets"),
            None => {}
        }
        let taken: Vec<String> = seats
            .iter()
            .filter(|seat| self.live_tickets(seat).next().is_some())
            .cloned()
            .collect();
        if !taken.is_empty() {
            return StoreOutcome::Conflict { seats: taken };
        }
        self.orders.insert(order_id.to_owned(), OrderRow::Pending);
        for seat in seats {
            self.tickets.push(Ticket {
                order_id: order_id.to_owned(),
                seat: seat.clone(),
                state: TicketState::Pending,
            });
        }
        StoreOutcome::Stored
    }

    pub fn mark_paid(&mut self, order_id: &str) -> StoreOutcome {
        let row = self.orders.get_mut(order_id);
        let row = row.unwrap_or_else(|| panic!("MarkPaid for {order_id}, never written"));
        assert_ne!(*row, OrderRow::Voided, "MarkPaid for voided {order_id}");
        *row = OrderRow::Paid;
        for ticket in self.tickets.iter_mut().filter(|t| t.order_id == order_id) {
            ticket.state = TicketState::Valid;
        }
        StoreOutcome::Stored
    }

    pub fn void_tickets(&mut self, order_id: &str) -> StoreOutcome {
        let row = self
            .orders
            .entry(order_id.to_owned())
            .or_insert(OrderRow::Voided);
        assert_ne!(*row, OrderRow::Paid, "VoidTickets for paid {order_id}");
        *row = OrderRow::Voided;
        for ticket in self.tickets.iter_mut().filter(|t| t.order_id == order_id) {
            ticket.state = TicketState::Void;
        }
        StoreOutcome::Stored
    }

    pub fn record_final(&mut self, order_id: &str, outcome: &Outcome) -> StoreOutcome {
        self.finals.insert(order_id.to_owned(), outcome.clone());
        StoreOutcome::Stored
    }

    /// A ticket written by other means (staff, another tool), if the unique
    /// index lets it in.
    pub fn insert_out_of_band(&mut self, seat: &str) -> bool {
        if self.live_tickets(seat).next().is_some() {
            return false;
        }
        self.out_of_band += 1;
        self.tickets.push(Ticket {
            order_id: format!("out-of-band-{}", self.out_of_band),
            seat: seat.to_owned(),
            state: TicketState::Valid,
        });
        true
    }
}
