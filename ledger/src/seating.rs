//! Where the units are, for a room of rows: picking the best free seats,
//! and the rule that a hold may not leave one seat alone.
//!
//! A room is rows from the screen back, each a run of consecutive units
//! left to right, cut by aisles into segments. Nothing here knows what a
//! seat is sold for or to whom: callers pass which units are free.
//!
//! **The single-seat rule.** A free run is a maximal run of free seats
//! within a segment. Taking seats may not leave a piece of one seat out of
//! a free run that had two or more: that seat, between taken seats or
//! between a taken seat and a row's end or aisle, would sell to nobody
//! sitting with anyone. The rule is judged row by row, and a row where no
//! other choice of the same kind could avoid it is let through, so the
//! rule can never make a room unsellable, nor refuse people who sit
//! together where only seats apart would do:
//! - seats side by side, `k` of them: another block of `k` in the row
//!   avoids it if some free run is of length `k` or of `k + 2` or more;
//! - seats apart: in a row whose runs are of lengths `L1..Lm`, `j` seats
//!   can be taken from a run of length `L` without leaving one alone for
//!   `j` in `{0, L}` and `1..=L-2`, and `k` seats from the row if some
//!   choice of one such `j` per run adds to `k`.
//!
//! **Best available.** Each seat scores the squared distance from its
//! place to the room's best spot, in half-seat units across (an aisle is
//! as wide as a seat, and each row is centred) and half-row units from
//! front to back, a row as deep as a seat is wide. The best spot is a named
//! seat, or by default the centre of the row two thirds of the way from the
//! front row to the back one (to the nearest half row). A block's score is
//! the sum of its seats'; the lowest wins, a tie going to the front row,
//! then to the left.
//!
//! **General admission.** A zone (a standing floor, a lawn, a class of 20)
//! is places sold by count, none with a seat: its places are units after
//! every row's, named [`place_name`]. Best available and the rule never
//! look at them; a count for a zone takes its first free places.

use crate::ids::UnitId;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Most seats one pick or check can be asked about: the rule's count of
/// reachable sizes is one machine word.
pub const MAX_PICK: usize = 63;

/// What joins a zone's name to a place's number in the place's unit name:
/// a character no seat or zone name may have, so a ticket's unit alone
/// says it is for a zone and which.
pub const PLACE_MARK: char = '§';

/// Longest zone name, in bytes: with the mark and a place's number its
/// places' names stay within a unit name's 32 bytes.
pub const MAX_ZONE_NAME_BYTES: usize = 20;

/// The unit name of place `number` (from 1) of zone `zone`.
pub fn place_name(zone: &str, number: u32) -> String {
    format!("{zone}{PLACE_MARK}{number}")
}

/// The zone a unit is a place of; `None` for a seat.
pub fn zone_of_place(unit: &str) -> Option<&str> {
    unit.split_once(PLACE_MARK).map(|(zone, _)| zone)
}

/// A room of rows, as a layout describes it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seating {
    /// From the screen back. The rows' seats are the ledger's units in
    /// order: the first row's first, left to right, then the next row's.
    pub rows: Vec<SeatRow>,
    /// The seat at the room's best spot; unset, the centre of the row two
    /// thirds of the way back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best_seat: Option<String>,
    /// Holds may leave one seat alone (the rule is off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub allow_single_seats: bool,
    /// Seats best available passes over unless asked for them (wheelchair
    /// spaces and their companions' seats).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accessible: Vec<String>,
    /// Seats sold only at the counter: never picked online, and to the
    /// rule online as good as an aisle.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counter_only: Vec<String>,
    /// General admission zones, whose places are the units after the
    /// rows', zone by zone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<SeatZone>,
}

/// A general admission zone: how many places, sold by count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatZone {
    pub name: String,
    pub places: u32,
}

/// One row: how many seats, and after which of them (counted from 1) an
/// aisle runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatRow {
    pub seats: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aisles_after: Vec<u32>,
}

