//! Best available and the single-seat rule through the ledger's calls: what
//! is held, what is refused and why, and that staff's holds are exempt.

use ledger::{Best, Config, HoldError, HoldId, Ledger, Rule, SeatRow, Seating};

/// Rows `A`, `B`, … of `seats` seats each, named `A1`, `A2`, …
fn room(rows: &[u32], aisles: &[u32]) -> Ledger {
    let names: Vec<String> = rows
        .iter()
        .enumerate()
        .flat_map(|(r, &seats)| {
            let row = (b'A' + r as u8) as char;
            (1..=seats).map(move |n| format!("{row}{n}"))
        })
        .collect();
    let config = Config {
        max_seats_per_hold: 10,
        ..Config::default()
    };
    let mut ledger = Ledger::new(config, &names, &[] as &[&str]).unwrap();
    let seating = Seating {
        rows: rows
            .iter()
            .map(|&seats| SeatRow {
                seats,
                aisles_after: aisles.to_vec(),
            })
            .collect(),
        ..Seating::default()
    };
    ledger.set_seating(Some(&seating)).unwrap();
    ledger
}

fn id(n: u32) -> HoldId {
    HoldId::new(format!("hold{n}")).unwrap()
}

fn best(count: u32, together: bool) -> Best {
    Best {
        count,
        together,
        accessible: false,
        counter: false,
        zone: None,
    }
}

fn names(ledger: &Ledger, granted: &ledger::HoldGranted) -> Vec<String> {
    granted
        .units
        .iter()
        .map(|&u| ledger.unit_name(u).unwrap().to_string())
        .collect()
}

#[test]
fn best_of_three_takes_the_best_block_left_when_the_middle_is_broken_up() {
    // Three rows of eight: the best spot is the middle, two thirds of the
    // way from A to C to the nearest half row: between B and C. B and C
    // are broken up by single sales.
    let mut ledger = room(&[8, 8, 8], &[]);
    for (n, seat) in ["B3", "B6", "C4", "C7"].iter().enumerate() {
        ledger.hold(0, &id(100 + n as u32), &[seat]).result.unwrap();
    }
    let granted = ledger.hold_best(1, &id(1), &best(3, true)).result.unwrap();
    // Left together: C1–C3 and row A. Row C is a half row from the spot
    // (1 a seat) but far to the side (49 + 25 + 9); A3–A5 and A4–A6 are
    // one and a half rows off (9 a seat) and central (9 + 1 + 1, 1 + 1 +
    // 9): 38 against 86, and the tie goes left. A2–A4 would leave A1
    // alone.
    assert_eq!(names(&ledger, &granted), ["A3", "A4", "A5"]);
    ledger.check_invariants().unwrap();
}

#[test]
fn best_of_five_where_only_blocks_of_four_are_left_names_the_largest() {
    // Aisles after seats 4 and 8: every segment has four seats.
    let mut ledger = room(&[12, 12], &[4, 8]);
    let refused = ledger.hold_best(0, &id(1), &best(5, true)).result;
    assert_eq!(refused, Err(HoldError::NoAdjacentSeats { largest: 4 }));
    // Split seats are taken block by block: four, then one.
    let granted = ledger.hold_best(0, &id(1), &best(5, false)).result.unwrap();
    assert_eq!(granted.units.len(), 5);
    ledger.check_invariants().unwrap();
}

#[test]
fn a_hold_that_leaves_one_seat_alone_is_refused_naming_it_unless_staff_make_it() {
    let mut ledger = room(&[6], &[]);
    let refused = ledger
        .hold_under(0, &id(1), &["A2", "A3"], Rule::Keep)
        .result;
    assert_eq!(
        refused,
        Err(HoldError::LeavesSingleSeat { seat: "A1".into() })
    );
    // Nothing was held.
    assert_eq!(ledger.counts().held, 0);
    ledger
        .hold_under(0, &id(1), &["A1", "A2"], Rule::Keep)
        .result
        .unwrap();
    // Staff are exempt.
    ledger.hold(0, &id(2), &["A4"]).result.unwrap();
    // A3 alone and A5–A6 are left: A5 would leave A6 alone while A3
    // leaves nobody so.
    let refused = ledger.hold_under(0, &id(3), &["A5"], Rule::Keep).result;
    assert_eq!(
        refused,
        Err(HoldError::LeavesSingleSeat { seat: "A6".into() })
    );
    ledger
        .hold_under(0, &id(3), &["A3"], Rule::Keep)
        .result
        .unwrap();
    // Now only A5–A6 are left, and no one seat of them could avoid it.
    ledger
        .hold_under(0, &id(4), &["A5"], Rule::Keep)
        .result
        .unwrap();
}

#[test]
fn seats_of_a_hold_that_ran_out_count_as_free_for_the_rule_and_the_pick() {
    let mut ledger = room(&[4], &[]);
    let ttl = Config::default().hold_ttl_ms;
    ledger.hold(0, &id(1), &["A2", "A3", "A4"]).result.unwrap();
    let refused = ledger.hold_best(ttl - 1, &id(2), &best(3, true)).result;
    assert_eq!(refused, Err(HoldError::NotEnoughSeats { available: 1 }));
    // At the expiry A2–A4 are free again, though no sweep has run. Both
    // blocks of three leave a seat alone and nothing else could not, so
    // the tie goes left.
    let granted = ledger
        .hold_best(ttl, &id(2), &best(3, true))
        .result
        .unwrap();
    assert_eq!(names(&ledger, &granted), ["A1", "A2", "A3"]);
    let refused = ledger.hold_best(ttl, &id(3), &best(2, true)).result;
    assert_eq!(refused, Err(HoldError::NotEnoughSeats { available: 1 }));
    ledger.check_invariants().unwrap();
}

