//! What the cinema accepts as a buyer's e-mail address and name, before
//! either is stored or written into a message.
//!
//! An address is an RFC 5322 `addr-spec` in its plainest form: a
//! dot-atom, `@`, and a domain name of at least two labels. Everything
//! else the RFC allows is refused on purpose: a display name
//! (`Ana <ana@example.com>`), a quoted local part (`"a,b"@example.com`),
//! a domain literal (`ana@[192.0.2.1]`), comments and folding white
//! space. None of them is what a buyer types, and each lets one field
//! name more than one mailbox or hide one (commas and semicolons separate
//! recipients in the headers of many mail programs). Non-ASCII addresses
//! (RFC 6532) are refused too: not every mail path carries them.
//!
//! A name may be any text but control characters and Unicode format
//! characters (general category Cf), which draw nothing and can turn the
//! text around them: a right-to-left override (U+202E) before
//! `gro.elpmaxe` makes it read `example.org` on a ticket, a receipt or a
//! staff list.

/// RFC 5321's limits: 64 bytes before the `@`, 255 after (in practice
/// 253 as a name), and 254 for a whole path.
const MAX_LOCAL_BYTES: usize = 64;
const MAX_DOMAIN_BYTES: usize = 253;
const MAX_ADDRESS_BYTES: usize = 254;
const MAX_LABEL_BYTES: usize = 63;

/// RFC 5322 `atext`: what a dot-atom's atoms are made of.
fn is_atext(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&b)
}

/// `atom *("." atom)`: no dot first, last or twice in a row.
fn is_dot_atom(text: &str) -> bool {
    !text.is_empty()
        && text
            .split('.')
            .all(|atom| !atom.is_empty() && atom.bytes().all(is_atext))
}

/// A host name: labels of letters, digits and inner hyphens, at least two
/// of them, the last not all digits (so it is not an IP address).
fn is_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    let label_ok = |label: &&str| {
        (1..=MAX_LABEL_BYTES).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    domain.len() <= MAX_DOMAIN_BYTES
        && labels.len() >= 2
        && labels.iter().all(label_ok)
        && !labels
            .last()
            .is_some_and(|tld| tld.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `address` is one plain mailbox, `local@domain.tld`, as above.
pub fn is_addr_spec(address: &str) -> bool {
    let Some((local, domain)) = address.rsplit_once('@') else {
        return false;
    };
    address.len() <= MAX_ADDRESS_BYTES
        && local.len() <= MAX_LOCAL_BYTES
        && is_dot_atom(local)
        && is_domain(domain)
}

/// Unicode's format characters (general category Cf, Unicode 15.1), but
/// the zero-width joiner and non-joiner: Persian, Indic and other scripts
/// need those inside words, and neither reorders text.
const FORMAT_CHARACTERS: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200B}'),
    ('\u{200E}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Whether `c` is a format character refused in names.
pub fn is_format_character(c: char) -> bool {
    FORMAT_CHARACTERS
        .iter()
        .any(|(first, last)| (*first..=*last).contains(&c))
}

/// Whether a name has only characters that draw as themselves: no control
/// character and no format character.
pub fn is_plain_name(name: &str) -> bool {
    !name
        .chars()
        .any(|c| c.is_control() || is_format_character(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_addresses_pass() {
        for address in [
            "ana@example.com",
            "ana.lopez+films@mail.example.co.uk",
            "o'brien@example.ie",
            "x_y-z!#$%&*/=?^`{|}~@a-b.example",
            "1@2.example",
        ] {
            assert!(is_addr_spec(address), "{address}");
        }
    }

    #[test]
    fn display_names_lists_quotes_and_literals_are_refused() {
        for address in [
            "Ana <ana@example.com>",
            "ana@example.com, bob@example.com",
            "ana@example.com;bob@example.com",
            "ana@example.com,",
            "\"a,b\"@example.com",
            "\"ana\"@example.com",
            "ana@[192.0.2.1]",
            "ana@192.0.2.1",
            "ana (films)@example.com",
            "ana @example.com",
            "ana@example.com\r\nBcc: eve@example.com",
            "ana@localhost",
            "ana@@example.com",
            ".ana@example.com",
            "ana.@example.com",
            "an..a@example.com",
            "ana@-example.com",
            "ana@example-.com",
            "ana@example..com",
            "ana@example.com.",
            "@example.com",
            "ana@",
            "ana",
            "",
            "åsa@example.com",
            "ana@exämple.com",
        ] {
            assert!(!is_addr_spec(address), "{address:?}");
        }
    }

    #[test]
    fn lengths_are_rfc_5321_s() {
        let local = "a".repeat(64);
        assert!(is_addr_spec(&format!("{local}@example.com")));
        assert!(!is_addr_spec(&format!("a{local}@example.com")));
        let label = "b".repeat(63);
        assert!(is_addr_spec(&format!("ana@{label}.com")));
        assert!(!is_addr_spec(&format!("ana@b{label}.com")));
        let long = format!("ana@{}.com", vec!["c".repeat(60); 5].join("."));
        assert!(!is_addr_spec(&long));
    }

    #[test]
    fn names_with_bidi_overrides_or_invisible_characters_are_refused() {
        assert!(is_plain_name("Ana López"));
        assert!(is_plain_name("محمد رضا"));
        assert!(is_plain_name("می\u{200C}خواهم"), "a zero-width non-joiner");
        assert!(
            is_plain_name("👩\u{200D}👩\u{200D}👧"),
            "a zero-width joiner"
        );
        for name in [
            "Ana\u{202E}moc.live",
            "Ana\u{2066}x\u{2069}",
            "Ana\u{200F}",
            "Ana\u{061C}",
            "A\u{200B}na",
            "\u{FEFF}Ana",
            "An\u{00AD}a",
            "Ana\u{E0041}",
            "Ana\u{7}",
            "Ana\nBcc",
        ] {
            assert!(!is_plain_name(name), "{name:?}");
        }
    }
}