/// Why a room's rows were refused.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SeatingError {
    /// The rows' seats and the zones' places add up to another number
    /// than the units.
    RowsDoNotCoverUnits {
        seats: u64,
        units: usize,
    },
    EmptyRow {
        row: usize,
    },
    /// An aisle after the last seat of its row, or after seat 0.
    AisleOutsideRow {
        row: usize,
        after: u32,
    },
    /// A seat named as best, accessible or counter-only that is no unit.
    UnknownSeat {
        name: String,
    },
    /// A zone of no places, or two zones of one name.
    EmptyZone {
        zone: String,
    },
    DuplicateZone {
        zone: String,
    },
}

impl fmt::Display for SeatingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SeatingError::RowsDoNotCoverUnits { seats, units } => {
                write!(
                    f,
                    "the rows have {seats} seats but the showing {units} units"
                )
            }
            SeatingError::EmptyRow { row } => write!(f, "row {row} has no seats"),
            SeatingError::AisleOutsideRow { row, after } => {
                write!(f, "row {row}: no aisle can follow seat {after}")
            }
            SeatingError::UnknownSeat { name } => write!(f, "no seat {name:?}"),
            SeatingError::EmptyZone { zone } => write!(f, "zone {zone:?} has no places"),
            SeatingError::DuplicateZone { zone } => write!(f, "zone {zone:?} appears twice"),
        }
    }
}

impl std::error::Error for SeatingError {}

/// What a buyer or the box office asks best available for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Best {
    pub count: u32,
    /// Seats side by side in one row, or refused; false accepts seats in
    /// blocks, the largest first.
    pub together: bool,
    /// Wheelchair spaces and companions' seats may be picked.
    pub accessible: bool,
    /// Asked at the counter: counter-only seats count as any seat.
    pub counter: bool,
    /// Places in this zone (its index in [`Seating::zones`]) instead of
    /// seats: the first free ones.
    pub zone: Option<u32>,
}

/// Which seats count as free for a call: `free` for the rule, `eligible`
/// (a subset) for picking.
pub(crate) struct Free {
    pub free: Vec<bool>,
    pub eligible: Vec<bool>,
}

/// A row, compiled: its units `start..end` and where each segment starts.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RowPlan {
    start: usize,
    end: usize,
    /// Absolute unit index of each segment's first seat, the row's first
    /// included, ascending.
    segments: Vec<usize>,
}

impl RowPlan {
    /// Each segment as `start..end`.
    fn segments(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let ends = self.segments.iter().skip(1).copied().chain([self.end]);
        self.segments.iter().copied().zip(ends)
    }

    /// The free runs of the row: maximal runs of free seats in a segment.
    fn runs<'a, F: Fn(usize) -> bool + Copy + 'a>(
        &'a self,
        free: F,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.segments().flat_map(move |(start, end)| {
            let mut at = start;
            std::iter::from_fn(move || {
                while at < end && !free(at) {
                    at += 1;
                }
                if at >= end {
                    return None;
                }
                let run_start = at;
                while at < end && free(at) {
                    at += 1;
                }
                Some((run_start, at))
            })
        })
    }

    /// Whether some choice of `k` of the row's free seats leaves no seat
    /// alone that was not alone before.
    fn avoidable(&self, free: impl Fn(usize) -> bool + Copy, k: usize) -> bool {
        debug_assert!(k <= MAX_PICK);
        let full = if k >= 63 {
            u64::MAX
        } else {
            (1u64 << (k + 1)) - 1
        };
        let mut reach = 1u64;
        for (start, end) in self.runs(free) {
            let length = end - start;
            let mut next = reach;
            for j in 1..=length.min(k) {
                if length >= 2 && j == length - 1 {
                    continue;
                }
                next |= reach << j;
            }
            reach = next & full;
            if reach >> k & 1 == 1 {
                return true;
            }
        }
        reach >> k & 1 == 1
    }

