//! The rule and the pick against brute force on small rooms: every subset
//! of a row's free seats is tried, so the oracle has no cleverness to share
//! with the code it checks.

use super::*;
use proptest::collection::vec;
use proptest::prelude::*;

/// A small room: rows of 1 to 8 seats with aisles, some seats taken.
#[derive(Clone, Debug)]
struct Small {
    seating: Seating,
    available: Vec<bool>,
    accessible: Vec<bool>,
}

fn names(units: usize) -> Vec<String> {
    (0..units).map(|u| format!("u{u}")).collect()
}

/// The room of these rows, its units named `u0`, `u1`, …
fn room(seating: &Seating) -> Room {
    let units = seating.rows.iter().map(|r| r.seats as usize).sum();
    let names = names(units);
    let find = |name: &str| {
        names
            .iter()
            .position(|n| n == name)
            .map(|p| UnitId(p as u32))
    };
    Room::new(seating, find, units).expect("a generated room is valid")
}

fn room_of(small: &Small) -> Room {
    room(&small.seating)
}

fn rows(seats: &[u32]) -> Seating {
    Seating {
        rows: seats
            .iter()
            .map(|&seats| SeatRow {
                seats,
                aisles_after: vec![],
            })
            .collect(),
        ..Seating::default()
    }
}

fn small_room() -> impl Strategy<Value = Small> {
    vec((1u32..=8, vec(1u32..8, 0..3)), 1..4)
        .prop_flat_map(|rows| {
            let units: u32 = rows.iter().map(|(seats, _)| seats).sum();
            let n = units as usize;
            (
                Just(rows),
                vec(proptest::bool::weighted(0.7), n),
                vec(proptest::bool::weighted(0.15), n),
                proptest::option::of(0..n),
                any::<bool>(),
            )
        })
        .prop_map(|(rows, available, accessible, best, allow)| {
            let rows: Vec<SeatRow> = rows
                .into_iter()
                .map(|(seats, aisles)| SeatRow {
                    seats,
                    aisles_after: aisles.into_iter().filter(|&a| a < seats).collect(),
                })
                .collect();
            let names = names(available.len());
            Small {
                seating: Seating {
                    rows,
                    best_seat: best.map(|b| names[b].clone()),
                    allow_single_seats: allow,
                    accessible: (0..accessible.len())
                        .filter(|&u| accessible[u])
                        .map(|u| names[u].clone())
                        .collect(),
                    counter_only: Vec::new(),
                    zones: Vec::new(),
                },
                available,
                accessible,
            }
        })
}

/// Each row's units, and each seat's segment, from the layout alone.
fn segments_of(seating: &Seating) -> Vec<Vec<Vec<usize>>> {
    let mut start = 0;
    let mut rows = Vec::new();
    for row in &seating.rows {
        let mut segments = vec![Vec::new()];
        for n in 0..row.seats as usize {
            segments.last_mut().unwrap().push(start + n);
            if row.aisles_after.contains(&(n as u32 + 1)) {
                segments.push(Vec::new());
            }
        }
        start += row.seats as usize;
        rows.push(segments);
    }
    rows
}

/// Whether taking `taken` from a row leaves a seat alone that was not.
fn strands_oracle(row: &[Vec<usize>], free: &[bool], taken: &[usize]) -> bool {
    let mut after = free.to_vec();
    for &t in taken {
        after[t] = false;
    }
    row.iter().any(|segment| {
        let alone_after: Vec<usize> = segment
            .iter()
            .copied()
            .filter(|&u| {
                let i = segment.iter().position(|&s| s == u).unwrap();
                let left = i > 0 && after[segment[i - 1]];
                let right = i + 1 < segment.len() && after[segment[i + 1]];
                after[u] && !left && !right
            })
            .collect();
        alone_after.into_iter().any(|u| {
            let i = segment.iter().position(|&s| s == u).unwrap();
            let left = i > 0 && free[segment[i - 1]];
            let right = i + 1 < segment.len() && free[segment[i + 1]];
            left || right
        })
    })
}

