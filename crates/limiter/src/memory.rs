//! The in-memory backend: GCRA state in a bounded, sharded table that forgets what costs
//! nothing first.
//!
//! The key is attacker-influenced on IP-keyed groups, so an unbounded map is the denial of
//! service the limiter exists to prevent; but *what* a bounded map forgets decides whether a
//! flood of fresh keys can reset the one budget that matters. A bucket whose theoretical
//! arrival time (TAT) is at or before now is full: forgetting it changes no decision. A bucket
//! whose TAT is ahead of now is in debt: it is the budget being enforced. So when a shard is
//! full, the bucket with the smallest TAT goes: a full one while there is any, and only when
//! every bucket is in debt the one whose debt ends soonest (counted as `evicted`). A flood of
//! one-request keys (each a few seconds in debt) cannot push out a key that spent its hour.
//!
//! Each shard is a `hashbrown` table keyed by the digest (already uniform, so its bytes are
//! the hash) beside a lazy min-heap of TATs: a decision touches only the table; the heap
//! holds one entry per bucket with the TAT it had when pushed, never more than its TAT now
//! (a TAT only grows), so the heap's least entry that is not stale is the least TAT of all.
//! A stale entry met at eviction is pushed again with its bucket's TAT now.
//!
//! The bound is the whole store's (`max_tracked_keys`, one atomic count taken when a bucket
//! is added), so as many live keys as the bound fit however unevenly they fall on the shards;
//! a shard also stops at twice its share, so keys aimed at one shard cannot take the rest.
//! When a bucket must go, it is the least TAT *of its shard*: exact within the shard, where
//! the key's digest put it. A key aimed at a victim's shard only pushes out the victim by
//! being deeper in debt than the victim, which costs the attacker that budget on every key.

use crate::decision::Decision;
use crate::gcra::Gcra;
use crate::key::KeyDigest;
use crate::metrics::GroupCounters;
use hashbrown::HashTable;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
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

impl BucketKey {
    /// The table's hash: the digest's bytes (uniform already), mixed with the group.
    fn hash(&self) -> u64 {
        let bytes = self.key.as_bytes();
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[..8]);
        u64::from_le_bytes(word) ^ (u64::from(self.group) << 48)
    }
}

/// What one decision did to the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stored {
    /// The bucket's answer.
    pub decision: Decision,
    /// True when keeping this bucket forgot another one that was still in debt.
    pub evicted: bool,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    bucket: BucketKey,
    tat: u64,
}

/// One shard's buckets.
#[derive(Debug)]
struct Buckets {
    table: HashTable<Slot>,
    /// Least TAT first; an entry's TAT is at most its bucket's TAT now.
    heap: BinaryHeap<Reverse<(u64, BucketKey)>>,
    capacity: usize,
}

impl Buckets {
    /// Room allocated for `expected` buckets, growing to at most `capacity`.
    fn new(expected: usize, capacity: usize) -> Self {
        Self {
            table: HashTable::with_capacity(expected),
            heap: BinaryHeap::with_capacity(expected),
            capacity,
        }
    }

    /// Decides on `bucket`; a new bucket is kept when `room` grants a place in the store (or
    /// the shard forgets its least bucket for it).
    fn decide(
        &mut self,
        bucket: BucketKey,
        gcra: &Gcra,
        now: u64,
        room: impl FnOnce() -> bool,
    ) -> Stored {
        let hash = bucket.hash();
        if let Some(slot) = self.table.find_mut(hash, |slot| slot.bucket == bucket) {
            let (decision, next) = gcra.decide(Some(slot.tat), now);
            if let Some(next) = next {
                slot.tat = next;
            }
            return Stored {
                decision,
                evicted: false,
            };
        }
        let (decision, next) = gcra.decide(None, now);
        let Some(tat) = next else {
            return Stored {
                decision,
                evicted: false,
            };
        };
        let evicted = match self.table.len() < self.capacity && room() {
            true => false,
            false => match self.forget_least(now) {
                Some(in_debt) => in_debt,
                // Nothing here to forget and no room elsewhere: this bucket is the one forgotten.
                None => {
                    return Stored {
                        decision,
                        evicted: tat > now,
                    };
                }
            },
        };
        self.table
            .insert_unique(hash, Slot { bucket, tat }, |slot| slot.bucket.hash());
        self.heap.push(Reverse((tat, bucket)));
        Stored { decision, evicted }
    }

    /// Forgets the bucket with the least TAT: `Some(true)` when it was still in debt, `None`
    /// when the shard holds none.
    fn forget_least(&mut self, now: u64) -> Option<bool> {
        while let Some(Reverse((pushed, bucket))) = self.heap.pop() {
            let Ok(entry) = self
                .table
                .find_entry(bucket.hash(), |slot| slot.bucket == bucket)
            else {
                continue;
            };
            let tat = entry.get().tat;
            if tat > pushed {
                self.heap.push(Reverse((tat, bucket)));
                continue;
            }
            entry.remove();
            return Some(tat > now);
        }
        None
    }
}

/// One shard, alone on its cache lines (two, for the adjacent-line prefetcher), so two cores
/// on two shards never write to one line.
#[derive(Debug)]
#[repr(align(128))]
struct Shard(Mutex<Buckets>);

/// A bounded map of bucket states.
#[derive(Debug)]
pub struct MemoryStore {
    shards: Box<[Shard]>,
    /// Buckets held in all shards; never more than `max_tracked_keys`.
    tracked: AtomicUsize,
    max_tracked_keys: usize,
}

impl MemoryStore {
    /// A store that tracks at most `max_tracked_keys` buckets (at least one).
    pub fn new(max_tracked_keys: usize) -> Self {
        let max_tracked_keys = max_tracked_keys.max(1);
        let shard_count = SHARDS.min(max_tracked_keys);
        let share = max_tracked_keys.div_ceil(shard_count);
        let per_shard = (2 * share).min(max_tracked_keys);
        let shards = (0..shard_count)
            .map(|_| Shard(Mutex::new(Buckets::new(share, per_shard))))
            .collect();
        Self {
            shards,
            tracked: AtomicUsize::new(0),
            max_tracked_keys,
        }
    }

    /// Decides one request at `now` (nanoseconds on the limiter's clock).
    pub fn decide(&self, bucket: BucketKey, gcra: &Gcra, now: u64) -> Stored {
        let mut shard = lock(&self.shards[self.shard_index(&bucket.key)].0);
        shard.decide(bucket, gcra, now, || self.room())
    }

    /// [`Self::decide`], counted in `counters` while the shard is still locked: for a store
    /// that is its groups' only writer (a limiter's memory backend, not Redis's fallback).
    pub(crate) fn decide_counted(
        &self,
        bucket: BucketKey,
        gcra: &Gcra,
        now: u64,
        counters: &GroupCounters,
    ) -> Decision {
        let index = self.shard_index(&bucket.key);
        let mut shard = lock(&self.shards[index].0);
        let stored = shard.decide(bucket, gcra, now, || self.room());
        counters.record_serialized(index, &stored.decision, stored.evicted);
        stored.decision
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
        self.shards
            .iter()
            .map(|shard| lock(&shard.0).table.len())
            .sum()
    }

    /// True when no bucket is tracked.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The most buckets this store will ever hold.
    pub fn capacity(&self) -> usize {
        self.max_tracked_keys
    }

    fn shard_index(&self, key: &KeyDigest) -> usize {
        usize::from(key.shard_byte()) % self.shards.len()
    }
}

/// A poisoned shard still holds valid bucket states (each update is one assignment).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests;
