//! The showing itself: setting it up, staff edits, the seat maps and
//! counts, staff stats, refunded seats going back on sale, and saving what
//! each ledger call changed.

use ledger::{Changes, Ledger, PublicState, UnitState};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::protocol::{
    Money, PriceCategory, Reply, SeatCodes, SeatMap, SeatPrice, ShowingSetup, Summary, VoidSeats,
};
use crate::refusal::{Code, Refusal};
use crate::storage::{self, HoldEnd, Write};
use crate::window::Sales;
use crate::{Decision, Desk};

/// Most browsers watching one showing's map live; more fall back to polling.
pub const MAX_WATCHERS: usize = 2_000;

/// The showing's facts the object needs besides its seats, stored as JSON
/// in the meta row `showing`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ShowingMeta {
    pub showing_id: String,
    pub price: Money,
    pub config: ledger::Config,
    /// Buyers hold seats only once admitted by the waiting room.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub waiting_room: bool,
    /// When staff cancelled it; nothing is sold after that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_at_ms: Option<u64>,
    /// When holds may be made (always, for a showing saved before there
    /// were sales windows).
    #[serde(default)]
    pub sales: crate::window::SalesWindow,
    /// Its price categories, the first the default; empty for a showing
    /// saved before there were: one category at `price`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<PriceCategory>,
    /// Seats sold only at the box office.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub desk_only: Vec<String>,
    /// The room's rows, for best available and the single-seat rule;
    /// none for a showing saved before rooms had them, or of slots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seating: Option<ledger::Seating>,
}

pub struct Showing {
    pub meta: ShowingMeta,
    pub ledger: Ledger,
}

impl Showing {
    /// The showing, its ledger told where its seats are.
    pub fn new(meta: ShowingMeta, mut ledger: Ledger) -> Result<Showing, ledger::SeatingError> {
        ledger.set_seating(meta.seating.as_ref())?;
        Ok(Showing { meta, ledger })
    }
}

fn category_of<'a>(
    categories: &'a [PriceCategory],
    id: &str,
) -> Result<&'a PriceCategory, Refusal> {
    categories.iter().find(|c| c.id == id).ok_or_else(|| {
        Refusal::new(
            Code::UnknownPrice,
            format!("this showing has no price {id:?}"),
        )
        .with(
            "prices",
            categories.iter().map(|c| c.id.clone()).collect::<Vec<_>>(),
        )
    })
}

pub fn seat_price(seat: &str, category: &PriceCategory) -> SeatPrice {
    SeatPrice {
        seat: seat.to_string(),
        category: category.id.clone(),
        name: category.name.clone(),
        amount_minor: category.amount,
        tax_minor: 0,
        tax_rate_bps: 0,
        discount_minor: 0,
    }
}

/// Each seat at the category beside it, taxed as one order.
pub fn priced(
    seats: &[String],
    categories: &[PriceCategory],
    tax: &checkout::Tax,
) -> Vec<SeatPrice> {
    let mut prices: Vec<SeatPrice> = seats
        .iter()
        .zip(categories)
        .map(|(seat, category)| seat_price(seat, category))
        .collect();
    tax.apply(&mut prices);
    prices
}

impl Desk {
    /// What these seats' tax comes to, named as the cinema names it.
    pub(crate) fn tax_line(&self, prices: &[SeatPrice]) -> checkout::TaxLine {
        let tax = &self.settings.tax;
        let seats = prices.iter().map(|p| (p.tax_rate_bps, p.tax_minor));
        checkout::TaxLine::of(&tax.name, tax.inclusive, seats)
    }
}

/// The rows of a setup's units, with the seats the box office alone sells
/// as the ones best available passes over online.
fn seating_of(units: &crate::protocol::Units) -> Option<ledger::Seating> {
    let seating = units.seating.clone()?;
    Some(ledger::Seating {
        counter_only: units.desk_only.clone(),
        ..seating
    })
}

/// The category of a showing saved with one price.
pub const STANDARD_PRICE: &str = "standard";

