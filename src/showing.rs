//! What a showing is, and how its layout becomes seat names. Pure: the
//! routes call [`NewShowing::parse`] and store what it returns.

use serde::{Deserialize, Serialize};

use desk::window::{Defaults, Overrides, Windows};
use ledger::{MAX_SEATS_PER_HOLD_LIMIT, MAX_UNITS, MAX_UNIT_NAME_BYTES};
use mail::venue::{LocalTimeError, Venue};

pub const MAX_TITLE_CHARS: usize = 200;
pub const DEFAULT_MAX_SEATS_PER_HOLD: u32 = 4;
pub const DEFAULT_HOLD_TTL_MS: u64 = 5 * 60 * 1000;
/// Short holds are allowed so tests and demos can watch expiry happen.
pub const MIN_HOLD_TTL_MS: u64 = 1_000;
pub const MAX_HOLD_TTL_MS: u64 = 30 * 60 * 1000;
/// Once paying starts, a hold lasts until this long after it was made (the
/// one extension), so a slow card payment does not lose its seats.
pub const DEFAULT_PAYMENT_CAP_MS: u64 = 10 * 60 * 1000;
pub const MAX_PAYMENT_CAP_MS: u64 = 60 * 60 * 1000;

/// The admission rate a waiting room takes unless staff set one: what the
/// showing's object can take (by Little's law, `queue::rate`) with buyers
/// who stay as long as the showing lets them pay.
pub fn suggested_rate(payment_cap_ms: u64) -> queue::rate::Suggested {
    let minutes = payment_cap_ms
        .clamp(60_000, MAX_PAYMENT_CAP_MS)
        .div_ceil(60_000) as u32;
    queue::rate::suggest(queue::rate::RateInputs::measured(minutes))
}
/// Largest price in minor units (one million in major units).
pub const MAX_PRICE_MINOR: u64 = 100_000_000;

pub use desk::protocol::{Money, PriceCategory, Units};

/// Most price categories a showing has.
pub const MAX_PRICE_CATEGORIES: usize = 8;

/// A seat layout: rows of numbered seats for a cinema, or named slots for
/// anything else sold by the unit (class places, campsites).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Layout {
    Rows {
        rows: Vec<Row>,
        /// Wheelchair spaces and their companion seats are sold only at the
        /// box office (where staff can check the space suits the guest).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        wheelchair_at_desk_only: bool,
        /// The seat at the room's best spot, for best available; unset,
        /// the centre of the row two thirds of the way back.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        best_seat: Option<String>,
        /// A buyer may leave one seat alone between taken ones (off by
        /// default: such a seat rarely sells).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        allow_single_seats: bool,
        /// General admission zones beside the rows (a standing area).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        zones: Vec<Zone>,
    },
    Slots {
        slots: Vec<String>,
    },
    /// General admission only: places sold by count, none with a seat.
    Zones {
        zones: Vec<Zone>,
    },
}

/// A general admission zone: a standing floor, a lawn, a class of 20.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Zone {
    pub name: String,
    pub capacity: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub name: String,
    pub seats: u32,
    /// Seat numbers in this row that are not for sale (house seats).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<u32>,
    /// Seat numbers followed by an aisle: drawn as a gap, sold as nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gaps_after: Vec<u32>,
    /// Seat numbers that are wheelchair spaces, and those that are their
    /// companions' seats: shown as such, sold like any seat.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wheelchair: Vec<u32>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub companion: Vec<u32>,
}