/// Every `k`-subset of the row's free seats.
fn subsets(row: &[Vec<usize>], free: &[bool], k: usize) -> Vec<Vec<usize>> {
    let seats: Vec<usize> = row.iter().flatten().copied().filter(|&u| free[u]).collect();
    (0u32..1 << seats.len())
        .filter(|mask| mask.count_ones() as usize == k)
        .map(|mask| {
            (0..seats.len())
                .filter(|i| mask >> i & 1 == 1)
                .map(|i| seats[i])
                .collect()
        })
        .collect()
}

fn legal_oracle(seating: &Seating, free: &[bool], taken: &[usize]) -> bool {
    if seating.allow_single_seats {
        return true;
    }
    segments_of(seating).iter().all(|row| {
        let in_row: Vec<usize> = taken
            .iter()
            .copied()
            .filter(|t| row.iter().flatten().any(|u| u == t))
            .collect();
        !strands_oracle(row, free, &in_row)
            || alternatives(row, free, &in_row)
                .iter()
                .all(|choice| strands_oracle(row, free, choice))
    })
}

/// What else the buyer of `taken` could have had in its row: as many
/// seats side by side if `taken` is one block, else any as many.
fn alternatives(row: &[Vec<usize>], free: &[bool], taken: &[usize]) -> Vec<Vec<usize>> {
    let k = taken.len();
    let mut sorted = taken.to_vec();
    sorted.sort_unstable();
    let one_block = k > 0
        && row
            .iter()
            .any(|segment| segment.windows(k).any(|w| w == sorted));
    if !one_block {
        return subsets(row, free, k);
    }
    row.iter()
        .flat_map(|segment| segment.windows(k))
        .filter(|w| w.iter().all(|&u| free[u]))
        .map(<[usize]>::to_vec)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn the_rule_agrees_with_trying_every_choice(small in small_room(), pick in vec(any::<u8>(), 1..5)) {
        let room = room_of(&small);
        let free = room.free(small.available.clone(), None).free;
        let free_units: Vec<usize> = (0..free.len()).filter(|&u| free[u]).collect();
        prop_assume!(!free_units.is_empty());
        let mut taken: Vec<usize> = pick.iter().map(|&p| free_units[p as usize % free_units.len()]).collect();
        taken.sort_unstable();
        taken.dedup();
        let verdict = room.check(|u| free[u], &taken);
        prop_assert_eq!(verdict.is_ok(), legal_oracle(&small.seating, &free, &taken), "taken {:?}", taken);
        if let Err(seat) = verdict {
            // The seat named is one the hold leaves alone.
            prop_assert!(free[seat] && !taken.contains(&seat));
            let segments = segments_of(&small.seating);
            let segment = segments.iter().flatten().find(|s| s.contains(&seat)).unwrap();
            let i = segment.iter().position(|&s| s == seat).unwrap();
            let neighbour_free = |j: Option<usize>| j.and_then(|j| segment.get(j)).is_some_and(|&u| free[u] && !taken.contains(&u));
            prop_assert!(!neighbour_free(i.checked_sub(1)) && !neighbour_free(Some(i + 1)));
        }
    }

    #[test]
    fn best_together_is_the_best_legal_block_of_all(small in small_room(), k in 1usize..5) {
        let room = room_of(&small);
        let best = Best { count: k as u32, together: true, accessible: false, counter: false, zone: None };
        let free = room.free(small.available.clone(), Some(&best));
        let mut oracle: Option<(u64, usize, usize)> = None;
        for (r, row) in segments_of(&small.seating).iter().enumerate() {
            for segment in row {
                for window in segment.windows(k) {
                    if !window.iter().all(|&u| free.eligible[u]) {
                        continue;
                    }
                    if !legal_oracle(&small.seating, &free.free, window) {
                        continue;
                    }
                    let score: u64 = window.iter().map(|&u| room.score[u]).sum();
                    let key = (score, r, window[0]);
                    if oracle.is_none_or(|o| key < o) {
                        oracle = Some(key);
                    }
                }
            }
        }
        let picked = room.pick(free, &best);
        match oracle {
            Some((_, _, start)) => prop_assert_eq!(picked, Ok((start..start + k).collect::<Vec<_>>())),
            None => prop_assert!(picked.is_err()),
        }
    }

    #[test]
    fn split_seats_are_free_eligible_and_as_many_as_asked(small in small_room(), k in 1usize..6) {
        let room = room_of(&small);
        let best = Best { count: k as u32, together: false, accessible: true, counter: false, zone: None };
        let free = room.free(small.available.clone(), Some(&best));
        if let Ok(picked) = room.pick(Free { free: free.free.clone(), eligible: free.eligible.clone() }, &best) {
            prop_assert_eq!(picked.len(), k);
            prop_assert!(picked.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(picked.iter().all(|&u| free.eligible[u]));
        }
        // Accessible seats only when asked.
        let plain = Best { accessible: false, ..best };
        let free = room.free(small.available.clone(), Some(&plain));
        if let Ok(picked) = room.pick(free, &plain) {
            prop_assert!(picked.iter().all(|&u| !small.accessible[u]));
        }
    }

    /// Random legal holds, of random sizes in random rows, until no seat
    /// is left: at every step a legal choice of any size a row can still
    /// give exists, so the room always sells out.
    #[test]
    fn a_room_can_always_be_sold_out(small in small_room(), draws in vec(any::<u16>(), 64)) {
        let room = room_of(&small);
        let mut free = room.free(small.available.clone(), None).free;
        let segments = segments_of(&small.seating);
        let mut draws = draws.into_iter().cycle();
        while free.iter().any(|&f| f) {
            let rows: Vec<&Vec<Vec<usize>>> = segments.iter().filter(|row| row.iter().flatten().any(|&u| free[u])).collect();
            let row = rows[draws.next().unwrap() as usize % rows.len()];
            let in_row = row.iter().flatten().filter(|&&u| free[u]).count();
            let k = 1 + draws.next().unwrap() as usize % in_row.min(4);
            let legal: Vec<Vec<usize>> = subsets(row, &free, k)
                .into_iter()
                .filter(|choice| room.check(|u| free[u], choice).is_ok())
                .collect();
            prop_assert!(!legal.is_empty(), "no legal {k} seats in a row with {in_row} free");
            for &u in &legal[draws.next().unwrap() as usize % legal.len()] {
                free[u] = false;
            }
        }
    }
}

#[test]
fn the_best_spot_is_two_thirds_back_in_the_middle() {
    let room = room(&rows(&[9; 7]));
    let free = room.free(vec![true; 63], None);
    let best = Best {
        count: 1,
        together: true,
        accessible: false,
        counter: false,
        zone: None,
    };
    // Row 4 of 0..=6 is two thirds back; seat 4 of 0..=8 its centre.
    assert_eq!(room.pick(free, &best), Ok(vec![4 * 9 + 4]));
}

#[test]
fn a_seat_may_be_left_alone_only_where_nothing_else_would_do() {
    // Free runs of 2 and 2: no single seat can be taken without leaving
    // one alone, so any one is let through.
    let room5 = room(&rows(&[5]));
    let free = [true, true, false, true, true];
    assert_eq!(room5.check(|u| free[u], &[0]), Ok(()));
    // With a run of 3 in the row, a seat at its end is the way.
    let room6 = room(&rows(&[6]));
    let free = [true, true, false, true, true, true];
    assert_eq!(room6.check(|u| free[u], &[0]), Err(1));
    assert_eq!(room6.check(|u| free[u], &[4]), Err(3));
    assert_eq!(room6.check(|u| free[u], &[3]), Ok(()));
    // Runs of 3 and 3: two seats apart would leave none alone, but two
    // side by side cannot, so a pair is let through.
    let room7 = room(&rows(&[7]));
    let free = [true, true, true, false, true, true, true];
    assert_eq!(room7.check(|u| free[u], &[1, 2]), Ok(()));
    assert_eq!(room7.check(|u| free[u], &[1, 4]), Err(0));
    assert_eq!(room7.check(|u| free[u], &[0, 4]), Ok(()));
}
