//! The box office: staff sell or give seats at the desk. The seats are held
//! and their order started at once, through the same ledger, checkout and
//! D1 backstop as an online sale, with nothing charged through Square:
//! cash and the cinema's own card terminal are recorded, and a comp is
//! free, with its reason.

use crate::driver::OrderStart;
use crate::holds::{hold_id_of, hold_refusal, TOKEN_LEN};
use crate::owners::AppliedCode;
use crate::protocol::{BoxOfficeSale, PaidAtDesk, Reply, SeatPrice};
use crate::refusal::{Code, Refusal};
use crate::{Decision, Desk};

/// Whom a box-office hold belongs to: never a buyer's session (those are
/// 32 hex characters), so no buyer can read or pay it.
pub const BOX_OFFICE: &str = "box-office";
/// Longest reason for a comp.
pub const MAX_COMP_REASON_CHARS: usize = 200;
/// The price category of a comp.
pub const COMP: &str = "comp";

impl Desk {
    /// The seats best available would pick at the counter: wheelchair
    /// spaces only if asked, counter-only seats like any other, and the
    /// single-seat rule kept, which staff may then set aside on the map.
    pub(crate) fn best_at_counter(
        &self,
        now_ms: u64,
        best: crate::protocol::BestHold,
    ) -> Result<Reply, Refusal> {
        crate::bounds::check_best_request(best.count, &Default::default(), best.zone.as_deref())?;
        let showing = self.showing()?;
        let zone = best
            .zone
            .as_deref()
            .map(|name| showing.zone(name))
            .transpose()?;
        let counter = ledger::Best {
            count: best.count,
            together: best.together,
            accessible: best.accessible,
            counter: true,
            zone,
        };
        let units = showing
            .ledger
            .best_seats(now_ms, &counter)
            .map_err(|e| hold_refusal(showing, e))?;
        Ok(Reply::Best {
            seats: showing.names_of(&units),
        })
    }

    /// Sells or gives the seats; refused, a use of a limited code the
    /// Worker reserved for the sale is released.
    pub(crate) fn box_office(
        &mut self,
        now_ms: u64,
        sale: BoxOfficeSale,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        let (terms, token) = (sale.code.clone(), sale.token.clone());
        let result = self.sell_at_desk(now_ms, sale, d);
        if let Some(terms) = terms {
            self.release_if_refused(&result, &terms, &token, d);
        }
        result
    }