    /// Whether some `k` free seats side by side leave no seat alone that
    /// was not alone before: a run of exactly `k`, or of `k + 2` or more.
    fn block_avoidable(&self, free: impl Fn(usize) -> bool + Copy, k: usize) -> bool {
        self.runs(free).any(|(start, end)| {
            let length = end - start;
            length >= k && length - k != 1
        })
    }

    /// Whether `taken`, ascending, is one block of free seats side by side.
    fn one_block(&self, free: impl Fn(usize) -> bool + Copy, taken: &[usize]) -> bool {
        let (Some(&first), Some(&last)) = (taken.first(), taken.last()) else {
            return false;
        };
        last - first + 1 == taken.len()
            && self
                .runs(free)
                .any(|(start, end)| start <= first && last < end)
    }

    /// The first seat that taking `taken` (free seats of this row, in any
    /// order) leaves alone in a run that had two or more.
    fn stranded(&self, free: impl Fn(usize) -> bool + Copy, taken: &[usize]) -> Option<usize> {
        for (start, end) in self.runs(free) {
            if end - start < 2 || !taken.iter().any(|&t| (start..end).contains(&t)) {
                continue;
            }
            let mut piece = 0;
            for at in start..end {
                if taken.contains(&at) {
                    if piece == 1 {
                        return Some(at - 1);
                    }
                    piece = 0;
                } else {
                    piece += 1;
                }
            }
            if piece == 1 {
                return Some(end - 1);
            }
        }
        None
    }
}

/// A room, compiled for one ledger: rows, each unit's row and score, and
/// its marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Room {
    rows: Vec<RowPlan>,
    row_of: Vec<u32>,
    score: Vec<u64>,
    accessible: Vec<bool>,
    counter_only: Vec<bool>,
    rule: bool,
    /// Each zone's name and its places, `start..end`.
    zones: Vec<(String, usize, usize)>,
}

/// `row_of` for a zone's place, which is in no row.
const NO_ROW: u32 = u32::MAX;

