//! The shared sliding windows: the subject's log and the backstop's live in Redis and are
//! decided together by one Lua script (`sliding.lua`) on the server's own `TIME`, so every
//! replica counts into one window per subject and one backstop, and a refused request spends
//! neither.
//!
//! Keys are `rl:{service}:{group}:{hex digest}` for a subject and `rl:{service}:{group}:global`
//! for the backstop (a digest is 32 hex digits, so the two never meet). Each is a sorted set of
//! at most `limit` arrival times that expires when its newest arrival leaves the window: Redis
//! holds only the subjects seen in the last period. The connection, its timeout and the
//! breaker are the GCRA backend's (`redis_link`).

use crate::clock::SharedClock;
use crate::decision::Decision;
use crate::key::KeyDigest;
use crate::policy::Policy;
use crate::redis_link::{RedisConfig, RedisLink};
use redis::Script;
use std::time::Duration;

/// One budget as the script reads it.
#[derive(Clone, Copy, Debug)]
struct Budget {
    limit: u32,
    period_us: u64,
}

impl Budget {
    fn of(policy: &Policy) -> Self {
        Self {
            limit: policy.limit(),
            period_us: u64::try_from(policy.period().as_micros())
                .unwrap_or(u64::MAX)
                .max(1),
        }
    }
}

/// A window pair in Redis.
#[derive(Debug)]
pub(crate) struct RedisWindows {
    link: RedisLink,
    script: Script,
    group: String,
    key_prefix: String,
    global_key: String,
    per_subject: Budget,
    global: Budget,
}

impl RedisWindows {
    /// Prepares the windows without connecting: a service starts while Redis is still down.
    pub(crate) fn new(
        config: &RedisConfig,
        service: &str,
        group: &str,
        per_subject: &Policy,
        global: &Policy,
        clock: SharedClock,
    ) -> redis::RedisResult<Self> {
        let key_prefix = format!("rl:{service}:{group}");
        Ok(Self {
            link: RedisLink::new(config, clock)?,
            script: Script::new(include_str!("sliding.lua")),
            group: group.to_owned(),
            global_key: format!("{key_prefix}:global"),
            key_prefix,
            per_subject: Budget::of(per_subject),
            global: Budget::of(global),
        })
    }

    /// Decides one request in Redis; `None` when Redis did not answer in time (or the breaker
    /// is open): decide locally.
    pub(crate) async fn decide(&self, subject: &KeyDigest) -> Option<Decision> {
        let mut invocation = self
            .script
            .key(format!("{}:{}", self.key_prefix, subject.to_hex()));
        invocation
            .key(&self.global_key)
            .arg(self.per_subject.limit)
            .arg(self.per_subject.period_us)
            .arg(self.global.limit)
            .arg(self.global.period_us);
        let (allowed, first, reset_us) = self
            .link
            .invoke::<(u8, u64, u64)>(&self.group, &invocation)
            .await?;
        let reset_after = Duration::from_micros(reset_us);
        Some(if allowed == 1 {
            Decision::allowed(u32::try_from(first).unwrap_or(u32::MAX), reset_after)
        } else {
            Decision::refused(Duration::from_micros(first), reset_after)
        })
    }
}
