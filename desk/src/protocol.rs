//! The one protocol between the Worker and a showing's object: a
//! [`Request`] in, a [`Reply`] or a [`crate::Refusal`] out, both JSON.
//! The Worker has already parsed and bounded the buyer's input and drawn
//! the randomness a request needs (hold tokens, order ids); the desk
//! decides.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An amount in the currency's minor units (cents, pence, yen).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Money {
    pub amount: u64,
    pub currency: String,
}

/// A price category of a showing (`adult` at 1200, `child` at 800, …).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceCategory {
    pub id: String,
    pub name: String,
    /// In the showing's currency's minor units.
    pub amount: u64,
}

pub use checkout::SeatPrice;

/// A showing's seats in layout order, and those not for sale.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Units {
    pub names: Vec<String>,
    pub blocked: Vec<String>,
    /// Seats sold only at the box office (wheelchair spaces, where the
    /// cinema says so).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub desk_only: Vec<String>,
    /// Where the seats are, for a room of rows: what best available and
    /// the single-seat rule go by. None for seats in no rows (a list of
    /// names), which have neither. Its `counter_only` is `desk_only`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seating: Option<ledger::Seating>,
}

impl Units {
    /// The seats a showing can sell: house seats are in the layout but
    /// never counted as seats, so every page gives one count.
    pub fn for_sale(&self) -> usize {
        self.names.len() - self.blocked.len()
    }
}

/// What the object needs of a showing: set when it is created, replaced
/// when staff edit it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShowingSetup {
    pub showing_id: String,
    pub units: Units,
    pub price: Money,
    pub max_seats_per_hold: u32,
    pub hold_ttl_ms: u64,
    pub payment_cap_ms: u64,
    /// When holds may be made.
    #[serde(default)]
    pub sales: crate::window::SalesWindow,
    /// Its prices, the first the default; empty means one category at
    /// `price`.
    #[serde(default)]
    pub categories: Vec<PriceCategory>,
    /// Buyers hold seats only once the showing's waiting room admits them.
    #[serde(default)]
    pub waiting_room: bool,
}

/// Who is asking: the buyer's session id and the client's address.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Caller {
    pub buyer: String,
    pub client: String,
}

/// `Idempotency-Key` and a fingerprint (SHA-256) of the request body.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Idempotency {
    pub key: String,
    pub fingerprint: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewHold {
    pub caller: Caller,
    pub seats: Vec<String>,
    pub idempotency: Option<Idempotency>,
    /// Seat → price category id, for seats not at the default price.
    #[serde(default)]
    pub prices: std::collections::BTreeMap<String, String>,
    /// A fresh random token (32 hex characters) for the hold, should it be
    /// granted: the desk draws no randomness itself.
    pub token: String,
    /// Best available: the desk picks the seats, and `seats` and `prices`
    /// are empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<BestHold>,
    /// The Worker checked the buyer's admission token (a waiting room's).
    #[serde(default)]
    pub admitted: bool,
}

/// The best free seats, as many as `count`, priced by how many of them
/// are at each category; the rest are at the default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BestHold {
    pub count: u32,
    /// Side by side in one row, or refused; false accepts seats in blocks.
    pub together: bool,
    /// Wheelchair spaces and companions' seats may be picked.
    #[serde(default)]
    pub accessible: bool,
    /// Price category id → how many seats are at it.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub categories: std::collections::BTreeMap<String, u32>,
    /// Places in this general admission zone instead of seats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
}

/// Put me on the waiting list: `id` and `token` are fresh from the Worker
/// (the token is the offer's hold token, derived with the Worker's key,
/// kept here only as its hash).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct JoinWaitlist {
    pub id: String,
    pub email: String,
    pub seats: u32,
    pub token: String,
    /// The network asking ([`crate::rate::client_key`]).
    pub client: String,
}

/// Where a buyer stands on the waiting list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitlistPlace {
    pub id: String,
    /// Among those still waiting, from 1.
    pub position: u32,
    pub seats: u32,
    /// False when this address was on the list already.
    pub new: bool,
    /// Seats are held for it now (its mail has the link).
    pub offered: bool,
}

