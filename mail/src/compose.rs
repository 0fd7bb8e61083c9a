//! Each message as a subject, a plain-text part, an HTML part and its
//! attachments. Every value from a buyer or staff is escaped in the HTML;
//! the plain text says everything the HTML says.

use html_escape::{encode_double_quoted_attribute as attr, encode_text as esc};

use crate::{ics, money, qr, MailError, Venue};

#[derive(Debug, Clone)]
pub struct Message {
    pub subject: String,
    pub text: String,
    pub html: String,
    pub attachments: Vec<Attachment>,
}

#[derive(Debug, Clone)]
pub struct Attachment {
    pub filename: String,
    pub content_type: &'static str,
    /// Set for an image the HTML shows inline (`cid:…`).
    pub content_id: Option<String>,
    pub content: Vec<u8>,
}

/// An order as its messages describe it.
pub struct OrderView<'a> {
    pub order_id: &'a str,
    pub buyer_name: &'a str,
    pub amount: u64,
    pub currency: &'a str,
    pub film: &'a str,
    pub starts_at_ms: i64,
    /// The absolute link to the order page, with its key.
    pub order_url: &'a str,
    /// Paid at the box office (cash or the cinema's card terminal): money
    /// goes back there, not through Square.
    pub paid_at_desk: bool,
    /// The tax in `amount`, when there is any.
    pub tax: Option<TaxView<'a>>,
    /// The discount code the order was bought with, and what it took off.
    pub discount: Option<(&'a str, u64)>,
}

/// "£32.00 including £4.00 VAT, £8.00 off with code SPRING", or the total
/// alone when no code took anything off.
fn total_words(order: &OrderView) -> String {
    let total = with_tax(order.amount, order.currency, order.tax);
    match order.discount.filter(|(_, amount)| *amount > 0) {
        Some((code, amount)) => format!(
            "{total}, {} off with code {code}",
            money::format(amount, order.currency)
        ),
        None => total,
    }
}

/// Tax within an amount, as the receipt names it.
#[derive(Clone, Copy)]
pub struct TaxView<'a> {
    pub name: &'a str,
    /// In the prices (VAT), or added to them (US sales tax).
    pub inclusive: bool,
    pub amount: u64,
}

/// "£32.00 including £4.00 VAT", "$34.80 ($32.00 + $2.80 Sales tax)", or
/// the amount alone without tax.
pub fn with_tax(amount: u64, currency: &str, tax: Option<TaxView>) -> String {
    let whole = money::format(amount, currency);
    match tax.filter(|t| t.amount > 0) {
        None => whole,
        Some(tax) if tax.inclusive => format!(
            "{whole} including {} {}",
            money::format(tax.amount, currency),
            tax.name
        ),
        Some(tax) => format!(
            "{whole} ({} + {} {})",
            money::format(amount.saturating_sub(tax.amount), currency),
            money::format(tax.amount, currency),
            tax.name
        ),
    }
}

/// What a cancellation does with the buyer's money, in words.
fn money_back(order: &OrderView) -> String {
    let amount = money::format(order.amount, order.currency);
    if order.amount == 0 {
        "Nothing was paid for these tickets, so there is nothing to refund.".into()
    } else if order.paid_at_desk {
        format!(
            "You paid {amount} at our box office: bring this message there and we will \
             give it back."
        )
    } else {
        format!(
            "We are refunding the whole order, {amount}, to the card you paid with; a \
             confirmation follows when the refund is made, and banks take a few days to \
             show it."
        )
    }
}

pub struct TicketView<'a> {
    pub id: &'a str,
    pub seat: &'a str,
    /// The signed code the door scans.
    pub code: &'a str,
    pub page_url: &'a str,
    /// The price category and amount it was sold at, when known.
    pub price: Option<(&'a str, u64)>,
    /// The tax within that price, when there is any.
    pub tax: Option<TaxView<'a>>,
}