impl Showing {
    /// The showing's categories; the first is the default.
    pub fn categories(&self) -> Vec<PriceCategory> {
        match self.meta.categories.is_empty() {
            false => self.meta.categories.clone(),
            true => vec![PriceCategory {
                id: STANDARD_PRICE.into(),
                name: "Standard".into(),
                amount: self.meta.price.amount,
            }],
        }
    }

    /// The seats' names, in the order of `units`.
    pub fn names_of(&self, units: &[ledger::UnitId]) -> Vec<String> {
        units
            .iter()
            .filter_map(|&u| self.ledger.unit_name(u))
            .map(str::to_string)
            .collect()
    }

    /// The index of the general admission zone of this name.
    pub fn zone(&self, name: &str) -> Result<u32, Refusal> {
        self.ledger.zone(name).ok_or_else(|| {
            let zones: Vec<String> = self
                .meta
                .seating
                .iter()
                .flat_map(|s| s.zones.iter().map(|z| z.name.clone()))
                .collect();
            Refusal::new(
                Code::UnknownZone,
                format!("this showing has no zone {name:?}"),
            )
            .with("zones", zones)
        })
    }

    /// A buyer may hold any seat but those sold only at the box office.
    pub fn refuse_desk_only(&self, seats: &[String]) -> Result<(), Refusal> {
        let desk_only: Vec<&String> = seats
            .iter()
            .filter(|s| self.meta.desk_only.contains(s))
            .collect();
        if desk_only.is_empty() {
            return Ok(());
        }
        Err(Refusal::new(
            Code::BoxOfficeOnly,
            "wheelchair spaces and their companion seats for this showing are sold at the box office: call or visit us",
        )
        .with("seats", serde_json::json!(desk_only)))
    }

    /// Prices each seat of a hold: the category the buyer chose for it, or
    /// the default. A category the showing does not have is refused; the
    /// request was bounded first (`bounds`), so a price is chosen only for
    /// a seat being held and every id it names is short.
    pub fn price_seats(
        &self,
        seats: &[String],
        chosen: &std::collections::BTreeMap<String, String>,
        tax: &checkout::Tax,
    ) -> Result<Vec<SeatPrice>, Refusal> {
        let categories = self.seat_categories(seats, chosen)?;
        Ok(priced(seats, &categories, tax))
    }

    /// Each seat's category, as [`Showing::price_seats`] chooses it.
    pub fn seat_categories(
        &self,
        seats: &[String],
        chosen: &std::collections::BTreeMap<String, String>,
    ) -> Result<Vec<PriceCategory>, Refusal> {
        let categories = self.categories();
        seats
            .iter()
            .map(|seat| match chosen.get(seat) {
                None => Ok(categories[0].clone()),
                Some(id) => category_of(&categories, id).cloned(),
            })
            .collect()
    }

    /// The categories of best seats not yet picked, from `counts`
    /// (category id → how many seats), in the showing's order of its
    /// categories and the default for the rest: checked before anything
    /// is held, so pricing the seats once picked cannot fail.
    pub fn best_categories(
        &self,
        count: u32,
        counts: &std::collections::BTreeMap<String, u32>,
    ) -> Result<Vec<PriceCategory>, Refusal> {
        let categories = self.categories();
        for id in counts.keys() {
            category_of(&categories, id)?;
        }
        let mut each: Vec<PriceCategory> = categories
            .iter()
            .flat_map(|c| {
                let n = counts.get(&c.id).copied().unwrap_or(0);
                std::iter::repeat_n(c.clone(), n as usize)
            })
            .collect();
        each.resize(count as usize, categories[0].clone());
        Ok(each)
    }

    /// A hold's seats as priced when held; a hold made before seats had
    /// prices is at the default price.
    pub fn prices_of(&self, owner: &crate::owners::Owner) -> Vec<SeatPrice> {
        if let Some(code) = &owner.code {
            return code.prices.clone();
        }
        self.listed_prices_of(owner)
    }

