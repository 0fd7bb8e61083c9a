//! Staff move a sold ticket to a free seat of the same showing (a broken
//! seat, a wheelchair swap, a family split). The move is one decision: the
//! ledger reopens the old seat and sells the new one to the ticket's order
//! in one call, and the move is kept, by the ticket it moved, in the same
//! decision's writes. The ticket asked for again is answered with that
//! same move whatever seat is asked, so the Worker can finish the move's
//! D1 write (the old ticket marked moved, its replacement issued) however
//! often the request is sent, and a restarted object answers the same.

use std::collections::BTreeMap;

use ledger::{is_valid_unit_name, MoveError, OrderId, MAX_UNIT_NAME_BYTES};

use crate::protocol::{MoveTicket, Reply, TicketMoved};
use crate::refusal::{Code, Refusal};
use crate::storage::{to_json, Write};
use crate::{Decision, Desk};

/// Most tickets one showing may move: a cinema moves a handful a night,
/// and every move is kept for as long as the showing's object lives.
pub const MAX_MOVES: usize = 500;
/// Longest ticket id a move may name (the Worker's are 44 bytes).
pub const MAX_TICKET_ID_BYTES: usize = 64;

/// Every move made, by the ticket it moved.
#[derive(Debug, Default)]
pub struct Moves {
    by_ticket: BTreeMap<String, TicketMoved>,
}

impl Moves {
    pub fn insert(&mut self, moved: TicketMoved) {
        self.by_ticket.insert(moved.ticket_id.clone(), moved);
    }

    pub fn len(&self) -> usize {
        self.by_ticket.len()
    }

    /// The seat a refund of `seat` of the order means now: the seat
    /// itself while the order holds it; if a move took the ticket on it
    /// elsewhere, where the moves led. A refund decided before a move of
    /// its ticket and applied after it reopens the seat the ticket moved
    /// to, which no new ticket stands on.
    pub fn seat_now(&self, order_id: &str, seat: &str, held: &[String]) -> String {
        let mut now = seat.to_string();
        for _ in 0..MAX_MOVES {
            if held.contains(&now) {
                break;
            }
            let next = self
                .by_ticket
                .values()
                .find(|m| m.order_id == order_id && m.from == now);
            match next {
                Some(m) => now = m.to.clone(),
                None => break,
            }
        }
        now
    }

    fn of_order(&self, order_id: &str) -> usize {
        self.by_ticket
            .values()
            .filter(|m| m.order_id == order_id)
            .count()
    }
}

/// What a move may name, checked by the Worker before the object is asked
/// and by the desk again: a short ticket id and order id of letters,
/// digits and dashes, and seat names as a hold's are.
pub fn check_move(request: &MoveTicket) -> Result<(), Refusal> {
    let id_ok = |id: &str| {
        (1..=MAX_TICKET_ID_BYTES).contains(&id.len())
            && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if !id_ok(&request.ticket_id) || !id_ok(&request.order_id) {
        return Err(Refusal::not_found("ticket"));
    }
    if !is_valid_unit_name(&request.from) || !is_valid_unit_name(&request.to) {
        return Err(Refusal::new(
            Code::InvalidRequest,
            format!(
                "a seat is named by 1 to {MAX_UNIT_NAME_BYTES} bytes without control characters"
            ),
        )
        .with("field", "seat"));
    }
    // A general admission ticket is for its zone, not a place in it: there
    // is nothing to move it to, nor a place to move a seat's ticket into.
    if ledger::zone_of_place(&request.from).is_some()
        || ledger::zone_of_place(&request.to).is_some()
    {
        return Err(Refusal::new(
            Code::NotASeat,
            "a general admission ticket has no seat to move; refund it, or sell a seat",
        ));
    }
    Ok(())
}

fn refusal(error: MoveError, to: &str) -> Refusal {
    match error {
        MoveError::SeatUnavailable { seat } => Refusal::new(
            Code::SeatUnavailable,
            format!("seat {seat} is taken or not for sale: choose another"),
        )
        .with("seat", seat),
        MoveError::UnknownSeat { seat } if seat == to => Refusal::new(
            Code::SeatUnavailable,
            format!("this showing has no seat {seat}"),
        )
        .with("seat", seat),
        MoveError::OrderNotConfirmed => Refusal::new(
            Code::OrderNotPaid,
            "the ticket's order is still being paid for; move it once it is paid",
        ),
        // D1 says the ticket is live on its seat; the showing does not:
        // nothing a retry would change.
        other => Refusal::internal(format!(
            "the showing's seats do not list this ticket's seat as its order's ({other})"
        )),
    }
}

impl Desk {
    pub(crate) fn move_ticket(
        &mut self,
        now_ms: u64,
        request: MoveTicket,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        check_move(&request)?;
        // Asked again (its D1 write failed, or its answer was lost): the
        // move as it was made, whatever seat is asked now.
        if let Some(done) = self.moves.by_ticket.get(&request.ticket_id) {
            return Ok(Reply::Moved(done.clone()));
        }
        self.refuse_if_cancelled()?;
        if self.moves.len() >= MAX_MOVES {
            return Err(Refusal::new(
                Code::TooManyMoves,
                format!("this showing has moved {MAX_MOVES} tickets, as many as one may"),
            ));
        }
        let order =
            OrderId::new(request.order_id.as_str()).map_err(|_| Refusal::not_found("ticket"))?;
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        let outcome = showing
            .ledger
            .move_seat(now_ms, &order, &request.from, &request.to);
        showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
        outcome.result.map_err(|e| refusal(e, &request.to))?;
        let seats = showing
            .ledger
            .order_record(&order)
            .map_or(0, |o| o.seats.len());
        let moved = TicketMoved {
            ticket_number: (seats + self.moves.of_order(&request.order_id) + 1) as u32,
            ticket_id: request.ticket_id,
            order_id: request.order_id,
            from: request.from,
            to: request.to,
            moved_at_ms: now_ms,
        };
        d.writes.push(Write::Move {
            ticket_id: moved.ticket_id.clone(),
            record: to_json(&moved),
        });
        self.moves.insert(moved.clone());
        Ok(Reply::Moved(moved))
    }
}
