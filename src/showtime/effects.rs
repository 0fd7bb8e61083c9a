//! Performing a decision's effects: Square calls and D1 writes whose
//! answers go back to the desk (each answer a decision of its own, written
//! and followed in turn), records written for staff, and pushes to the
//! browsers watching the map. Nothing here decides.

use std::collections::VecDeque;

use desk::{Answer, Effect, OrderWrite, Record, StoreOutcome};

use super::{now_ms, Showtime};
use crate::db::orders as order_rows;
use crate::square::Square;

fn stored(result: worker::Result<()>) -> StoreOutcome {
    match result {
        Ok(()) => StoreOutcome::Stored,
        Err(e) => {
            worker::console_error!("D1 write failed: {e}");
            StoreOutcome::Unavailable
        }
    }
}

/// How many watchers are sent a push before the object lets other
/// requests in.
const PUSH_SLICE: usize = 100;

/// Sends `message` to every socket, after the decision's reply (which does
/// not wait for a thousand sends) and a slice at a time, so a hold that
/// comes meanwhile waits for one slice, not the whole round. The sockets
/// are the ones open when the push was decided (pushes are performed
/// before anything that waits, see [`in_order`]): one that opens later was
/// sent the map as of this push already. Should a push ever overtake the
/// one before it to a socket, its `since` does not match what that page
/// shows, and the page reads the map instead.
async fn broadcast(sockets: Vec<worker::WebSocket>, message: String) {
    for (i, ws) in sockets.iter().enumerate() {
        if i > 0 && i % PUSH_SLICE == 0 {
            worker::Delay::from(std::time::Duration::ZERO).await;
        }
        let _ = ws.send_with_str(&message);
    }
}

/// Queues a decision's effects: its pushes ahead of everything waiting,
/// so a map push never waits behind a Square call or a D1 write (nor goes
/// out after a later push), the rest in the order decided.
fn in_order(queue: &mut VecDeque<Effect>, effects: Vec<Effect>) {
    let (pushes, rest): (Vec<Effect>, Vec<Effect>) = effects
        .into_iter()
        .partition(|e| matches!(e, Effect::Push { .. }));
    for push in pushes.into_iter().rev() {
        queue.push_front(push);
    }
    queue.extend(rest);
}

impl Showtime {
    /// Performs effects in order (pushes first), and the effects of their
    /// answers after them, until none is left.
    pub(super) async fn perform(&self, effects: Vec<Effect>) {
        let mut queue = VecDeque::new();
        in_order(&mut queue, effects);
        while let Some(effect) = queue.pop_front() {
            let answered = match effect {
                Effect::Square {
                    order_id,
                    step,
                    call,
                } => {
                    let reply = self.send(&call).await;
                    Some((order_id, step, Answer::Square(reply)))
                }
                Effect::Refund {
                    order_id,
                    step,
                    request,
                } => {
                    // Recorded before it is asked for, covering no ticket,
                    // so its webhook is known for what it is and not taken
                    // for a refund made in the Dashboard.
                    self.record_refund(&order_id, &request).await;
                    let reply = self.send(&desk::square::refund_call(&request)).await;
                    Some((order_id, step, Answer::Square(reply)))
                }
                Effect::Store {
                    order_id,
                    step,
                    write,
                } => {
                    let outcome = self.store(&order_id, write).await;
                    Some((order_id, step, Answer::Store(outcome)))
                }
                Effect::Record(record) => {
                    self.record(record).await;
                    None
                }
                Effect::Push { message, .. } => {
                    let sockets = self.state.get_websockets();
                    // Counted here too, so a close the object never heard
                    // of stops costing pushes.
                    if let Ok(mut slot) = self.loaded() {
                        if let Some(desk) = slot.as_mut() {
                            desk.set_watchers(sockets.len());
                        }
                    }
                    wasm_bindgen_futures::spawn_local(broadcast(sockets, message));
                    None
                }
                Effect::Crash { reason } => {
                    let _ = self.state.storage().sync().await;
                    panic!("{reason}");
                }
                Effect::OfferMail {
                    showing_id,
                    entry_id,
                    email,
                    seats,
                    until_ms,
                } => {
                    crate::mail::queue_offer(
                        &self.env,
                        &showing_id,
                        &entry_id,
                        &email,
                        seats,
                        until_ms,
                    )
                    .await;
                    None
                }
                Effect::CodeUse(sent) => {
                    self.tell_code(&sent).await;
                    None
                }
                Effect::ExchangeSettled {
                    order_id,
                    from_order,
                } => {
                    // The refund sweep finishes an exchange this leaves.
                    if let Err(e) = crate::refunding::settle_exchange(&self.env, &from_order).await
                    {
                        worker::console_error!(
                            "order {order_id}: exchange from {from_order} not settled: {e}"
                        );
                    }
                    None
                }
            };
            let Some((order_id, step, answer)) = answered else {
                continue;
            };
            let decision = match self.loaded() {
                Ok(mut slot) => match slot.as_mut() {
                    Some(desk) => desk.handle_answer(now_ms(), &order_id, step, answer),
                    None => continue,
                },
                Err(e) => {
                    worker::console_error!("order {order_id}: answer not fed: {}", e.detail);
                    continue;
                }
            };
            if let Err(e) = self.write(&decision.writes) {
                worker::console_error!("order {order_id}: answer not saved: {}", e.detail);
                continue;
            }
            self.arm_alarm().await;
            in_order(&mut queue, decision.effects);
        }
    }