/// The body of `POST /api/admin/showings`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewShowingRequest {
    /// May be left out for a showing of a film (`film_id`): the film's.
    pub title: Option<String>,
    pub starts_at: String,
    /// The film shown, and the screen whose saved layout it takes (then
    /// `layout` may be left out).
    pub film_id: Option<String>,
    pub screen_id: Option<String>,
    /// One price for every seat; or `prices` with `currency`.
    pub price: Option<Money>,
    /// Price categories, the first the default: `[{"id": "adult", "name":
    /// "Adult", "amount": 1200}, …]`.
    pub prices: Option<Vec<PriceCategory>>,
    pub currency: Option<String>,
    pub layout: Option<Layout>,
    pub max_seats_per_hold: Option<u32>,
    pub hold_ttl_ms: Option<u64>,
    pub payment_cap_ms: Option<u64>,
    /// When sales open (default: as soon as the showing is saved), close
    /// (default: the cinema's minutes after the start) and when the door
    /// stops admitting; local times like `starts_at`, or null.
    pub sales_open_at: Option<String>,
    pub sales_close_at: Option<String>,
    pub door_close_at: Option<String>,
    /// Staff expect a rush: `{"admit_per_minute": n}`, `n` optional (the
    /// rate the object's measured capacity allows, by Little's law).
    pub waiting_room: Option<WaitingRoomRequest>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitingRoomRequest {
    pub admit_per_minute: Option<u32>,
}

/// A validated showing, ready to store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewShowing {
    pub title: String,
    pub starts_at_ms: i64,
    /// The default (first) category's price.
    pub price: Money,
    pub categories: Vec<PriceCategory>,
    pub layout: Layout,
    pub max_seats_per_hold: u32,
    pub hold_ttl_ms: u64,
    pub payment_cap_ms: u64,
    /// Staff's own sales and door times; `None` takes the default.
    pub windows: Overrides,
    pub film_id: Option<String>,
    pub screen_id: Option<String>,
    /// Its waiting room's admission rate; `None`: no waiting room.
    pub admit_per_minute: Option<u32>,
}

/// Why a showing was refused; the text is shown to staff as it is.
#[derive(Debug, PartialEq)]
pub struct InvalidShowing {
    pub detail: String,
    /// For a start time the clocks pass twice: the same time with each
    /// offset, for staff to choose one.
    pub choices: Vec<String>,
}

fn invalid<T>(detail: impl Into<String>) -> Result<T, InvalidShowing> {
    Err(InvalidShowing {
        detail: detail.into(),
        choices: Vec::new(),
    })
}

impl NewShowing {
    /// `starts_at` is the cinema's local time (`2026-03-14T19:30`), or a
    /// time with its offset (`2026-03-14T19:30:00Z`).
    pub fn parse(req: NewShowingRequest, venue: &Venue) -> Result<NewShowing, InvalidShowing> {
        let title = req.title.unwrap_or_default().trim().to_string();
        if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS {
            return invalid(format!("title must be 1 to {MAX_TITLE_CHARS} characters"));
        }
        let starts_at_ms = parse_time(venue, "starts_at", &req.starts_at)?;
        let optional = |field: &str, text: &Option<String>| match text.as_deref().map(str::trim) {
            None | Some("") => Ok(None),
            Some(text) => parse_time(venue, field, text).map(Some),
        };
        let windows = Overrides {
            sales_open_at_ms: optional("sales_open_at", &req.sales_open_at)?,
            sales_close_at_ms: optional("sales_close_at", &req.sales_close_at)?,
            door_close_at_ms: optional("door_close_at", &req.door_close_at)?,
        };
        let (price, categories) = prices(req.price, req.prices, req.currency)?;
        let max_seats_per_hold = req.max_seats_per_hold.unwrap_or(DEFAULT_MAX_SEATS_PER_HOLD);
        if !(1..=MAX_SEATS_PER_HOLD_LIMIT).contains(&max_seats_per_hold) {
            return invalid(format!(
                "max_seats_per_hold must be 1 to {MAX_SEATS_PER_HOLD_LIMIT}"
            ));
        }
        let hold_ttl_ms = req.hold_ttl_ms.unwrap_or(DEFAULT_HOLD_TTL_MS);
        if !(MIN_HOLD_TTL_MS..=MAX_HOLD_TTL_MS).contains(&hold_ttl_ms) {
            return invalid(format!(
                "hold_ttl_ms must be {MIN_HOLD_TTL_MS} to {MAX_HOLD_TTL_MS}"
            ));
        }
        let payment_cap_ms = req
            .payment_cap_ms
            .unwrap_or(DEFAULT_PAYMENT_CAP_MS.max(hold_ttl_ms));
        if !(hold_ttl_ms..=MAX_PAYMENT_CAP_MS).contains(&payment_cap_ms) {
            return invalid(format!(
                "payment_cap_ms must be at least hold_ttl_ms and at most {MAX_PAYMENT_CAP_MS}"
            ));
        }
        let Some(layout) = req.layout else {
            return invalid("layout: the seats, or a screen (screen_id)");
        };
        let (layout, _) = checked_layout(layout)?;
        let admit_per_minute = match req.waiting_room {
            None => None,
            Some(WaitingRoomRequest {
                admit_per_minute: Some(n),
            }) if !(1..=queue::MAX_ADMIT_PER_MINUTE).contains(&n) => {
                return invalid(format!(
                    "waiting_room: admit_per_minute is 1 to {}",
                    queue::MAX_ADMIT_PER_MINUTE
                ))
            }
            Some(WaitingRoomRequest {
                admit_per_minute: Some(n),
            }) => Some(n),
            Some(WaitingRoomRequest {
                admit_per_minute: None,
            }) => Some(suggested_rate(payment_cap_ms).admit_per_minute),
        };
        let showing = NewShowing {
            title,
            starts_at_ms,
            price,
            categories,
            layout,
            max_seats_per_hold,
            hold_ttl_ms,
            payment_cap_ms,
            windows,
            film_id: req.film_id,
            screen_id: req.screen_id,
            admit_per_minute,
        };
        Ok(showing)
    }