/// One entry of the waiting list as staff see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WaitlistEntryView {
    pub id: String,
    pub email: String,
    pub seats: u32,
    pub joined_at_ms: u64,
    /// `waiting`, `offered`, `bought` or `lapsed`.
    pub state: String,
    /// The seats offered, once they were.
    pub offered_seats: Vec<String>,
    /// When a live offer ends.
    pub until_ms: Option<u64>,
    /// The buyer opened the offer's link.
    pub claimed: bool,
}

/// Claim a waiting list offer: the entry and the token from its link, the
/// buyer asking, and a fresh token for the hold its seats pass into.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ClaimOffer {
    pub entry: String,
    pub token: String,
    pub buyer: Caller,
    pub hold_token: String,
}

/// Names an existing hold: its secret token and the buyer asking.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HoldRef {
    pub buyer: String,
    pub token: String,
}

/// Pay for a hold: the card token from the browser and the buyer's details.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CheckoutRequest {
    pub hold: HoldRef,
    pub source_id: String,
    /// The SDK's buyer verification token for `source_id`, or empty.
    #[serde(default)]
    pub verification_token: String,
    pub email: String,
    pub name: String,
    /// Fresh random hex for the order id, should a new order be started.
    pub order_nonce: String,
    /// The client's address, for the card-payment budget.
    #[serde(default)]
    pub client: String,
    /// An exchange: the buyer pays with the tickets of another order,
    /// and a card only for what they do not cover.
    #[serde(default)]
    pub exchange: Option<ExchangeCredit>,
    /// What the seats are for, as the Square order's line items name it
    /// (the film and its time); cut to `checkout::MAX_ITEM_NAME_BYTES`.
    #[serde(default)]
    pub item_name: String,
}

/// What an exchanged order can pay toward the new one. The Worker sends
/// the worth of the old tickets; the desk credits as much of it as the
/// held seats cost, and no more.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExchangeCredit {
    /// The order whose tickets are exchanged.
    pub from_order: String,
    pub credit_limit_minor: u64,
}

/// How the box office took a sale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaidAtDesk {
    Cash,
    /// On the cinema's own card terminal: recorded, not charged here.
    CardAtDesk,
    /// Given free, with a reason.
    Comp,
    /// Issued for another channel from its allocation (the channel took
    /// any money): the order's reason is the channel's name.
    Channel,
}

impl PaidAtDesk {
    pub fn as_str(self) -> &'static str {
        match self {
            PaidAtDesk::Cash => "cash",
            PaidAtDesk::CardAtDesk => "card_at_desk",
            PaidAtDesk::Comp => "comp",
            PaidAtDesk::Channel => "channel",
        }
    }
}

/// How a box-office sale was paid, and why if it was a comp.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeskPayment {
    pub paid: PaidAtDesk,
    pub reason: Option<String>,
}

/// Staff sell or give seats at the box office: held and paid for at once,
/// with nothing charged through Square.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BoxOfficeSale {
    pub seats: Vec<String>,
    /// Seat → price category, for seats not at the default price (ignored
    /// for a comp: every seat is free).
    #[serde(default)]
    pub prices: std::collections::BTreeMap<String, String>,
    pub payment: DeskPayment,
    /// The buyer, if staff took their name and e-mail (the tickets are
    /// mailed only with an e-mail).
    pub name: String,
    pub email: String,
    /// Fresh random hex: the hold's token and the order id's tail.
    pub token: String,
    pub order_nonce: String,
    /// The allocation the seats are issued from, for its channel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocation: Option<String>,
    /// A discount code staff took at the desk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<CodeTerms>,
}

/// `POST /api/admin/showings/{id}/allocations`, as the object is asked.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct NewAllocation {
    /// The channel: "Lincoln School", "Festival partner".
    pub name: String,
    pub seats: Vec<String>,
    pub release_at_ms: u64,
    /// Fresh random hex, whose digest is the allocation's id.
    pub token: String,
}

