//! The uses of a code against a reference that counts by brute force:
//! random requests from a few holds and buyers, at random times, and
//! after each one the limits hold and no use was both released and
//! committed.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use uses::{Change, Limits, Refused, Request, Stage, Use, Uses};

fn key(i: u8) -> String {
    format!("s:h{i}")
}

fn request() -> impl Strategy<Value = (u64, Request)> {
    let step = 0u64..40;
    let hold = 0u8..12;
    let buyer = 0u8..4;
    prop_oneof![
        4 => (step.clone(), hold.clone(), buyer, 1u64..120).prop_map(|(dt, h, b, ttl)| (dt, Request::Reserve {
            key: key(h),
            buyer: format!("b{b}"),
            until_ms: ttl,
            limits: Limits::default(),
        })),
        2 => (step.clone(), hold.clone()).prop_map(|(dt, h)| (dt, Request::Hold { key: key(h) })),
        2 => (step.clone(), hold.clone()).prop_map(|(dt, h)| (dt, Request::Commit { key: key(h), order_id: format!("o{h}") })),
        2 => (step.clone(), hold.clone()).prop_map(|(dt, h)| (dt, Request::Release { key: key(h) })),
        1 => (step, hold).prop_map(|(dt, h)| (dt, Request::Return { order_id: format!("o{h}") })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn uses_never_exceed_their_limits_and_none_is_released_once_paid(
        max_uses in 1u32..6,
        per_buyer in proptest::option::of(1u32..3),
        requests in proptest::collection::vec(request(), 1..80),
    ) {
        let limits = Limits { max_uses: Some(max_uses), max_uses_per_buyer: per_buyer };
        let mut uses = Uses::default();
        let mut rows: BTreeMap<String, Use> = BTreeMap::new();
        // Keys committed and not given back by staff, and keys released.
        let mut paid: BTreeSet<String> = BTreeSet::new();
        let mut released: BTreeSet<String> = BTreeSet::new();
        let mut now = 0;
        for (dt, mut request) in requests {
            now += dt;
            if let Request::Reserve { until_ms, limits: l, .. } = &mut request {
                *until_ms += now;
                *l = limits;
            }
            let before = uses.get(match &request {
                Request::Reserve { key, .. } | Request::Hold { key } | Request::Commit { key, .. }
                | Request::Release { key } => key,
                _ => "",
            }).cloned();
            let (answer, changes) = uses.decide(now, request.clone());
            for change in changes {
                match change {
                    Change::Put(u) => { rows.insert(u.key.clone(), u); }
                    Change::Gone { key } => { rows.remove(&key); }
                }
            }
            match (&request, &answer) {
                (Request::Commit { key, .. }, Ok(_)) => {
                    prop_assert!(before.is_some(), "committed from nothing");
                    prop_assert!(!released.contains(key) || rows.contains_key(key));
                    paid.insert(key.clone());
                }
                (Request::Release { key }, Ok(_)) => {
                    prop_assert!(!paid.contains(key), "a paid use was released");
                    if before.is_some() { released.insert(key.clone()); }
                }
                (Request::Release { key }, Err(Refused::Spent)) => prop_assert!(paid.contains(key)),
                (Request::Return { order_id }, Ok(_)) => { paid.remove(&format!("s:h{}", &order_id[1..])); }
                (Request::Reserve { key, .. }, Ok(_)) => { released.remove(key); }
                _ => {}
            }
            // The limits, by brute force over the rows the shell would keep.
            prop_assert!(rows.len() as u32 <= max_uses);
            if let Some(limit) = per_buyer {
                for b in 0..4 {
                    let n = rows.values().filter(|u| u.buyer == format!("b{b}")).count();
                    prop_assert!(n as u32 <= limit);
                }
            }
            // Every paid use still stands, committed.
            for key in &paid {
                let committed = matches!(rows.get(key).map(|u| &u.stage), Some(Stage::Committed { .. }));
                prop_assert!(committed, "a paid use is gone");
            }
            // A reload from the rows decides the same.
            let back = Uses::restore(rows.values().cloned());
            prop_assert_eq!(back.counts(), uses.counts());
        }
    }
}
