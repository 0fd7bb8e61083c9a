//! Staff move a sold ticket to a free seat of its showing
//! (`POST /api/admin/tickets/{tid}/move` `{"seat": "C7"}`). The route reads
//! the ticket from D1 and refuses what cannot move (void, moved already,
//! admitted at the door, a refund of it under way, its order still
//! paying); the showing's object decides the move itself, in one
//! decision; then D1 follows in one batch (`db::moves::record`) and the
//! buyer's mail of the new ticket is sent. The object answers a ticket it
//! moved before with that same move, so a request repeated after a lost
//! answer or a failed D1 write finishes the move rather than making
//! another.

use serde::Deserialize;
use serde_json::{json, Value};
use worker::{Env, Request, Response, RouteContext};

use crate::api_error::{ApiError, Handled};
use crate::db::moves::{self as move_rows, MovableTicket, Move};
use crate::db::orders as order_rows;
use crate::request::{param, parse_json, read_body};
use crate::showtime::client::ShowtimeClient;
use crate::{auth, db, ticket_code};
use desk::protocol::{MoveTicket, TicketMoved};
use desk::Code;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct MoveBody {
    seat: String,
}

/// `POST /api/admin/tickets/{tid}/move`: answers the new ticket (`id`,
/// `seat`, `code`, `short_code`, `page_url`) with the one it replaced
/// (`moved_from`).
pub async fn move_ticket(mut req: Request, ctx: RouteContext<()>) -> Handled {
    auth::require_admin(&req, &ctx.env).await?;
    let ticket_id = param(&ctx, "tid").to_string();
    let body: MoveBody = parse_json(&read_body(&mut req).await?)?;
    let to = body.seat.trim().to_string();
    // Only an id this project made names a ticket (`<order>-<n>`).
    let well_formed = matches!(
        ticket_code::read_typed(&ticket_id),
        Some(ticket_code::Typed::Ticket(id)) if id == ticket_id
    );
    if !well_formed {
        return Err(ApiError::not_found("ticket"));
    }
    let db = db::database(&ctx.env)?;
    let ticket = move_rows::ticket(&db, &ticket_id)
        .await?
        .ok_or_else(|| ApiError::not_found("ticket"))?;
    let request = MoveTicket {
        ticket_id: ticket.id.clone(),
        order_id: ticket.order_id.clone(),
        from: ticket.seat.clone(),
        to,
    };
    desk::check_move(&request)?;
    if let Some(done) = already_moved(&ctx.env, &ticket, &request.to)? {
        return Ok(done);
    }
    refuse_unmovable(&db, &ticket).await?;
    let moved = ShowtimeClient::new(&ctx.env, &ticket.showing_id)?
        .move_ticket(request.clone())
        .await?;
    let new_id = order_rows::ticket_id(&moved.order_id, moved.ticket_number as usize - 1);
    record(&db, &moved, &new_id).await?;
    crate::mail::send_row_now(&ctx.env, &format!("moved:{new_id}")).await;
    if moved.to != request.to {
        // An earlier move of this ticket, whose D1 write had not been
        // made: it is now, and it stands.
        return Err(moved_already(&new_id, &moved.to));
    }
    answer(&ctx.env, &ticket, &new_id, &moved.to)
}

