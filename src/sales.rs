//! Sales by day over a range of the cinema's dates: tickets, gross, tax
//! and net by day, by channel and by price category, and the money that
//! went through Square (captured, refunded, net) each day. The daily
//! summary is one day of it, beside what Square itself lists. Pure: the
//! rows come from `db::sales`, the days from the venue's clock.
//!
//! A sale counts on the day its order was made, a refund on the day the
//! money went back. A ticket staff moved counts once.

use std::collections::BTreeMap;

use jiff::civil::Date;
use serde::Serialize;

use mail::venue::Venue;

use crate::reports::{Money, SoldTicket};

/// Longest range one report covers: a year and a day (a leap year).
pub const MAX_DAYS: i64 = 366;

/// The channels in the order staff read them.
pub const CHANNELS: [&str; 5] = ["online", "cash", "card_at_desk", "comp", "channel"];

/// Money an online order's card paid through Square (its price less any
/// exchange credit).
#[derive(Debug, Clone)]
pub struct Captured {
    pub order_id: String,
    pub at_ms: i64,
    pub amount: u64,
}

/// Money Square gave back.
#[derive(Debug, Clone)]
pub struct Refunded {
    pub at_ms: i64,
    pub amount: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tickets {
    pub tickets: u64,
    #[serde(flatten)]
    pub money: Money,
}

impl Tickets {
    fn add(&mut self, sold: &SoldTicket) {
        self.tickets += 1;
        self.money.gross += sold.amount;
        self.money.tax += sold.tax;
        self.money.net = self.money.gross - self.money.tax;
    }
}

/// What went through Square: captured, refunded, and the difference
/// (below nothing on a day of more refunds than sales).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Square {
    pub captured: u64,
    pub refunded: u64,
    pub net: i64,
}

