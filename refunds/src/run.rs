//! The loop a shell runs: load the book, decide, perform each action in
//! order, feed each answer back as the next event. The shell supplies the
//! I/O ([`Io`]); the loop itself is the same in the Worker and in the
//! simulation, so the simulation tests it too.

use std::collections::VecDeque;

use crate::book::Book;
use crate::machine::{decide, Action, Event, Refusal, Reply};

/// Most actions one run performs: an event starts at most a handful, and
/// each answer a few more.
pub const MAX_ACTIONS_PER_RUN: usize = 64;

/// What a run needs of the world.
#[allow(async_fn_in_trait)] // Performed on one thread: no `Send` needed.
pub trait Io {
    type Error;
    /// The order's book as stored now; `None` for no such order.
    async fn load(&mut self, order_id: &str) -> Result<Option<Book>, Self::Error>;
    /// Performs one action; an action that asks something of Square
    /// answers with the event that reports it.
    async fn perform(&mut self, action: &Action) -> Result<Option<Event>, Self::Error>;
}

#[derive(Debug)]
pub enum RunError<E> {
    NoSuchOrder,
    Refused(Refusal),
    /// An action could not be performed; those before it were. The sweep
    /// finishes the rest.
    Io(E),
}

/// How a run ended: the book as its actions left it, and the first
/// event's reply.
#[derive(Debug)]
pub struct Ran {
    pub book: Book,
    pub reply: Reply,
}

/// Decides `event` for the order and performs everything it leads to.
pub async fn run<I: Io>(
    io: &mut I,
    order_id: &str,
    event: Event,
    now_ms: u64,
) -> Result<Ran, RunError<I::Error>> {
    let mut book = io
        .load(order_id)
        .await
        .map_err(RunError::Io)?
        .ok_or(RunError::NoSuchOrder)?;
    let first = decide(&mut book, event, now_ms);
    let reply = first.reply.map_err(RunError::Refused)?;
    let mut queue: VecDeque<Action> = first.actions.into();
    let mut performed = 0;
    while let Some(action) = queue.pop_front() {
        performed += 1;
        if performed > MAX_ACTIONS_PER_RUN {
            break; // The sweep carries on from the rows.
        }
        let answer = io.perform(&action).await.map_err(RunError::Io)?;
        if let Some(event) = answer {
            // Answers are never refused; they only change the book.
            queue.extend(decide(&mut book, event, now_ms).actions);
        }
    }
    Ok(Ran { book, reply })
}

/// What a sweep did: orders whose refunds it settled as far as it could,
/// and those where something failed, each left for the next sweep.
#[derive(Debug)]
pub struct Swept<E> {
    pub done: usize,
    pub failed: Vec<(String, RunError<E>)>,
}

/// Sweeps each order's refunds in turn; one order's failure never stops
/// the others.
pub async fn sweep<I: Io>(io: &mut I, order_ids: &[String], now_ms: u64) -> Swept<I::Error> {
    let mut swept = Swept {
        done: 0,
        failed: Vec::new(),
    };
    for order_id in order_ids {
        match run(io, order_id, Event::Sweep, now_ms).await {
            Ok(_) => swept.done += 1,
            Err(e) => swept.failed.push((order_id.clone(), e)),
        }
    }
    swept
}