/// An allocation as staff see it: the seats it still holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Allocation {
    pub id: String,
    pub name: String,
    pub seats: Vec<String>,
    pub release_at_ms: u64,
}

/// A payment status Square reported by webhook for one of this showing's
/// orders (its `reference_id`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PaymentObserved {
    pub order_id: String,
    pub payment_id: String,
    pub status: String,
}

/// A completed refund's seats, to go back on sale.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VoidSeats {
    pub order_id: String,
    pub seats: Vec<String>,
}

/// Staff move a sold ticket to a free seat of the same showing: the ticket
/// as D1 has it (its id, its order and its seat) and the seat to move it
/// to.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MoveTicket {
    pub ticket_id: String,
    pub order_id: String,
    pub from: String,
    pub to: String,
}

/// A ticket moved, as the showing keeps it: the same answer to every
/// request that names the ticket again, so the Worker can finish the
/// move's D1 write however often it is asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TicketMoved {
    pub ticket_id: String,
    pub order_id: String,
    pub from: String,
    pub to: String,
    /// The new ticket's number in its order: an order's tickets are
    /// numbered from 1 in the order of its seats, and each ticket moved
    /// takes the next number after them.
    pub ticket_number: u32,
    pub moved_at_ms: u64,
}

/// Everything the Worker can ask of a showing's object.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Request {
    /// Sets up a new showing; the same setup twice is harmless.
    Init(ShowingSetup),
    /// Staff edited the showing.
    Configure(ShowingSetup),
    /// Staff cancelled the showing; cancelling again changes nothing.
    Cancel,
    /// Seat name → state, fresh.
    Seats,
    /// One letter a seat in layout order.
    SeatCodes,
    /// Counts for listings.
    Summary,
    /// What is tied up, as stored (does not release expired holds).
    Stats,
    /// Each seat and the order it is pending for or sold to, for the
    /// reconciliation (staff only: it names orders).
    Sales,
    Hold(NewHold),
    GetHold(HoldRef),
    ReleaseHold(HoldRef),
    Checkout(CheckoutRequest),
    BoxOffice(BoxOfficeSale),
    /// The seats best available would pick at the counter now, holding
    /// nothing: the box office shows them for staff to adjust.
    BestSeats(BestHold),
    /// Staff give seats to another channel until a release time.
    Allocate(NewAllocation),
    Allocations,
    /// Staff end an allocation now.
    ReleaseAllocation {
        id: String,
    },
    /// A buyer joins the waiting list of a sold-out showing.
    JoinWaitlist(JoinWaitlist),
    /// The waiting list, for staff.
    Waitlist,
    /// A buyer opened the link of their waiting list offer.
    ClaimOffer(ClaimOffer),
    /// A buyer applies a discount code to their hold.
    ApplyCode(ApplyCode),
    /// Where an order stands, for the buyer (the object asks this itself
    /// once a checkout has gone as far as it can for now).
    OrderStatus {
        order_id: String,
    },
    PaymentObserved(PaymentObserved),
    /// The cron sweep's nudge: release expired holds, resume due orders.
    Recover,
    VoidSeats(VoidSeats),
    /// Staff move a sold ticket to another seat; the same ticket asked
    /// again is answered with its move.
    MoveTicket(MoveTicket),
    /// A browser asks to watch the map; `watchers` already watch.
    Watch {
        watchers: usize,
    },
    /// The benchmark's floors: nothing, and one storage write.
    BenchNoop,
    BenchWrite,
}

/// What the Worker does when the runtime says a call to the object failed,
/// by the marks Cloudflare's "Durable Objects: error handling" documents
/// on the error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallFailed {
    /// `overloaded`: never asked again (that only adds to the load); the
    /// caller is told `503 showing_busy` with `Retry-After`.
    Busy,
    /// `retryable`, on the first try of an idempotent request: asked once
    /// more, on a fresh stub.
    AskAgain,
    /// Anything else: an internal error, nothing assumed decided.
    Fail,
}