    /// Each seat's price as held, before any discount code.
    pub fn listed_prices_of(&self, owner: &crate::owners::Owner) -> Vec<SeatPrice> {
        if !owner.prices.is_empty() {
            return owner.prices.clone();
        }
        let default = &self.categories()[0];
        owner
            .seats
            .iter()
            .map(|seat| seat_price(seat, default))
            .collect()
    }

    /// What these seats cost together.
    pub fn total(&self, prices: &[SeatPrice]) -> Money {
        Money {
            amount: prices.iter().map(|p| p.amount_minor).sum(),
            currency: self.meta.price.currency.clone(),
        }
    }

    /// The seat map as one letter a seat: a twentieth of the size of the
    /// map by name, for pages and refusals.
    pub fn codes(&self) -> SeatCodes {
        let availability = self.ledger.availability();
        SeatCodes {
            version: availability.version,
            codes: availability.codes(),
        }
    }

    /// Saves what a ledger call changed. A hold gone from the ledger ended
    /// as `subject` says when it is the one the call was about, else it
    /// expired.
    pub fn persist(
        &self,
        changes: &Changes,
        subject: Option<(&ledger::HoldId, HoldEnd)>,
        now_ms: u64,
        owners: &mut crate::owners::Owners,
        d: &mut Decision,
    ) {
        if changes.is_empty() {
            return;
        }
        for &unit in &changes.units {
            d.writes.push(storage::unit_write(&self.ledger, unit));
        }
        for hold in &changes.holds {
            let id = hold.as_str().to_string();
            if let Some(record) = self.ledger.hold_record(hold) {
                let record = Some(storage::to_json(record));
                d.writes.push(Write::Hold { id, record });
                continue;
            }
            let how = match subject {
                Some((subject, end)) if subject == hold => end,
                _ => HoldEnd::Expired,
            };
            // One statement ends it: the record goes from the owner row
            // as the row says how it ended.
            match owners.end(hold.as_str(), how, now_ms) {
                true => d.writes.push(Write::HoldEnded {
                    id: id.clone(),
                    how,
                    at_ms: now_ms,
                }),
                false => d.writes.push(Write::Hold {
                    id: id.clone(),
                    record: None,
                }),
            }
            // Ended unpaid: a limited code's use goes back. Seats sold keep
            // it until the order's outcome (`Desk::settle_code`).
            if how != HoldEnd::Committed {
                owners.settle_code(&self.meta.showing_id, &id, None, d);
            }
        }
        for order in &changes.orders {
            d.writes.push(Write::Order {
                id: order.as_str().to_string(),
                record: self.ledger.order_record(order).map(storage::to_json),
            });
        }
        d.writes.push(Write::Scalars {
            version: changes.version,
            latest_now_ms: changes.latest_now_ms,
        });
    }
}

fn config_of(setup: &ShowingSetup, base: ledger::Config) -> ledger::Config {
    ledger::Config {
        max_seats_per_hold: setup.max_seats_per_hold,
        hold_ttl_ms: setup.hold_ttl_ms,
        payment_cap_ms: setup.payment_cap_ms,
        ..base
    }
}

fn invalid(e: impl std::fmt::Debug) -> Refusal {
    Refusal::new(Code::InvalidShowing, format!("{e:?}"))
}

impl Desk {
    pub(crate) fn init(&mut self, setup: ShowingSetup, d: &mut Decision) -> Result<Reply, Refusal> {
        if let Some(existing) = &self.showing {
            // Creating the same showing twice is harmless; a different
            // layout under the same id is a caller's bug.
            let same = existing.ledger.unit_count() == setup.units.names.len()
                && existing.meta.showing_id == setup.showing_id;
            return match same {
                true => Ok(Reply::Created { new: false }),
                false => Err(Refusal::new(
                    Code::ShowingExists,
                    "this showing already exists",
                )),
            };
        }
        let config = config_of(&setup, ledger::Config::default());
        let ledger = Ledger::new(config.clone(), &setup.units.names, &setup.units.blocked)
            .map_err(invalid)?;
        let meta = ShowingMeta {
            showing_id: setup.showing_id,
            price: setup.price,
            config,
            cancelled_at_ms: None,
            sales: setup.sales,
            categories: setup.categories,
            waiting_room: setup.waiting_room,
            seating: seating_of(&setup.units),
            desk_only: setup.units.desk_only,
        };
        let showing = Showing::new(meta, ledger).map_err(invalid)?;
        d.writes.push(Write::CreateTables);
        storage::all_units(&showing.ledger, d);
        d.writes.push(Write::Meta {
            key: storage::SHOWING,
            value: storage::to_json(&showing.meta),
        });
        d.writes.push(Write::Scalars {
            version: showing.ledger.version(),
            latest_now_ms: showing.ledger.latest_now_ms(),
        });
        self.showing = Some(showing);
        Ok(Reply::Created { new: true })
    }