/// The move's D1 batch, tried twice before the request fails: the showing
/// has reopened the old seat, so D1 should follow it at once. Sent again,
/// the request finishes it.
async fn record(
    db: &worker::D1Database,
    moved: &TicketMoved,
    new_id: &str,
) -> Result<(), ApiError> {
    let write = Move {
        order_id: &moved.order_id,
        ticket_id: &moved.ticket_id,
        from: &moved.from,
        new_ticket_id: new_id,
        to: &moved.to,
    };
    let at_ms = moved.moved_at_ms;
    if let Err(first) = move_rows::record(db, &write, at_ms).await {
        worker::console_error!("move of {}: D1 write failed once: {first}", moved.ticket_id);
        move_rows::record(db, &write, at_ms).await.map_err(|e| {
            ApiError::internal(format!(
                "the seat was moved but its tickets not yet recorded ({e}); send the move again to finish it"
            ))
        })?;
    }
    let issued = move_rows::ticket(db, new_id).await?;
    if issued.is_some_and(|t| t.seat == moved.to) {
        return Ok(());
    }
    // The old ticket stopped being valid between the checks and the write:
    // no replacement was issued. A refund applied meanwhile reopens the
    // seat the ticket moved to (the showing follows the move).
    let old = move_rows::ticket(db, &moved.ticket_id).await?;
    match old {
        Some(t) if t.status == "void" && t.moved_to.is_none() => Err(ApiError::new(
            Code::TicketVoid,
            format!(
                "this ticket was refunded while it was being moved: no new ticket was issued, \
                 and seat {} goes back on sale with the refund",
                moved.to
            ),
        )),
        _ => Err(ApiError::internal(format!(
            "ticket {} changed while it was being moved; its new seat {} has no ticket: check the order",
            moved.ticket_id, moved.to
        ))),
    }
}

/// A ticket D1 already shows moved: the same move asked again is answered
/// as it was (while its new ticket still admits); any other is refused.
fn already_moved(
    env: &Env,
    ticket: &MovableTicket,
    to: &str,
) -> Result<Option<Response>, ApiError> {
    let Some(new_id) = &ticket.moved_to else {
        return Ok(None);
    };
    let seat = ticket.moved_to_seat.as_deref().unwrap_or_default();
    if seat == to && ticket.moved_to_status.as_deref() == Some("valid") {
        return answer(env, ticket, new_id, seat).map(Some);
    }
    Err(moved_already(new_id, seat))
}

fn moved_already(new_id: &str, seat: &str) -> ApiError {
    ApiError::new(
        Code::TicketMoved,
        format!("this ticket was moved to seat {seat} already; move the new ticket instead"),
    )
    .with("moved_to_seat", seat)
    .with("moved_to_ticket", new_id)
}

/// What a ticket that is not live, or not free to move, is refused with.
async fn refuse_unmovable(db: &worker::D1Database, ticket: &MovableTicket) -> Result<(), ApiError> {
    match ticket.status.as_str() {
        "valid" => {}
        "pending" => {
            return Err(ApiError::new(
                Code::OrderNotPaid,
                "the ticket's order is still being paid for; move it once it is paid",
            ))
        }
        _ => {
            return Err(ApiError::new(
                Code::TicketVoid,
                "this ticket was refunded or voided: it has no seat to move",
            ))
        }
    }
    if let Some(at) = ticket.checked_in_at_ms {
        return Err(ApiError::new(
            Code::TicketCheckedIn,
            "this ticket was admitted at the door already: its holder is inside",
        )
        .with("checked_in_at_ms", at as u64));
    }
    if move_rows::refund_pending(db, &ticket.order_id, &ticket.id).await? {
        return Err(ApiError::new(
            Code::RefundPending,
            "a refund of this ticket is under way; it reopens the seat when it completes",
        ));
    }
    Ok(())
}

/// The new ticket, with its signed code and page, and the one it replaced.
fn answer(env: &Env, old: &MovableTicket, new_id: &str, seat: &str) -> Handled {
    let code = ticket_code::sign(
        &auth::signing_keys(env)?,
        &ticket_code::TicketRef {
            showing_id: old.showing_id.clone(),
            ticket_id: new_id.to_string(),
            seat: seat.to_string(),
        },
    );
    let key = auth::order_key(env, &old.order_id)?;
    let body: Value = json!({
        "id": new_id,
        "seat": seat,
        "code": code,
        "short_code": ticket_code::short_code(new_id),
        "page_url": format!("/tickets/{new_id}?key={key}"),
        "order_id": old.order_id,
        "showing_id": old.showing_id,
        "moved_from": { "id": old.id, "seat": old.seat },
    });
    Ok(Response::from_json(&body)?)
}
