//! The mail a stack sent, as wrangler dev records it: nothing is delivered;
//! each message's parts are written to files and their paths logged after
//! "send_email binding called with MessageBuilder:". This reads that log.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One message the Worker handed to its `EMAIL` binding.
#[derive(Debug, Clone)]
pub struct SentMail {
    pub from: String,
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// (file name, disposition, bytes) of each attachment.
    pub attachments: Vec<(String, String, Vec<u8>)>,
}

const MARK: &str = "send_email binding called with MessageBuilder:";

fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(PathBuf::from(path.trim())).unwrap_or_default()
}

/// Every message in a dev server's log, oldest first.
pub fn parse(log: &str) -> Vec<SentMail> {
    let log = strip_ansi(log);
    log.split(MARK)
        .skip(1)
        .map(|block| {
            let mut mail = SentMail {
                from: String::new(),
                to: String::new(),
                subject: String::new(),
                text: String::new(),
                html: String::new(),
                attachments: Vec::new(),
            };
            for line in block.lines().skip(1) {
                if line.starts_with('[') {
                    break;
                }
                if let Some(v) = line.strip_prefix("From: ") {
                    mail.from = v.to_string();
                } else if let Some(v) = line.strip_prefix("To: ") {
                    mail.to = v.to_string();
                } else if let Some(v) = line.strip_prefix("Subject: ") {
                    mail.subject = v.to_string();
                } else if let Some(v) = line.strip_prefix("Text: ") {
                    mail.text = String::from_utf8_lossy(&read(v)).into_owned();
                } else if let Some(v) = line.strip_prefix("HTML: ") {
                    mail.html = String::from_utf8_lossy(&read(v)).into_owned();
                } else if let Some(v) = line.strip_prefix("Attachment (") {
                    let (disposition, rest) = v.split_once("): ").unwrap_or_default();
                    let (name, path) = rest.split_once(" -> ").unwrap_or_default();
                    mail.attachments
                        .push((name.to_string(), disposition.to_string(), read(path)));
                }
            }
            mail
        })
        .collect()
}

/// Waits up to `timeout` for `count` messages to `to`, and answers them.
pub fn wait_for(
    log: impl Fn() -> String,
    to: &str,
    count: usize,
    timeout: Duration,
) -> Vec<SentMail> {
    let deadline = Instant::now() + timeout;
    loop {
        let mails: Vec<SentMail> = parse(&log()).into_iter().filter(|m| m.to == to).collect();
        if mails.len() >= count || Instant::now() > deadline {
            return mails;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}