/// " · Child £8.00" for a ticket with its price, with its tax where it has
/// some; "" without a price.
fn price_words(ticket: &TicketView, currency: &str) -> String {
    ticket
        .price
        .map(|(name, amount)| format!(" · {name} {}", with_tax(amount, currency, ticket.tax)))
        .unwrap_or_default()
}

/// The cinema's name and address above every message.
fn header_html(venue: &Venue) -> String {
    let address = if venue.address.is_empty() {
        String::new()
    } else {
        format!(
            "<div style=\"color:#555;font-size:14px\">{}</div>",
            esc(&venue.address)
        )
    };
    format!(
        "<div style=\"border-bottom:2px solid #222;padding-bottom:8px;margin-bottom:16px\">\
         <div style=\"font-size:20px;font-weight:bold\">{}</div>{address}</div>",
        esc(&venue.name)
    )
}

pub(crate) fn header_text(venue: &Venue) -> String {
    if venue.address.is_empty() {
        format!("{}\n\n", venue.name)
    } else {
        format!("{}\n{}\n\n", venue.name, venue.address)
    }
}

pub(crate) fn page(venue: &Venue, body: &str) -> String {
    format!(
        "<!doctype html><html><body style=\"font-family:Arial,Helvetica,sans-serif;\
         color:#222;max-width:560px;margin:0 auto;padding:16px\">{}{body}</body></html>",
        header_html(venue)
    )
}

/// A message with no attachment.
pub(crate) fn plain(subject: String, text: String, html: String) -> Message {
    Message {
        subject,
        text,
        html,
        attachments: Vec::new(),
    }
}

/// The order's number and link, closing a message about it.
pub(crate) fn order_footer(order: &OrderView) -> String {
    format!(
        "<p>Order {}: {}</p>",
        esc(order.order_id),
        link(order.order_url, "see the order")
    )
}

pub(crate) fn link(url: &str, words: &str) -> String {
    format!("<a href=\"{}\">{}</a>", attr(url), esc(words))
}

/// What a ticket is for, as its holder reads it: a seat, or a general
/// admission zone (whose tickets carry no seat).
pub fn place(seat: &str) -> String {
    match ledger::zone_of_place(seat) {
        Some(zone) => format!("{zone}, general admission"),
        None => format!("Seat {seat}"),
    }
}

/// "seat A1", or "Floor (general admission)": what a ticket is for, in a
/// sentence.
pub fn ticket_for(seat: &str) -> String {
    match ledger::zone_of_place(seat) {
        Some(zone) => format!("{zone} (general admission)"),
        None => format!("seat {seat}"),
    }
}

/// The seats of a list as one line: "A1, A2, 3 × Floor (general
/// admission)", places counted by zone after the seats.
pub fn seats_words<S: AsRef<str>>(seats: &[S]) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut zones: Vec<(&str, usize)> = Vec::new();
    for seat in seats.iter().map(AsRef::as_ref) {
        match ledger::zone_of_place(seat) {
            None => words.push(seat.to_string()),
            Some(zone) => match zones.iter_mut().find(|(z, _)| *z == zone) {
                Some((_, n)) => *n += 1,
                None => zones.push((zone, 1)),
            },
        }
    }
    words.extend(
        zones
            .into_iter()
            .map(|(zone, n)| format!("{n} × {}", ticket_for(&ledger::place_name(zone, 1)))),
    );
    words.join(", ")
}

/// A ticket's QR code as a PNG shown inline, where the HTML names `cid`.
fn qr_image(ticket: &TicketView, cid: String) -> Result<Attachment, MailError> {
    Ok(Attachment {
        filename: format!(
            "ticket-{}.png",
            ticket
                .seat
                .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        ),
        content_type: "image/png",
        content_id: Some(cid),
        content: qr::png(ticket.code)?,
    })
}

