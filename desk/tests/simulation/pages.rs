//! Browsers watching the seat map, as `public/showing.js` and `followMap`
//! in `public/app.js` take what the object pushes: a page read the map
//! over HTTP a moment before it opened its socket, then applies the
//! socket's first message and each push (the whole map, or the seats
//! changed since the version it shows), and reads the map afresh when a
//! push does not fit what it shows.

use serde_json::Value;

/// One watching page: the map it shows.
#[derive(Debug, Clone)]
pub struct Page {
    pub version: u64,
    pub codes: String,
}

/// What a page did with a message.
#[derive(Debug, PartialEq, Eq)]
pub enum Took {
    /// Older than or as old as the map it shows.
    Ignored,
    Applied,
    /// It did not fit: the page read the map afresh.
    Refetched,
}

impl Page {
    /// Applies `message`; `now` is the map a refetch would read.
    pub fn take(&mut self, message: &str, now: (u64, &str)) -> Result<Took, String> {
        let push: Value =
            serde_json::from_str(message).map_err(|e| format!("a push is not JSON: {e}"))?;
        let version = push["version"]
            .as_u64()
            .ok_or_else(|| format!("a push without a version: {message}"))?;
        if version <= self.version {
            return Ok(Took::Ignored);
        }
        if let Some(codes) = push["codes"].as_str() {
            self.version = version;
            self.codes = codes.to_owned();
            return Ok(Took::Applied);
        }
        let fits = push["since"].as_u64() == Some(self.version);
        let Some(changes) = push["changes"].as_array().filter(|_| fits) else {
            self.version = now.0;
            self.codes = now.1.to_owned();
            return Ok(Took::Refetched);
        };
        let mut codes: Vec<char> = self.codes.chars().collect();
        for change in changes {
            let (Some(i), Some(code)) = (
                change[0].as_u64().map(|i| i as usize),
                change[1].as_str().and_then(|c| c.chars().next()),
            ) else {
                return Err(format!("a change is not [index, code]: {message}"));
            };
            let seat = codes
                .get_mut(i)
                .ok_or_else(|| format!("a change names seat {i} of {}: {message}", self.codes))?;
            *seat = code;
        }
        self.version = version;
        self.codes = codes.into_iter().collect();
        Ok(Took::Applied)
    }
}
