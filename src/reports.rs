//! The distributor return: per film, the showings of one cinema week with
//! their admissions by price category and their gross, tax and net box
//! office, comps counted apart, and the refunds made in that week. Pure:
//! the rows come from `db::reports`, the week's bounds from the venue's
//! clock.
//!
//! Sales are counted with the showing they are for, refunds in the week
//! the money went back, whichever showing they were for (a refund made
//! after the week it played in lowers the week it was made in). A ticket
//! staff moved to another seat counts once; an exchanged ticket is a
//! refund of the old showing and a sale of the new one.

use std::collections::BTreeMap;

use jiff::civil::{Date, Weekday};
use serde::Serialize;

use mail::venue::Venue;

/// A showing that starts in the week.
#[derive(Debug, Clone)]
pub struct ShowingRow {
    pub id: String,
    pub title: String,
    pub film_id: Option<String>,
    pub starts_at_ms: i64,
    pub currency: String,
    /// Its seats (or places) for sale and not.
    pub capacity: u64,
}

/// A ticket sold for one of the week's showings.
#[derive(Debug, Clone)]
pub struct SoldTicket {
    pub showing_id: String,
    /// Its price category's name ("Standard" before there were prices).
    pub category: String,
    pub amount: u64,
    pub tax: u64,
    /// How it was sold: `online`, `cash`, `card_at_desk`, `comp`, `channel`.
    pub channel: String,
    /// When its order was made.
    pub made_at_ms: i64,
}

impl SoldTicket {
    /// Given free at the box office.
    pub fn comp(&self) -> bool {
        self.channel == "comp"
    }
}