/// A ticket as the HTML shows it: seat and price, its QR image (inline as
/// `cid`), and the link to its page.
fn ticket_card_html(ticket: &TicketView, currency: &str, cid: &str) -> String {
    format!(
        "<div style=\"border:1px solid #ccc;border-radius:6px;padding:12px;margin:12px 0;\
         text-align:center\"><div style=\"font-size:18px\"><strong>{}</strong>{}</div>\
         <img src=\"cid:{cid}\" alt=\"Ticket QR code for {}\" width=\"240\" height=\"240\">\
         <div style=\"font-size:12px;color:#555\">Ticket {} · {}</div></div>",
        esc(&place(ticket.seat)),
        esc(&price_words(ticket, currency)),
        attr(&ticket_for(ticket.seat)),
        esc(ticket.id),
        link(ticket.page_url, "open this ticket on your phone")
    )
}

/// A ticket as the text shows it: "Seat A1 · Adult £16.00: ticket …, <its page>".
fn ticket_line(ticket: &TicketView, currency: &str) -> String {
    format!(
        "{}{}: ticket {}, {}",
        place(ticket.seat),
        price_words(ticket, currency),
        ticket.id,
        ticket.page_url
    )
}

/// The tickets of a paid order: one QR image per ticket, inline, and the
/// showing as a calendar file.
pub fn tickets(
    venue: &Venue,
    order: &OrderView,
    tickets: &[TicketView],
    now_ms: i64,
) -> Result<Message, MailError> {
    let when = venue.local_time(order.starts_at_ms);
    let seats: Vec<&str> = tickets.iter().map(|t| t.seat).collect();
    let seats = seats_words(&seats);
    let total = total_words(order);
    let subject = format!("Your tickets: {}, {when}", order.film);
    let mut attachments = Vec::with_capacity(tickets.len() + 1);
    let mut ticket_html = String::new();
    let mut ticket_text = String::new();
    for (i, ticket) in tickets.iter().enumerate() {
        let cid = format!("ticket-{}", i + 1);
        ticket_html.push_str(&ticket_card_html(ticket, order.currency, &cid));
        attachments.push(qr_image(ticket, cid)?);
        ticket_text.push_str(&format!("  {}\n", ticket_line(ticket, order.currency)));
    }
    // The start is in UTC for the calendar to place; the description says
    // it as the cinema's clock does, zone and all.
    let description = format!(
        "{}. Seats {}. Order {}: {}",
        venue.local_time(order.starts_at_ms),
        seats,
        order.order_id,
        order.order_url
    );
    let location = if venue.address.is_empty() {
        venue.name.clone()
    } else {
        format!("{}, {}", venue.name, venue.address)
    };
    let summary = format!("{} at {}", order.film, venue.name);
    let calendar = ics::Event {
        uid: &format!("{}@showtime", order.order_id),
        stamp_ms: now_ms,
        start_ms: order.starts_at_ms,
        summary: &summary,
        location: &location,
        description: &description,
        url: order.order_url,
    }
    .to_ics(&venue.name);
    attachments.push(Attachment {
        filename: "showing.ics".into(),
        content_type: "text/calendar",
        content_id: None,
        content: calendar.into_bytes(),
    });
    let text = format!(
        "{}Hello {},\n\nYour tickets for {} on {when}.\n\nSeats: {}\nTotal paid: {total}\n\
         Order {}\n\nShow the QR code of each ticket at the door, on your phone or printed:\n\
         {ticket_text}\nYour order, any time: {}\n",
        header_text(venue),
        order.buyer_name,
        order.film,
        seats,
        order.order_id,
        order.order_url,
    );
    let html = page(
        venue,
        &format!(
            "<p>Hello {},</p><p>Your tickets for <strong>{}</strong> on <strong>{}</strong>.</p>\
             <p>Seats: {}<br>Total paid: {}<br>Order {}</p>\
             <p>Show the QR code of each ticket at the door, on your phone or printed.</p>\
             {ticket_html}<p>{}</p>",
            esc(order.buyer_name),
            esc(order.film),
            esc(&when),
            esc(&seats),
            esc(&total),
            esc(order.order_id),
            link(order.order_url, "Your order, any time")
        ),
    );
    Ok(Message {
        subject,
        text,
        html,
        attachments,
    })
}