    /// Staff edited the showing. Price and limits may change at any time
    /// (a live hold larger than a new limit refuses it); the seats only
    /// while none is held, paying or sold and no order was ever made,
    /// because tickets and orders name seats.
    pub(crate) fn configure(
        &mut self,
        edit: ShowingSetup,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.refuse_if_cancelled()?;
        let showing = self.showing_mut()?;
        let current = showing.ledger.snapshot();
        let config = config_of(&edit, current.config.clone());
        let names: Vec<&str> = current.units.iter().map(|u| u.name.as_str()).collect();
        let blocked: Vec<&str> = current
            .units
            .iter()
            .filter(|u| u.state == UnitState::Blocked)
            .map(|u| u.name.as_str())
            .collect();
        let relayout = names != edit.units.names || blocked != edit.units.blocked;
        let snapshot = if relayout {
            let counts = showing.ledger.counts();
            if counts.held + counts.pending + counts.sold > 0 || !current.orders.is_empty() {
                return Err(Refusal::new(
                    Code::LayoutLocked,
                    "the seats cannot change once any seat has been held or sold; \
                     title, time, price and limits still can",
                ));
            }
            let fresh =
                Ledger::new(config, &edit.units.names, &edit.units.blocked).map_err(invalid)?;
            ledger::Snapshot {
                version: current.version + 1,
                latest_now_ms: current.latest_now_ms,
                ..fresh.snapshot()
            }
        } else {
            ledger::Snapshot { config, ..current }
        };
        let ledger = Ledger::restore(snapshot).map_err(|e| {
            Refusal::new(
                Code::LimitsConflict,
                format!("the new limits conflict with a live hold or order ({e}); try again when it ends"),
            )
        })?;
        let meta = ShowingMeta {
            showing_id: showing.meta.showing_id.clone(),
            price: edit.price,
            config: ledger.config().clone(),
            cancelled_at_ms: None,
            sales: edit.sales,
            categories: edit.categories,
            waiting_room: edit.waiting_room,
            seating: seating_of(&edit.units),
            desk_only: edit.units.desk_only,
        };
        let fresh = Showing::new(meta, ledger).map_err(invalid)?;
        if relayout {
            d.writes.push(Write::ClearUnits);
            storage::all_units(&fresh.ledger, d);
            d.writes.push(Write::Scalars {
                version: fresh.ledger.version(),
                latest_now_ms: fresh.ledger.latest_now_ms(),
            });
        }
        d.writes.push(Write::Meta {
            key: storage::SHOWING,
            value: storage::to_json(&fresh.meta),
        });
        *showing = fresh;
        Ok(Reply::Configured { relayout })
    }

