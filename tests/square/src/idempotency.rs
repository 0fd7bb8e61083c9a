//! Square's idempotency rule: a key maps to the request it first came with
//! and the answer that request got. The same key with the same request gets
//! that answer again, byte for byte; with a different request it is refused.

use std::collections::HashMap;

use serde_json::Value;

/// Keys are scoped per endpoint: a refund may reuse a payment's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    CreatePayment,
    RefundPayment,
    CreateOrder,
    UpdateOrder,
}

/// An answer as first sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub status: u16,
    pub body: Value,
}

#[derive(Debug, PartialEq)]
pub enum Lookup {
    Fresh,
    Replay(Stored),
    Reused,
}

#[derive(Debug, PartialEq, Eq)]
pub struct IdempotencyBookFull {
    pub limit: usize,
}

#[derive(Debug)]
pub struct IdempotencyBook {
    entries: HashMap<(Scope, String), (String, Stored)>,
    /// Square does not publish how long keys are kept; the stand-in keeps
    /// them until reset, up to this many.
    limit: usize,
}

impl IdempotencyBook {
    pub fn new(limit: usize) -> Self {
        IdempotencyBook {
            entries: HashMap::new(),
            limit,
        }
    }

    pub fn lookup(&self, scope: Scope, key: &str, fingerprint: &str) -> Lookup {
        match self.entries.get(&(scope, key.to_owned())) {
            None => Lookup::Fresh,
            Some((first, stored)) if first == fingerprint => Lookup::Replay(stored.clone()),
            Some(_) => Lookup::Reused,
        }
    }

    pub fn has_room(&self) -> Result<(), IdempotencyBookFull> {
        if self.entries.len() >= self.limit {
            return Err(IdempotencyBookFull { limit: self.limit });
        }
        Ok(())
    }

    /// Callers check [`Self::has_room`] before doing the work, so recording
    /// the answer afterwards cannot fail.
    pub fn record(&mut self, scope: Scope, key: &str, fingerprint: String, stored: Stored) {
        self.entries
            .insert((scope, key.to_owned()), (fingerprint, stored));
    }
}

/// A request's identity for the reuse check: its JSON with object keys in
/// sorted order, so that the same fields sent in another order still match.
pub fn fingerprint(body: &Value) -> String {
    fn canonical(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, key) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(key.clone()).to_string());
                    out.push(':');
                    canonical(&map[key], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    canonical(item, out);
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let mut out = String::new();
    canonical(body, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn same_request_replays_and_a_different_one_is_refused() {
        let mut book = IdempotencyBook::new(10);
        let first = fingerprint(&json!({"a": 1, "b": [1, {"y": 2, "x": 1}]}));
        assert_eq!(
            book.lookup(Scope::CreatePayment, "k", &first),
            Lookup::Fresh
        );
        let stored = Stored {
            status: 200,
            body: json!({"ok": true}),
        };
        book.record(Scope::CreatePayment, "k", first, stored.clone());
        let reordered = fingerprint(&json!({"b": [1, {"x": 1, "y": 2}], "a": 1}));
        assert_eq!(
            book.lookup(Scope::CreatePayment, "k", &reordered),
            Lookup::Replay(stored)
        );
        let other = fingerprint(&json!({"a": 2}));
        assert_eq!(
            book.lookup(Scope::CreatePayment, "k", &other),
            Lookup::Reused
        );
        assert_eq!(
            book.lookup(Scope::RefundPayment, "k", &other),
            Lookup::Fresh
        );
    }
}