/// A refund applied: how much, which seats, and that those tickets no
/// longer admit.
pub fn refund(venue: &Venue, order: &OrderView, refunded: u64, seats: &[String]) -> Message {
    let when = venue.local_time(order.starts_at_ms);
    let amount = money::format(refunded, order.currency);
    let seats = seats_words(seats);
    let subject = format!("Refund of {amount}: {}, {when}", order.film);
    let text = format!(
        "{}Hello {},\n\nWe have refunded {amount} to your card for {} on {when}.\n\
         Seats refunded: {seats}. Those tickets no longer admit.\n\
         Banks take a few days to show a refund.\n\nOrder {}: {}\n",
        header_text(venue),
        order.buyer_name,
        order.film,
        order.order_id,
        order.order_url
    );
    let html = page(
        venue,
        &format!(
            "<p>Hello {},</p><p>We have refunded <strong>{}</strong> to your card for {} on {}.</p>\
             <p>Seats refunded: {}. Those tickets no longer admit.<br>\
             Banks take a few days to show a refund.</p>{}",
            esc(order.buyer_name),
            esc(&amount),
            esc(order.film),
            esc(&when),
            esc(&seats),
            order_footer(order)
        ),
    );
    plain(subject, text, html)
}

/// The order's showing was cancelled: what, why (if staff said), and that
/// the whole order is refunded to the card it was paid with.
pub fn cancelled(venue: &Venue, order: &OrderView, reason: &str) -> Message {
    let when = venue.local_time(order.starts_at_ms);
    let back = money_back(order);
    let subject = format!("Cancelled: {}, {when}", order.film);
    let why_text = if reason.is_empty() {
        String::new()
    } else {
        format!("\n{reason}\n")
    };
    let text = format!(
        "{}Hello {},\n\nWe are sorry: {} on {when} is cancelled.\n{why_text}\n\
         Your tickets no longer admit. {back}\n\nOrder {}: {}\n",
        header_text(venue),
        order.buyer_name,
        order.film,
        order.order_id,
        order.order_url
    );
    let why_html = if reason.is_empty() {
        String::new()
    } else {
        format!("<p>{}</p>", esc(reason))
    };
    let html = page(
        venue,
        &format!(
            "<p>Hello {},</p><p>We are sorry: <strong>{}</strong> on {} is cancelled.</p>{why_html}\
             <p>Your tickets no longer admit. {}</p>{}",
            esc(order.buyer_name),
            esc(order.film),
            esc(&when),
            esc(&back),
            order_footer(order)
        ),
    );
    plain(subject, text, html)
}

/// Staff moved one of the order's tickets to another seat: the new ticket,
/// its QR code inline, and that the old one no longer admits.
pub fn moved(
    venue: &Venue,
    order: &OrderView,
    from_seat: &str,
    ticket: &TicketView,
) -> Result<Message, MailError> {
    let when = venue.local_time(order.starts_at_ms);
    let subject = format!("Your seat has changed: {}, {when}", order.film);
    let cid = "ticket-moved";
    let text = format!(
        "{}Hello {},\n\nYour seat for {} on {when} has changed: seat {from_seat} is now seat {}.\n\
         Your new ticket is below; the ticket for seat {from_seat} no longer admits.\n\n\
         {}\n\nOrder {}: {}\n",
        header_text(venue),
        order.buyer_name,
        order.film,
        ticket.seat,
        ticket_line(ticket, order.currency),
        order.order_id,
        order.order_url,
    );
    let html = page(
        venue,
        &format!(
            "<p>Hello {},</p><p>Your seat for <strong>{}</strong> on {} has changed: seat {} is \
             now seat <strong>{}</strong>.</p><p>Your new ticket is below; the ticket for seat {} \
             no longer admits.</p>{}{}",
            esc(order.buyer_name),
            esc(order.film),
            esc(&when),
            esc(from_seat),
            esc(ticket.seat),
            esc(from_seat),
            ticket_card_html(ticket, order.currency, cid),
            order_footer(order)
        ),
    );
    Ok(Message {
        subject,
        text,
        html,
        attachments: vec![qr_image(ticket, cid.into())?],
    })
}

