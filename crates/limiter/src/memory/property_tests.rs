//! Random interleavings of many keys, spends and clock advances on a small bounded store,
//! checked against the eviction order after every operation.

use super::tests::{SECOND, bucket, gcra, snapshot};
use super::*;
use crate::metrics::{LimiterMetrics, Outcome};
use proptest::prelude::*;

const BOUND: usize = 8;
const KEYS: u8 = 24;

/// One operation: a key (of 24, in two groups), a budget (of three), how far the clock moves.
fn operations() -> impl Strategy<Value = Vec<(u8, usize, u64)>> {
    prop::collection::vec((0..KEYS, 0usize..3, 0u64..20 * SECOND), 1..400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn the_store_forgets_the_least_tat_of_all_and_counts_only_debt(ops in operations()) {
        let store = MemoryStore::new(BOUND);
        let counters = LimiterMetrics::default().group_counters("test", "property");
        let policies = [gcra("2/10s"), gcra("1/1m"), gcra("3/1h")];
        let mut evicted_in_debt = 0;
        let mut now = 0;
        for (name, policy, step) in ops {
            now += step;
            let key = BucketKey { group: u16::from(name % 2), ..bucket(&name.to_string()) };
            let gcra = &policies[policy];
            let before = snapshot(&store);
            let decision = store.decide_counted(key, gcra, now, &counters);
            let after = snapshot(&store);

            // Decided on the bucket the store held, or on a fresh one.
            let (expected, _) = gcra.decide(before.get(&key).copied(), now);
            prop_assert_eq!(decision, expected);
            prop_assert!(after.contains_key(&key), "every decided key is kept");
            prop_assert!(after.len() <= BOUND);

            let forgotten: Vec<u64> = before
                .iter()
                .filter(|(held, _)| !after.contains_key(held))
                .map(|(_, tat)| *tat)
                .collect();
            prop_assert!(forgotten.len() <= 1);
            for (held, tat) in &after {
                if *held != key {
                    prop_assert_eq!(before.get(held), Some(tat), "only the decided key moves");
                }
            }
            match forgotten.first() {
                None => prop_assert!(before.contains_key(&key) || before.len() < BOUND),
                Some(&gone) => {
                    prop_assert!(!before.contains_key(&key) && before.len() == BOUND);
                    let kept = before.iter().filter(|(held, _)| after.contains_key(held));
                    let least_kept = kept.map(|(_, tat)| *tat).min().unwrap_or(u64::MAX);
                    prop_assert!(gone <= least_kept, "forgot {} but kept {}", gone, least_kept);
                    if gone > now {
                        prop_assert!(least_kept > now, "a debt went while a full bucket stayed");
                        evicted_in_debt += 1;
                    }
                }
            }
            prop_assert_eq!(counters.get(Outcome::Evicted), evicted_in_debt);
        }
    }
}
