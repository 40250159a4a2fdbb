//! The road to Redis that every shared backend takes (GCRA buckets and sliding windows): one
//! lazy connection, a bounded wait per script call, and the circuit breaker.
//!
//! A call that is skipped (breaker open), fails or outlasts the timeout answers `None`, and
//! the caller decides locally: Redis slow or down never fails a request. Each failure is one
//! warning line naming the group; the caller counts the local decision as a `fallback`.

use crate::breaker::Breaker;
use crate::clock::SharedClock;
use redis::{FromRedisValue, ScriptInvocation};
use redis_primary::Primary;
use std::time::Duration;

/// The longest one decision waits for Redis by default: a decision on a healthy Redis takes
/// well under a millisecond, and a request should not wait long for one in trouble.
pub const DEFAULT_REDIS_TIMEOUT: Duration = Duration::from_millis(50);

/// Where Redis is and how long to wait for it.
#[derive(Clone, Debug)]
pub struct RedisConfig {
    /// `redis://host:port/db`, or the sentinel form `redis-sentinel://host:port,…#name`.
    pub url: String,
    /// Longest wait for one decision before deciding locally ([`DEFAULT_REDIS_TIMEOUT`]).
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
            timeout: DEFAULT_REDIS_TIMEOUT,
            failure_threshold: 3,
            cool_down: Duration::from_secs(2),
        }
    }
}

/// A connection, its timeout and its breaker.
#[derive(Debug)]
pub(crate) struct RedisLink {
    connection: Primary,
    timeout: Duration,
    breaker: Breaker,
}

impl RedisLink {
    /// Prepares the link without connecting: a service starts while Redis is still down.
    pub(crate) fn new(config: &RedisConfig, clock: SharedClock) -> redis::RedisResult<Self> {
        let connection = Primary::open(&config.url, config.timeout)?;
        Ok(Self {
            connection,
            timeout: config.timeout,
            breaker: Breaker::new(config.failure_threshold, config.cool_down, clock),
        })
    }

    /// Runs one script call, unless the breaker is open, waiting at most the timeout.
    /// `None`: decide locally (the failure, if there was one, is logged for `group`).
    pub(crate) async fn invoke<T: FromRedisValue>(
        &self,
        group: &str,
        invocation: &ScriptInvocation<'_>,
    ) -> Option<T> {
        if !self.breaker.permits() {
            return None;
        }
        let mut connection = self.connection.clone();
        let call = invocation.invoke_async::<T>(&mut connection);
        let reason = match tokio::time::timeout(self.timeout, call).await {
            Ok(Ok(answer)) => {
                self.breaker.succeeded();
                return Some(answer);
            }
            Ok(Err(error)) => format!("{:?}", error.kind()),
            Err(_) => format!("no answer within {:?}", self.timeout),
        };
        self.breaker.failed();
        unavailable(group, &reason);
        None
    }
}

fn unavailable(group: &str, reason: &str) {
    tracing::warn!(group, %reason, "redis limiter unavailable; deciding locally");
}
