//! A log that keeps only its newest entries, so a long demo cannot grow the
//! stand-in's memory without bound.

use std::collections::VecDeque;

use serde::Serialize;

#[derive(Debug)]
pub struct Ring<T> {
    items: VecDeque<T>,
    capacity: usize,
    /// How many old entries were let go, so a reader knows the log is partial.
    forgotten: u64,
}

impl<T: Serialize> Ring<T> {
    pub fn new(capacity: usize) -> Self {
        Ring {
            items: VecDeque::new(),
            capacity: capacity.max(1),
            forgotten: 0,
        }
    }

    pub fn push(&mut self, item: T) {
        if self.items.len() == self.capacity {
            self.items.pop_front();
            self.forgotten += 1;
        }
        self.items.push_back(item);
    }

    pub fn items(&self) -> impl Iterator<Item = &T> {
        self.items.iter()
    }

    pub fn forgotten(&self) -> u64 {
        self.forgotten
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest() {
        let mut ring = Ring::new(2);
        for n in 1..=3 {
            ring.push(n);
        }
        assert_eq!(ring.items().copied().collect::<Vec<_>>(), [2, 3]);
        assert_eq!(ring.forgotten(), 1);
    }
}
