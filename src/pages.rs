//! The web app's pages are static HTML in `public/`; before one is served
//! it is given the cinema's name and address for its header and the
//! cinema's time zone, which its scripts show every time in. Pure, but
//! for [`set_page_policy`], which reads the scripts' addresses from the
//! settings.

use mail::venue::Venue;
use worker::{Env, Response};

/// Where each page's header names the cinema.
pub const NAME_MARKER: &str = "<span data-venue>Showtime</span>";
/// Where the buyers' pages show the cinema's address, if it has one.
pub const ADDRESS_MARKER: &str = r#"<span class="venue-address" data-venue-address></span>"#;
/// Where each page learns the cinema's time zone.
pub const ZONE_MARKER: &str = r#"<meta name="venue-time-zone" content="UTC">"#;
/// Where each page learns how many decimals each currency has.
pub const MONEY_MARKER: &str = r#"<meta name="minor-units" content="">"#;

/// The pages' Content-Security-Policy. Scripts come only from this site,
/// Square's Web Payments SDK (with the Google Pay script it loads) and
/// Turnstile: never inline, so an injected `<script>` or `onerror=` does
/// not run. Frames may come from any HTTPS origin: a bank's 3-D Secure
/// check opens in one, and banks are many. Styles may be inline, as the
/// SDK's card form sets them. `scripts` are the SDK and the Turnstile
/// script the pages load; their origins are allowed too (the local
/// stand-in's, in development).
pub fn content_security_policy(scripts: &[&str]) -> String {
    let mut origins: Vec<String> = scripts.iter().filter_map(|url| origin_of(url)).collect();
    origins.dedup();
    let sdk = origins.join(" ");
    let square = "https://*.squarecdn.com https://*.squareup.com https://*.squareupsandbox.com";
    let turnstile = "https://challenges.cloudflare.com";
    [
        "default-src 'self'".to_string(),
        format!("script-src 'self' {sdk} {square} https://pay.google.com {turnstile}"),
        format!("connect-src 'self' {sdk} {square} https://pay.google.com {turnstile}"),
        format!("frame-src 'self' {sdk} https:"),
        "img-src 'self' data: https:".to_string(),
        "style-src 'self' 'unsafe-inline' https:".to_string(),
        "font-src 'self' data: https:".to_string(),
        "object-src 'none'".to_string(),
        "base-uri 'none'".to_string(),
        "form-action 'self'".to_string(),
        "frame-ancestors 'none'".to_string(),
    ]
    .join("; ")
    .replace("  ", " ")
}

/// Sets a page's [`content_security_policy`], for the SDK and the
/// Turnstile script this site is set up with.
pub fn set_page_policy(env: &Env, resp: &Response) -> worker::Result<()> {
    let sdk = env
        .var("SQUARE_SDK_URL")
        .map(|v| v.to_string())
        .unwrap_or_default();
    let turnstile = crate::turnstile::script_url(env);
    resp.headers().set(
        "content-security-policy",
        &content_security_policy(&[&sdk, &turnstile]),
    )
}

/// Where a request over plain HTTP for a staff or door page is sent: the
/// same address over HTTPS (the default port), since their sign-ins and
/// cookies must never cross the network in the clear. A machine's own
/// address (`npm start`, the tests) stays on HTTP, as does every other page.
pub fn https_location(scheme: &str, host: &str, path: &str, query: Option<&str>) -> Option<String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let local = host == "localhost"
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if scheme != "http" || local || !is_staff_page(path) {
        return None;
    }
    let query = query.map(|q| format!("?{q}")).unwrap_or_default();
    Some(format!("https://{host}{path}{query}"))
}

/// Whether a path is one of the staff pages (`/admin…`) or the door's
/// (`/door…`), which are served over HTTPS only.
pub fn is_staff_page(path: &str) -> bool {
    ["/admin", "/door"].iter().any(|page| {
        path.strip_prefix(page)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

/// `scheme://host[:port]` of an absolute http(s) URL.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    if !matches!(scheme, "http" | "https") {
        return None;
    }
    let host = rest.split(['/', '?', '#']).next()?;
    let fit = !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'));
    fit.then(|| format!("{scheme}://{host}"))
}

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
    fn staff_pages_over_http_move_to_https_but_on_the_machine_itself() {
        let site = "tickets.cinema.example";
        assert_eq!(
            https_location("http", site, "/admin/showings/ab12", Some("x=1")).as_deref(),
            Some("https://tickets.cinema.example/admin/showings/ab12?x=1")
        );
        assert_eq!(
            https_location("http", site, "/door", None).as_deref(),
            Some("https://tickets.cinema.example/door")
        );
        assert_eq!(https_location("https", site, "/admin", None), None);
        assert_eq!(https_location("http", site, "/showings/ab12", None), None);
        for local in ["localhost", "127.0.0.1", "127.0.0.2", "[::1]"] {
            assert_eq!(
                https_location("http", local, "/admin", None),
                None,
                "{local}"
            );
        }
    }

    #[test]
    fn staff_and_door_pages_are_known_by_path_and_their_scripts_are_not_pages() {
        for path in ["/admin", "/admin/showings/new", "/door", "/door/"] {
            assert!(is_staff_page(path), "{path}");
        }
        for path in ["/", "/admin.js", "/door-sw.js", "/doorway", "/showings/1"] {
            assert!(!is_staff_page(path), "{path}");
        }
    }

    #[test]
    fn the_policy_allows_no_inline_script_and_the_sdks_own_origin() {
        let policy = content_security_policy(&["https://sandbox.web.squarecdn.com/v1/square.js"]);
        let script = policy
            .split("; ")
            .find(|d| d.starts_with("script-src"))
            .unwrap();
        assert!(!script.contains("unsafe-inline") && !script.contains("unsafe-eval"));
        assert!(script.contains(" https://sandbox.web.squarecdn.com "));
        assert!(policy.contains("frame-ancestors 'none'"));
        let local = content_security_policy(&[
            "http://127.0.0.1:8788/v1/square.js",
            "http://127.0.0.1:8788/turnstile/v0/api.js",
        ]);
        assert!(local.contains("script-src 'self' http://127.0.0.1:8788 https:"));
        assert_eq!(origin_of("javascript:alert(1)"), None);
        assert_eq!(origin_of("https://a.example\"x/y"), None);
        assert!(!content_security_policy(&[""]).contains("  "));
    }

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
                // Every script from a file: the policy runs no inline one.
                let inline = html.matches("<script").count() - html.matches("<script src=").count();
                assert_eq!(inline, 0, "{path:?} has an inline script");
                assert!(
                    !html.contains(" onclick=") && !html.contains(" onload="),
                    "{path:?}"
                );
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
