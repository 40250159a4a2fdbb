//! The in-memory backend: GCRA state in a bounded, sharded table that forgets what costs
//! nothing first, across the whole store.
//!
//! The key is attacker-influenced on IP-keyed groups, so an unbounded map is the denial of
//! service the limiter exists to prevent; but *what* a bounded map forgets decides whether a
//! flood of fresh keys can reset the one budget that matters. A bucket whose theoretical
//! arrival time (TAT) is at or before now is full: forgetting it changes no decision. A bucket
//! whose TAT is ahead of now is in debt: it is the budget being enforced. So when the store is
//! full and a new key comes, the bucket with the least TAT *of the whole store* goes: a full
//! one while there is any, anywhere, and only when every bucket is in debt the one whose debt
//! ends soonest (counted as `evicted`). The new key is always kept: a key that could not be
//! stored would start from a full budget on every request.
//!
//! The fast path is one shard's lock: a bucket already held, or a new one while the store has
//! room (one atomic count of the whole store's buckets). Only a new key meeting a full store
//! takes the slow path: every shard's lock, in shard order, so the store stands still while its
//! least TAT is found and forgotten and the new bucket goes in; requests on the fast path hold
//! one lock at a time and never wait for a second, so nothing deadlocks.
//!
//! Shard and slot come from a hash seeded per process (`placement`): a client who knows the
//! code cannot aim its keys at one shard, and where they land changes nothing about what is
//! forgotten anyway.

mod buckets;
mod placement;

use crate::decision::Decision;
use crate::gcra::Gcra;
use crate::key::KeyDigest;
use crate::metrics::GroupCounters;
use buckets::Buckets;
use placement::Placement;
use smallvec::SmallVec;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

const SHARDS: usize = 16;

/// One bucket's identity inside a limiter: which group, whose key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    /// True when keeping this bucket forgot another one that was still in debt.
    pub evicted: bool,
}

/// One shard, alone on its cache lines (two, for the adjacent-line prefetcher), so two cores
/// on two shards never write to one line.
#[derive(Debug)]
#[repr(align(128))]
struct Shard(Mutex<Buckets>);

/// Every shard's lock, held by the slow path.
type AllShards<'a> = SmallVec<[MutexGuard<'a, Buckets>; SHARDS]>;

/// A bounded map of bucket states.
#[derive(Debug)]
pub struct MemoryStore {
    shards: Box<[Shard]>,
    /// Buckets held in all shards; never more than `max_tracked_keys`. It only grows: once the
    /// store is full, every bucket added replaces one forgotten.
    tracked: AtomicUsize,
    max_tracked_keys: usize,
    placement: Placement,
}

impl MemoryStore {
    /// A store that tracks at most `max_tracked_keys` buckets (at least one).
    pub fn new(max_tracked_keys: usize) -> Self {
        let max_tracked_keys = max_tracked_keys.max(1);
        let shard_count = SHARDS.min(max_tracked_keys);
        let share = max_tracked_keys.div_ceil(shard_count);
        let shards = (0..shard_count)
            .map(|_| Shard(Mutex::new(Buckets::new(share))))
            .collect();
        Self {
            shards,
            tracked: AtomicUsize::new(0),
            max_tracked_keys,
            placement: Placement::random(),
        }
    }

    /// Decides one request at `now` (nanoseconds on the limiter's clock).
    pub fn decide(&self, bucket: BucketKey, gcra: &Gcra, now: u64) -> Stored {
        self.decide_then(bucket, gcra, now, |_, _| {})
    }

    /// [`Self::decide`], counted in `counters` while the bucket's shard is still locked: for a
    /// store that is its groups' only writer (a limiter's memory backend, not Redis's fallback).
    pub(crate) fn decide_counted(
        &self,
        bucket: BucketKey,
        gcra: &Gcra,
        now: u64,
        counters: &GroupCounters,
    ) -> Decision {
        let record = |shard: usize, stored: &Stored| {
            counters.record_serialized(shard, &stored.decision, stored.evicted);
        };
        self.decide_then(bucket, gcra, now, record).decision
    }

    /// Decides, then hands the outcome and the bucket's shard to `record` while that shard's
    /// lock is still held.
    fn decide_then(
        &self,
        bucket: BucketKey,
        gcra: &Gcra,
        now: u64,
        record: impl FnOnce(usize, &Stored),
    ) -> Stored {
        let hash = self.placement.hash(&bucket);
        let index = Placement::shard(hash, self.shards.len());
        {
            let mut shard = lock(&self.shards[index].0);
            let decision = match shard.decide_held(hash, bucket, gcra, now) {
                Some(decision) => Some(decision),
                None if self.room() => {
                    Some(shard.insert_new(hash, bucket, gcra, now, &self.placement))
                }
                None => None,
            };
            if let Some(decision) = decision {
                let stored = Stored {
                    decision,
                    evicted: false,
                };
                record(index, &stored);
                return stored;
            }
        }
        let mut shards = self.lock_all();
        // Another request may have stored this bucket while no lock was held.
        let stored = match shards[index].decide_held(hash, bucket, gcra, now) {
            Some(decision) => Stored {
                decision,
                evicted: false,
            },
            None => {
                let forgotten = self.forget_least(&mut shards);
                let decision = shards[index].insert_new(hash, bucket, gcra, now, &self.placement);
                Stored {
                    decision,
                    evicted: forgotten.is_some_and(|tat| tat > now),
                }
            }
        };
        record(index, &stored);
        stored
    }

    /// Forgets the bucket with the least TAT of the whole store and returns that TAT.
    fn forget_least(&self, shards: &mut AllShards<'_>) -> Option<u64> {
        let (index, _) = shards
            .iter_mut()
            .enumerate()
            .filter_map(|(index, shard)| Some((index, shard.least_tat(&self.placement)?)))
            .min_by_key(|&(_, tat)| tat)?;
        shards[index].forget_least(&self.placement)
    }

    /// Every shard's lock, always taken in shard order.
    fn lock_all(&self) -> AllShards<'_> {
        self.shards.iter().map(|shard| lock(&shard.0)).collect()
    }

    /// Takes a place for one more bucket, if the store has one.
    fn room(&self) -> bool {
        self.tracked
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |held| {
                (held < self.max_tracked_keys).then_some(held + 1)
            })
            .is_ok()
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
        self.max_tracked_keys
    }
}

/// A poisoned shard still holds valid bucket states (each update is one assignment).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod tests;
