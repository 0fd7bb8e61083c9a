//! What must hold after every step of a case, and what must hold once it
//! has settled.

use crate::store::{OrderRow, TicketState};
use crate::world::{World, SEATS};
use checkout::{AttentionReason, Outcome, PaymentStatus, PublicStatus};
use ledger::UnitState;

/// Safety, after every step: no seat pending or sold to two orders, never
/// two live tickets for a seat, and a sold seat's live ticket is its order's.
pub fn after_step(world: &World) -> Result<(), String> {
    world
        .ledger()
        .check_invariants()
        .map_err(|e| format!("ledger: {e:?}"))?;
    pages_consistent(world)?;
    for seat in &SEATS[..world.ledger().unit_count()] {
        let live: Vec<&str> = world
            .store
            .live_tickets(seat)
            .map(|t| t.order_id.as_str())
            .collect();
        if live.len() > 1 {
            return Err(format!("seat {seat} has live tickets for {live:?}"));
        }
        if let Some(UnitState::Sold(owner)) = world.ledger().unit_state_by_name(seat) {
            if live != [owner.as_str()] {
                return Err(format!(
                    "seat {seat} sold to {owner} but live tickets {live:?}"
                ));
            }
        }
    }
    Ok(())
}

/// A watching page never shows a map the showing never had.
fn pages_consistent(world: &World) -> Result<(), String> {
    let now = world.ledger().version();
    for page in &world.pages {
        if page.version > now {
            return Err(format!("a page shows version {} of {now}", page.version));
        }
        let had = world.maps.iter().find(|(v, _)| *v == page.version);
        if had.is_some_and(|(_, codes)| *codes != page.codes) {
            return Err(format!(
                "a page shows {} as version {}, which was {:?}",
                page.codes, page.version, had
            ));
        }
    }
    Ok(())
}

/// At quiescence: every checkout finished, and money, seats and tickets
/// agree with each outcome; every watching page shows the map as it is.
pub fn at_rest(world: &World) -> Result<(), String> {
    after_step(world)?;
    let now = world.map_now();
    for page in &world.pages {
        if (page.version, &page.codes) != (now.0, &now.1) {
            return Err(format!(
                "a watching page shows version {} {} at rest, the map is {now:?}",
                page.version, page.codes
            ));
        }
    }
    for run in &world.runs {
        let id = &run.order_id;
        let checkout = world
            .desk
            .checkout(id)
            .ok_or(format!("{id}: no checkout"))?;
        if !checkout.is_finished() || checkout.poll_timeout().is_some() {
            return Err(format!("{id} not finished: {:?}", checkout.stage()));
        }
        let outcome = checkout.outcome().ok_or(format!("{id}: no outcome"))?;
        let recorded = *outcome == Outcome::Paid || world.store.finals.get(id) == Some(outcome);
        if !checkout.status().is_final() || !recorded {
            return Err(format!("{id}: outcome {outcome:?} not recorded"));
        }
        if checkout.holds_card_token() {
            return Err(format!("{id}: card token kept"));
        }
        check_money(world, id, outcome)?;
        check_seats_and_tickets(world, id, outcome)?;
        check_reason_has_a_cause(world, id, outcome)?;
    }
    for payment in &world.square.payments {
        if payment.status == PaymentStatus::Approved {
            return Err(format!(
                "{} left APPROVED for {}",
                payment.id, payment.reference_id
            ));
        }
    }
    Ok(())
}

fn check_money(world: &World, id: &str, outcome: &Outcome) -> Result<(), String> {
    let payments: Vec<_> = world
        .square
        .payments
        .iter()
        .filter(|p| p.reference_id == id)
        .collect();
    let kept: Vec<_> = payments
        .iter()
        .filter(|p| p.status == PaymentStatus::Completed && p.refunded_minor < p.amount_minor)
        .collect();
    for p in &payments {
        if p.status == PaymentStatus::Completed
            && p.refunded_minor != 0
            && p.refunded_minor != p.amount_minor
        {
            return Err(format!("{id}: {} partly refunded", p.id));
        }
    }
    let paid = *outcome == Outcome::Paid;
    if paid && (kept.len() != 1 || kept[0].refunded_minor != 0) {
        return Err(format!("{id} paid but {} payments kept", kept.len()));
    }
    if !paid && !kept.is_empty() {
        return Err(format!("{id} ended {outcome:?} but kept {}", kept[0].id));
    }
    Ok(())
}

fn check_seats_and_tickets(world: &World, id: &str, outcome: &Outcome) -> Result<(), String> {
    let checkout = world.desk.checkout(id).expect("a checkout");
    let seats = &checkout.order().seats;
    let owned: Vec<&str> = SEATS[..world.ledger().unit_count()]
        .iter()
        .copied()
        .filter(|seat| match world.ledger().unit_state_by_name(seat) {
            Some(UnitState::Pending(o) | UnitState::Sold(o)) => o.as_str() == id,
            _ => false,
        })
        .collect();
    let live = world
        .store
        .tickets
        .iter()
        .filter(|t| t.order_id == id && t.state != TicketState::Void);
    let (live_count, valid_count) = live.fold((0, 0), |(l, v), t| {
        (l + 1, v + usize::from(t.state == TicketState::Valid))
    });
    if *outcome == Outcome::Paid {
        let sold = seats.iter().all(|seat| {
            matches!(world.ledger().unit_state_by_name(seat), Some(UnitState::Sold(o)) if o.as_str() == id)
        });
        let row = world.store.orders.get(id);
        if !sold
            || valid_count != seats.len()
            || live_count != seats.len()
            || row != Some(&OrderRow::Paid)
        {
            return Err(format!(
                "{id} paid: sold {sold}, {valid_count} valid tickets, row {row:?}"
            ));
        }
        return Ok(());
    }
    if !owned.is_empty() || live_count != 0 {
        return Err(format!(
            "{id} ended {outcome:?} owning {owned:?} with {live_count} live tickets"
        ));
    }
    let order = ledger::OrderId::new(id).expect("a valid order id");
    if matches!(checkout.status(), PublicStatus::Declined { .. })
        && world.ledger().order_record(&order).is_some()
    {
        return Err(format!("{id} declined but took seats"));
    }
    Ok(())
}

/// Outcomes that need a cause the case must have had.
fn check_reason_has_a_cause(world: &World, id: &str, outcome: &Outcome) -> Result<(), String> {
    let cause = match outcome {
        Outcome::NeedsAttention {
            reason: AttentionReason::OrderConflict { .. },
        } => world.store.out_of_band > 0,
        // Only a capture by hand makes a void refuse, or takes money for an
        // order that has no seats.
        Outcome::NeedsAttention {
            reason:
                AttentionReason::RefundedWithoutSeats { .. }
                | AttentionReason::UncertainPaymentNotVoided { .. },
        } => world.stats.captures_by_hand > 0,
        Outcome::NeedsAttention { reason } => {
            return Err(format!(
                "{id} needs attention for an impossible reason: {reason:?}"
            ))
        }
        Outcome::Failed { code } if code == checkout::AUTHORIZATION_VOIDED => {
            world.square.lapse_after_ms.is_some()
        }
        _ => true,
    };
    if cause {
        Ok(())
    } else {
        Err(format!("{id} ended {outcome:?} with no fault to cause it"))
    }
}