    /// The showing's sales and door times, for one made at
    /// `created_at_ms`, checked against each other.
    pub fn windows(
        &self,
        created_at_ms: i64,
        defaults: Defaults,
    ) -> Result<Windows, InvalidShowing> {
        Windows::of(self.starts_at_ms, created_at_ms, self.windows, defaults).map_err(|e| {
            InvalidShowing {
                detail: e.to_string(),
                choices: Vec::new(),
            }
        })
    }

    /// The seat names this showing's layout defines, checked for limits
    /// and duplicates.
    pub fn units(&self) -> Result<Units, InvalidShowing> {
        layout_units(&self.layout)
    }
}

/// A layout's version: `l` and 24 hex characters.
pub const LAYOUT_VERSION_CHARS: usize = 25;
/// Longest version a layout may have: those of showings saved before
/// versions are `legacy-` and the showing's id.
pub const MAX_LAYOUT_VERSION_CHARS: usize = 48;

/// The version of a layout stored as `layout_json`: named by its content
/// (the first 96 bits of its SHA-256), so a version's layout can never
/// change and `GET /api/layouts/{version}` may be cached for ever.
pub fn layout_version(layout_json: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(layout_json.as_bytes()));
    format!("l{}", &digest[..LAYOUT_VERSION_CHARS - 1])
}

impl Layout {
    /// The same seats where they were: what tickets and orders name. The
    /// best spot and the single-seat rule are settings, free to change.
    pub fn same_seats(&self, other: &Layout) -> bool {
        let seats_only = |layout: &Layout| match layout {
            Layout::Rows {
                rows,
                wheelchair_at_desk_only,
                zones,
                ..
            } => Layout::Rows {
                rows: rows.clone(),
                wheelchair_at_desk_only: *wheelchair_at_desk_only,
                best_seat: None,
                allow_single_seats: false,
                zones: zones.clone(),
            },
            slots => slots.clone(),
        };
        seats_only(self) == seats_only(other)
    }
}

/// A layout as staff gave it, normalised and checked, with its seats.
/// Slot names are stored as their seats are named: trimmed, so the pages
/// can match the compact seat map to the layout.
pub fn checked_layout(layout: Layout) -> Result<(Layout, Units), InvalidShowing> {
    let mut layout = match layout {
        Layout::Slots { slots } => Layout::Slots {
            slots: slots.iter().map(|s| s.trim().to_string()).collect(),
        },
        other => other,
    };
    if let Layout::Rows { zones, .. } | Layout::Zones { zones } = &mut layout {
        for zone in zones.iter_mut() {
            zone.name = zone.name.trim().to_string();
        }
    }
    let units = layout_units(&layout)?;
    Ok((layout, units))
}