/// The links of a buyer's orders, asked for by address.
pub fn lookup(venue: &Venue, orders: &[OrderView]) -> Message {
    let subject = format!("Your orders at {}", venue.name);
    let mut text = format!(
        "{}You (or someone who typed your address) asked for the links to your orders.\n\n",
        header_text(venue)
    );
    let mut items = String::new();
    for order in orders {
        let when = venue.local_time(order.starts_at_ms);
        text.push_str(&format!("- {}, {when}: {}\n", order.film, order.order_url));
        items.push_str(&format!(
            "<li>{}, {}: {}</li>",
            esc(order.film),
            esc(&when),
            link(order.order_url, &format!("order {}", order.order_id))
        ));
    }
    text.push_str("\nIf you did not ask, you can ignore this message.\n");
    let html = page(
        venue,
        &format!(
            "<p>You (or someone who typed your address) asked for the links to your orders.</p>\
             <ul>{items}</ul><p>If you did not ask, you can ignore this message.</p>"
        ),
    );
    Message {
        subject,
        text,
        html,
        attachments: Vec::new(),
    }
}

/// A waiting list offer as its mail shows it.
pub struct OfferView<'a> {
    pub film: &'a str,
    pub starts_at_ms: i64,
    pub seats: &'a [String],
    /// When the seats go to the next person unless paid for.
    pub until_ms: i64,
    /// The signed link that claims them.
    pub url: &'a str,
}

/// Seats came back for someone on the waiting list.
pub fn offer(venue: &Venue, offer: &OfferView) -> Message {
    let when = venue.local_time(offer.starts_at_ms);
    let until = venue.local_time(offer.until_ms);
    let seats = seats_words(offer.seats);
    let subject = format!("Seats for {} are yours to buy until {until}", offer.film);
    let lead = format!(
        "You asked to be told if seats came back for {}, {when}. They have: {seats} {} held for you until {until}.",
        offer.film,
        if offer.seats.len() == 1 { "is" } else { "are" },
    );
    let after = "Open the link and pay to keep them. If you do not, they go to the next person on the waiting list at that time, and this link stops working.";
    let text = format!("{}{lead}\n\n{}\n\n{after}\n", header_text(venue), offer.url);
    let html = page(
        venue,
        &format!(
            "<p>{}</p><p>{}</p><p>{}</p>",
            esc(&lead),
            link(offer.url, "Buy these seats"),
            esc(after)
        ),
    );
    Message {
        subject,
        text,
        html,
        attachments: Vec::new(),
    }
}

/// One item on the staff's attention list.
pub struct AttentionItem {
    pub what: String,
    pub since_ms: i64,
    pub link: String,
}

/// "3 h 20 min", "2 d 4 h".
fn age(ms: i64) -> String {
    let minutes = ms.max(0) / 60_000;
    let (d, h, m) = (minutes / 1440, minutes / 60 % 24, minutes % 60);
    match (d, h) {
        (0, 0) => format!("{m} min"),
        (0, _) => format!("{h} h {m} min"),
        _ => format!("{d} d {h} h"),
    }
}

