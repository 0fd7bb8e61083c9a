//! Films and screens as staff describe them, checked. Pure: the routes
//! store what [`FilmRequest::check`] and [`ScreenRequest::check`] return.

use serde::{Deserialize, Serialize};

use crate::showing::Layout;

pub const MAX_FILM_TITLE_CHARS: usize = 200;
pub const MAX_RUNTIME_MINUTES: u32 = 600;
pub const MAX_CERTIFICATE_CHARS: usize = 16;
pub const MAX_SYNOPSIS_CHARS: usize = 2_000;
pub const MAX_POSTER_URL_BYTES: usize = 500;
pub const MAX_SCREEN_NAME_CHARS: usize = 60;

/// The body of `POST /api/admin/films` (and of editing one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilmRequest {
    pub title: String,
    pub runtime_minutes: Option<u32>,
    /// The rating or certificate, as the cinema's country gives it
    /// ("12A", "PG-13").
    pub certificate: Option<String>,
    pub synopsis: Option<String>,
    /// An `https://` address of the poster image.
    pub poster_url: Option<String>,
}

/// A checked film.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Film {
    pub title: String,
    pub runtime_minutes: Option<u32>,
    pub certificate: Option<String>,
    pub synopsis: Option<String>,
    pub poster_url: Option<String>,
}

/// Text staff typed: trimmed, `None` when empty, refused when too long or
/// with control characters (a synopsis may have line breaks).
fn text(
    field: &str,
    value: Option<String>,
    max_chars: usize,
    lines: bool,
) -> Result<Option<String>, String> {
    let Some(value) = value
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
    else {
        return Ok(None);
    };
    let bad = value
        .chars()
        .any(|c| c.is_control() && !(lines && (c == '\n' || c == '\r')));
    if value.chars().count() > max_chars || bad {
        return Err(format!("{field}: at most {max_chars} characters of text"));
    }
    Ok(Some(value))
}

impl FilmRequest {
    pub fn check(self) -> Result<Film, String> {
        let title = text("title", Some(self.title), MAX_FILM_TITLE_CHARS, false)?
            .ok_or_else(|| "title: the film's title".to_string())?;
        if let Some(minutes) = self.runtime_minutes {
            if !(1..=MAX_RUNTIME_MINUTES).contains(&minutes) {
                return Err(format!("runtime_minutes: 1 to {MAX_RUNTIME_MINUTES}"));
            }
        }
        let poster_url = text("poster_url", self.poster_url, MAX_POSTER_URL_BYTES, false)?;
        if let Some(url) = &poster_url {
            // Shown as an image on every buyer's page: only an https
            // address, so a page is never mixed content or a script.
            let ok = url.len() <= MAX_POSTER_URL_BYTES
                && url.starts_with("https://")
                && url.len() > "https://".len()
                && !url
                    .chars()
                    .any(|c| c.is_whitespace() || c == '"' || c == '<' || c == '>');
            if !ok {
                return Err("poster_url: an https:// address of an image".into());
            }
        }
        Ok(Film {
            title,
            runtime_minutes: self.runtime_minutes,
            certificate: text(
                "certificate",
                self.certificate,
                MAX_CERTIFICATE_CHARS,
                false,
            )?,
            synopsis: text("synopsis", self.synopsis, MAX_SYNOPSIS_CHARS, true)?,
            poster_url,
        })
    }
}

/// The body of `POST /api/admin/screens` (and of editing one).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenRequest {
    pub name: String,
    pub layout: Layout,
}

/// A checked screen: its name and a layout whose seats are valid.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Screen {
    pub name: String,
    pub layout: Layout,
    pub seat_count: usize,
}

impl ScreenRequest {
    pub fn check(self) -> Result<Screen, String> {
        let name = text("name", Some(self.name), MAX_SCREEN_NAME_CHARS, false)?
            .ok_or_else(|| "name: the screen's name".to_string())?;
        let (layout, units) = crate::showing::checked_layout(self.layout).map_err(|e| e.detail)?;
        Ok(Screen {
            name,
            layout,
            seat_count: units.for_sale(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn film(json: serde_json::Value) -> Result<Film, String> {
        serde_json::from_value::<FilmRequest>(json).unwrap().check()
    }

    #[test]
    fn a_film_is_trimmed_and_its_limits_are_named() {
        let f = film(serde_json::json!({
            "title": "  Paris, Texas ", "runtime_minutes": 145, "certificate": "15",
            "synopsis": "A man walks out of the desert.\nHe has been gone four years.",
            "poster_url": "https://images.example/paris-texas.jpg"
        }))
        .unwrap();
        assert_eq!(f.title, "Paris, Texas");
        assert!(f.synopsis.unwrap().contains('\n'));
        assert!(film(serde_json::json!({"title": " "}))
            .unwrap_err()
            .starts_with("title"));
        assert!(
            film(serde_json::json!({"title": "x", "runtime_minutes": 0}))
                .unwrap_err()
                .starts_with("runtime_minutes")
        );
        for url in [
            "http://images.example/a.jpg",
            "javascript:alert(1)",
            "https://a.example/\"onerror",
        ] {
            assert!(
                film(serde_json::json!({"title": "x", "poster_url": url}))
                    .unwrap_err()
                    .starts_with("poster_url"),
                "{url}"
            );
        }
        assert!(film(serde_json::json!({"title": "x", "certificate": "a\tb"})).is_err());
    }

    #[test]
    fn a_screen_needs_a_name_and_a_valid_layout() {
        let screen = |json| {
            serde_json::from_value::<ScreenRequest>(json)
                .unwrap()
                .check()
        };
        let ok = screen(serde_json::json!({
            "name": "Screen 1", "layout": {"rows": [{"name": "A", "seats": 6, "wheelchair": [1], "companion": [2]}]}
        }))
        .unwrap();
        assert_eq!(ok.seat_count, 6);
        assert!(screen(serde_json::json!({"name": "", "layout": {"slots": ["1"]}})).is_err());
        assert!(screen(
            serde_json::json!({"name": "S", "layout": {"rows": [{"name": "A", "seats": 0}]}})
        )
        .is_err());
    }
}