fn layout_units(layout: &Layout) -> Result<Units, InvalidShowing> {
    let units = match layout {
        Layout::Rows {
            rows,
            wheelchair_at_desk_only,
            best_seat,
            allow_single_seats,
            zones,
        } => {
            let mut units = row_units(rows, *wheelchair_at_desk_only)?;
            zone_units(zones, &mut units)?;
            if let Some(seating) = units.seating.as_mut() {
                if let Some(best) = best_seat.as_deref().map(str::trim) {
                    if ledger::zone_of_place(best).is_some()
                        || !units.names.iter().any(|n| n == best)
                    {
                        return invalid(format!("the best seat {best:?} is no seat of the layout"));
                    }
                    seating.best_seat = Some(best.to_string());
                }
                seating.allow_single_seats = *allow_single_seats;
            }
            units
        }
        Layout::Slots { slots } => {
            refuse_place_mark(slots.iter())?;
            Units {
                names: slots.iter().map(|s| s.trim().to_string()).collect(),
                ..Units::default()
            }
        }
        Layout::Zones { zones } => {
            if zones.is_empty() {
                return invalid("the layout has no zones");
            }
            let mut units = Units {
                seating: Some(ledger::Seating::default()),
                ..Units::default()
            };
            zone_units(zones, &mut units)?;
            units
        }
    };
    if units.names.is_empty() {
        return invalid("the layout has no seats");
    }
    if units.names.len() > MAX_UNITS {
        return invalid(format!("a showing may have at most {MAX_UNITS} seats"));
    }
    let mut seen = std::collections::HashSet::new();
    for name in &units.names {
        if !ledger::is_valid_unit_name(name) {
            return invalid(format!(
                "seat name {name:?} must be 1 to {MAX_UNIT_NAME_BYTES} bytes of printable text"
            ));
        }
        if !seen.insert(name.as_str()) {
            return invalid(format!("seat name {name:?} appears twice"));
        }
    }
    Ok(units)
}

/// A local time (or one with its offset) staff typed for `field`. A time
/// the clocks pass twice is refused with both readings to choose from.
fn parse_time(venue: &Venue, field: &str, text: &str) -> Result<i64, InvalidShowing> {
    venue.parse_local(text).map_err(|e| {
        let choices = match &e {
            LocalTimeError::Ambiguous { earlier, later } => vec![earlier.clone(), later.clone()],
            _ => Vec::new(),
        };
        InvalidShowing {
            detail: format!("{field}: {e}"),
            choices,
        }
    })
}

/// A showing's prices: one `price` for every seat (the category
/// "standard"), or `prices` in `currency`. Any may be 0: a free seat.
fn prices(
    price: Option<Money>,
    categories: Option<Vec<PriceCategory>>,
    currency: Option<String>,
) -> Result<(Money, Vec<PriceCategory>), InvalidShowing> {
    let (currency, categories) = match (price, categories) {
        (Some(_), Some(_)) => return invalid("give either price or prices, not both"),
        (None, None) => return invalid("give the price of a seat (price), or prices"),
        (Some(price), None) => (
            price.currency,
            vec![PriceCategory {
                id: desk::STANDARD_PRICE.into(),
                name: "Standard".into(),
                amount: price.amount,
            }],
        ),
        (None, Some(categories)) => match currency {
            Some(currency) => (currency, categories),
            None => return invalid("prices need their currency (currency: \"USD\")"),
        },
    };
    let currency_ok = currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase());
    if !currency_ok {
        return invalid("the currency must be a three-letter ISO 4217 code such as USD");
    }
    if categories.is_empty() || categories.len() > MAX_PRICE_CATEGORIES {
        return invalid(format!("a showing has 1 to {MAX_PRICE_CATEGORIES} prices"));
    }
    let mut cleaned: Vec<PriceCategory> = Vec::with_capacity(categories.len());
    for category in categories {
        let id = category.id.trim().to_string();
        let id_ok = !id.is_empty()
            && id.len() <= checkout::MAX_CATEGORY_ID_BYTES
            && id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if !id_ok {
            return invalid(format!(
                "a price's id is 1 to {} lowercase letters, digits, - or _",
                checkout::MAX_CATEGORY_ID_BYTES
            ));
        }
        let name = category.name.trim().to_string();
        if name.is_empty()
            || name.len() > checkout::MAX_CATEGORY_NAME_BYTES
            || name.chars().any(char::is_control)
        {
            return invalid(format!(
                "price {id}: its name is 1 to {} bytes of text",
                checkout::MAX_CATEGORY_NAME_BYTES
            ));
        }
        if category.amount > MAX_PRICE_MINOR {
            return invalid(format!(
                "price {id}: the amount is 0 to {MAX_PRICE_MINOR} in minor units (cents)"
            ));
        }
        if cleaned.iter().any(|c| c.id == id) {
            return invalid(format!("price {id} appears twice"));
        }
        cleaned.push(PriceCategory {
            id,
            name,
            amount: category.amount,
        });
    }
    let price = Money {
        amount: cleaned[0].amount,
        currency,
    };
    Ok((price, cleaned))
}

