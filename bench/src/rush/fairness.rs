//! How far the line's order departs from the order buyers came in. Among
//! those who joined after the opening, a pair is out of order when the one
//! who came first has the later place. Pairs who came within one tick of
//! the cursor (a minute divided by the admission rate) of each other are
//! let be: the cursor admits them together, so their order makes no
//! difference to either.

/// One buyer who joined after the opening: when its join left, in ms
/// from any fixed instant, and the place it was given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Joiner {
    pub sent_ms: f64,
    pub place: u32,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Departure {
    pub joiners: usize,
    /// Pairs out of order, however close.
    pub pairs_out_of_order: u64,
    /// Pairs out of order that came more than a tick apart.
    pub pairs_beyond_tick: u64,
    /// Most places a buyer stands from its rank by arrival.
    pub max_displacement: u32,
    /// The longest time between the two of a pair out of order, in ms.
    pub max_gap_ms: f64,
}

pub fn departure(joiners: &[Joiner], tick_ms: f64) -> Departure {
    let mut by_arrival = joiners.to_vec();
    by_arrival.sort_by(|a, b| a.sent_ms.total_cmp(&b.sent_ms));
    let mut by_place: Vec<u32> = by_arrival.iter().map(|j| j.place).collect();
    by_place.sort_unstable();
    let mut out = Departure {
        joiners: joiners.len(),
        pairs_out_of_order: 0,
        pairs_beyond_tick: 0,
        max_displacement: 0,
        max_gap_ms: 0.0,
    };
    for (rank, later) in by_arrival.iter().enumerate() {
        // Its rank among the places given (places are unique).
        let place_rank = by_place.partition_point(|&p| p < later.place);
        out.max_displacement = out.max_displacement.max(rank.abs_diff(place_rank) as u32);
        for earlier in &by_arrival[..rank] {
            if earlier.place > later.place {
                out.pairs_out_of_order += 1;
                let gap = later.sent_ms - earlier.sent_ms;
                out.max_gap_ms = out.max_gap_ms.max(gap);
                if gap > tick_ms {
                    out.pairs_beyond_tick += 1;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joiners(pairs: &[(f64, u32)]) -> Vec<Joiner> {
        pairs
            .iter()
            .map(|&(sent_ms, place)| Joiner { sent_ms, place })
            .collect()
    }

    #[test]
    fn arrival_order_kept_departs_nowhere() {
        let d = departure(&joiners(&[(0.0, 10), (5.0, 11), (100.0, 12)]), 60.0);
        assert_eq!((d.pairs_out_of_order, d.max_displacement), (0, 0));
    }

    #[test]
    fn a_swap_within_a_tick_is_let_be_and_one_beyond_it_is_counted() {
        // 11 and 12 swapped 5 ms apart; 20 came 200 ms before 13 and 14.
        let d = departure(
            &joiners(&[(0.0, 12), (5.0, 11), (10.0, 20), (210.0, 13), (220.0, 14)]),
            60.0,
        );
        assert_eq!(d.pairs_out_of_order, 3);
        assert_eq!(d.pairs_beyond_tick, 2);
        assert_eq!(d.max_displacement, 2);
        assert_eq!(d.max_gap_ms, 210.0);
    }
}
