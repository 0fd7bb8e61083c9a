//! The web app's pages are static HTML in `public/`; before one is served
//! it is given the cinema's name and address for its header and the
//! cinema's time zone, which its scripts show every time in. Pure.

use mail::venue::Venue;

/// Where each page's header names the cinema.
pub const NAME_MARKER: &str = "<span data-venue>Showtime</span>";
/// Where the buyers' pages show the cinema's address, if it has one.
pub const ADDRESS_MARKER: &str = r#"<span class="venue-address" data-venue-address></span>"#;
/// Where each page learns the cinema's time zone.
pub const ZONE_MARKER: &str = r#"<meta name="venue-time-zone" content="UTC">"#;
/// Where each page learns how many decimals each currency has.
pub const MONEY_MARKER: &str = r#"<meta name="minor-units" content="">"#;

/// The page with the cinema's name, address and time zone filled in.
pub fn fill(html: &str, venue: &Venue) -> String {
    let name = html_escape::encode_text(&venue.name);
    let address = html_escape::encode_text(&venue.address);
    let zone = html_escape::encode_double_quoted_attribute(venue.time_zone());
    html.replacen(NAME_MARKER, &format!("<span data-venue>{name}</span>"), 1)
        .replacen(
            ADDRESS_MARKER,
            &format!(r#"<span class="venue-address" data-venue-address>{address}</span>"#),
            1,
        )
        .replacen(
            ZONE_MARKER,
            &format!(r#"<meta name="venue-time-zone" content="{zone}">"#),
            1,
        )
        .replacen(
            MONEY_MARKER,
            &format!(
                r#"<meta name="minor-units" content="{}">"#,
                mail::money::exceptions()
            ),
            1,
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_page_names_the_cinema_and_knows_its_time_zone() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/public");
        let mut pages = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "html") {
                let html = std::fs::read_to_string(&path).unwrap();
                assert_eq!(html.matches(NAME_MARKER).count(), 1, "{path:?}");
                assert_eq!(html.matches(ZONE_MARKER).count(), 1, "{path:?}");
                assert_eq!(html.matches(MONEY_MARKER).count(), 1, "{path:?}");
                let staff = html.contains(r#"class="staff""#) || html.contains("door.js");
                let addresses = html.matches(ADDRESS_MARKER).count();
                assert_eq!(addresses, usize::from(!staff), "{path:?}");
                pages += 1;
            }
        }
        assert!(pages >= 8, "{pages} pages");
    }

    #[test]
    fn the_name_and_address_are_escaped() {
        let venue = Venue::new("The <Plaza>", "1 High St & Co", "Europe/London").unwrap();
        let page = fill(
            &format!("<head>{ZONE_MARKER}</head><header>{NAME_MARKER}{ADDRESS_MARKER}</header>"),
            &venue,
        );
        assert_eq!(
            page,
            "<head><meta name=\"venue-time-zone\" content=\"Europe/London\"></head>\
             <header><span data-venue>The &lt;Plaza&gt;</span>\
             <span class=\"venue-address\" data-venue-address>1 High St &amp; Co</span></header>"
        );
    }
}