impl Request {
    /// What to do after a failed call marked `overloaded` and `retryable`
    /// as given, on the first try or the second.
    pub fn after_failure(&self, overloaded: bool, retryable: bool, first_try: bool) -> CallFailed {
        match (overloaded, retryable && first_try && self.is_idempotent()) {
            (true, _) => CallFailed::Busy,
            (false, true) => CallFailed::AskAgain,
            (false, false) => CallFailed::Fail,
        }
    }

    /// Whether asking twice decides no more than asking once: a read, a
    /// hold under an `Idempotency-Key`, a checkout (the same hold and card
    /// find the same order), and the requests the desk answers the same
    /// when repeated. What the shell may send again when the runtime says
    /// the first try did not arrive.
    pub fn is_idempotent(&self) -> bool {
        match self {
            Request::Hold(new) => new.idempotency.is_some(),
            other => matches!(
                other,
                Request::Init(_)
                    | Request::Cancel
                    | Request::Seats
                    | Request::SeatCodes
                    | Request::Summary
                    | Request::Stats
                    | Request::Sales
                    | Request::GetHold(_)
                    | Request::BestSeats(_)
                    | Request::Allocations
                    | Request::ReleaseAllocation { .. }
                    | Request::Checkout(_)
                    | Request::OrderStatus { .. }
                    | Request::PaymentObserved(_)
                    | Request::Recover
                    | Request::MoveTicket(_)
                    | Request::JoinWaitlist(_)
                    | Request::Waitlist
                    | Request::ClaimOffer(_)
                    | Request::ApplyCode(_)
            ),
        }
    }
}

/// The seat map by name, in layout order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatMap {
    pub version: u64,
    pub seats: serde_json::Map<String, Value>,
}

/// One seat as the showing's ledger has it, with the order it belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatSale {
    pub seat: String,
    /// `available`, `held`, `pending`, `sold` or `blocked` (a house seat).
    pub state: String,
    /// The order a pending or sold seat is the order's of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    /// Its place among that order's seats: its ticket is the order's
    /// ticket of that place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place: Option<usize>,
    /// Its price as the order's checkout priced it, while the showing
    /// still remembers the checkout (a week after it ended).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<checkout::SeatPrice>,
}

/// The seat map as one letter a seat (`a` available, `h` held, `s` sold or
/// not for sale).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCodes {
    pub version: u64,
    pub codes: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    pub version: u64,
    pub available: u32,
    pub held: u32,
    pub sold: u32,
}

/// A granted hold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HoldGranted {
    pub hold_id: String,
    pub seats: Vec<String>,
    pub expires_at_ms: u64,
    /// How long the hold has left as the object answers: a page counts down
    /// from this, so a wrong clock on the buyer's device does not matter.
    pub expires_in_ms: u64,
    pub amount: Money,
    /// Each seat's category and price, adding up to `amount`.
    pub prices: Vec<SeatPrice>,
    /// The tax in `amount`, or added to make it.
    pub tax: checkout::TaxLine,
}

/// A hold as its buyer sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HoldView {
    pub hold_id: String,
    pub seats: Vec<String>,
    /// `held`, `paying`, `expired`, `released` or `committed`.
    pub state: String,
    pub expires_at_ms: Option<u64>,
    /// How long the hold has left now; see [`HoldGranted::expires_in_ms`].
    pub expires_in_ms: Option<u64>,
    pub amount: Money,
    pub prices: Vec<SeatPrice>,
    pub tax: checkout::TaxLine,
    /// The order paying for this hold, once a checkout began that was not
    /// declined, so a buyer whose answer was lost finds it again.
    pub order_id: Option<String>,
    /// The discount code on the hold, and what it takes off in all
    /// (each seat's part is its price's `discount_minor`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount: Option<DiscountView>,
}

/// A discount code on a hold or an order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscountView {
    pub code: String,
    pub amount: u64,
}

