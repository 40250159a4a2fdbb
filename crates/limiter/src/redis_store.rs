//! The Redis backend: buckets shared by every replica, one Lua script per decision.
//!
//! Keys are `rl:{service}:{group}:{hex digest}` and expire when the bucket would be full.
//! Redis slow or down never fails a request: past the timeout the decision is made locally
//! (in a bounded map like the memory backend's), counted as a fallback, and after a run of
//! failures the breaker stops asking until its cool-down has passed.

use crate::breaker::Breaker;
use crate::clock::SharedClock;
use crate::decision::Decision;
use crate::gcra::Gcra;
use crate::key::KeyDigest;
use crate::memory::{BucketKey, MemoryStore, Stored};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Script};
use std::time::Duration;

/// Where Redis is and how long to wait for it.
#[derive(Clone, Debug)]
pub struct RedisConfig {
    /// `redis://host:port/db`.
    pub url: String,
    /// Longest wait for one decision before deciding locally (default 50 ms).
    pub timeout: Duration,
    /// Failures in a row that open the breaker (default 3).
    pub failure_threshold: u32,
    /// How long the breaker stays open before one probe (default 2 s).
    pub cool_down: Duration,
}

impl RedisConfig {
    /// The defaults for a URL.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            timeout: Duration::from_millis(50),
            failure_threshold: 3,
            cool_down: Duration::from_secs(2),
        }
    }
}

/// Which path a decision took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    Shared,
    Fallback { evicted: bool },
}

#[derive(Debug)]
pub(crate) struct RedisStore {
    connection: ConnectionManager,
    script: Script,
    key_prefix: String,
    timeout: Duration,
    breaker: Breaker,
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
        let manager_config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.timeout))
            .set_response_timeout(Some(config.timeout))
            .set_number_of_retries(1);
        let connection = ConnectionManager::new_lazy_with_config(
            Client::open(config.url.as_str())?,
            manager_config,
        )?;
        Ok(Self {
            connection,
            script: Script::new(include_str!("gcra.lua")),
            key_prefix: format!("rl:{service}"),
            timeout: config.timeout,
            breaker: Breaker::new(config.failure_threshold, config.cool_down, clock),
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
        if self.breaker.permits() {
            match self.ask_redis(group_name, &bucket.key, gcra).await {
                Ok(decision) => {
                    self.breaker.succeeded();
                    return (decision, Source::Shared);
                }
                Err(reason) => {
                    self.breaker.failed();
                    tracing::warn!(group = group_name, %reason, "redis limiter unavailable; deciding locally");
                }
            }
        }
        let Stored { decision, evicted } = self.fallback.decide(bucket, gcra, local_now);
        (decision, Source::Fallback { evicted })
    }

    async fn ask_redis(
        &self,
        group_name: &str,
        key: &KeyDigest,
        gcra: &Gcra,
    ) -> Result<Decision, String> {
        let interval_us = (gcra.interval_nanos() / 1000).max(1);
        let tolerance_us = interval_us * (gcra.tolerance_nanos() / gcra.interval_nanos());
        let redis_key = format!("{}:{group_name}:{}", self.key_prefix, key.to_hex());
        let mut connection = self.connection.clone();
        let mut invocation = self.script.key(redis_key);
        invocation.arg(interval_us).arg(tolerance_us);
        let call = invocation.invoke_async::<(u8, u64, u64)>(&mut connection);
        let (allowed, first, reset_us) = tokio::time::timeout(self.timeout, call)
            .await
            .map_err(|_| format!("no answer within {:?}", self.timeout))?
            .map_err(|error| format!("{:?}", error.kind()))?;
        let reset_after = Duration::from_micros(reset_us);
        Ok(if allowed == 1 {
            Decision::allowed(u32::try_from(first).unwrap_or(u32::MAX), reset_after)
        } else {
            Decision::refused(Duration::from_micros(first), reset_after)
        })
    }

    pub(crate) fn fallback_len(&self) -> usize {
        self.fallback.len()
    }
}