impl Room {
    pub(crate) fn new(
        seating: &Seating,
        unit_id: impl Fn(&str) -> Option<UnitId>,
        units: usize,
    ) -> Result<Room, SeatingError> {
        let seats: u64 = seating.rows.iter().map(|r| u64::from(r.seats)).sum::<u64>()
            + seating
                .zones
                .iter()
                .map(|z| u64::from(z.places))
                .sum::<u64>();
        if seats != units as u64 {
            return Err(SeatingError::RowsDoNotCoverUnits { seats, units });
        }
        let find = |name: &str| {
            unit_id(name)
                .map(|u| u.index())
                .ok_or_else(|| SeatingError::UnknownSeat {
                    name: name.to_owned(),
                })
        };
        let marks = |names: &[String]| -> Result<Vec<bool>, SeatingError> {
            let mut marked = vec![false; units];
            for name in names {
                marked[find(name)?] = true;
            }
            Ok(marked)
        };
        let accessible = marks(&seating.accessible)?;
        let counter_only = marks(&seating.counter_only)?;
        let mut rows = Vec::with_capacity(seating.rows.len());
        let mut row_of = vec![NO_ROW; units];
        // Half-seat positions across, centred on each row.
        let mut across = vec![0i64; units];
        let mut start = 0usize;
        for (r, row) in seating.rows.iter().enumerate() {
            if row.seats == 0 {
                return Err(SeatingError::EmptyRow { row: r });
            }
            let mut aisles: Vec<u32> = row.aisles_after.clone();
            aisles.sort_unstable();
            aisles.dedup();
            if let Some(&after) = aisles.iter().find(|&&a| a == 0 || a >= row.seats) {
                return Err(SeatingError::AisleOutsideRow { row: r, after });
            }
            let width = i64::from(row.seats) + aisles.len() as i64;
            let mut segments = vec![start];
            let mut place = 0i64;
            for n in 0..row.seats as usize {
                let unit = start + n;
                row_of[unit] = r as u32;
                across[unit] = 2 * place - (width - 1);
                place += 1;
                if aisles.binary_search(&(n as u32 + 1)).is_ok() {
                    place += 1;
                    segments.push(unit + 1);
                }
            }
            let end = start + row.seats as usize;
            rows.push(RowPlan {
                start,
                end,
                segments,
            });
            start = end;
        }
        let mut zones: Vec<(String, usize, usize)> = Vec::with_capacity(seating.zones.len());
        for zone in &seating.zones {
            if zone.places == 0 {
                return Err(SeatingError::EmptyZone {
                    zone: zone.name.clone(),
                });
            }
            if zones.iter().any(|(name, _, _)| *name == zone.name) {
                return Err(SeatingError::DuplicateZone {
                    zone: zone.name.clone(),
                });
            }
            let end = start + zone.places as usize;
            zones.push((zone.name.clone(), start, end));
            start = end;
        }
        let (spot_across, spot_depth) = match &seating.best_seat {
            Some(name) => {
                let unit = find(name)?;
                if row_of[unit] == NO_ROW {
                    return Err(SeatingError::UnknownSeat { name: name.clone() });
                }
                (across[unit], 2 * i64::from(row_of[unit]))
            }
            // Two thirds of the way back, to the nearest half row.
            None => (0, (4 * (rows.len() as i64 - 1).max(0) + 1) / 3),
        };
        let score = (0..units)
            .map(|unit| match row_of[unit] {
                NO_ROW => u64::MAX,
                row => {
                    let dx = across[unit] - spot_across;
                    let dy = 2 * i64::from(row) - spot_depth;
                    (dx * dx + dy * dy) as u64
                }
            })
            .collect();
        Ok(Room {
            rows,
            row_of,
            score,
            accessible,
            counter_only,
            rule: !seating.allow_single_seats,
            zones,
        })
    }

    /// The index of the zone of this name.
    pub(crate) fn zone(&self, name: &str) -> Option<u32> {
        self.zones
            .iter()
            .position(|(zone, _, _)| zone == name)
            .map(|z| z as u32)
    }

    pub(crate) fn has_zone(&self, zone: u32) -> bool {
        (zone as usize) < self.zones.len()
    }

    /// Free seats for the rule and for picking, from which units are free.
    pub(crate) fn free(&self, available: Vec<bool>, best: Option<&Best>) -> Free {
        let counter = best.is_some_and(|b| b.counter);
        let accessible = best.is_some_and(|b| b.accessible);
        let mut free = available;
        if !counter {
            for (unit, f) in free.iter_mut().enumerate() {
                *f &= !self.counter_only[unit];
            }
        }
        // Seats, or one zone's places: best available never mixes them.
        let places = best
            .and_then(|b| b.zone)
            .and_then(|z| self.zones.get(z as usize))
            .map(|&(_, start, end)| start..end);
        let eligible = free
            .iter()
            .enumerate()
            .map(|(unit, &f)| match &places {
                Some(places) => f && places.contains(&unit),
                None => f && self.row_of[unit] != NO_ROW && (accessible || !self.accessible[unit]),
            })
            .collect();
        Free { free, eligible }
    }

    /// Whether an online hold of `taken` (all free) keeps the rule: the
    /// first seat it would leave alone otherwise.
    pub(crate) fn check(
        &self,
        free: impl Fn(usize) -> bool + Copy,
        taken: &[usize],
    ) -> Result<(), usize> {
        if !self.rule {
            return Ok(());
        }
        let free = |u: usize| free(u) && !self.counter_only[u];
        let mut rows: Vec<u32> = taken
            .iter()
            .map(|&t| self.row_of[t])
            .filter(|&r| r != NO_ROW)
            .collect();
        rows.sort_unstable();
        rows.dedup();
        for r in rows {
            let row = &self.rows[r as usize];
            let mut in_row: Vec<usize> = taken
                .iter()
                .copied()
                .filter(|&t| self.row_of[t] == r)
                .collect();
            in_row.sort_unstable();
            if let Some(seat) = row.stranded(free, &in_row) {
                let avoidable = match row.one_block(free, &in_row) {
                    true => row.block_avoidable(free, in_row.len()),
                    false => row.avoidable(free, in_row.len()),
                };
                if avoidable {
                    return Err(seat);
                }
            }
        }
        Ok(())
    }