/// Seat and row names may not have the mark that names a zone's places.
fn refuse_place_mark<'a>(
    mut names: impl Iterator<Item = &'a String>,
) -> Result<(), InvalidShowing> {
    match names.find(|n| n.contains(ledger::PLACE_MARK)) {
        Some(name) => invalid(format!(
            "{name:?}: {} is kept for general admission",
            ledger::PLACE_MARK
        )),
        None => Ok(()),
    }
}

/// Each zone's places, after the seats: as many units as its capacity,
/// named by [`ledger::place_name`] so a ticket says its zone.
fn zone_units(zones: &[Zone], units: &mut Units) -> Result<(), InvalidShowing> {
    for zone in zones {
        let name = zone.name.trim();
        let name_ok = !name.is_empty()
            && name.len() <= ledger::MAX_ZONE_NAME_BYTES
            && !name
                .chars()
                .any(|c| c.is_control() || c == ledger::PLACE_MARK);
        if !name_ok {
            return invalid(format!(
                "a zone's name is 1 to {} bytes of text, without {}",
                ledger::MAX_ZONE_NAME_BYTES,
                ledger::PLACE_MARK
            ));
        }
        if zone.capacity == 0 || zone.capacity as usize > MAX_UNITS {
            return invalid(format!(
                "zone {name}: its capacity is 1 to {MAX_UNITS} places"
            ));
        }
        let seating = units.seating.get_or_insert_with(Default::default);
        if seating.zones.iter().any(|z| z.name == name) {
            return invalid(format!("zone {name} appears twice"));
        }
        if units.names.len() + zone.capacity as usize > MAX_UNITS {
            return invalid(format!(
                "a showing may have at most {MAX_UNITS} seats and places"
            ));
        }
        seating.zones.push(ledger::SeatZone {
            name: name.to_string(),
            places: zone.capacity,
        });
        units
            .names
            .extend((1..=zone.capacity).map(|n| ledger::place_name(name, n)));
    }
    Ok(())
}

