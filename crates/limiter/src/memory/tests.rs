//! The bounded store's eviction order across the whole store: full buckets first wherever they
//! are, then the least debt; never a bucket in debt while a full one is kept, and never a new
//! key left unstored.

use super::*;
use crate::metrics::{LimiterMetrics, Outcome};
use std::collections::HashMap;
use std::time::Duration;

pub(super) const SECOND: u64 = 1_000_000_000;

pub(super) fn bucket(name: &str) -> BucketKey {
    BucketKey {
        group: 0,
        key: KeyDigest::of(name),
    }
}

pub(super) fn gcra(text: &str) -> Gcra {
    Gcra::new(&text.parse().expect("a valid budget"))
}

/// Every bucket the store holds, with its TAT.
pub(super) fn snapshot(store: &MemoryStore) -> HashMap<BucketKey, u64> {
    let mut held = HashMap::new();
    for shard in &store.shards {
        let buckets = lock(&shard.0);
        assert_eq!(buckets.heap_len(), buckets.len(), "one heap entry a bucket");
        held.extend(buckets.table.iter().map(|slot| (slot.bucket, slot.tat)));
    }
    held
}

fn shard_of(store: &MemoryStore, bucket: &BucketKey) -> usize {
    Placement::shard(store.placement.hash(bucket), store.shards.len())
}

/// `count` keys named `{prefix} n` that the store places in shard `shard`.
fn aimed(store: &MemoryStore, prefix: &str, shard: usize, count: usize) -> Vec<BucketKey> {
    (0u64..)
        .map(|n| bucket(&format!("{prefix} {n}")))
        .filter(|key| shard_of(store, key) == shard)
        .take(count)
        .collect()
}

#[test]
fn as_many_live_keys_as_the_bound_fit_however_they_fall_on_the_shards() {
    let store = MemoryStore::new(20_000);
    assert_eq!(store.capacity(), 20_000);
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
fn a_new_key_is_kept_and_limited_even_when_its_shard_is_empty_and_the_store_full() {
    let store = MemoryStore::new(16);
    let hourly = gcra("1/1h");
    for key in aimed(&store, "crowd", 0, 16) {
        store.decide(key, &hourly, 0);
    }
    let loner = aimed(&store, "loner", 1, 1)[0];
    assert!(store.decide(loner, &hourly, 0).decision.is_allowed());
    assert!(
        !store.decide(loner, &hourly, 0).decision.is_allowed(),
        "a key that was not stored would start full on every request"
    );
    assert_eq!(store.len(), 16);
}

#[test]
fn full_buckets_in_other_shards_go_before_any_in_debt_and_are_not_counted() {
    let store = MemoryStore::new(16);
    let (hourly, quick) = (gcra("1/1h"), gcra("10/1s"));
    let victim_shard = 3;
    let victims = aimed(&store, "spent", victim_shard, 8);
    for &victim in &victims {
        store.decide(victim, &hourly, 0);
    }
    let elsewhere = (0..store.shards.len()).filter(|&shard| shard != victim_shard);
    for (n, shard) in elsewhere.take(8).enumerate() {
        store.decide(aimed(&store, &format!("idle {n}"), shard, 1)[0], &quick, 0);
    }
    // A second on, the idle buckets are full again: they carry nothing.
    for (n, key) in aimed(&store, "aimed", victim_shard, 8)
        .into_iter()
        .enumerate()
    {
        let stored = store.decide(key, &hourly, SECOND);
        assert!(
            !stored.evicted,
            "key {n}: a full bucket was there to forget"
        );
    }
    for victim in victims {
        assert!(!store.decide(victim, &hourly, SECOND).decision.is_allowed());
    }
    let stored = store.decide(bucket("one more"), &hourly, 2 * SECOND);
    assert!(stored.evicted, "now every bucket is in debt");
}

#[test]
fn when_all_are_in_debt_the_least_debt_of_the_whole_store_goes() {
    let store = MemoryStore::new(16);
    let (hourly, minutely) = (gcra("1/1h"), gcra("1/1m"));
    let short = aimed(&store, "minute", 5, 1)[0];
    store.decide(short, &minutely, 0);
    for key in aimed(&store, "hour", 9, 15) {
        store.decide(key, &hourly, 0);
    }
    let stored = store.decide(aimed(&store, "new", 9, 1)[0], &hourly, SECOND);
    assert!(stored.evicted);
    assert!(!snapshot(&store).contains_key(&short), "the least TAT went");
    assert!(store.decide(short, &minutely, SECOND).decision.is_allowed());
}

/// The hot key spends 300/1h at 0; then `flood` one-shot keys, one a millisecond from
/// `start`, on the same budget. Returns the evictions counted.
fn flood_after_a_spent_budget(
    store: &MemoryStore,
    hot: BucketKey,
    flood: &[BucketKey],
    start: u64,
) -> u64 {
    let policy = gcra("300/1h");
    let counters = LimiterMetrics::default().group_counters("test", "flood");
    for _ in 0..300 {
        assert!(
            store
                .decide_counted(hot, &policy, 0, &counters)
                .is_allowed()
        );
    }
    assert!(!store.decide(hot, &policy, 0).decision.is_allowed());
    for (n, &key) in (0u64..).zip(flood) {
        let decision = store.decide_counted(key, &policy, start + n * SECOND / 1_000, &counters);
        assert!(decision.is_allowed(), "flood key {n}: its first request");
    }
    let end = start + 6 * SECOND;
    let after = store.decide(hot, &policy, end).decision;
    let left = Duration::from_nanos(12 * SECOND - end);
    assert_eq!(
        after.retry_after(),
        Some(left),
        "still refused, to the nanosecond"
    );
    assert!(store.len() <= 1_000);
    counters.get(Outcome::Evicted)
}

#[test]
fn a_flood_of_one_shot_keys_never_resets_a_spent_budget() {
    let store = MemoryStore::new(1_000);
    let flood: Vec<_> = (0..6_000).map(|n| bucket(&format!("flood {n}"))).collect();
    let evicted = flood_after_a_spent_budget(&store, bucket("the hot client"), &flood, 0);
    // 6 001 keys through a bound of 1 000, every one still in debt when it went.
    assert_eq!(evicted, 5_001);
}

#[test]
fn a_flood_aimed_at_the_hot_keys_shard_forgets_full_buckets_elsewhere_first() {
    let store = MemoryStore::new(1_000);
    let hot = bucket("the hot client");
    let idle = gcra("10/1s");
    for n in 0..999 {
        store.decide(bucket(&format!("idle {n}")), &idle, 0);
    }
    let flood = aimed(&store, "flood", shard_of(&store, &hot), 6_000);
    let evicted = flood_after_a_spent_budget(&store, hot, &flood, SECOND);
    // The 999 idle buckets were full when the flood came: forgetting them was free.
    assert_eq!(evicted, 6_000 - 999);
}

#[test]
fn two_threads_keep_the_bound_and_every_bucket_indexed() {
    let store = MemoryStore::new(64);
    let policy = gcra("2/1s");
    std::thread::scope(|scope| {
        for thread in 0..2u64 {
            let store = &store;
            let policy = &policy;
            scope.spawn(move || {
                for n in 0..20_000u64 {
                    let key = bucket(&((n * 7 + thread) % 500).to_string());
                    store.decide(key, policy, n * SECOND / 1_000);
                }
            });
        }
    });
    assert_eq!(snapshot(&store).len(), 64);
    assert_eq!(store.tracked.load(Ordering::Relaxed), 64);
}