    /// The best block of `k` eligible seats side by side that keeps the
    /// rule, as `start..start + k`.
    fn best_block(&self, free: &Free, k: usize) -> Option<usize> {
        let mut best: Option<(u64, usize)> = None;
        let is_free = |u: usize| free.free[u];
        for row in &self.rows {
            // Asked once a row, only if a block that strands a seat is seen.
            let mut avoidable: Option<bool> = None;
            for (run_start, run_end) in row.runs(is_free) {
                let mut at = run_start;
                while at < run_end {
                    if !free.eligible[at] {
                        at += 1;
                        continue;
                    }
                    let sub_start = at;
                    while at < run_end && free.eligible[at] {
                        at += 1;
                    }
                    let sub_end = at;
                    if sub_end - sub_start < k {
                        continue;
                    }
                    let mut sum: u64 = self.score[sub_start..sub_start + k].iter().sum();
                    for a in sub_start..=sub_end - k {
                        if a > sub_start {
                            sum = sum - self.score[a - 1] + self.score[a + k - 1];
                        }
                        if best.is_some_and(|(s, _)| s <= sum) {
                            continue;
                        }
                        let strands = self.rule && (a - run_start == 1 || run_end - a - k == 1);
                        if strands
                            && *avoidable.get_or_insert_with(|| row.block_avoidable(is_free, k))
                        {
                            continue;
                        }
                        best = Some((sum, a));
                    }
                }
            }
        }
        best.map(|(_, a)| a)
    }

    /// The most eligible seats side by side, up to `max`, that best
    /// available could hold now.
    pub(crate) fn largest_block(&self, free: &Free, max: usize) -> usize {
        (1..=max)
            .rev()
            .find(|&k| self.best_block(free, k).is_some())
            .unwrap_or(0)
    }

    /// The best `best.count` seats, ascending; `Err` with the largest block
    /// left when they cannot be found as asked.
    pub(crate) fn pick(&self, mut free: Free, best: &Best) -> Result<Vec<usize>, usize> {
        let k = best.count as usize;
        if let Some(a) = self.best_block(&free, k) {
            return Ok((a..a + k).collect());
        }
        let largest = self.largest_block(&free, k);
        if best.together || largest == 0 {
            return Err(largest);
        }
        // Block by block, the largest first, each kept to the rule with
        // the blocks before it taken.
        let mut picked = Vec::with_capacity(k);
        let mut size = largest;
        while picked.len() < k {
            size = size.min(k - picked.len());
            let Some(a) = (1..=size)
                .rev()
                .find_map(|s| self.best_block(&free, s).map(|a| (a, s)))
            else {
                return Err(largest);
            };
            let (a, s) = a;
            for unit in a..a + s {
                free.free[unit] = false;
                free.eligible[unit] = false;
                picked.push(unit);
            }
            size = s;
        }
        picked.sort_unstable();
        Ok(picked)
    }
}

/// Best available without rows (named slots): the first eligible units in
/// order.
pub(crate) fn first_free(free: &Free, count: usize) -> Result<Vec<usize>, usize> {
    let picked: Vec<usize> = (0..free.eligible.len())
        .filter(|&u| free.eligible[u])
        .take(count)
        .collect();
    match picked.len() == count {
        true => Ok(picked),
        false => Err(picked.len()),
    }
}

#[cfg(test)]
mod tests;
