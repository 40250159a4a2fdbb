//! Where a bucket lives: its shard and its slot come from a hash of its key seeded with this
//! process's own randomness.
//!
//! The digest is uniform, but it is also public arithmetic: anyone can run SHA-256 over
//! addresses until a thousand of them name one shard. Seeded, the same key lands somewhere
//! else in every process, and a client who has read the code cannot aim a flood at one shard
//! or one run of slots.

use super::BucketKey;
use foldhash::SharedSeed;
use foldhash::fast::SeedableRandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// The half of the placement key every store of the process shares (foldhash derives it
/// once, at some cost); each store adds its own random half.
static PROCESS_SEED: OnceLock<SharedSeed> = OnceLock::new();

/// A store's placement hash.
#[derive(Clone, Debug)]
pub(super) struct Placement {
    state: SeedableRandomState,
}

impl Placement {
    /// A placement no other process (and no other store) shares.
    pub(super) fn random() -> Self {
        let shared = PROCESS_SEED.get_or_init(|| SharedSeed::from_u64(rand::random()));
        Self {
            state: SeedableRandomState::with_seed(rand::random(), shared),
        }
    }

    /// The bucket's hash: the slot in its shard's table, and (through [`Self::shard`]) its
    /// shard.
    pub(super) fn hash(&self, bucket: &BucketKey) -> u64 {
        let mut hasher = self.state.build_hasher();
        hasher.write_u128(u128::from_le_bytes(*bucket.key.as_bytes()));
        hasher.write_u16(bucket.group);
        hasher.finish()
    }

    /// The shard of a hash among `shards`: bits the table does not use for the slot (the low
    /// ones) nor for its tag (the top seven).
    pub(super) fn shard(hash: u64, shards: usize) -> usize {
        usize::try_from((hash >> 32) & 0xffff).unwrap_or(0) % shards
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::KeyDigest;

    fn bucket(name: &str) -> BucketKey {
        BucketKey {
            group: 0,
            key: KeyDigest::of(name),
        }
    }

    #[test]
    fn two_stores_place_the_same_keys_differently() {
        let (first, second) = (Placement::random(), Placement::random());
        let moved = (0..64)
            .map(|n| bucket(&n.to_string()))
            .filter(|key| {
                Placement::shard(first.hash(key), 16) != Placement::shard(second.hash(key), 16)
            })
            .count();
        // Independent placements agree on a key one time in sixteen.
        assert!(moved > 40, "only {moved} of 64 keys moved");
    }

    #[test]
    fn one_store_places_a_key_the_same_way_every_time() {
        let placement = Placement::random();
        let key = bucket("198.51.100.1");
        assert_eq!(placement.hash(&key), placement.hash(&key));
    }

    #[test]
    fn the_group_is_part_of_the_place() {
        let placement = Placement::random();
        let key = KeyDigest::of("198.51.100.1");
        let (first, second) = (BucketKey { group: 0, key }, BucketKey { group: 1, key });
        assert_ne!(placement.hash(&first), placement.hash(&second));
    }
}