/// The staff digest: what has waited on the attention list, oldest first.
pub fn digest(venue: &Venue, items: &[AttentionItem], now_ms: i64) -> Message {
    let subject = format!(
        "{}: {} item{} waiting for staff",
        venue.name,
        items.len(),
        if items.len() == 1 { "" } else { "s" }
    );
    let mut text = format!(
        "{}These wait on the attention list:\n\n",
        header_text(venue)
    );
    let mut rows = String::new();
    for item in items {
        let waited = age(now_ms - item.since_ms);
        text.push_str(&format!(
            "- {} (waiting {waited}): {}\n",
            item.what, item.link
        ));
        rows.push_str(&format!(
            "<li>{} (waiting {}): {}</li>",
            esc(&item.what),
            esc(&waited),
            link(&item.link, "open")
        ));
    }
    let html = page(
        venue,
        &format!("<p>These wait on the attention list:</p><ul>{rows}</ul>"),
    );
    Message {
        subject,
        text,
        html,
        attachments: Vec::new(),
    }
}

/// One difference a reconciliation left for staff: what it is, and what
/// the showing's object, D1 and Square each say.
pub struct Difference {
    pub what: String,
    pub sides: String,
}

/// For staff, at once: the differences a showing's reconciliation found
/// and could not repair, before its doors open.
pub fn reconciliation(
    venue: &Venue,
    showing: &str,
    starts_at_ms: i64,
    differences: &[Difference],
    link_to: &str,
) -> Message {
    let when = venue.local_time(starts_at_ms);
    let subject = format!(
        "{}: {} to check before {showing}, {when}",
        venue.name,
        if differences.len() == 1 {
            "1 difference".to_string()
        } else {
            format!("{} differences", differences.len())
        }
    );
    let intro = format!(
        "The check of {showing}, {when}, found what its seats, its tickets and Square's payments disagree on:"
    );
    let mut text = format!(
        "{}{intro}

",
        header_text(venue)
    );
    let mut rows = String::new();
    for d in differences {
        text.push_str(&format!(
            "- {}: {}
",
            d.what, d.sides
        ));
        rows.push_str(&format!("<li>{}: {}</li>", esc(&d.what), esc(&d.sides)));
    }
    text.push_str(&format!(
        "
The attention list: {link_to}
"
    ));
    let html = page(
        venue,
        &format!(
            "<p>{}</p><ul>{rows}</ul><p>{}</p>",
            esc(&intro),
            link(link_to, "The attention list")
        ),
    );
    Message {
        subject,
        text,
        html,
        attachments: Vec::new(),
    }
}

/// The venue and order the tests of the messages write to: names that
/// need escaping, a time in British Summer Time, a link with a query.
#[cfg(test)]
pub(crate) mod examples {
    use super::OrderView;
    use crate::Venue;

    pub(crate) fn venue() -> Venue {
        Venue::new("The <Plaza>", "1 High St", "Europe/London").unwrap()
    }

