//! What a buyer is told when things go wrong out of their sight: an order
//! that ended without tickets after they were told to wait for it (the
//! card declined, the seats lost, the payment cancelled), and a refund
//! that did not happen. Each says what happened, what was charged or comes
//! back, the order, and whom to ask.

use html_escape::encode_text as esc;

use crate::compose::{header_text, link, order_footer, page, plain, OrderView};
use crate::{money, Message, Venue};

/// Why a payment was cancelled before it was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cancellation {
    /// The authorization was voided or lapsed before it was captured, by
    /// someone other than the checkout (it ran out, or was cancelled at
    /// Square).
    Lapsed,
    /// Square never confirmed the payment, so the checkout cancelled it
    /// rather than charge for seats it could not confirm.
    Unconfirmed,
    /// Square refused the payment as a whole.
    Refused,
}

/// How a refund ended without the money going back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefundEnd {
    /// `FAILED`: the card's bank did not take it; that card cannot be
    /// refunded again.
    Failed,
    /// `REJECTED`: Square would not make it.
    Rejected,
}

const NOTHING_CHARGED: &str = "Nothing was charged, and no tickets were issued.";
const RESERVATION_RELEASED: &str = "If your bank shows the amount as reserved, that \
     reservation is released; banks take a few days to show it.";
const QUESTIONS: &str = "Questions? Reply to this message and the cinema's staff will answer.";

/// The parts every message here shares: a subject of `headline` and the
/// showing, greeting, what happened, what it means for the buyer's money,
/// where to try again, the order and whom to ask. `what` and `money` are
/// plain sentences, escaped for the HTML.
fn message(
    venue: &Venue,
    order: &OrderView,
    headline: &str,
    what: &str,
    money: &str,
    again: Option<(&str, &str)>,
) -> Message {
    let (again_text, again_html) = match again {
        Some((words, url)) => (
            format!("{words}: {url}\n\n"),
            format!("<p>{}</p>", link(url, words)),
        ),
        None => (String::new(), String::new()),
    };
    let text = format!(
        "{}Hello {},\n\n{what}\n{money}\n\n{again_text}Order {}: {}\n{QUESTIONS}\n",
        header_text(venue),
        order.buyer_name,
        order.order_id,
        order.order_url
    );
    let html = page(
        venue,
        &format!(
            "<p>Hello {},</p><p>{}</p><p>{}</p>{again_html}{}<p>{}</p>",
            esc(order.buyer_name),
            esc(what),
            esc(money),
            order_footer(order),
            esc(QUESTIONS)
        ),
    );
    // "Payment declined: Paris, Texas, Tue 14 Apr 2026, 19:30 BST".
    let subject = format!(
        "{headline}: {}, {}",
        order.film,
        venue.local_time(order.starts_at_ms)
    );
    plain(subject, text, html)
}

/// The card was declined after the buyer was told to wait. `again_url`
/// is the showing's page, while it still sells.
pub fn declined(venue: &Venue, order: &OrderView, again_url: Option<&str>) -> Message {
    let amount = money::format(order.amount, order.currency);
    let when = venue.local_time(order.starts_at_ms);
    let what = format!(
        "Your bank declined your payment of {amount} for {} on {when}, so this order \
         was not completed.",
        order.film
    );
    message(
        venue,
        order,
        "Payment declined",
        &what,
        NOTHING_CHARGED,
        again_url.map(|url| {
            (
                "To try again with another card, choose your seats here",
                url,
            )
        }),
    )
}

/// The hold ran out while the payment was being confirmed and another
/// buyer took `seats`; the authorization was cancelled.
pub fn seat_lost(
    venue: &Venue,
    order: &OrderView,
    seats: &[String],
    again_url: Option<&str>,
) -> Message {
    let amount = money::format(order.amount, order.currency);
    let when = venue.local_time(order.starts_at_ms);
    let (taken, them) = match seats {
        [] => ("some of your seats".to_string(), "them"),
        [one] => (format!("seat {one}"), "it"),
        many => (format!("seats {}", many.join(", ")), "them"),
    };
    let what = format!(
        "While your payment of {amount} for {} on {when} was being confirmed, your hold \
         on {taken} ran out and another buyer booked {them}. We cancelled your payment.",
        order.film
    );
    message(
        venue,
        order,
        "Seats no longer available",
        &what,
        &format!("{NOTHING_CHARGED} {RESERVATION_RELEASED}"),
        again_url.map(|url| ("To choose other seats", url)),
    )
}

