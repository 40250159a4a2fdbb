//! A service's limiter: named groups, each a policy, over one backend (memory or Redis).

use crate::clock::{SharedClock, duration_nanos, system_clock};
use crate::common::{Common, CommonSettings};
use crate::decision::Decision;
use crate::gcra::Gcra;
use crate::key::KeyDigest;
use crate::memory::{BucketKey, MemoryStore};
use crate::metrics::{GroupCounters, Outcome};
use crate::policy::Policy;
use crate::redis_store::RedisStore;
use futures_util::future::{BoxFuture, Either, Ready, ready};
use std::sync::Arc;
use std::time::Duration;

/// A decision: ready at once from memory, or Redis's round trip.
type CheckFuture<'a> = Either<Ready<Decision>, BoxFuture<'a, Decision>>;

/// The default bound on tracked buckets per limiter.
pub const DEFAULT_MAX_TRACKED_KEYS: usize = 20_000;

/// A group's handle, resolved once from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupId(u16);

/// A named budget.
#[derive(Debug)]
pub struct Group {
    name: String,
    policy: Policy,
    gcra: Gcra,
    advertised: bool,
    counters: Arc<GroupCounters>,
}

impl Group {
    /// The group's name (`credential`, `write`, …).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its budget.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// False for a group whose state must not reach a client (a per-recipient ceiling:
    /// its remaining count would say how much mail somebody else's inbox received).
    pub fn advertised(&self) -> bool {
        self.advertised
    }
}

/// Why a limiter could not be built.
#[derive(Debug, thiserror::Error)]
pub enum LimiterError {
    /// Two groups share a name.
    #[error("group {0:?} is declared twice")]
    DuplicateGroup(String),
    /// The Redis URL could not be used.
    #[error("REDIS_URL is not a usable Redis URL: {0}")]
    Redis(String),
}

#[derive(Debug)]
enum Backend {
    Memory(MemoryStore),
    Redis(RedisStore),
}

#[derive(Debug)]
struct Inner {
    groups: Vec<Group>,
    backend: Backend,
    clock: SharedClock,
}

/// The outcome of every bucket a request was checked against, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Each checked group with its decision; checking stops at the first refusal.
    pub checked: Vec<(GroupId, Decision)>,
}

impl Verdict {
    /// The first refusal: its group and its wait.
    pub fn refusal(&self) -> Option<(GroupId, Duration)> {
        self.checked
            .iter()
            .find_map(|(group, decision)| decision.retry_after().map(|wait| (*group, wait)))
    }
}

/// A service's limiter. Cheap to clone; clones share buckets.
#[derive(Clone, Debug)]
pub struct Limiter {
    inner: Arc<Inner>,
}

impl Limiter {
    /// Starts a limiter for `service` (the name in metrics and Redis keys).
    pub fn builder(service: &str) -> LimiterBuilder {
        LimiterBuilder {
            service: service.to_owned(),
            groups: Vec::new(),
            common: Common::default(),
        }
    }

    /// The handle of a named group.
    pub fn group_id(&self, name: &str) -> Option<GroupId> {
        let index = self
            .inner
            .groups
            .iter()
            .position(|group| group.name == name)?;
        u16::try_from(index).ok().map(GroupId)
    }

    /// A group by handle.
    pub fn group(&self, id: GroupId) -> &Group {
        &self.inner.groups[usize::from(id.0)]
    }

    /// Every group, in declaration order.
    pub fn groups(&self) -> impl Iterator<Item = (GroupId, &Group)> {
        self.inner
            .groups
            .iter()
            .zip(0u16..)
            .map(|(group, index)| (GroupId(index), group))
    }

    /// Decides one request on one bucket. Never blocks: memory answers at once, Redis within
    /// its timeout or locally.
    pub fn check(&self, id: GroupId, key: KeyDigest) -> impl Future<Output = Decision> + '_ {
        self.check_at(id, key, duration_nanos(self.inner.clock.now()))
    }

    /// Decides one request on several buckets (per IP *and* per recipient, say): refused if
    /// any refuses. Buckets are asked in order and asking stops at the first refusal.
    pub async fn check_all(&self, checks: &[(GroupId, KeyDigest)]) -> Verdict {
        let now = duration_nanos(self.inner.clock.now());
        let mut checked = Vec::with_capacity(checks.len());
        for &(id, key) in checks {
            let decision = self.check_at(id, key, now).await;
            checked.push((id, decision));
            if !decision.is_allowed() {
                break;
            }
        }
        Verdict { checked }
    }

    /// The memory backend answers at once; only a Redis decision is a future worth its size
    /// (boxed, so a memory decision never moves the Redis path's state around).
    fn check_at(&self, id: GroupId, key: KeyDigest, now: u64) -> CheckFuture<'_> {
        let group = self.group(id);
        let bucket = BucketKey { group: id.0, key };
        match &self.inner.backend {
            Backend::Memory(store) => Either::Left(ready(store.decide_counted(
                bucket,
                &group.gcra,
                now,
                &group.counters,
            ))),
            Backend::Redis(store) => Either::Right(Box::pin(async move {
                let (decision, source) = store.decide(&group.name, bucket, &group.gcra, now).await;
                group
                    .counters
                    .record_decision(key.stripe_byte(), &decision, source);
                decision
            })),
        }
    }

    /// Buckets held in this process (for Redis, the local fallback's).
    pub fn tracked_keys(&self) -> usize {
        match &self.inner.backend {
            Backend::Memory(store) => store.len(),
            Backend::Redis(store) => store.fallback_len(),
        }
    }

    /// A group's count of one outcome, for tests and logs.
    pub fn count(&self, id: GroupId, outcome: Outcome) -> u64 {
        self.group(id).counters.get(outcome)
    }
}

/// Declares a limiter's groups and backend.
#[derive(Debug)]
pub struct LimiterBuilder {
    service: String,
    groups: Vec<(String, Policy, bool)>,
    common: Common,
}

impl CommonSettings for LimiterBuilder {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

impl LimiterBuilder {
    /// A group whose state is advertised in `RateLimit` headers.
    pub fn group(mut self, name: &str, policy: Policy) -> Self {
        self.groups.push((name.to_owned(), policy, true));
        self
    }

    /// A group that limits but never shows up in headers (see [`Group::advertised`]).
    pub fn hidden_group(mut self, name: &str, policy: Policy) -> Self {
        self.groups.push((name.to_owned(), policy, false));
        self
    }

    /// Builds the limiter. Connecting to Redis is lazy: this never waits for it.
    pub fn build(self) -> Result<Limiter, LimiterError> {
        let Common {
            max_tracked_keys,
            clock,
            metrics,
            redis,
        } = self.common;
        let clock = clock.unwrap_or_else(system_clock);
        let mut groups: Vec<Group> = Vec::with_capacity(self.groups.len());
        for (name, policy, advertised) in self.groups {
            if groups.iter().any(|group| group.name == name) {
                return Err(LimiterError::DuplicateGroup(name));
            }
            let counters = metrics.group_counters(&self.service, &name);
            let gcra = Gcra::new(&policy);
            groups.push(Group {
                name,
                policy,
                gcra,
                advertised,
                counters,
            });
        }
        let backend = match &redis {
            None => Backend::Memory(MemoryStore::new(max_tracked_keys)),
            Some(config) => Backend::Redis(
                RedisStore::new(config, &self.service, max_tracked_keys, clock.clone())
                    .map_err(|error| LimiterError::Redis(format!("{:?}", error.kind())))?,
            ),
        };
        Ok(Limiter {
            inner: Arc::new(Inner {
                groups,
                backend,
                clock,
            }),
        })
    }
}