    /// Tells a code's object how a hold's use stands, and the desk its
    /// answer (which writes only: it drops the message, or keeps it to be
    /// sent again).
    async fn tell_code(&self, sent: &desk::CodeSent) {
        let desk::CodeSent {
            code,
            hold_id,
            request,
        } = sent;
        let answer = match super::client::code_uses(&self.env, code, request).await {
            Ok(answer) => {
                if let Err(refused) = &answer {
                    // Lapsed or released before the showing said so: the
                    // code's count no longer has this use.
                    worker::console_error!(
                        "code {code}, hold {hold_id}: {request:?} refused: {refused:?}"
                    );
                }
                desk::CodeAnswer::Answered(answer)
            }
            Err(e) => {
                worker::console_error!("code {code}: its object was not reached: {}", e.detail);
                desk::CodeAnswer::Unreachable
            }
        };
        let decision = match self.loaded() {
            Ok(mut slot) => match slot.as_mut() {
                Some(desk) => desk.handle_code_answer(now_ms(), sent, answer),
                None => return,
            },
            Err(_) => return,
        };
        if let Err(e) = self.write(&decision.writes) {
            worker::console_error!("code {code}: answer not saved: {}", e.detail);
        }
        self.arm_alarm().await;
    }

    async fn store(&self, order_id: &str, write: OrderWrite) -> StoreOutcome {
        let db = match self.env.d1("DB") {
            Ok(db) => db,
            Err(e) => return stored(Err(e)),
        };
        let now = now_ms();
        match write {
            OrderWrite::Order {
                showing_id,
                seats,
                payment_id,
                prices,
                credit,
                exchanged_from,
                tax_name,
                tax_inclusive,
            } => {
                let order = order_rows::OrderTickets {
                    order_id,
                    showing_id: &showing_id,
                    seats: &seats,
                    prices: &prices,
                    payment_id: &payment_id,
                    credit,
                    exchanged_from: exchanged_from.as_deref(),
                    tax_name: &tax_name,
                    tax_inclusive,
                };
                match order_rows::write_order(&db, &order, now).await {
                    Ok(order_rows::Written::Written) => StoreOutcome::Stored,
                    Ok(order_rows::Written::Conflict(seats)) => StoreOutcome::Conflict { seats },
                    Err(e) => stored(Err(e)),
                }
            }
            OrderWrite::MarkPaid { payment_id } => {
                let outcome = stored(order_rows::mark_paid(&db, order_id, &payment_id, now).await);
                // The tickets mail was queued in that write.
                self.mail_soon(order_id, &outcome);
                outcome
            }
            OrderWrite::VoidTickets => stored(order_rows::void_tickets(&db, order_id, now).await),
            OrderWrite::Final {
                status,
                detail,
                payment_id,
            } => {
                let outcome = stored(
                    order_rows::record_final(
                        &db,
                        order_id,
                        status,
                        detail.as_deref(),
                        payment_id.as_deref(),
                        now,
                    )
                    .await,
                );
                // A buyer told to wait was queued the outcome's message.
                self.mail_soon(order_id, &outcome);
                outcome
            }
        }
    }

    /// Sends what a write that stored queued for the order, apart from the
    /// checkout's answer (the sweep sends it if this does not).
    fn mail_soon(&self, order_id: &str, outcome: &StoreOutcome) {
        if *outcome == StoreOutcome::Stored {
            let env = self.env.clone();
            let order_id = order_id.to_string();
            wasm_bindgen_futures::spawn_local(async move {
                crate::mail::send_now(&env, &order_id).await;
            });
        }
    }

    /// The checkout's own refund, as the `refunds` machine writes it,
    /// unless it is recorded already (it may be sent again).
    async fn record_refund(&self, order_id: &str, request: &refunds::RefundRequest) {
        let row = refunds::checkout_refund(request);
        let recorded = match self.env.d1("DB") {
            Ok(db) => crate::db::refunds::record_new(&db, order_id, &row, now_ms()).await,
            Err(e) => Err(e),
        };
        if let Err(e) = recorded {
            // The refund still goes ahead; its webhook then asks staff.
            worker::console_error!(
                "order {order_id}: refund {} not recorded first: {e}",
                row.id
            );
        }
    }

    async fn send(&self, call: &desk::square::SquareCall) -> desk::square::SquareReply {
        match Square::from_env(&self.env) {
            Ok(square) => square.send(call).await,
            Err(e) => desk::square::SquareReply::Unknown(e),
        }
    }

    /// Rows kept for staff; losing one is logged and changes nothing.
    async fn record(&self, record: Record) {
        let Ok(db) = self.env.d1("DB") else { return };
        let (order_id, written) = match &record {
            Record::PendingOrder {
                order_id,
                showing_id,
                email,
                name,
                amount,
                currency,
                channel,
                comp_reason,
                credit,
                exchanged_from,
                discount_code,
            } => {
                let row = order_rows::NewOrder {
                    id: order_id,
                    showing_id,
                    email,
                    name,
                    amount: *amount,
                    currency,
                    channel,
                    comp_reason: comp_reason.as_deref(),
                    credit: *credit,
                    exchanged_from: exchanged_from.as_deref(),
                    discount_code: discount_code.as_deref(),
                };
                (
                    order_id,
                    order_rows::insert_pending(&db, &row, now_ms()).await,
                )
            }
            Record::Audit {
                order_id,
                at_ms,
                from,
                to,
                detail,
            } => (
                order_id,
                order_rows::audit(&db, order_id, *at_ms, from, to, detail).await,
            ),
        };
        if let Err(e) = written {
            worker::console_error!("order {order_id}: record not written: {e}");
        }
    }
}