/// The payment was cancelled before it was taken, for `why`.
pub fn payment_cancelled(
    venue: &Venue,
    order: &OrderView,
    why: Cancellation,
    again_url: Option<&str>,
) -> Message {
    let amount = money::format(order.amount, order.currency);
    let when = venue.local_time(order.starts_at_ms);
    let film = order.film;
    let what = match why {
        Cancellation::Lapsed => format!(
            "The {amount} reserved on your card for {film} on {when} was released before \
             the payment was taken (the reservation ran out, or it was cancelled at our \
             payment provider), so your order could not be completed."
        ),
        Cancellation::Unconfirmed => format!(
            "Our payment provider did not confirm your payment of {amount} for {film} on \
             {when}, so we cancelled it rather than risk charging you for seats we could \
             not confirm."
        ),
        Cancellation::Refused => format!(
            "Your payment of {amount} for {film} on {when} could not be made, so we \
             cancelled it."
        ),
    };
    message(
        venue,
        order,
        "Payment cancelled",
        &what,
        &format!("{NOTHING_CHARGED} {RESERVATION_RELEASED}"),
        again_url.map(|url| ("To try again, choose your seats here", url)),
    )
}

/// A refund of `refunded` (for `seats`, when it named any) that ended
/// without the money going back.
pub fn refund_not_made(
    venue: &Venue,
    order: &OrderView,
    refunded: u64,
    seats: &[String],
    end: RefundEnd,
) -> Message {
    let amount = money::format(refunded, order.currency);
    let when = venue.local_time(order.starts_at_ms);
    let for_seats = match seats {
        [] => String::new(),
        [one] => format!(" (seat {one})"),
        many => format!(" (seats {})", many.join(", ")),
    };
    let what = match end {
        RefundEnd::Failed => format!(
            "We tried to refund {amount} to your card for {}{for_seats} on {when}, but your \
             card's bank did not accept it (the card may have been closed or replaced), and \
             that card cannot be refunded again.",
            order.film
        ),
        RefundEnd::Rejected => format!(
            "We tried to refund {amount} to your card for {}{for_seats} on {when}, but our \
             payment provider rejected the refund.",
            order.film
        ),
    };
    let next = match end {
        RefundEnd::Failed => {
            "Nothing has come back to your card. The cinema's staff have been told and will \
             contact you to give the money back another way."
        }
        RefundEnd::Rejected => {
            "Nothing has come back to your card yet. The cinema's staff have been told and \
             will try again or contact you to give the money back another way."
        }
    };
    message(venue, order, "Refund not made", &what, next, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::examples::{order, venue};

    const AGAIN: &str = "https://cinema.example/showings/s1";

    /// What every message here says, whatever happened.
    fn says_the_order_and_whom_to_ask(m: &Message) {
        assert!(m
            .text
            .starts_with("The <Plaza>\n1 High St\n\nHello Ann <script>,"));
        assert!(
            m.text
                .contains("Order ord1: https://cinema.example/orders/ord1?key=k&x=1"),
            "{}",
            m.text
        );
        assert!(m.text.contains("Reply to this message"), "{}", m.text);
        assert!(m.html.contains("Ann &lt;script&gt;") && !m.html.contains("<script>"));
        assert!(m.html.contains("key=k&amp;x=1"), "{}", m.html);
        assert!(m.html.contains("Reply to this message"));
        assert!(m.attachments.is_empty());
    }

    #[test]
    fn a_declined_card_says_nothing_was_charged_and_where_to_try_again() {
        let m = declined(&venue(), &order(), Some(AGAIN));
        assert_eq!(
            m.subject,
            "Payment declined: Paris, Texas, Tue 14 Apr 2026, 19:30 BST"
        );
        assert!(
            m.text.contains(
                "Your bank declined your payment of £24.00 for Paris, Texas on \
                 Tue 14 Apr 2026, 19:30 BST, so this order was not completed."
            ),
            "{}",
            m.text
        );
        assert!(m
            .text
            .contains("Nothing was charged, and no tickets were issued."));
        assert!(
            m.text.contains(&format!(
                "To try again with another card, choose your seats here: {AGAIN}"
            )),
            "{}",
            m.text
        );
        assert!(m.html.contains(&format!("href=\"{AGAIN}\"")), "{}", m.html);
        says_the_order_and_whom_to_ask(&m);
        let closed = declined(&venue(), &order(), None);
        assert!(!closed.text.contains("try again") && !closed.html.contains(AGAIN));
    }

    #[test]
    fn a_lost_seat_names_it_and_says_the_payment_was_cancelled_and_nothing_charged() {
        let m = seat_lost(&venue(), &order(), &["A2".into()], Some(AGAIN));
        assert_eq!(
            m.subject,
            "Seats no longer available: Paris, Texas, Tue 14 Apr 2026, 19:30 BST"
        );
        assert!(
            m.text
                .contains("your hold on seat A2 ran out and another buyer booked it."),
            "{}",
            m.text
        );
        assert!(m.text.contains("We cancelled your payment."));
        assert!(
            m.text.contains("Nothing was charged") && m.text.contains("reservation is released")
        );
        assert!(m.text.contains(&format!("To choose other seats: {AGAIN}")));
        says_the_order_and_whom_to_ask(&m);
        let two = seat_lost(&venue(), &order(), &["A1".into(), "A2".into()], None);
        assert!(two
            .text
            .contains("seats A1, A2 ran out and another buyer booked them."));
    }

    #[test]
    fn a_cancelled_payment_says_why_and_that_nothing_was_charged() {
        let lapsed = payment_cancelled(&venue(), &order(), Cancellation::Lapsed, Some(AGAIN));
        assert_eq!(
            lapsed.subject,
            "Payment cancelled: Paris, Texas, Tue 14 Apr 2026, 19:30 BST"
        );
        assert!(
            lapsed
                .text
                .contains("The £24.00 reserved on your card for Paris, Texas"),
            "{}",
            lapsed.text
        );
        let unconfirmed =
            payment_cancelled(&venue(), &order(), Cancellation::Unconfirmed, Some(AGAIN));
        assert!(unconfirmed
            .text
            .contains("did not confirm your payment of £24.00"));
        let refused = payment_cancelled(&venue(), &order(), Cancellation::Refused, None);
        assert!(refused
            .text
            .contains("could not be made, so we cancelled it."));
        for m in [&lapsed, &unconfirmed, &refused] {
            assert!(m
                .text
                .contains("Nothing was charged, and no tickets were issued."));
            says_the_order_and_whom_to_ask(m);
        }
    }

    #[test]
    fn a_refund_not_made_says_how_much_did_not_come_back_and_what_staff_do() {
        let failed = refund_not_made(&venue(), &order(), 1200, &["A2".into()], RefundEnd::Failed);
        assert_eq!(
            failed.subject,
            "Refund not made: Paris, Texas, Tue 14 Apr 2026, 19:30 BST"
        );
        assert!(
            failed
                .text
                .contains("We tried to refund £12.00 to your card for Paris, Texas (seat A2)"),
            "{}",
            failed.text
        );
        assert!(failed.text.contains("cannot be refunded again"));
        assert!(failed
            .text
            .contains("will contact you to give the money back another way"));
        let rejected = refund_not_made(&venue(), &order(), 2400, &[], RefundEnd::Rejected);
        assert!(
            rejected
                .text
                .contains("£24.00 to your card for Paris, Texas on Tue"),
            "{}",
            rejected.text
        );
        assert!(rejected
            .text
            .contains("payment provider rejected the refund"));
        assert!(rejected.text.contains("will try again or contact you"));
        for m in [&failed, &rejected] {
            assert!(!m.text.contains("choose"), "no seats to choose: {}", m.text);
            says_the_order_and_whom_to_ask(m);
        }
    }
}
