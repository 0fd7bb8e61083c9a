//! Wrong door PINs per showing, counted in a sliding window per client
//! network and for the showing as a whole. The object serialises the
//! count, so parallel guesses cannot slip past the limit, and each failure
//! is a row, so an object evicted while idle forgets nothing.
//!
//! A network that guesses wrong ten times is locked out; the door's own
//! network, typing the right PIN, is not, so a stranger cannot lock the
//! door by guessing. Guesses spread over many networks lock the PIN for
//! everyone at [`SHOWING_FAILURES_ALLOWED`] (the staff door token still
//! works then).

use std::collections::VecDeque;

use crate::protocol::Reply;
use crate::refusal::{Code, Refusal};
use crate::storage::Write;
use crate::{Decision, Desk};

/// Wrong PINs allowed from one client network within [`WINDOW_MS`]; then
/// every PIN it sends, right or wrong, is refused until its oldest failure
/// ages out, so guessing a 4-digit PIN from one place takes weeks.
pub const FAILURES_ALLOWED: usize = 10;
/// Wrong PINs allowed from all networks together within [`WINDOW_MS`]:
/// past this, guessing from many places at once locks the PIN for all.
pub const SHOWING_FAILURES_ALLOWED: usize = 30;
pub const WINDOW_MS: u64 = 10 * 60 * 1000;

/// When wrong PINs were tried lately and from which network, oldest first
/// (the network is empty for failures stored before it was kept).
#[derive(Debug, Default)]
pub struct Window {
    pub failures: VecDeque<(u64, String)>,
}

impl Desk {
    pub(crate) fn door_attempt(
        &mut self,
        now_ms: u64,
        matched: bool,
        client: &str,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        let failures = &mut self.door.failures;
        let mut aged_out = None;
        while let Some(&(at, _)) = failures.front() {
            if at + WINDOW_MS > now_ms {
                break;
            }
            aged_out = Some(at);
            failures.pop_front();
        }
        if let Some(before_ms) = aged_out {
            d.writes.push(Write::ForgetDoorFailures { before_ms });
        }
        let from_here: Vec<u64> = failures
            .iter()
            .filter(|(_, c)| c == client)
            .map(|&(at, _)| at)
            .collect();
        let locked_since = if failures.len() >= SHOWING_FAILURES_ALLOWED {
            failures.front().map(|&(at, _)| at)
        } else if from_here.len() >= FAILURES_ALLOWED {
            from_here.first().copied()
        } else {
            None
        };
        if let Some(at) = locked_since {
            let wait_ms = (at + WINDOW_MS).saturating_sub(now_ms);
            return Err(Refusal::new(
                Code::DoorPinLocked,
                "too many wrong PINs for this showing; wait, or sign in with the staff door token",
            )
            .retry_after(wait_ms.div_ceil(1000)));
        }
        if matched {
            return Ok(Reply::Done);
        }
        // A clock that stepped back must not reorder the window.
        let at_ms = failures
            .back()
            .map_or(now_ms, |&(last, _)| last.max(now_ms));
        failures.push_back((at_ms, client.to_string()));
        d.writes.push(Write::DoorFailure {
            at_ms,
            client: client.to_string(),
        });
        Err(Refusal::new(
            Code::Unauthorized,
            "missing or wrong credentials for this endpoint",
        ))
    }
}