/// The seats of rows, and where they are: each row's aisles, and its
/// wheelchair spaces and companions' seats, which best available passes
/// over unless asked.
fn row_units(rows: &[Row], wheelchair_at_desk_only: bool) -> Result<Units, InvalidShowing> {
    let mut units = Units::default();
    let mut seating = ledger::Seating::default();
    refuse_place_mark(rows.iter().map(|r| &r.name))?;
    for row in rows {
        let row_name = row.name.trim();
        if row_name.is_empty() || row.seats == 0 {
            return invalid("each row needs a name and 1 or more seats");
        }
        if row.seats as usize > MAX_UNITS {
            return invalid(format!("a showing may have at most {MAX_UNITS} seats"));
        }
        if let Some(n) = row.blocked.iter().find(|&&n| n == 0 || n > row.seats) {
            return invalid(format!("row {row_name} has no seat {n} to block"));
        }
        if let Some(n) = row.gaps_after.iter().find(|&&n| n == 0 || n >= row.seats) {
            return invalid(format!(
                "row {row_name}: an aisle after seat {n} would not be between two seats"
            ));
        }
        let special = row.wheelchair.iter().chain(&row.companion);
        if let Some(n) = special.clone().find(|&&n| n == 0 || n > row.seats) {
            return invalid(format!("row {row_name} has no seat {n}"));
        }
        if let Some(n) = special.clone().find(|n| {
            row.blocked.contains(n) || (row.wheelchair.contains(n) && row.companion.contains(n))
        }) {
            return invalid(format!(
                "row {row_name}: seat {n} is one of a house seat, a wheelchair space or a companion seat"
            ));
        }
        for number in 1..=row.seats {
            let name = format!("{row_name}{number}");
            if row.blocked.contains(&number) {
                units.blocked.push(name.clone());
            }
            let accessible = row.wheelchair.contains(&number) || row.companion.contains(&number);
            if wheelchair_at_desk_only && accessible {
                units.desk_only.push(name.clone());
            }
            if accessible {
                seating.accessible.push(name.clone());
            }
            units.names.push(name);
        }
        seating.rows.push(ledger::SeatRow {
            seats: row.seats,
            aisles_after: row.gaps_after.clone(),
        });
        if units.names.len() > MAX_UNITS {
            return invalid(format!("a showing may have at most {MAX_UNITS} seats"));
        }
    }
    if units.for_sale() == 0 {
        return invalid("every seat is a house seat: leave at least one for sale");
    }
    units.seating = Some(seating);
    Ok(units)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(layout: serde_json::Value) -> NewShowingRequest {
        serde_json::from_value(serde_json::json!({
            "title": "Paris, Texas",
            "starts_at": "2026-12-05T19:30:00Z",
            "price": {"amount": 1200, "currency": "USD"},
            "layout": layout,
        }))
        .unwrap()
    }

    fn utc() -> Venue {
        Venue::new("Rio", "", "UTC").unwrap()
    }

    fn starting(at: &str) -> Result<i64, InvalidShowing> {
        let london = Venue::new("Rio", "", "Europe/London").unwrap();
        let mut req = request(serde_json::json!({"slots": ["1"]}));
        req.starts_at = at.to_string();
        NewShowing::parse(req, &london).map(|s| s.starts_at_ms)
    }

    #[test]
    fn start_times_are_the_cinemas_local_time() {
        // 2026-03-29: London's clocks go forward at 01:00 GMT.
        assert_eq!(
            starting("2026-03-28T19:30"),
            starting("2026-03-28T19:30:00Z")
        );
        assert_eq!(
            starting("2026-03-29T19:30"),
            starting("2026-03-29T18:30:00Z")
        );
        assert_eq!(
            starting("2026-03-29T19:30+01:00"),
            starting("2026-03-29T18:30:00Z")
        );
        let skipped = starting("2026-03-29T01:30").unwrap_err();
        assert!(
            skipped.detail.contains("does not exist"),
            "{}",
            skipped.detail
        );
        // 2026-10-25: 01:00 to 02:00 happens twice.
        let twice = starting("2026-10-25T01:30").unwrap_err();
        assert_eq!(
            twice.choices,
            ["2026-10-25T01:30+01:00", "2026-10-25T01:30+00:00"]
        );
        assert_eq!(
            starting(&twice.choices[1]),
            starting("2026-10-25T01:30:00Z")
        );
        assert!(starting("19:30")
            .unwrap_err()
            .detail
            .starts_with("starts_at:"));
    }

    #[test]
    fn a_room_of_house_seats_only_is_refused() {
        let all_blocked =
            serde_json::json!({"rows": [{"name": "A", "seats": 2, "blocked": [1, 2]}]});
        let error = NewShowing::parse(request(all_blocked), &utc()).unwrap_err();
        assert!(error.detail.contains("house seat"), "{}", error.detail);
    }

    #[test]
    fn rows_become_row_plus_number() {
        let s = NewShowing::parse(
            request(serde_json::json!({
                "rows": [{"name": "A", "seats": 2}, {"name": "B", "seats": 3, "blocked": [2]}]
            })),
            &utc(),
        )
        .unwrap();
        let units = s.units().unwrap();
        assert_eq!(units.names, ["A1", "A2", "B1", "B2", "B3"]);
        assert_eq!(units.blocked, ["B2"]);
        assert_eq!(units.for_sale(), 4, "house seats are not counted");
        assert_eq!(s.max_seats_per_hold, 4);
        assert_eq!(s.hold_ttl_ms, 300_000);
        assert_eq!(s.payment_cap_ms, 600_000);
        assert_eq!(s.starts_at_ms, 1_796_499_000_000);
    }

    #[test]
    fn zones_are_places_after_the_seats_named_for_their_zone() {
        let s = NewShowing::parse(
            request(serde_json::json!({
                "rows": [{"name": "A", "seats": 2}],
                "zones": [{"name": " Floor ", "capacity": 3}]
            })),
            &utc(),
        )
        .unwrap();
        let units = s.units().unwrap();
        assert_eq!(units.names, ["A1", "A2", "Floor§1", "Floor§2", "Floor§3"]);
        let zones = &units.seating.as_ref().unwrap().zones;
        assert_eq!((zones[0].name.as_str(), zones[0].places), ("Floor", 3));
        assert_eq!(units.for_sale(), 5);
        let only = NewShowing::parse(
            request(serde_json::json!({"zones": [{"name": "Class", "capacity": 20}]})),
            &utc(),
        )
        .unwrap();
        assert_eq!(only.units().unwrap().names.len(), 20);
        for (layout, expected) in [
            (serde_json::json!({"zones": []}), "no zones"),
            (
                serde_json::json!({"zones": [{"name": "Floor", "capacity": 0}]}),
                "capacity is 1",
            ),
            (
                serde_json::json!({"zones": [{"name": "Floor", "capacity": 1}, {"name": "Floor", "capacity": 2}]}),
                "appears twice",
            ),
            (
                serde_json::json!({"zones": [{"name": "A§", "capacity": 1}]}),
                "without §",
            ),
            (
                serde_json::json!({"zones": [{"name": "A very long zone name indeed", "capacity": 1}]}),
                "1 to 20 bytes",
            ),
            (
                serde_json::json!({"slots": ["Pitch§1"]}),
                "kept for general admission",
            ),
            (
                serde_json::json!({"rows": [{"name": "A", "seats": 1}], "best_seat": "Floor§1",
                    "zones": [{"name": "Floor", "capacity": 1}]}),
                "no seat of the layout",
            ),
        ] {
            let err = NewShowing::parse(request(layout.clone()), &utc()).unwrap_err();
            assert!(err.detail.contains(expected), "{layout}: {}", err.detail);
        }
    }

    #[test]
    fn a_layouts_version_is_its_content() {
        let one = layout_version(r#"{"slots":["1"]}"#);
        assert_eq!(one.len(), LAYOUT_VERSION_CHARS);
        assert_eq!(one, layout_version(r#"{"slots":["1"]}"#));
        assert_ne!(one, layout_version(r#"{"slots":["2"]}"#));
    }

    #[test]
    fn slots_keep_their_names() {
        let s = NewShowing::parse(
            request(serde_json::json!({"slots": ["Site 1", "Site 2"]})),
            &utc(),
        )
        .unwrap();
        assert_eq!(s.units().unwrap().names, ["Site 1", "Site 2"]);
    }

    #[test]
    fn refusals_say_what_is_wrong() {
        let cases = [
            (serde_json::json!({"slots": []}), "no seats"),
            (serde_json::json!({"slots": ["x", "x"]}), "appears twice"),
            (
                serde_json::json!({"rows": [{"name": "A", "seats": 20001}]}),
                "at most 20000",
            ),
            (
                serde_json::json!({"rows": [{"name": "A", "seats": 2, "blocked": [3]}]}),
                "no seat 3",
            ),
            (
                serde_json::json!({"rows": [{"name": "A", "seats": 2, "gaps_after": [2]}]}),
                "aisle after seat 2",
            ),
        ];
        for (layout, expected) in cases {
            let err = NewShowing::parse(request(layout.clone()), &utc()).unwrap_err();
            assert!(err.detail.contains(expected), "{layout}: {}", err.detail);
        }
    }
}