    fn sell_at_desk(
        &mut self,
        now_ms: u64,
        sale: BoxOfficeSale,
        d: &mut Decision,
    ) -> Result<Reply, Refusal> {
        self.showing()?;
        crate::bounds::check_seat_request(&sale.seats, &sale.prices)?;
        self.refuse_if_cancelled()?;
        let reason = sale.payment.reason.as_deref().map(str::trim).unwrap_or("");
        let reason_ok = reason.chars().count() <= MAX_COMP_REASON_CHARS
            && !reason.chars().any(char::is_control);
        match sale.payment.paid {
            PaidAtDesk::Comp if reason.is_empty() || !reason_ok => {
                return Err(Refusal::new(
                    Code::InvalidSale,
                    format!("a comp needs its reason, 1 to {MAX_COMP_REASON_CHARS} characters"),
                ))
            }
            PaidAtDesk::Cash | PaidAtDesk::CardAtDesk if !reason.is_empty() => {
                return Err(Refusal::new(Code::InvalidSale, "only a comp has a reason"))
            }
            _ => {}
        }
        // A channel's tickets come from its allocation, and only they do;
        // the order says which channel.
        let allocation = match (&sale.allocation, sale.payment.paid) {
            (Some(id), PaidAtDesk::Channel) => Some(self.allocation_id(id)?),
            (None, PaidAtDesk::Channel) | (Some(_), _) => {
                return Err(Refusal::new(
                    Code::InvalidSale,
                    "tickets for a channel are issued from its allocation (paid: channel, allocation: its id)",
                ))
            }
            (None, _) => None,
        };
        let channel = allocation
            .as_ref()
            .and_then(|id| self.owners.get(id.as_str()))
            .map(|owner| owner.client.clone());
        if sale.token.len() != TOKEN_LEN || !sale.token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Refusal::internal("the hold token is not 32 hex characters"));
        }
        let showing = self
            .showing
            .as_mut()
            .ok_or_else(|| Refusal::not_found("showing"))?;
        let (prices, applied) = sale_prices(showing, &sale, &self.settings.tax)?;
        let hold_id = hold_id_of(&sale.token);
        match &allocation {
            None => {
                let outcome = showing.ledger.hold(now_ms, &hold_id, &sale.seats);
                showing.persist(&outcome.changes, None, now_ms, &mut self.owners, d);
                outcome.result.map_err(|e| hold_refusal(showing, e))?;
            }
            Some(from) => {
                let outcome = showing
                    .ledger
                    .split_hold(now_ms, from, &hold_id, &sale.seats);
                let end = Some((from, crate::storage::HoldEnd::Committed));
                showing.persist(&outcome.changes, end, now_ms, &mut self.owners, d);
                outcome.result.map_err(|e| match e {
                    ledger::TakeError::Seats(e) => hold_refusal(showing, e),
                    ledger::TakeError::HoldNotFound => Refusal::not_found("allocation"),
                    ledger::TakeError::NotInHold { seats } => Refusal::new(
                        Code::NotInAllocation,
                        "these seats are not in the allocation (sold from it already, or never in it)",
                    )
                    .with("seats", seats),
                })?;
            }
        }
        self.record_owner(&hold_id, (BOX_OFFICE, ""), &sale.seats, &prices, d);
        let prices = match applied {
            Some(applied) => {
                let paid = applied.prices.clone();
                let showing_id = self.showing()?.meta.showing_id.clone();
                self.put_code(&showing_id, hold_id.as_str(), applied, d);
                paid
            }
            None => prices,
        };
        let start = OrderStart {
            source_id: String::new(),
            verification_token: String::new(),
            email: sale.email,
            name: sale.name,
            order_nonce: sale.order_nonce,
            prices,
            desk: Some(crate::protocol::DeskPayment {
                paid: sale.payment.paid,
                reason: channel.or_else(|| (!reason.is_empty()).then(|| reason.to_string())),
            }),
            credit: None,
            item_name: String::new(),
        };
        self.begin_order(now_ms, &hold_id, start, d)
    }
}

/// What the sale's seats cost: nothing for a comp, else each at its
/// category's price; and with a discount code, its prices with the code
/// taken off (a comp or a channel's ticket has nothing to take it off).
fn sale_prices(
    showing: &crate::showing::Showing,
    sale: &BoxOfficeSale,
    tax: &checkout::Tax,
) -> Result<(Vec<SeatPrice>, Option<AppliedCode>), Refusal> {
    let prices = match sale.payment.paid {
        PaidAtDesk::Comp => sale
            .seats
            .iter()
            .map(|seat| SeatPrice {
                seat: seat.clone(),
                category: COMP.into(),
                name: "Comp".into(),
                amount_minor: 0,
                tax_minor: 0,
                tax_rate_bps: 0,
                discount_minor: 0,
            })
            .collect(),
        _ => showing.price_seats(&sale.seats, &sale.prices, tax)?,
    };
    let applied = match (&sale.code, sale.payment.paid) {
        (None, _) => None,
        (Some(_), PaidAtDesk::Comp | PaidAtDesk::Channel) => {
            return Err(Refusal::new(
                Code::InvalidSale,
                "a comp or a channel's ticket takes no discount code",
            ))
        }
        (Some(terms), _) => Some(crate::codes::discounted(
            terms,
            &sale.email,
            prices.clone(),
            tax,
        )?),
    };
    Ok((prices, applied))
}