/// A discount code as the Worker found it defined and valid for this
/// showing, film and day; the desk checks the seats' categories.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CodeTerms {
    /// Upper case.
    pub code: String,
    pub off: checkout::discount::Off,
    /// The price categories it applies to; empty for all.
    pub categories: Vec<String>,
    /// Its uses are limited and one was reserved for this hold in the
    /// code's object: the desk sees it held, committed or released.
    pub limited: bool,
}

/// A discount code a buyer applies to their hold.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApplyCode {
    pub hold: HoldRef,
    #[serde(flatten)]
    pub terms: CodeTerms,
    /// The buyer's address: the order must be paid with the same.
    pub email: String,
}

/// Where an order stands, for its buyer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrderAnswer {
    pub order_id: String,
    pub status: checkout::PublicStatus,
    pub seats: Vec<String>,
    pub amount: Money,
    /// Each seat's category and price (empty for an older order).
    #[serde(default)]
    pub prices: Vec<SeatPrice>,
    /// The object is still performing a step of it.
    pub settling: bool,
    /// What an exchanged order's payment paid of `amount`; the rest was
    /// charged to the card (0 for an order that was no exchange).
    #[serde(default)]
    pub credit: u64,
    /// Its tax in all, as the receipt names it.
    #[serde(default)]
    pub tax: checkout::TaxLine,
}

/// Every answer but a refusal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Reply {
    /// Done; nothing to say (`204`).
    Done,
    /// `Init` made the showing (`201`), or found the same one (`200`).
    Created {
        new: bool,
    },
    Configured {
        relayout: bool,
    },
    /// The showing is cancelled: by this request (`new`) or before.
    Cancelled {
        new: bool,
        cancelled_at_ms: u64,
    },
    Seats(SeatMap),
    Codes(SeatCodes),
    Sales {
        seats: Vec<SeatSale>,
    },
    Summary(Summary),
    Stats(Value),
    Held(HoldGranted),
    /// The first answer to an idempotent hold, replayed to its buyer.
    Replayed {
        status: u16,
        body: String,
    },
    Hold(HoldView),
    Order(OrderAnswer),
    /// A browser may watch the map: `map` is the first message to send
    /// it, the whole map as the watchers have it.
    Watch {
        map: String,
    },
    Moved(TicketMoved),
    /// Best available's seats, best first by row then left to right.
    Best {
        seats: Vec<String>,
    },
    Allocation(Allocation),
    Allocations {
        allocations: Vec<Allocation>,
    },
    WaitlistJoined(WaitlistPlace),
    Waitlist {
        entries: Vec<WaitlistEntryView>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold(key: Option<&str>) -> Request {
        Request::Hold(NewHold {
            caller: Caller {
                buyer: "ana".into(),
                client: "192.0.2.1".into(),
            },
            seats: vec!["A1".into()],
            idempotency: key.map(|key| Idempotency {
                key: key.into(),
                fingerprint: "f".into(),
            }),
            prices: Default::default(),
            token: "0".repeat(32),
            best: None,
            admitted: false,
        })
    }

    #[test]
    fn an_overloaded_object_is_never_asked_again_and_a_lost_call_only_when_safe() {
        use CallFailed::*;
        let keyed = hold(Some("k"));
        assert_eq!(keyed.after_failure(true, true, true), Busy);
        assert_eq!(keyed.after_failure(false, true, true), AskAgain);
        assert_eq!(keyed.after_failure(false, true, false), Fail, "once only");
        assert_eq!(keyed.after_failure(false, false, true), Fail);
        // A hold without a key could be made twice.
        assert_eq!(hold(None).after_failure(false, true, true), Fail);
        assert_eq!(Request::Seats.after_failure(false, true, true), AskAgain);
        assert_eq!(Request::BenchWrite.after_failure(false, true, true), Fail);
        assert_eq!(Request::Seats.after_failure(true, false, false), Busy);
        // A ticket asked to move again is answered with the move it made.
        let moving = Request::MoveTicket(MoveTicket {
            ticket_id: "t1".into(),
            order_id: "o1".into(),
            from: "A1".into(),
            to: "A2".into(),
        });
        assert_eq!(moving.after_failure(false, true, true), AskAgain);
    }
}
