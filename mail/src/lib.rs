//! What the cinema writes to people, decided without I/O or a clock.
//!
//! - [`address`]: the buyer's e-mail address and name, checked before
//!   either is stored or written into a message.
//! - [`venue`]: the cinema's name, address and time zone; times in its
//!   local words, and local times typed by staff read back as instants.
//! - [`money`]: amounts in a currency's minor units, written for people.
//! - [`qr`]: a ticket code as a PNG image (mail clients do not show SVG).
//! - [`ics`]: a calendar file for the showing.
//! - [`compose`]: each message, as subject, plain text, HTML and attachments.
//! - [`outcome`]: what a buyer is told of an order that ended without
//!   tickets after they were told to wait, and of a refund not made.
//! - [`outbox`]: when a message that failed is tried again, and when it is
//!   given up and shown to staff.
//!
//! The Worker reads the rows, calls these, and hands the result to the
//! platform's e-mail binding; nothing here knows that binding.

pub mod address;
pub mod compose;
pub mod ics;
pub mod money;
pub mod outbox;
pub mod outcome;
pub mod qr;
pub mod venue;

pub use compose::{Attachment, Message};
pub use venue::Venue;

/// What can go wrong while writing a message or reading a setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailError {
    /// `VENUE_TIME_ZONE` is not an IANA time zone name this build knows.
    UnknownTimeZone(String),
    /// A ticket code too long for a QR code (cannot happen with real codes).
    QrCode(String),
    /// The PNG encoder refused the image (cannot happen with a QR bitmap).
    Image(String),
}

impl std::fmt::Display for MailError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MailError::UnknownTimeZone(name) => {
                write!(
                    f,
                    "unknown time zone {name:?}: give an IANA name like Europe/London"
                )
            }
            MailError::QrCode(e) => write!(f, "QR code: {e}"),
            MailError::Image(e) => write!(f, "PNG image: {e}"),
        }
    }
}

impl std::error::Error for MailError {}
