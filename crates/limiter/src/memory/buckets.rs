//! One shard's buckets: a `hashbrown` table beside a lazy min-heap of their TATs.
//!
//! A decision touches only the table. The heap holds one entry per bucket with the TAT it had
//! when pushed; a TAT only grows, so an entry is never more than its bucket's TAT now, and once
//! the stale entries on top are pushed again with their TAT now, the top is the shard's least
//! TAT. A bucket leaves only through the heap's top, so entry and bucket go together.

use super::BucketKey;
use super::placement::Placement;
use crate::decision::Decision;
use crate::gcra::Gcra;
use hashbrown::HashTable;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub(super) bucket: BucketKey,
    pub(super) tat: u64,
}

/// One shard's buckets.
#[derive(Debug)]
pub(super) struct Buckets {
    pub(super) table: HashTable<Slot>,
    /// Least TAT first; an entry's TAT is at most its bucket's TAT now.
    heap: BinaryHeap<Reverse<(u64, BucketKey)>>,
}

impl Buckets {
    /// Room allocated for `expected` buckets; the table grows past it if it must.
    pub(super) fn new(expected: usize) -> Self {
        Self {
            table: HashTable::with_capacity(expected),
            heap: BinaryHeap::with_capacity(expected),
        }
    }

    /// Decides on `bucket` if this shard holds it; `None` when it does not.
    pub(super) fn decide_held(
        &mut self,
        hash: u64,
        bucket: BucketKey,
        gcra: &Gcra,
        now: u64,
    ) -> Option<Decision> {
        let slot = self.table.find_mut(hash, |slot| slot.bucket == bucket)?;
        let (decision, next) = gcra.decide(Some(slot.tat), now);
        if let Some(next) = next {
            slot.tat = next;
        }
        Some(decision)
    }

    /// Decides the first request of a bucket this shard does not hold, and keeps the bucket:
    /// the caller has made room for it. A bucket that could not be kept would be a fresh
    /// budget on every request.
    pub(super) fn insert_new(
        &mut self,
        hash: u64,
        bucket: BucketKey,
        gcra: &Gcra,
        now: u64,
        placement: &Placement,
    ) -> Decision {
        let (decision, next) = gcra.decide(None, now);
        // A fresh bucket always conforms; were it refused, it would be kept full.
        let tat = next.unwrap_or(now);
        self.table
            .insert_unique(hash, Slot { bucket, tat }, |slot| {
                placement.hash(&slot.bucket)
            });
        self.heap.push(Reverse((tat, bucket)));
        decision
    }

    /// The least TAT this shard holds, its heap's stale top entries first brought up to date.
    pub(super) fn least_tat(&mut self, placement: &Placement) -> Option<u64> {
        while let Some(&Reverse((pushed, bucket))) = self.heap.peek() {
            let held = self
                .table
                .find(placement.hash(&bucket), |slot| slot.bucket == bucket)
                .map(|slot| slot.tat);
            match held {
                Some(tat) if tat == pushed => return Some(tat),
                Some(tat) => {
                    self.heap.pop();
                    self.heap.push(Reverse((tat, bucket)));
                }
                None => {
                    self.heap.pop();
                }
            }
        }
        None
    }

    /// Forgets the bucket with the least TAT and returns that TAT; `None` when the shard holds
    /// none.
    pub(super) fn forget_least(&mut self, placement: &Placement) -> Option<u64> {
        let tat = self.least_tat(placement)?;
        let Reverse((_, bucket)) = self.heap.pop()?;
        if let Ok(entry) = self
            .table
            .find_entry(placement.hash(&bucket), |slot| slot.bucket == bucket)
        {
            entry.remove();
        }
        Some(tat)
    }

    /// Buckets held.
    pub(super) fn len(&self) -> usize {
        self.table.len()
    }

    /// Heap entries (one per bucket held).
    #[cfg(test)]
    pub(super) fn heap_len(&self) -> usize {
        self.heap.len()
    }
}
