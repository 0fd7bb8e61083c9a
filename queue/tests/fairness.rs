//! The line against its promises, under random arrivals, repeats, pauses
//! and draws: one place a session; places 1..=N with none skipped; the
//! early ones first, in the order of their draws; later ones in order of
//! arrival; and admission in place order, never taken back, never moving
//! while the line is paused, whatever changes of rate staff make.

use proptest::prelude::*;
use queue::{Line, Standing};

#[derive(Clone, Debug)]
enum Step {
    /// Session `n` joins after `gap_ms`, drawing `draw`.
    Join {
        n: u8,
        gap_ms: u32,
        draw: u64,
    },
    Pause {
        gap_ms: u32,
    },
    Resume {
        gap_ms: u32,
    },
    /// Staff change the rate.
    Rate {
        gap_ms: u32,
        rate: u32,
    },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0u8..40, 0u32..3_000, any::<u64>()).prop_map(|(n, gap_ms, draw)| Step::Join { n, gap_ms, draw }),
        1 => (0u32..5_000).prop_map(|gap_ms| Step::Pause { gap_ms }),
        1 => (0u32..5_000).prop_map(|gap_ms| Step::Resume { gap_ms }),
        1 => (0u32..5_000, 1u32..600).prop_map(|(gap_ms, rate)| Step::Rate { gap_ms, rate }),
    ]
}

fn place(standing: &Standing) -> Option<u32> {
    match standing {
        Standing::Early { .. } => None,
        Standing::Waiting { place, .. } | Standing::Admitted { place } => Some(*place),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn places_are_fair_and_admission_follows_them(
        opens_at in 0u64..20_000,
        rate in 1u32..600,
        steps in proptest::collection::vec(step(), 1..120),
    ) {
        let mut line = Line::new(opens_at, rate).unwrap();
        let mut now = 0u64;
        let mut first_join: Vec<(String, u64, u64)> = Vec::new();
        let mut admitted_before: Vec<String> = Vec::new();
        let mut cursor = 0u32;
        for step in steps {
            let before = now;
            let was_paused = line.is_paused();
            let cursor_before = line.cursor(before);
            match step {
                Step::Join { n, gap_ms, draw } => {
                    now += u64::from(gap_ms);
                    let session = format!("s{n}");
                    let joined = line.join(now, &session, draw).unwrap();
                    let known = first_join.iter().any(|(s, _, _)| *s == session);
                    prop_assert_eq!(joined.new, !known, "one place a session");
                    if !known {
                        first_join.push((session, now, draw));
                    }
                }
                Step::Pause { gap_ms } => {
                    now += u64::from(gap_ms);
                    line.pause(now);
                }
                Step::Resume { gap_ms } => {
                    now += u64::from(gap_ms);
                    line.resume(now);
                }
                Step::Rate { gap_ms, rate } => {
                    now += u64::from(gap_ms);
                    line.reconfigure(now, opens_at, rate).unwrap();
                }
            }
            // The cursor never goes back, and stands still across a pause.
            let moved = line.cursor(now);
            prop_assert!(moved >= cursor);
            if was_paused && line.is_paused() {
                prop_assert_eq!(moved, cursor_before, "a paused line admitted more");
            }
            cursor = moved;
            // Whoever was admitted stays admitted.
            for session in &admitted_before {
                let standing = line.standing(now, session).unwrap();
                prop_assert!(matches!(standing, Standing::Admitted { .. }), "{} lost its admission", session);
            }
            admitted_before = first_join
                .iter()
                .filter(|(s, _, _)| matches!(line.standing(now, s), Some(Standing::Admitted { .. })))
                .map(|(s, _, _)| s.clone())
                .collect();
        }
        // Settle everyone: look after the opening.
        let end = now.max(opens_at);
        let mut placed: Vec<(u32, String, u64, u64)> = first_join
            .iter()
            .map(|(s, at, draw)| {
                let p = place(&line.standing(end, s).unwrap()).expect("placed after the opening");
                (p, s.clone(), *at, *draw)
            })
            .collect();
        placed.sort();
        let places: Vec<u32> = placed.iter().map(|(p, ..)| *p).collect();
        let expected: Vec<u32> = (1..=placed.len() as u32).collect();
        prop_assert_eq!(places, expected, "places 1..=N, none skipped or shared");
        let early: Vec<&(u32, String, u64, u64)> = placed.iter().filter(|(_, _, at, _)| *at < opens_at).collect();
        let later: Vec<&(u32, String, u64, u64)> = placed.iter().filter(|(_, _, at, _)| *at >= opens_at).collect();
        // The early ones first, ordered by their draws; the later ones by
        // arrival.
        prop_assert!(early.iter().all(|(p, ..)| *p as usize <= early.len()));
        prop_assert!(early.windows(2).all(|w| (w[0].3, &w[0].1) <= (w[1].3, &w[1].1)));
        prop_assert!(later.windows(2).all(|w| w[0].2 <= w[1].2));
        // Admission is in place order.
        let cursor = line.cursor(end);
        for (p, s, ..) in &placed {
            let admitted = matches!(line.standing(end, s), Some(Standing::Admitted { .. }));
            prop_assert_eq!(admitted, *p <= cursor);
        }
        // The estimate is exact while the line moves: admitted at it, not
        // a millisecond before.
        for (p, s, ..) in &placed {
            if let Some(Standing::Waiting { estimate_ms: Some(wait), ahead, .. }) = line.standing(end, s) {
                prop_assert_eq!(ahead, *p - cursor - 1);
                prop_assert!(line.cursor(end + wait) >= *p);
                prop_assert!(line.cursor(end + wait - 1) < *p);
            }
        }
    }
}
