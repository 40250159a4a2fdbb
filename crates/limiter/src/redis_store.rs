//! The Redis backend: buckets shared by every replica, one Lua script per decision.
//!
//! Keys are `rl:{service}:{group}:{hex digest}` and expire when the bucket would be full.
//! Redis slow or down never fails a request: past the timeout the decision is made locally
//! (in a bounded map like the memory backend's), counted as a fallback, and after a run of
//! failures the breaker stops asking until its cool-down has passed (`redis_link`, shared with
//! the sliding windows).

use crate::clock::SharedClock;
use crate::decision::Decision;
use crate::gcra::Gcra;
use crate::key::KeyDigest;
use crate::memory::{BucketKey, MemoryStore, Stored};
use crate::metrics::Source;
use crate::redis_link::{RedisConfig, RedisLink};
use redis::Script;
use std::time::Duration;

#[derive(Debug)]
pub(crate) struct RedisStore {
    link: RedisLink,
    script: Script,
    key_prefix: String,
    fallback: MemoryStore,
}

impl RedisStore {
    /// Prepares the store without connecting: a service starts while Redis is still down.
    pub(crate) fn new(
        config: &RedisConfig,
        service: &str,
        max_tracked_keys: usize,
        clock: SharedClock,
    ) -> redis::RedisResult<Self> {
        Ok(Self {
            link: RedisLink::new(config, clock)?,
            script: Script::new(include_str!("gcra.lua")),
            key_prefix: format!("rl:{service}"),
            fallback: MemoryStore::new(max_tracked_keys),
        })
    }

    pub(crate) async fn decide(
        &self,
        group_name: &str,
        bucket: BucketKey,
        gcra: &Gcra,
        local_now: u64,
    ) -> (Decision, Source) {
        if let Some(decision) = self.ask_redis(group_name, &bucket.key, gcra).await {
            return (decision, Source::Shared);
        }
        let Stored { decision, evicted } = self.fallback.decide(bucket, gcra, local_now);
        (decision, Source::Fallback { evicted })
    }

    async fn ask_redis(&self, group_name: &str, key: &KeyDigest, gcra: &Gcra) -> Option<Decision> {
        let interval_us = (gcra.interval_nanos() / 1000).max(1);
        let tolerance_us = interval_us * (gcra.tolerance_nanos() / gcra.interval_nanos());
        let mut redis_key = String::with_capacity(self.key_prefix.len() + group_name.len() + 34);
        redis_key.push_str(&self.key_prefix);
        redis_key.push(':');
        redis_key.push_str(group_name);
        redis_key.push(':');
        key.push_hex(&mut redis_key);
        let mut invocation = self.script.key(redis_key);
        invocation.arg(interval_us).arg(tolerance_us);
        let (allowed, first, reset_us) = self
            .link
            .invoke::<(u8, u64, u64)>(group_name, &invocation)
            .await?;
        let reset_after = Duration::from_micros(reset_us);
        Some(if allowed == 1 {
            Decision::allowed(u32::try_from(first).unwrap_or(u32::MAX), reset_after)
        } else {
            Decision::refused(Duration::from_micros(first), reset_after)
        })
    }

    pub(crate) fn fallback_len(&self) -> usize {
        self.fallback.len()
    }
}