    /// Staff cancelled the showing. From now on no hold or checkout
    /// starts, holds not yet paying are released, and a checkout already
    /// paying gets no seats (its authorization is voided), so nobody is
    /// charged for it; orders paid before are refunded by the Worker.
    pub(crate) fn cancel(&mut self, now_ms: u64, d: &mut Decision) -> Result<Reply, Refusal> {
        let showing = self.showing_mut()?;
        if let Some(at) = showing.meta.cancelled_at_ms {
            return Ok(Reply::Cancelled {
                new: false,
                cancelled_at_ms: at,
            });
        }
        showing.meta.cancelled_at_ms = Some(now_ms);
        d.writes.push(Write::Meta {
            key: storage::SHOWING,
            value: storage::to_json(&showing.meta),
        });
        let open: Vec<ledger::HoldId> = self
            .owners
            .open()
            .filter_map(|id| ledger::HoldId::new(id.as_str()).ok())
            .collect();
        let showing = self.showing_mut()?;
        let unpaid: Vec<ledger::HoldId> = open
            .into_iter()
            .filter(|id| showing.ledger.hold_record(id).is_some_and(|r| !r.paying))
            .collect();
        for id in unpaid {
            let Some(showing) = self.showing.as_mut() else {
                break;
            };
            let outcome = showing.ledger.release(now_ms, &id);
            let end = Some((&id, HoldEnd::Released));
            showing.persist(&outcome.changes, end, now_ms, &mut self.owners, d);
        }
        Ok(Reply::Cancelled {
            new: true,
            cancelled_at_ms: now_ms,
        })
    }

    /// Refuses what would sell seats of a cancelled showing.
    pub(crate) fn refuse_if_cancelled(&self) -> Result<(), Refusal> {
        match self.showing()?.meta.cancelled_at_ms {
            Some(_) => Err(Refusal::new(
                Code::ShowingCancelled,
                "this showing was cancelled; nothing can be booked for it",
            )),
            None => Ok(()),
        }
    }

    /// Holds are made only while sales are open. A hold made before they
    /// close may still be paid for after.
    pub(crate) fn refuse_unless_on_sale(&self, now_ms: u64) -> Result<(), Refusal> {
        let sales = self.showing()?.meta.sales;
        match sales.at(now_ms) {
            Sales::Open => Ok(()),
            Sales::NotOpen => Err(Refusal::new(
                Code::SalesNotOpen,
                "tickets for this showing are not on sale yet",
            )
            .with("opens_at_ms", sales.opens_at_ms)),
            Sales::Closed => Err(Refusal::new(
                Code::SalesClosed,
                "sales for this showing have closed",
            )
            .with("closed_at_ms", sales.closes_at_ms)),
        }
    }

    /// Releases expired holds now and saves that.
    pub(crate) fn sweep(&mut self, now_ms: u64, d: &mut Decision) {
        let Some(showing) = self.showing.as_mut() else {
            return;
        };
        let changes = showing.ledger.sweep(now_ms);
        showing.persist(&changes, None, now_ms, &mut self.owners, d);
    }

    /// Each seat and whose it is, expired holds released first.
    pub(crate) fn sales(&mut self, now_ms: u64, d: &mut Decision) -> Result<Reply, Refusal> {
        self.showing()?;
        self.sweep(now_ms, d);
        let snapshot = self.showing()?.ledger.snapshot();
        let seats = snapshot
            .units
            .iter()
            .enumerate()
            .map(|(unit, row)| {
                let (state, order) = match &row.state {
                    UnitState::Available => ("available", None),
                    UnitState::Held(_) => ("held", None),
                    UnitState::Pending(order) => ("pending", Some(order.as_str())),
                    UnitState::Sold(order) => ("sold", Some(order.as_str())),
                    UnitState::Blocked => ("blocked", None),
                };
                let place = order.and_then(|id| {
                    let record = snapshot.orders.iter().find(|o| o.id.as_str() == id)?;
                    record.seats.iter().position(|s| s.0 as usize == unit)
                });
                let price = order.and_then(|id| {
                    let checkout = self.checkouts.machines.get(id)?;
                    checkout
                        .order()
                        .prices
                        .iter()
                        .find(|p| p.seat == row.name)
                        .cloned()
                });
                crate::protocol::SeatSale {
                    seat: row.name.clone(),
                    state: state.to_string(),
                    order_id: order.map(str::to_string),
                    place,
                    price,
                }
            })
            .collect();
        Ok(Reply::Sales { seats })
    }

