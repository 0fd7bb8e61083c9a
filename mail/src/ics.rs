//! A calendar file (RFC 5545) for a showing, attached to the tickets mail
//! so the buyer's calendar holds the time. Times are written in UTC with
//! `Z`, which every calendar shows in its owner's zone; no VTIMEZONE needed.

use jiff::Timestamp;

/// One showing as a calendar event.
pub struct Event<'a> {
    /// Unique and stable per order, so a resent file updates the same event.
    pub uid: &'a str,
    pub stamp_ms: i64,
    pub start_ms: i64,
    pub summary: &'a str,
    pub location: &'a str,
    pub description: &'a str,
    pub url: &'a str,
}

fn utc(at_ms: i64) -> String {
    Timestamp::from_millisecond(at_ms)
        .map(|ts| ts.strftime("%Y%m%dT%H%M%SZ").to_string())
        .unwrap_or_default()
}

/// Text values escape backslash, semicolon, comma and newline (§3.3.11).
fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// Lines longer than 75 octets fold onto continuation lines that start with
/// a space (§3.1), never inside a UTF-8 character.
fn fold(line: &str, out: &mut String) {
    let mut width = 0;
    for c in line.chars() {
        if width + c.len_utf8() > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += c.len_utf8();
    }
    out.push_str("\r\n");
}

impl Event<'_> {
    pub fn to_ics(&self, product: &str) -> String {
        let lines = [
            "BEGIN:VCALENDAR".to_string(),
            "VERSION:2.0".to_string(),
            format!("PRODID:-//{}//Tickets//EN", text(product)),
            "METHOD:PUBLISH".to_string(),
            "BEGIN:VEVENT".to_string(),
            format!("UID:{}", text(self.uid)),
            format!("DTSTAMP:{}", utc(self.stamp_ms)),
            format!("DTSTART:{}", utc(self.start_ms)),
            format!("SUMMARY:{}", text(self.summary)),
            format!("LOCATION:{}", text(self.location)),
            format!("DESCRIPTION:{}", text(self.description)),
            format!("URL:{}", self.url),
            "END:VEVENT".to_string(),
            "END:VCALENDAR".to_string(),
        ];
        let mut out = String::new();
        for line in &lines {
            fold(line, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_escaped_folded_and_in_utc() {
        let description = format!("Seats A1, A2; order {}", "x".repeat(100));
        let ics = Event {
            uid: "order-1@cinema",
            stamp_ms: 0,
            start_ms: 1_773_516_600_000,
            summary: "Paris, Texas",
            location: "The Plaza",
            description: &description,
            url: "https://cinema.example/orders/1",
        }
        .to_ics("The Plaza");
        assert!(ics.contains("DTSTART:20260314T193000Z\r\n"), "{ics}");
        assert!(ics.contains("SUMMARY:Paris\\, Texas\r\n"));
        assert!(ics.contains("Seats A1\\, A2\\; order"));
        assert!(ics.lines().all(|l| l.len() <= 75));
        assert!(ics.contains("\r\n x"), "long lines fold");
        assert!(ics.ends_with("END:VCALENDAR\r\n"));
    }
}