/// A refund made in the week: what went back, and the tickets it covered
/// (their prices and taxes), for one showing.
#[derive(Debug, Clone)]
pub struct RefundRow {
    pub title: String,
    pub film_id: Option<String>,
    pub amount: u64,
    pub tickets: Vec<(u64, u64)>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Money {
    pub gross: u64,
    pub tax: u64,
    pub net: u64,
}

impl Money {
    fn add(&mut self, gross: u64, tax: u64) {
        self.gross += gross;
        self.tax += tax;
        self.net = self.gross - self.tax;
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Category {
    pub name: String,
    pub admissions: u64,
    #[serde(flatten)]
    pub money: Money,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShowingLine {
    pub id: String,
    pub starts_at: String,
    /// Its seats: admissions and comps over it are its occupancy.
    pub capacity: u64,
    pub admissions: u64,
    pub comps: u64,
    pub categories: Vec<Category>,
    #[serde(flatten)]
    pub money: Money,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Refunds {
    pub tickets: u64,
    #[serde(flatten)]
    pub money: Money,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FilmLine {
    pub film: String,
    pub film_id: Option<String>,
    pub showings: Vec<ShowingLine>,
    pub refunds: Refunds,
    /// Admissions sold less tickets refunded, comps apart.
    pub admissions: i64,
    pub comps: u64,
    /// Sales less refunds: signed, since a week of refunds alone is less
    /// than nothing.
    pub gross: i64,
    pub tax: i64,
    pub net: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Week {
    pub from: String,
    pub to: String,
    pub first_day: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DistributorReturn {
    pub week: Week,
    pub currency: Option<String>,
    pub films: Vec<FilmLine>,
}

/// The cinema week holding `date` (`2027-03-26`) that starts on
/// `first_day`: its first and last dates and its instants, from its first
/// day's midnight to the next week's, on the venue's clock.
pub fn week_of(date: &str, first_day: Weekday, venue: &Venue) -> Result<(Week, i64, i64), String> {
    let date: Date = date
        .trim()
        .parse()
        .map_err(|_| "week: a date like 2027-03-26".to_string())?;
    let back = i64::from(
        (date.weekday().to_monday_zero_offset() - first_day.to_monday_zero_offset()).rem_euclid(7),
    );
    let from = date
        .checked_sub(jiff::Span::new().days(back))
        .map_err(|e| e.to_string())?;
    let next = from
        .checked_add(jiff::Span::new().days(7))
        .map_err(|e| e.to_string())?;
    let to = next.yesterday().map_err(|e| e.to_string())?;
    let midnight = |d: Date| {
        venue
            .parse_local(&format!("{d}T00:00"))
            .map_err(|e| format!("week: {e}"))
    };
    let week = Week {
        from: from.to_string(),
        to: to.to_string(),
        first_day: format!("{first_day:?}").to_ascii_lowercase(),
    };
    Ok((week, midnight(from)?, midnight(next)?))
}

/// Films by their id, or their title for a showing with no film.
fn film_key(film_id: &Option<String>, title: &str) -> String {
    film_id.clone().unwrap_or_else(|| format!("title:{title}"))
}

/// The return from the week's rows.
pub fn distributor_return(
    week: Week,
    venue: &Venue,
    showings: &[ShowingRow],
    sold: &[SoldTicket],
    refunds: &[RefundRow],
) -> DistributorReturn {
    let mut films: BTreeMap<String, FilmLine> = BTreeMap::new();
    let mut film = |film_id: &Option<String>, title: &str| -> String {
        let key = film_key(film_id, title);
        films.entry(key.clone()).or_insert_with(|| FilmLine {
            film: title.to_string(),
            film_id: film_id.clone(),
            showings: Vec::new(),
            refunds: Refunds::default(),
            admissions: 0,
            comps: 0,
            gross: 0,
            tax: 0,
            net: 0,
        });
        key
    };
    let mut keys = Vec::new();
    for showing in showings {
        keys.push(film(&showing.film_id, &showing.title));
    }
    let refund_keys: Vec<String> = refunds.iter().map(|r| film(&r.film_id, &r.title)).collect();
    let mut ordered: Vec<(&ShowingRow, &String)> = showings.iter().zip(&keys).collect();
    ordered.sort_by_key(|(s, _)| s.starts_at_ms);
    for (showing, key) in ordered {
        let mut categories: BTreeMap<&str, Category> = BTreeMap::new();
        let mut line = ShowingLine {
            id: showing.id.clone(),
            starts_at: venue.local_stamp(showing.starts_at_ms),
            capacity: showing.capacity,
            admissions: 0,
            comps: 0,
            categories: Vec::new(),
            money: Money::default(),
        };
        for ticket in sold.iter().filter(|t| t.showing_id == showing.id) {
            if ticket.comp() {
                line.comps += 1;
                continue;
            }
            let category = categories
                .entry(&ticket.category)
                .or_insert_with(|| Category {
                    name: ticket.category.clone(),
                    admissions: 0,
                    money: Money::default(),
                });
            category.admissions += 1;
            category.money.add(ticket.amount, ticket.tax);
            line.admissions += 1;
            line.money.add(ticket.amount, ticket.tax);
        }
        line.categories = categories.into_values().collect();
        films.get_mut(key).expect("added above").showings.push(line);
    }
    for (refund, key) in refunds.iter().zip(&refund_keys) {
        let line = &mut films.get_mut(key).expect("added above").refunds;
        line.tickets += refund.tickets.len() as u64;
        line.money.add(refund.amount, refund_tax(refund));
    }
    let mut films: Vec<FilmLine> = films.into_values().collect();
    for film in &mut films {
        let sum = |f: fn(&ShowingLine) -> u64| film.showings.iter().map(f).sum::<u64>() as i64;
        let (gross, tax) = (sum(|s| s.money.gross), sum(|s| s.money.tax));
        film.admissions = sum(|s| s.admissions) - film.refunds.tickets as i64;
        film.comps = sum(|s| s.comps) as u64;
        film.gross = gross - film.refunds.money.gross as i64;
        film.tax = tax - film.refunds.money.tax as i64;
        film.net = film.gross - film.tax;
    }
    films.sort_by(|a, b| a.film.cmp(&b.film));
    DistributorReturn {
        week,
        currency: showings.first().map(|s| s.currency.clone()),
        films,
    }
}

/// The tax that went back with a refund: its tickets' tax when it gave
/// back their whole price, else that tax in proportion to what it gave
/// back (a cancellation fee kept keeps its share of tax), half to even.
fn refund_tax(refund: &RefundRow) -> u64 {
    let price: u64 = refund.tickets.iter().map(|t| t.0).sum();
    let tax: u64 = refund.tickets.iter().map(|t| t.1).sum();
    if price == 0 || refund.amount >= price {
        return tax;
    }
    checkout::round_half_even(
        u128::from(tax) * u128::from(refund.amount),
        u128::from(price),
    ) as u64
}

/// The return as CSV rows: a row per showing and price category, one for
/// each film's comps and refunds, and one for each film's total.
pub fn csv_rows(report: &DistributorReturn) -> Vec<[String; 8]> {
    let currency = report.currency.as_deref().unwrap_or("USD");
    let money = |amount: i64| signed_decimal(amount, currency);
    let mut rows = Vec::new();
    for film in &report.films {
        for showing in &film.showings {
            for c in &showing.categories {
                rows.push([
                    film.film.clone(),
                    showing.starts_at.clone(),
                    c.name.clone(),
                    c.admissions.to_string(),
                    money(c.money.gross as i64),
                    money(c.money.tax as i64),
                    money(c.money.net as i64),
                    String::new(),
                ]);
            }
            if showing.comps > 0 {
                let zero = money(0);
                rows.push([
                    film.film.clone(),
                    showing.starts_at.clone(),
                    "Comps".into(),
                    showing.comps.to_string(),
                    zero.clone(),
                    zero.clone(),
                    zero,
                    String::new(),
                ]);
            }
        }
        if film.refunds.tickets > 0 {
            let r = &film.refunds;
            rows.push([
                film.film.clone(),
                String::new(),
                "Refunds".into(),
                format!("-{}", r.tickets),
                money(-(r.money.gross as i64)),
                money(-(r.money.tax as i64)),
                money(-(r.money.net as i64)),
                String::new(),
            ]);
        }
        rows.push([
            film.film.clone(),
            String::new(),
            "Total".into(),
            film.admissions.to_string(),
            money(film.gross),
            money(film.tax),
            money(film.net),
            film.comps.to_string(),
        ]);
    }
    rows
}

/// One point of a showing's sales over time: by `at_ms`, `tickets` of it
/// were sold (those still valid, each counted when its order was made).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CurvePoint {
    pub at_ms: i64,
    pub tickets: u64,
}

/// Orders' (when made, valid tickets) in any order, as the running total
/// a chart draws against the showing's capacity.
pub fn sales_curve(orders: &[(i64, u64)]) -> Vec<CurvePoint> {
    let mut sorted = orders.to_vec();
    sorted.sort_unstable();
    let mut total = 0;
    sorted
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(at_ms, n)| {
            total += n;
            CurvePoint {
                at_ms,
                tickets: total,
            }
        })
        .collect()
}

/// An amount in minor units as a decimal of the currency, for a CSV cell:
/// `-8.00`, `1200` yen.
pub fn signed_decimal(amount: i64, currency: &str) -> String {
    let text = mail::money::decimal(amount.unsigned_abs(), currency);
    if amount < 0 {
        format!("-{text}")
    } else {
        text
    }
}

/// The CSV's header, matching [`csv_rows`].
pub const CSV_HEADER: [&str; 8] = [
    "film",
    "showing",
    "category",
    "admissions",
    "gross",
    "tax",
    "net",
    "comps",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn london() -> Venue {
        Venue::new("The Plaza", "", "Europe/London").unwrap()
    }

    #[test]
    fn a_cinema_week_starts_on_its_first_day_at_midnight_on_the_venues_clock() {
        let (week, from, to) = week_of("2027-03-30", Weekday::Friday, &london()).unwrap();
        assert_eq!(
            (week.from.as_str(), week.to.as_str()),
            ("2027-03-26", "2027-04-01")
        );
        // The clocks go forward on 28 March 2027: the week is an hour short.
        assert_eq!(to - from, 7 * 24 * 3600 * 1000 - 3600 * 1000);
        assert_eq!(london().local_stamp(from), "2027-03-26 00:00:00 GMT");
        let (same, _, _) = week_of("2027-03-26", Weekday::Friday, &london()).unwrap();
        assert_eq!(same.from, "2027-03-26", "a first day starts its own week");
        let (monday, _, _) = week_of("2027-03-26", Weekday::Monday, &london()).unwrap();
        assert_eq!(monday.from, "2027-03-22");
        assert!(week_of("26/03/2027", Weekday::Friday, &london()).is_err());
    }

    #[test]
    fn sales_by_category_less_the_weeks_refunds_with_comps_apart() {
        let showing = |id: &str, title: &str, at: i64| ShowingRow {
            id: id.into(),
            title: title.into(),
            film_id: Some(format!("f-{title}")),
            starts_at_ms: at,
            currency: "GBP".into(),
            capacity: 100,
        };
        let sold = |showing: &str, category: &str, amount: u64, tax: u64, comp: bool| SoldTicket {
            showing_id: showing.into(),
            category: category.into(),
            amount,
            tax,
            channel: if comp { "comp" } else { "online" }.into(),
            made_at_ms: 0,
        };
        let report = distributor_return(
            Week {
                from: "2027-03-26".into(),
                to: "2027-04-01".into(),
                first_day: "friday".into(),
            },
            &london(),
            &[
                showing("s1", "Stalker", 2),
                showing("s2", "Stalker", 1),
                showing("s3", "Alien", 3),
            ],
            &[
                sold("s1", "Adult", 1200, 200, false),
                sold("s1", "Adult", 1200, 200, false),
                sold("s1", "Child", 800, 0, false),
                sold("s1", "Comp", 0, 0, true),
                sold("s3", "Adult", 1200, 200, false),
            ],
            &[RefundRow {
                title: "Stalker".into(),
                film_id: Some("f-Stalker".into()),
                // A fee of 2.00 kept: 10.00 of 12.00 back, 167 of its 200 tax.
                amount: 1000,
                tickets: vec![(1200, 200)],
            }],
        );
        let names: Vec<&str> = report.films.iter().map(|f| f.film.as_str()).collect();
        assert_eq!(names, ["Alien", "Stalker"]);
        let stalker = &report.films[1];
        assert_eq!(
            stalker.showings.len(),
            2,
            "both showings, the earlier first"
        );
        assert_eq!(stalker.showings[0].id, "s2");
        let s1 = &stalker.showings[1];
        assert_eq!((s1.admissions, s1.comps), (3, 1));
        assert_eq!(
            s1.money,
            Money {
                gross: 3200,
                tax: 400,
                net: 2800
            }
        );
        assert_eq!(s1.categories[0].name, "Adult");
        assert_eq!(s1.categories[0].admissions, 2);
        assert_eq!(
            stalker.refunds.money,
            Money {
                gross: 1000,
                tax: 167,
                net: 833
            }
        );
        assert_eq!(
            (
                stalker.admissions,
                stalker.comps,
                stalker.gross,
                stalker.tax,
                stalker.net
            ),
            (2, 1, 2200, 233, 1967)
        );
        let rows = csv_rows(&report);
        assert!(
            rows.iter()
                .any(|r| r[2] == "Refunds" && r[4] == "-10.00" && r[5] == "-1.67"),
            "{rows:?}"
        );
        assert!(rows
            .iter()
            .any(|r| r[0] == "Stalker" && r[2] == "Total" && r[4] == "22.00"));
    }
}
