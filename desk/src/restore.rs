//! Loading a desk back from its rows: what a restarted or evicted object
//! does first. Every stored checkout is checked against its invariants and
//! the seats against the ledger's, so a bad row stops the object instead
//! of letting it decide on broken state.

use ledger::{Ledger, Snapshot, UnitRow};

use crate::outbox::Checkouts;
use crate::owners::Owner;
use crate::rate::{Bucket, HoldRate};
use crate::replays::{Recorded, Replays, REPLAY_TTL_MS};
use crate::showing::{Showing, ShowingMeta};
use crate::storage::{self, from_json, Stored, Write, FORMAT};
use crate::{Desk, Settings};

impl Desk {
    /// The desk as stored, and the writes that bring older tables up to
    /// [`FORMAT`] (empty when they are current).
    pub fn restore(settings: Settings, stored: Stored) -> Result<(Desk, Vec<Write>), String> {
        let mut desk = Desk::new(settings);
        let meta: ShowingMeta = from_json(stored.meta(storage::SHOWING).unwrap_or("null"))?;
        let units = stored
            .units
            .iter()
            .map(|u| {
                Ok(UnitRow {
                    state: storage::decode_unit(&u.state, u.owner.clone())?,
                    name: u.name.clone(),
                })
            })
            .collect::<Result<_, String>>()?;
        let snapshot = Snapshot {
            config: meta.config.clone(),
            version: stored.number("version"),
            latest_now_ms: stored.number("latest_now_ms"),
            units,
            holds: stored
                .holds
                .iter()
                .map(|r| from_json(&r.record))
                .collect::<Result<_, _>>()?,
            orders: stored
                .orders
                .iter()
                .map(|r| from_json(&r.record))
                .collect::<Result<_, _>>()?,
        };
        let ledger = Ledger::restore(snapshot).map_err(|e| format!("stored seats refused: {e}"))?;
        let showing =
            Showing::new(meta, ledger).map_err(|e| format!("stored rows refused: {e}"))?;
        desk.showing = Some(showing);
        desk.last_alarm_ms = stored
            .meta(storage::LAST_ALARM)
            .and_then(|v| v.parse().ok());
        desk.failpoint_fired = stored.meta(storage::FAILPOINT).is_some();
        for row in &stored.owners {
            let (seats, prices) = owner_seats(&row.seats)?;
            let owner = Owner {
                buyer: row.buyer.clone(),
                client: row.client.clone().unwrap_or_default(),
                seats,
                prices,
                ended: row.ended.as_deref().map(|how| {
                    (
                        storage::HoldEnd::parse(how),
                        row.ended_at_ms.unwrap_or(0.0) as u64,
                    )
                }),
                code: None,
            };
            desk.owners.insert(row.hold_id.clone(), owner);
        }
        for row in &stored.hold_codes {
            let code = from_json(&row.record)?;
            if let Some(mut owner) = desk.owners.remove(&row.hold_id) {
                owner.code = Some(code);
                desk.owners.insert(row.hold_id.clone(), owner);
            }
        }
        for row in &stored.code_messages {
            let message: crate::owners::CodeMessage = from_json(&row.record)?;
            let hold_id = crate::codes::hold_of(&message.request).to_string();
            desk.owners.keep_code_message(&hold_id, message);
        }
        desk.replays = Replays::default();
        for row in &stored.replays {
            let recorded = Recorded {
                fingerprint: row.fingerprint.clone(),
                status: row.status as u16,
                body: row.body.clone(),
                buyer: row.buyer.clone(),
                created_at_ms: row.created_at_ms as u64,
                used_at_ms: row.used_at_ms as u64,
            };
            desk.replays.insert(row.key.clone(), recorded);
        }
        desk.checkouts = Checkouts::default();
        for row in &stored.checkouts {
            let machine: checkout::Checkout = from_json(&row.record)?;
            machine
                .check_invariants()
                .map_err(|e| format!("stored checkout: {e}"))?;
            desk.checkouts.insert(machine);
        }
        for row in &stored.outbox {
            desk.checkouts
                .outbox
                .insert(row.order_id.clone(), from_json(&row.action)?);
        }
        for row in &stored.moves {
            desk.moves.insert(from_json(&row.record)?);
        }
        for row in &stored.waitlist {
            desk.waitlist.insert(from_json(&row.record)?);
        }
        desk.rate = HoldRate::default();
        for row in &stored.buckets {
            let bucket = Bucket {
                tokens_milli: row.tokens_milli as u64,
                at_ms: row.at_ms as u64,
            };
            desk.rate.restore(row.client.clone(), bucket);
        }
        let mut upgrade = if stored.format < FORMAT {
            vec![Write::Upgrade {
                from: stored.format,
            }]
        } else {
            Vec::new()
        };
        // The answers left unread go from storage once a load, and a table
        // kept by older code is brought within today's caps.
        upgrade.push(Write::ForgetStaleReplays {
            before_ms: stored.read_at_ms.saturating_sub(REPLAY_TTL_MS),
        });
        let mut d = crate::Decision::default();
        desk.replays.keep_within_caps(&mut d);
        upgrade.extend(d.writes);
        Ok((desk, upgrade))
    }

    /// The showing's id, once it is set up.
    pub fn showing_id(&self) -> Option<&str> {
        self.showing.as_ref().map(|s| s.meta.showing_id.as_str())
    }

    /// The showing's seats, for checks and staff views; read only.
    pub fn ledger(&self) -> Option<&ledger::Ledger> {
        self.showing.as_ref().map(|s| &s.ledger)
    }

    /// An order's checkout; read only.
    pub fn checkout(&self, order_id: &str) -> Option<&checkout::Checkout> {
        self.checkouts.machines.get(order_id)
    }

    /// The action waiting in an order's outbox; read only.
    pub fn outbox(&self, order_id: &str) -> Option<&checkout::Action> {
        self.checkouts.outbox.get(order_id)
    }
}

/// An owner's seats column: the seat names of a hold made before seats had
/// prices, or each seat's price.
fn owner_seats(text: &str) -> Result<(Vec<String>, Vec<checkout::SeatPrice>), String> {
    if let Ok(names) = serde_json::from_str::<Vec<String>>(text) {
        return Ok((names, Vec::new()));
    }
    let prices: Vec<checkout::SeatPrice> = from_json(text)?;
    Ok((prices.iter().map(|p| p.seat.clone()).collect(), prices))
}
