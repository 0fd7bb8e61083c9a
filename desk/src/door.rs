//! Wrong door PINs per showing, counted in a sliding window. The object
//! serialises the count, so parallel guesses cannot slip past the limit,
//! and each failure is a row, so an object evicted while idle forgets
//! nothing.

use std::collections::VecDeque;

use crate::protocol::Reply;
use crate::refusal::{Code, Refusal};
use crate::storage::Write;
use crate::{Decision, Desk};

/// Wrong PINs allowed per showing within [`WINDOW_MS`]; then every PIN,
/// right or wrong, is refused until the oldest failure ages out, so
/// guessing a 4-digit PIN takes weeks instead of minutes.
pub const FAILURES_ALLOWED: usize = 10;
pub const WINDOW_MS: u64 = 10 * 60 * 1000;

/// When wrong PINs were tried lately, oldest first.
#[derive(Debug, Default)]
pub struct Window {
    pub failures: VecDeque<u64>,
}

impl Desk {
    pub(crate) fn door_attempt(
        &mut self,
        now_ms: u64,
        matched: bool,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        let failures = &mut self.door.failures;
        let mut aged_out = None;
        while let Some(&at) = failures.front() {
            if at + WINDOW_MS > now_ms {
                break;
            }
            aged_out = Some(at);
            failures.pop_front();
        }
        if let Some(before_ms) = aged_out {
            d.writes.push(Write::ForgetDoorFailures { before_ms });
        }
        if failures.len() >= FAILURES_ALLOWED {
            let wait_ms = failures.front().map_or(0, |&at| at + WINDOW_MS - now_ms);
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
        let at_ms = failures.back().map_or(now_ms, |&last| last.max(now_ms));
        failures.push_back(at_ms);
        d.writes.push(Write::DoorFailure { at_ms });
        Err(Refusal::new(
            Code::Unauthorized,
            "missing or wrong credentials for this endpoint",
        ))
    }
}
