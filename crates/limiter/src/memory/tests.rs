//! The bounded store's eviction order: full buckets first, then the least debt; never a
//! bucket in debt while a full one is kept.

use super::*;
use proptest::prelude::*;
use std::collections::HashMap;

const SECOND: u64 = 1_000_000_000;

fn bucket(name: &str) -> BucketKey {
    BucketKey {
        group: 0,
        key: KeyDigest::of(name),
    }
}

fn gcra(text: &str) -> Gcra {
    Gcra::new(&text.parse().expect("a valid budget"))
}

#[test]
fn capacity_never_exceeds_the_bound() {
    for max in [1, 5, 16, 17, 20_000] {
        let store = MemoryStore::new(max);
        assert!(store.capacity() <= max, "max {max}");
        assert!(store.capacity() >= max * 15 / 16, "max {max}");
    }
}

#[test]
fn as_many_live_keys_as_the_bound_fit_however_they_fall_on_the_shards() {
    let store = MemoryStore::new(20_000);
    let gcra = gcra("1000000/1s");
    for n in 0..20_000u32 {
        let stored = store.decide(bucket(&n.to_string()), &gcra, 0);
        assert!(!stored.evicted, "key {n}");
    }
    assert_eq!(store.len(), 20_000);
    let stored = store.decide(bucket("one more"), &gcra, 0);
    assert!(stored.evicted, "past the bound a bucket in debt goes");
    assert_eq!(store.len(), 20_000);
}

#[test]
fn an_evicted_key_comes_back_full() {
    let store = MemoryStore::new(1);
    let gcra = gcra("1/1h");
    let (first, second) = (bucket("a"), bucket("b"));
    assert!(store.decide(first, &gcra, 0).decision.is_allowed());
    assert!(!store.decide(first, &gcra, 0).decision.is_allowed());
    assert!(store.decide(second, &gcra, 0).evicted);
    assert!(store.decide(first, &gcra, 0).decision.is_allowed());
}

#[test]
fn a_full_bucket_goes_before_any_in_debt_and_is_not_counted() {
    let mut buckets = Buckets::new(2, 2);
    let (hourly, minutely) = (gcra("1/1h"), gcra("1/1m"));
    buckets.decide(bucket("spent"), &hourly, 0, || true);
    buckets.decide(bucket("refilled"), &minutely, 0, || true);
    // Two minutes on, "refilled" is full again (its TAT passed): it carries nothing.
    let stored = buckets.decide(bucket("new"), &minutely, 120 * SECOND, || true);
    assert!(!stored.evicted, "forgetting a full bucket costs nothing");
    assert!(
        !buckets
            .decide(bucket("spent"), &hourly, 120 * SECOND, || true)
            .decision
            .is_allowed()
    );
}

#[test]
fn when_all_are_in_debt_the_least_debt_goes() {
    let mut buckets = Buckets::new(2, 2);
    let (hourly, minutely) = (gcra("1/1h"), gcra("1/1m"));
    buckets.decide(bucket("hour"), &hourly, 0, || true);
    buckets.decide(bucket("minute"), &minutely, 0, || true);
    let stored = buckets.decide(bucket("new"), &minutely, SECOND, || true);
    assert!(stored.evicted);
    assert!(
        !buckets
            .decide(bucket("hour"), &hourly, SECOND, || true)
            .decision
            .is_allowed()
    );
}

#[test]
fn a_flood_of_one_shot_keys_never_resets_a_spent_budget() {
    let store = MemoryStore::new(1_000);
    let policy = gcra("300/1h");
    let hot = bucket("the client that spent its budget");
    for _ in 0..300 {
        assert!(store.decide(hot, &policy, 0).decision.is_allowed());
    }
    assert!(!store.decide(hot, &policy, 0).decision.is_allowed());
    let mut evicted = 0;
    for n in 0..6_000u64 {
        let now = n * SECOND / 1_000;
        let stored = store.decide(bucket(&format!("flood {n}")), &policy, now);
        evicted += u64::from(stored.evicted);
    }
    assert!(!store.decide(hot, &policy, 6 * SECOND).decision.is_allowed());
    assert!(store.len() <= 1_000);
    assert!(
        evicted > 4_000,
        "the flood's own buckets were in debt: {evicted}"
    );
}

/// One operation of a random interleaving: a key (of eight) and how far the clock moves.
fn operations() -> impl Strategy<Value = Vec<(u8, u64)>> {
    prop::collection::vec((0u8..8, 0u64..30 * SECOND), 1..200)
}

proptest! {
    #[test]
    fn no_bucket_in_debt_is_forgotten_while_a_full_one_is_kept(ops in operations()) {
        let mut buckets = Buckets::new(4, 4);
        let policies = [gcra("2/10s"), gcra("1/1m"), gcra("3/1h")];
        let mut now = 0;
        for (key, step) in ops {
            now += step;
            let before: HashMap<BucketKey, u64> =
                buckets.table.iter().map(|slot| (slot.bucket, slot.tat)).collect();
            let policy = &policies[usize::from(key) % policies.len()];
            let stored = buckets.decide(bucket(&key.to_string()), policy, now, || true);
            let after: HashMap<BucketKey, u64> =
                buckets.table.iter().map(|slot| (slot.bucket, slot.tat)).collect();
            let forgotten: Vec<u64> = before
                .iter()
                .filter(|(bucket, _)| !after.contains_key(bucket))
                .map(|(_, tat)| *tat)
                .collect();
            prop_assert!(forgotten.len() <= 1);
            prop_assert!(buckets.table.len() <= 4);
            prop_assert_eq!(buckets.heap.len(), buckets.table.len());
            if let Some(&gone) = forgotten.first() {
                prop_assert_eq!(stored.evicted, gone > now);
                let least_kept = before
                    .iter()
                    .filter(|(bucket, _)| after.contains_key(bucket))
                    .map(|(_, tat)| *tat)
                    .min();
                if let Some(least_kept) = least_kept {
                    prop_assert!(gone <= least_kept, "forgot {gone} kept {least_kept}");
                }
            }
        }
    }
}
