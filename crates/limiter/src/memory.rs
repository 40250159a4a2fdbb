//! The in-memory backend: GCRA state in a bounded, sharded LRU map.
//!
//! The key is attacker-influenced on IP-keyed groups, so an unbounded map is the denial of
//! service the limiter exists to prevent. Each shard holds `max_tracked_keys / shards`
//! buckets; the least recently used is forgotten first, and a forgotten key comes back with
//! a full bucket (fail-open). Sharding keeps two cores from queueing on one lock.

use crate::decision::Decision;
use crate::gcra::Gcra;
use crate::key::KeyDigest;
use lru::LruCache;
use std::num::NonZeroUsize;
use std::sync::{Mutex, MutexGuard, PoisonError};

const SHARDS: usize = 16;

/// One bucket's identity inside a limiter: which group, whose key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BucketKey {
    /// The group's index in its limiter.
    pub group: u16,
    /// The digest of the raw key.
    pub key: KeyDigest,
}

/// What one decision did to the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The bucket's answer.
    pub decision: Decision,
    /// True when storing this bucket pushed another one out.
    pub evicted: bool,
}

/// One shard, alone on its cache lines (two, for the adjacent-line prefetcher), so two cores
/// on two shards never write to one line.
#[derive(Debug)]
#[repr(align(128))]
struct Shard(Mutex<LruCache<BucketKey, u64>>);

/// A bounded map of bucket states.
#[derive(Debug)]
pub struct MemoryStore {
    shards: Box<[Shard]>,
}

impl MemoryStore {
    /// A store that tracks at most `max_tracked_keys` buckets (at least one).
    pub fn new(max_tracked_keys: usize) -> Self {
        let max_tracked_keys = max_tracked_keys.max(1);
        let shard_count = SHARDS.min(max_tracked_keys);
        let per_shard =
            NonZeroUsize::new(max_tracked_keys / shard_count).unwrap_or(NonZeroUsize::MIN);
        let shards = (0..shard_count)
            .map(|_| Shard(Mutex::new(LruCache::new(per_shard))))
            .collect();
        Self { shards }
    }

    /// Decides one request at `now` (nanoseconds on the limiter's clock).
    pub fn decide(&self, bucket: BucketKey, gcra: &Gcra, now: u64) -> Stored {
        let mut shard = self.shard(&bucket.key);
        if let Some(tat) = shard.get_mut(&bucket) {
            let (decision, next) = gcra.decide(Some(*tat), now);
            if let Some(next) = next {
                *tat = next;
            }
            return Stored {
                decision,
                evicted: false,
            };
        }
        let (decision, next) = gcra.decide(None, now);
        // A new key: `push` hands back an entry only when it pushed one out.
        let evicted = next.is_some_and(|tat| shard.push(bucket, tat).is_some());
        Stored { decision, evicted }
    }

    /// Buckets tracked now.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|shard| lock(&shard.0).len()).sum()
    }

    /// True when no bucket is tracked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most buckets this store will ever hold.
    pub fn capacity(&self) -> usize {
        self.shards
            .iter()
            .map(|shard| lock(&shard.0).cap().get())
            .sum()
    }

    fn shard(&self, key: &KeyDigest) -> MutexGuard<'_, LruCache<BucketKey, u64>> {
        lock(&self.shards[usize::from(key.shard_byte()) % self.shards.len()].0)
    }
}

/// A poisoned shard still holds valid bucket states (each update is one assignment).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capacity_never_exceeds_the_bound() {
        for max in [1, 5, 16, 17, 20_000] {
            let store = MemoryStore::new(max);
            assert!(store.capacity() <= max, "max {max}");
            assert!(store.capacity() >= max * 15 / 16, "max {max}");
        }
    }

    #[test]
    fn an_evicted_key_comes_back_full() {
        let store = MemoryStore::new(1);
        let gcra = Gcra::new(&"1/1h".parse().unwrap());
        let first = BucketKey {
            group: 0,
            key: KeyDigest::of("a"),
        };
        let second = BucketKey {
            group: 0,
            key: KeyDigest::of("b"),
        };
        assert!(store.decide(first, &gcra, 0).decision.is_allowed());
        assert!(!store.decide(first, &gcra, 0).decision.is_allowed());
        assert!(store.decide(second, &gcra, 0).evicted);
        assert!(store.decide(first, &gcra, 0).decision.is_allowed());
    }
}
