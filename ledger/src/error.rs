//! Refusals: one enum per call, one variant per distinct reason.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a hold was refused. Checked in this order, and the first that applies
/// is reported: `NoSeats`, `TooManySeats`, `DuplicateSeats`, `UnknownSeats`
/// (the shape of the request, so a malformed request never touches state),
/// `HoldIdInUse` (a caller bug, reported whatever the seats), then
/// `SeatsUnavailable`, and `TooManyLiveHolds` last, because telling a buyer
/// which seats are taken helps more than telling them the showing is busy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HoldError {
    NoSeats,
    TooManySeats {
        requested: usize,
        max: u32,
    },
    /// Each seat named more than once, listed once, in request order.
    DuplicateSeats {
        seats: Vec<String>,
    },
    /// Every seat the showing does not have, in request order.
    UnknownSeats {
        seats: Vec<String>,
    },
    /// A live hold already has this id.
    HoldIdInUse,
    /// Every requested seat that is held, pending, sold or blocked, in request order.
    SeatsUnavailable {
        seats: Vec<String>,
    },
    TooManyLiveHolds {
        max: u32,
    },
    /// The hold would leave this seat alone (see `seating`), and another
    /// choice of the same kind in its row would not. After
    /// `SeatsUnavailable`, before `TooManyLiveHolds`.
    LeavesSingleSeat {
        seat: String,
    },
    /// Best available: not this many seats side by side that keep the
    /// rule; `largest` is the most that are.
    NoAdjacentSeats {
        largest: u32,
    },
    /// Best available: fewer seats it may pick are free than asked for.
    NotEnoughSeats {
        available: u32,
    },
    /// A count for a zone the showing does not have.
    UnknownZone,
    /// An allocation's release time is not after now, or past the
    /// ledger's clock limit.
    BadReleaseTime,
    /// Fewer of the zone's places are free than asked for.
    ZoneFull {
        available: u32,
    },
}

/// Why seats could not be moved out of a hold into a new one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TakeError {
    /// The seat list or the new hold refused, as [`HoldError`] says.
    Seats(HoldError),
    /// No live hold has this id.
    HoldNotFound,
    /// Each seat named that the hold does not hold, in request order.
    NotInHold { seats: Vec<String> },
}

/// Why a release was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ReleaseError {
    /// No live hold has this id: it never existed, expired, was released or
    /// was committed.
    HoldNotFound,
}

/// Why starting payment was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PaymentError {
    /// No live hold has this id; the buyer must hold seats again.
    HoldNotFound,
}

/// Why a commit was refused. A refusal changes no seat of the request (the
/// call may still release expired holds, as every call does). Checked in
/// this order: the shape of the seat list, then the order id, then the seats.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CommitError {
    NoSeats,
    TooManySeats {
        requested: usize,
        max: u32,
    },
    DuplicateSeats {
        seats: Vec<String>,
    },
    UnknownSeats {
        seats: Vec<String>,
    },
    /// The order id is already used by an order of another hold or seats.
    OrderIdInUse,
    /// The order was abandoned: its payment was proven void.
    OrderAbandoned,
    /// The hold is live but holds other seats than the ones named.
    SeatsDifferFromHold,
    /// The hold lapsed and these seats, in request order, were taken since.
    SeatsTaken {
        seats: Vec<String>,
    },
}

/// Why a confirm was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfirmError {
    /// No order has this id, or it closed long enough ago to be forgotten.
    OrderNotFound,
    /// The order was abandoned: its payment was proven void.
    OrderAbandoned,
}

/// Why an abandon was refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AbandonError {
    OrderNotFound,
    /// The order was confirmed; refund its seats with `void` instead.
    OrderConfirmed,
}

/// Why a void (refund) was refused; no seat of the request changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VoidError {
    NoSeats,
    TooManySeats {
        requested: usize,
        max: u32,
    },
    DuplicateSeats {
        seats: Vec<String>,
    },
    UnknownSeats {
        seats: Vec<String>,
    },
    OrderNotFound,
    /// The order is still pending: its seats were never sold.
    OrderNotConfirmed,
    OrderAbandoned,
    /// These seats, in request order, are not part of the order.
    SeatsNotInOrder {
        seats: Vec<String>,
    },
}

/// Why moving one of an order's sold seats to another was refused; no
/// seat changed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MoveError {
    /// The showing has no seat of this name.
    UnknownSeat {
        seat: String,
    },
    OrderNotFound,
    /// The order is still pending: its seats are not sold yet.
    OrderNotConfirmed,
    /// The seat is not one of the order's sold seats (never was, or was
    /// refunded or moved away).
    SeatNotInOrder {
        seat: String,
    },
    /// The seat to move to is held, pending, sold or blocked.
    SeatUnavailable {
        seat: String,
    },
}

/// A malformed seat list; shared by the calls that take one.
// The variants keep the names of the public refusals they become.
#[allow(clippy::enum_variant_names)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SeatListError {
    NoSeats,
    TooManySeats { requested: usize, max: u32 },
    DuplicateSeats { seats: Vec<String> },
    UnknownSeats { seats: Vec<String> },
}

macro_rules! from_seat_list_error {
    ($target:ident) => {
        impl From<SeatListError> for $target {
            fn from(error: SeatListError) -> Self {
                match error {
                    SeatListError::NoSeats => $target::NoSeats,
                    SeatListError::TooManySeats { requested, max } => {
                        $target::TooManySeats { requested, max }
                    }
                    SeatListError::DuplicateSeats { seats } => $target::DuplicateSeats { seats },
                    SeatListError::UnknownSeats { seats } => $target::UnknownSeats { seats },
                }
            }
        }
    };
}

from_seat_list_error!(HoldError);
from_seat_list_error!(CommitError);
from_seat_list_error!(VoidError);

/// Writes each error as its variant name and fields: the names are the
/// documentation, and the Durable Object maps them to its own messages.
macro_rules! display_as_debug {
    ($($error:ident),*) => {
        $(
            impl fmt::Display for $error {
                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    fmt::Debug::fmt(self, f)
                }
            }

            impl std::error::Error for $error {}
        )*
    };
}

display_as_debug!(
    HoldError,
    TakeError,
    ReleaseError,
    PaymentError,
    CommitError,
    ConfirmError,
    AbandonError,
    VoidError,
    MoveError
);