#[test]
fn without_rows_best_available_takes_the_first_free_units() {
    let names = ["Site 1", "Site 2", "Site 3"];
    let mut ledger = Ledger::new(Config::default(), &names, &[] as &[&str]).unwrap();
    ledger.hold(0, &id(1), &["Site 1"]).result.unwrap();
    let granted = ledger.hold_best(0, &id(2), &best(2, true)).result.unwrap();
    assert_eq!(
        granted
            .units
            .iter()
            .map(|&u| ledger.unit_name(u).unwrap())
            .collect::<Vec<_>>(),
        ["Site 2", "Site 3"]
    );
}

/// Two rows of four, then a standing zone of `places` named `Floor§1`, …
fn room_with_floor(places: u32) -> Ledger {
    let mut names: Vec<String> = ["A", "B"]
        .iter()
        .flat_map(|row| (1..=4).map(move |n| format!("{row}{n}")))
        .collect();
    names.extend((1..=places).map(|n| ledger::place_name("Floor", n)));
    let config = Config {
        max_seats_per_hold: 10,
        ..Config::default()
    };
    let mut ledger = Ledger::new(config, &names, &[] as &[&str]).unwrap();
    let seating = Seating {
        rows: vec![
            SeatRow {
                seats: 4,
                aisles_after: vec![],
            };
            2
        ],
        zones: vec![ledger::SeatZone {
            name: "Floor".into(),
            places,
        }],
        ..Seating::default()
    };
    ledger.set_seating(Some(&seating)).unwrap();
    ledger
}

#[test]
fn a_zone_sells_by_count_to_its_capacity_and_no_further() {
    let mut ledger = room_with_floor(5);
    let floor = ledger.zone("Floor").unwrap();
    assert_eq!(ledger.zone("Balcony"), None);
    let in_floor = |count| Best {
        zone: Some(floor),
        ..best(count, false)
    };
    let first = ledger.hold_best(0, &id(1), &in_floor(3)).result.unwrap();
    assert_eq!(names(&ledger, &first), ["Floor§1", "Floor§2", "Floor§3"]);
    assert_eq!(
        ledger.hold_best(0, &id(2), &in_floor(3)).result,
        Err(HoldError::ZoneFull { available: 2 })
    );
    let last = ledger.hold_best(0, &id(3), &in_floor(2)).result.unwrap();
    assert_eq!(names(&ledger, &last), ["Floor§4", "Floor§5"]);
    assert_eq!(
        ledger.hold_best(0, &id(4), &in_floor(1)).result,
        Err(HoldError::ZoneFull { available: 0 })
    );
    // A place let go is sold again.
    ledger.release(1, &id(1)).result.unwrap();
    let again = ledger.hold_best(2, &id(5), &in_floor(3)).result.unwrap();
    assert_eq!(names(&ledger, &again), ["Floor§1", "Floor§2", "Floor§3"]);
    let unknown = Best {
        zone: Some(7),
        ..best(1, false)
    };
    assert_eq!(
        ledger.hold_best(2, &id(6), &unknown).result,
        Err(HoldError::UnknownZone)
    );
    ledger.check_invariants().unwrap();
}

#[test]
fn best_available_and_the_rule_pass_over_a_zone() {
    let mut ledger = room_with_floor(20);
    // Eight seats in the rows: best available never reaches the floor.
    let rows = ledger.hold_best(0, &id(1), &best(8, false)).result.unwrap();
    assert!(names(&ledger, &rows).iter().all(|n| !n.contains('§')));
    assert_eq!(
        ledger.hold_best(0, &id(2), &best(1, false)).result,
        Err(HoldError::NotEnoughSeats { available: 0 })
    );
    // Places named leave no seat alone: the rule is for rows.
    let mut ledger = room_with_floor(3);
    let named = ledger.hold_under(0, &id(3), &["Floor§2"], Rule::Keep);
    assert!(named.result.is_ok());
    assert_eq!(ledger::zone_of_place("Floor§2"), Some("Floor"));
    assert_eq!(ledger::zone_of_place("A1"), None);
}

#[test]
fn a_zone_of_no_places_or_two_of_one_name_is_refused() {
    let names = ["Floor§1"];
    let mut ledger = Ledger::new(Config::default(), &names, &[] as &[&str]).unwrap();
    let zone = |name: &str, places| ledger::SeatZone {
        name: name.into(),
        places,
    };
    let twice = Seating {
        zones: vec![zone("Floor", 1), zone("Floor", 0)],
        ..Seating::default()
    };
    assert!(ledger.set_seating(Some(&twice)).is_err());
    let one = Seating {
        zones: vec![zone("Floor", 1)],
        ..Seating::default()
    };
    ledger.set_seating(Some(&one)).unwrap();
    assert_eq!(ledger.zone("Floor"), Some(0));
}