impl Square {
    fn settle(&mut self) {
        self.net = self.captured as i64 - self.refunded as i64;
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Day {
    pub date: String,
    #[serde(flatten)]
    pub sold: Tickets,
    pub square: Square,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Named {
    pub name: String,
    #[serde(flatten)]
    pub sold: Tickets,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SalesReport {
    /// The Square location's: every amount is in it.
    pub currency: String,
    pub from: String,
    pub to: String,
    pub days: Vec<Day>,
    pub by_channel: Vec<Named>,
    pub by_category: Vec<Named>,
    pub total: Tickets,
    pub square: Square,
}

/// The dates `from` to `to` (both `YYYY-MM-DD`, `to` included) and the
/// instants that bound them on the venue's clock.
pub fn range_of(from: &str, to: &str, venue: &Venue) -> Result<(Vec<Date>, i64, i64), String> {
    let parse = |text: &str, field: &str| -> Result<Date, String> {
        text.trim()
            .parse()
            .map_err(|_| format!("{field}: a date like 2027-03-26"))
    };
    let (first, last) = (parse(from, "from")?, parse(to, "to")?);
    let days = (last - first).get_days() as i64 + 1;
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(format!(
            "to: from 1 to {MAX_DAYS} days after from, not {days}"
        ));
    }
    let dates: Vec<Date> = first
        .series(jiff::Span::new().days(1))
        .take(days as usize)
        .collect();
    let after = last.tomorrow().map_err(|e| e.to_string())?;
    let midnight = |d: Date| {
        venue
            .parse_local(&format!("{d}T00:00"))
            .map_err(|e| format!("{d}: {e}"))
    };
    Ok((dates, midnight(first)?, midnight(after)?))
}

/// Adds up the range's rows, day by day.
pub fn sales_report(
    currency: &str,
    dates: &[Date],
    venue: &Venue,
    sold: &[SoldTicket],
    captured: &[Captured],
    refunded: &[Refunded],
) -> SalesReport {
    let mut days: BTreeMap<String, Day> = dates
        .iter()
        .map(|d| {
            let date = d.to_string();
            let day = Day {
                date: date.clone(),
                sold: Tickets::default(),
                square: Square::default(),
            };
            (date, day)
        })
        .collect();
    let mut channels: BTreeMap<usize, Named> = BTreeMap::new();
    let mut categories: BTreeMap<String, Named> = BTreeMap::new();
    let mut total = Tickets::default();
    for s in sold {
        if let Some(day) = days.get_mut(&venue.local_date(s.made_at_ms)) {
            day.sold.add(s);
        }
        let place = CHANNELS
            .iter()
            .position(|c| *c == s.channel)
            .unwrap_or(CHANNELS.len());
        channels
            .entry(place)
            .or_insert_with(|| Named {
                name: s.channel.clone(),
                sold: Tickets::default(),
            })
            .sold
            .add(s);
        categories
            .entry(s.category.clone())
            .or_insert_with(|| Named {
                name: s.category.clone(),
                sold: Tickets::default(),
            })
            .sold
            .add(s);
        total.add(s);
    }
    let mut square = Square::default();
    for c in captured {
        if let Some(day) = days.get_mut(&venue.local_date(c.at_ms)) {
            day.square.captured += c.amount;
        }
        square.captured += c.amount;
    }
    for r in refunded {
        if let Some(day) = days.get_mut(&venue.local_date(r.at_ms)) {
            day.square.refunded += r.amount;
        }
        square.refunded += r.amount;
    }
    square.settle();
    let days: Vec<Day> = days
        .into_values()
        .map(|mut d| {
            d.square.settle();
            d
        })
        .collect();
    SalesReport {
        currency: currency.to_string(),
        from: dates.first().map(Date::to_string).unwrap_or_default(),
        to: dates.last().map(Date::to_string).unwrap_or_default(),
        days,
        by_channel: channels.into_values().collect(),
        by_category: categories.into_values().collect(),
        total,
        square,
    }
}

/// The report as CSV rows: one per day, then one per channel and per
/// category, then the total; amounts as decimals of the currency.
pub fn csv_rows(report: &SalesReport) -> Vec<[String; 9]> {
    let money = |amount: i64| crate::reports::signed_decimal(amount, &report.currency);
    let row = |kind: &str, name: &str, t: &Tickets, s: Option<&Square>| {
        [
            kind.to_string(),
            name.to_string(),
            t.tickets.to_string(),
            money(t.money.gross as i64),
            money(t.money.tax as i64),
            money(t.money.net as i64),
            s.map(|s| money(s.captured as i64)).unwrap_or_default(),
            s.map(|s| money(s.refunded as i64)).unwrap_or_default(),
            s.map(|s| money(s.net)).unwrap_or_default(),
        ]
    };
    let mut rows = vec![[
        "row",
        "name",
        "tickets",
        "gross",
        "tax",
        "net",
        "captured",
        "refunded",
        "square_net",
    ]
    .map(String::from)];
    rows.extend(
        report
            .days
            .iter()
            .map(|d| row("day", &d.date, &d.sold, Some(&d.square))),
    );
    rows.extend(
        report
            .by_channel
            .iter()
            .map(|c| row("channel", &c.name, &c.sold, None)),
    );
    rows.extend(
        report
            .by_category
            .iter()
            .map(|c| row("category", &c.name, &c.sold, None)),
    );
    rows.push(row("total", "", &report.total, Some(&report.square)));
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn venue() -> Venue {
        Venue::new("Plaza", "", "Europe/London").unwrap()
    }

    fn sold(at_ms: i64, channel: &str, category: &str, amount: u64, tax: u64) -> SoldTicket {
        SoldTicket {
            showing_id: "s1".into(),
            made_at_ms: at_ms,
            channel: channel.into(),
            category: category.into(),
            amount,
            tax,
        }
    }

    #[test]
    fn each_sale_counts_on_the_cinemas_day_and_in_its_channel_and_category() {
        let venue = venue();
        let (dates, from_ms, to_ms) = range_of("2026-06-01", "2026-06-02", &venue).unwrap();
        assert_eq!(dates.len(), 2);
        // British Summer Time: the day begins at 23:00 UTC the day before.
        assert_eq!(from_ms, venue.parse_local("2026-05-31T23:00:00Z").unwrap());
        assert_eq!(to_ms - from_ms, 2 * 24 * 3_600_000);
        let late = venue.parse_local("2026-06-01T23:30").unwrap();
        let next = venue.parse_local("2026-06-02T00:30").unwrap();
        let report = sales_report(
            "GBP",
            &dates,
            &venue,
            &[
                sold(late, "online", "Adult", 1200, 200),
                sold(next, "cash", "Child", 800, 0),
                sold(next, "comp", "Adult", 0, 0),
            ],
            &[Captured {
                order_id: "o1".into(),
                at_ms: late,
                amount: 1200,
            }],
            &[Refunded {
                at_ms: next,
                amount: 1200,
            }],
        );
        assert_eq!(report.days[0].sold.tickets, 1);
        assert_eq!(report.days[1].sold.money.gross, 800);
        assert_eq!(report.days[0].square.net, 1200);
        assert_eq!(report.days[1].square.net, -1200);
        let channels: Vec<&str> = report.by_channel.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(channels, ["online", "cash", "comp"]);
        assert_eq!(report.by_category[0].name, "Adult");
        assert_eq!(report.by_category[0].sold.tickets, 2);
        assert_eq!(report.total.money.net, 1800);
        assert_eq!(report.square.net, 0);
        assert_eq!(csv_rows(&report).len(), 1 + 2 + 3 + 2 + 1);
    }

    #[test]
    fn a_range_is_one_day_to_a_year() {
        let venue = venue();
        assert!(range_of("2026-06-02", "2026-06-01", &venue).is_err());
        assert!(range_of("2026-01-01", "2027-01-02", &venue).is_err());
        assert!(
            range_of("2024-01-01", "2024-12-31", &venue).is_ok(),
            "a leap year"
        );
        assert!(range_of("June", "2026-06-01", &venue).is_err());
    }
}
