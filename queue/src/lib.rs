//! The waiting room of an on-sale rush (a premiere, a Q&A): when a few
//! thousand people arrive for a few hundred seats, they queue here first,
//! and only those the admission cursor has reached may hold seats.
//!
//! - [`line`]: places in line. Those who join before sales open are put
//!   in random order among themselves (the shell draws the randomness and
//!   passes it in), so arriving early by a second earns nothing over
//!   arriving early by an hour; later arrivals queue in the order the
//!   Worker received them, each settling a second before it is placed.
//!   One place per buyer session. A cursor moves at the admission rate
//!   from the opening, and stops while the showing is sold out.
//! - [`token`]: what a buyer carries: a queue token (their place) and,
//!   once the cursor has passed it, an admission token bound to their
//!   session and the showing for a few minutes. Both are signed (HMAC-
//!   SHA256 with a key derived for this purpose by the shell), so the
//!   Worker checks them with the key alone, asking no object.
//!
//! - [`clock`]: the cursor alone, which the Worker keeps a copy of to
//!   answer a placed buyer without asking the line's object.
//! - [`rate`]: the admission rate a showing's object can take, from its
//!   measured capacity by Little's law, with the numbers shown.
//!
//! Nothing here does I/O, reads a clock or draws randomness.

pub mod clock;
pub mod line;
pub mod rate;
pub mod store;
pub mod token;

pub use clock::Clock;
pub use line::{
    Answer, Arrival, Joined, Line, LineError, Placed, Standing, MAX_ADMIT_PER_MINUTE, MAX_PLACES,
    SETTLE_MS,
};
pub use token::{Claims, Kind, TokenError, ADMISSION_TTL_MS};