    pub(crate) fn seat_map(
        &mut self,
        now_ms: u64,
        d: &mut Decision,
        compact: bool,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        self.seat_maps_built += 1;
        self.sweep(now_ms, d);
        let showing = self.showing()?;
        if compact {
            return Ok(Reply::Codes(showing.codes()));
        }
        let availability = showing.ledger.availability();
        let seats: Map<String, Value> = availability
            .units
            .iter()
            .enumerate()
            .map(|(idx, state)| {
                let name = showing.ledger.unit_name(ledger::UnitId(idx as u32));
                let state = match state {
                    PublicState::Available => "available",
                    PublicState::Held => "held",
                    PublicState::Sold => "sold",
                };
                (name.unwrap_or_default().to_string(), Value::from(state))
            })
            .collect();
        Ok(Reply::Seats(SeatMap {
            version: availability.version,
            seats,
        }))
    }

    /// Counts for listings: cheap, whatever the size of the venue.
    pub(crate) fn summary(&mut self, now_ms: u64, d: &mut Decision) -> Result<Reply, Refusal> {
        self.showing()?;
        self.sweep(now_ms, d);
        self.summaries_answered += 1;
        let showing = self.showing()?;
        let counts = showing.ledger.counts();
        Ok(Reply::Summary(Summary {
            version: showing.ledger.version(),
            available: counts.available,
            held: counts.held,
            sold: counts.sold + counts.pending,
        }))
    }

    /// What staff need to see what is tied up, as stored: this does not
    /// sweep, so it shows whether the alarm alone released expired holds.
    pub(crate) fn stats(&self) -> Result<Reply, Refusal> {
        let showing = self.showing()?;
        Ok(Reply::Stats(json!({
            "showing_id": showing.meta.showing_id,
            "version": showing.ledger.version(),
            "seats": showing.ledger.counts(),
            "live_holds": showing.ledger.hold_count(),
            "next_expiry_ms": showing.ledger.next_expiry(),
            "price": showing.meta.price,
            "payment_cap_ms": showing.meta.config.payment_cap_ms,
            "last_alarm_ms": self.last_alarm_ms,
            "seat_maps_built": self.seat_maps_built,
            "summaries_answered": self.summaries_answered,
            "checkouts_in_outbox": self.checkouts.outbox_len(),
        })))
    }

    /// A completed refund: the order's seats go from sold back to
    /// available. Voiding seats already voided changes nothing; a seat a
    /// move took the refunded ticket from stands for where it went.
    pub(crate) fn void(
        &mut self,
        now_ms: u64,
        void: &VoidSeats,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        let order = ledger::OrderId::new(void.order_id.as_str())
            .map_err(|_| Refusal::not_found("order"))?;
        let ledger = &self.showing()?.ledger;
        let held: Vec<String> = ledger
            .order_record(&order)
            .map(|r| {
                r.seats
                    .iter()
                    .filter_map(|&u| ledger.unit_name(u).map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let seats: Vec<String> = void
            .seats
            .iter()
            .map(|seat| self.moves.seat_now(&void.order_id, seat, &held))
            .collect();
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        let outcome = showing.ledger.void(now_ms, &order, &seats);
        showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
        match outcome.result {
            Ok(_) => Ok(Reply::Done),
            Err(e) => Err(Refusal::new(Code::CannotVoid, format!("{e:?}"))),
        }
    }

    /// A browser asks to watch; `watchers` is how many sockets are open
    /// (the shell counts them).
    pub(crate) fn watch(
        &mut self,
        now_ms: u64,
        watchers: usize,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        if watchers >= MAX_WATCHERS {
            return Err(Refusal::new(
                Code::TooManyWatchers,
                "too many live maps; the page falls back to polling",
            ));
        }
        self.live.set_watchers(watchers);
        // A push that is due goes to the sockets already open first (the
        // new one is not among them yet), so the map the newcomer starts
        // from is the one just pushed: it misses no change.
        self.announce(now_ms, d);
        let Some(showing) = &self.showing else {
            return Err(Refusal::not_found("showing"));
        };
        let ledger = &showing.ledger;
        let map = self
            .live
            .join(ledger.version(), || ledger.availability().codes());
        Ok(Reply::Watch { map })
    }
}