    pub(crate) fn order() -> OrderView<'static> {
        OrderView {
            order_id: "ord1",
            buyer_name: "Ann <script>",
            amount: 2400,
            currency: "GBP",
            film: "Paris, Texas",
            paid_at_desk: false,
            starts_at_ms: 1_776_191_400_000,
            order_url: "https://cinema.example/orders/ord1?key=k&x=1",
            tax: None,
            discount: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::examples::{order, venue};
    use super::*;

    #[test]
    fn a_tickets_mail_names_the_tax_in_each_price_and_the_total() {
        let vat = |amount| {
            Some(TaxView {
                name: "VAT",
                inclusive: true,
                amount,
            })
        };
        let ticket = |seat, price, tax| TicketView {
            id: "ord1-1",
            seat,
            code: "v1.code.one",
            page_url: "https://cinema.example/tickets/ord1-1?key=k",
            price: Some(("Adult", price)),
            tax,
        };
        let paid = OrderView {
            tax: vat(400),
            ..order()
        };
        let lines = [ticket("A1", 1200, vat(200)), ticket("A2", 1200, vat(200))];
        let m = tickets(&venue(), &paid, &lines, 1_776_000_000_000).unwrap();
        assert!(
            m.text.contains("Total paid: £24.00 including £4.00 VAT"),
            "{}",
            m.text
        );
        assert!(
            m.text
                .contains("Seat A1 · Adult £12.00 including £2.00 VAT:"),
            "{}",
            m.text
        );
        let added = |amount| {
            Some(TaxView {
                name: "Sales tax",
                inclusive: false,
                amount,
            })
        };
        let paid = OrderView {
            amount: 2610,
            currency: "USD",
            tax: added(210),
            ..order()
        };
        let lines = [
            ticket("A1", 1305, added(105)),
            ticket("A2", 1305, added(105)),
        ];
        let m = tickets(&venue(), &paid, &lines, 1_776_000_000_000).unwrap();
        assert!(
            m.text
                .contains("Total paid: $26.10 ($24.00 + $2.10 Sales tax)"),
            "{}",
            m.text
        );
        assert!(
            m.html.contains("Adult $13.05 ($12.00 + $1.05 Sales tax)"),
            "{}",
            m.html
        );
    }

    #[test]
    fn a_tickets_mail_has_local_time_seats_images_and_a_calendar() {
        let tickets = [
            TicketView {
                id: "ord1-1",
                seat: "A1",
                code: "v1.code.one",
                page_url: "https://cinema.example/tickets/ord1-1?key=k",
                price: Some(("Adult", 1600)),
                tax: None,
            },
            TicketView {
                id: "ord1-2",
                seat: "A2",
                code: "v1.code.two",
                page_url: "https://cinema.example/tickets/ord1-2?key=k",
                price: Some(("Child", 800)),
                tax: None,
            },
        ];
        let m = tickets_mail(&tickets);
        assert_eq!(
            m.subject,
            "Your tickets: Paris, Texas, Tue 14 Apr 2026, 19:30 BST"
        );
        assert!(m.text.contains("Seats: A1, A2") && m.text.contains("£24.00"));
        assert!(
            m.text.contains("Seat A1 · Adult £16.00:") && m.text.contains("Seat A2 · Child £8.00:"),
            "{}",
            m.text
        );
        assert!(
            m.html.contains("<strong>Seat A2</strong> · Child £8.00"),
            "{}",
            m.html
        );
        assert!(m.text.starts_with("The <Plaza>\n1 High St"));
        assert!(m.html.contains("The &lt;Plaza&gt;") && m.html.contains("Ann &lt;script&gt;"));
        assert!(m.html.contains("cid:ticket-1") && m.html.contains("cid:ticket-2"));
        assert!(m.html.contains("key=k&amp;x=1"));
        let kinds: Vec<_> = m.attachments.iter().map(|a| a.content_type).collect();
        assert_eq!(kinds, ["image/png", "image/png", "text/calendar"]);
        assert!(m.attachments[0].content.starts_with(b"\x89PNG"));
        let ics = String::from_utf8(m.attachments[2].content.clone()).unwrap();
        assert!(ics.contains("DTSTART:20260414T183000Z"), "{ics}");
        assert!(
            ics.contains("DESCRIPTION:Tue 14 Apr 2026\\, 19:30 BST. Seats A1\\, A2"),
            "{ics}"
        );
        assert!(ics.contains("LOCATION:The <Plaza>\\, 1 High St"), "{ics}");
    }

    #[test]
    fn a_general_admission_ticket_names_its_zone_and_no_seat() {
        let place = |id, seat| TicketView {
            id,
            seat,
            code: "v1.code",
            page_url: "https://cinema.example/tickets/x?key=k",
            price: None,
            tax: None,
        };
        let tickets = [
            place("ord1-1", "B4"),
            place("ord1-2", "Floor§3"),
            place("ord1-3", "Floor§9"),
        ];
        let m = tickets_mail(&tickets);
        assert!(
            m.text.contains("Seats: B4, 2 × Floor (general admission)"),
            "{}",
            m.text
        );
        assert!(
            m.text.contains("  Floor, general admission: ticket ord1-2"),
            "{}",
            m.text
        );
        assert!(!m.text.contains('§') && !m.html.contains('§'), "{}", m.text);
        assert_eq!(m.attachments[1].filename, "ticket-Floor_3.png");
    }

    fn tickets_mail(tickets: &[TicketView]) -> Message {
        super::tickets(&venue(), &order(), tickets, 0).unwrap()
    }

    #[test]
    fn a_cancellation_says_what_why_and_how_much_comes_back() {
        let c = cancelled(&venue(), &order(), "The <projector> broke.");
        assert_eq!(
            c.subject,
            "Cancelled: Paris, Texas, Tue 14 Apr 2026, 19:30 BST"
        );
        assert!(c.text.contains("The <projector> broke."), "{}", c.text);
        assert!(
            c.text.contains("refunding the whole order, £24.00"),
            "{}",
            c.text
        );
        assert!(
            c.html.contains("The &lt;projector&gt; broke."),
            "{}",
            c.html
        );
        assert!(c.html.contains("Ann &lt;script&gt;"));
        let plain = cancelled(&venue(), &order(), "");
        assert!(!plain.html.contains("<p></p>"));
        let at_desk = OrderView {
            paid_at_desk: true,
            ..order()
        };
        let c = cancelled(&venue(), &at_desk, "");
        assert!(
            c.text.contains("You paid £24.00 at our box office") && !c.text.contains("card"),
            "{}",
            c.text
        );
        let free = OrderView {
            amount: 0,
            ..order()
        };
        assert!(cancelled(&venue(), &free, "")
            .text
            .contains("nothing to refund"));
    }

    #[test]
    fn a_moved_ticket_mail_names_both_seats_and_carries_the_new_code() {
        let ticket = TicketView {
            id: "ord1-3",
            seat: "C<7>",
            code: "v2.code.three",
            page_url: "https://cinema.example/tickets/ord1-3?key=k",
            price: Some(("Adult", 1200)),
            tax: None,
        };
        let m = moved(&venue(), &order(), "A2", &ticket).unwrap();
        assert_eq!(
            m.subject,
            "Your seat has changed: Paris, Texas, Tue 14 Apr 2026, 19:30 BST"
        );
        assert!(
            m.text.contains("seat A2 is now seat C<7>")
                && m.text.contains("Seat C<7> · Adult £12.00: ticket ord1-3"),
            "{}",
            m.text
        );
        assert!(
            m.html.contains("seat <strong>C&lt;7&gt;</strong>"),
            "{}",
            m.html
        );
        assert!(m.html.contains("cid:ticket-moved"));
        assert_eq!(m.attachments.len(), 1);
        assert!(m.attachments[0].content.starts_with(b"\x89PNG"));
        assert_eq!(m.attachments[0].filename, "ticket-C_7_.png");
    }

    #[test]
    fn refund_lookup_and_digest_say_what_happened() {
        let r = refund(&venue(), &order(), 1200, &["A2".into()]);
        assert!(r.subject.starts_with("Refund of £12.00"));
        assert!(r.text.contains("Seats refunded: A2"));
        let l = lookup(&venue(), &[order()]);
        assert!(l
            .text
            .contains("Paris, Texas, Tue 14 Apr 2026, 19:30 BST: https://"));
        let items = [AttentionItem {
            what: "payment unknown: order ord1".into(),
            since_ms: 0,
            link: "https://cinema.example/admin".into(),
        }];
        let d = digest(&venue(), &items, (3 * 60 + 20) * 60_000);
        assert_eq!(d.subject, "The <Plaza>: 1 item waiting for staff");
        assert!(d.text.contains("(waiting 3 h 20 min)"));
    }

    #[test]
    fn a_discounted_order_says_what_its_code_took_off() {
        let order = OrderView {
            discount: Some(("SPRING", 600)),
            ..order()
        };
        assert_eq!(total_words(&order), "£24.00, £6.00 off with code SPRING");
        let nothing_off = OrderView {
            discount: Some(("SPRING", 0)),
            ..super::examples::order()
        };
        assert_eq!(total_words(&nothing_off), "£24.00");
    }
}
