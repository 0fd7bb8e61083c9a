//! The rooms the benchmark sells: rows of numbered seats, as a cinema's
//! layout, from the 16-seat demo room to the 20,000-seat limit.

use serde_json::{json, Value};

#[derive(Debug, Clone, Copy)]
pub struct Room {
    pub rows: u32,
    pub per_row: u32,
}

impl Room {
    pub const fn new(rows: u32, per_row: u32) -> Room {
        Room { rows, per_row }
    }

    pub fn seats(&self) -> u32 {
        self.rows * self.per_row
    }

    /// The admin API's body for a showing in this room, far in the future,
    /// with the default 5-minute holds and 4 seats per hold. Single seats
    /// may be left: the clients pick seats at random, as the reference
    /// does, and the rule would refuse many of their picks, so a hold here
    /// is measured as the reference's booking is (the rule's own cost is
    /// the ledger's `holds` bench).
    pub fn showing(&self, title: &str) -> Value {
        let rows: Vec<Value> = (0..self.rows)
            .map(|r| json!({"name": row_name(r), "seats": self.per_row}))
            .collect();
        json!({
            "title": title,
            "starts_at": "2099-12-05T19:30:00Z",
            "price": {"amount": 1200, "currency": "USD"},
            "layout": {"rows": rows, "allow_single_seats": true},
        })
    }

    /// Two adjacent seats anywhere in the room, picked at random as a
    /// couple picks them, without looking at what others hold.
    pub fn random_pair(&self) -> [String; 2] {
        let row = fastrand::u32(0..self.rows);
        let first = fastrand::u32(1..self.per_row);
        self.pair(row, first)
    }

    /// Seat `seat` (1-based) of row `row` (0-based): `B7`.
    pub fn seat_name(&self, row: u32, seat: u32) -> String {
        format!("{}{seat}", row_name(row))
    }

    /// Seats `first` and `first + 1` of row `row` (0-based).
    pub fn pair(&self, row: u32, first: u32) -> [String; 2] {
        let name = row_name(row);
        [format!("{name}{first}"), format!("{name}{}", first + 1)]
    }
}

/// Row names as cinemas letter them: A … Z, then AA, AB, … (letters only,
/// so that row plus seat number never reads as another seat).
fn row_name(mut index: u32) -> String {
    let mut name = Vec::new();
    loop {
        name.push(b'A' + (index % 26) as u8);
        if index < 26 {
            break;
        }
        index = index / 26 - 1;
    }
    name.reverse();
    String::from_utf8(name).expect("ASCII letters")
}

/// A hold body naming these seats.
pub fn hold_body(seats: &[String]) -> String {
    json!({ "seats": seats }).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_lettered_like_a_spreadsheet() {
        let names: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 99].map(row_name).into();
        assert_eq!(names, ["A", "B", "Z", "AA", "AB", "AZ", "BA", "CV"]);
    }

    #[test]
    fn a_pair_is_two_adjacent_seats_of_one_row() {
        let room = Room::new(2, 8);
        assert_eq!(room.pair(1, 7), ["B7", "B8"]);
        for _ in 0..100 {
            let [a, b] = room.random_pair();
            assert_eq!(a[..1], b[..1]);
            let (a, b): (u32, u32) = (a[1..].parse().unwrap(), b[1..].parse().unwrap());
            assert!(a >= 1 && b == a + 1 && b <= 8);
        }
    }
}
