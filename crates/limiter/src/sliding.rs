//! A sliding-window limiter keyed per subject, with a global backstop (the ai-service's chat),
//! in this process or shared by every replica through Redis.
//!
//! A request is served when fewer than `limit` requests fall inside the last `period` for its
//! subject *and* for the whole service; the wait is until the oldest of them leaves the window
//! (exact, rounded up only where a client reads it). In memory the logs are bounded
//! (`sliding_log`); with Redis both logs are decided in one Lua script on the server's clock
//! (`sliding_redis`), with the GCRA backend's timeout, breaker and local fallback: Redis slow
//! or down never fails a request, the decision is made in this process's logs and counted as
//! a `fallback`.

use crate::clock::{SharedClock, duration_nanos, system_clock};
use crate::common::{Common, CommonSettings};
use crate::decision::Decision;
use crate::key::KeyDigest;
use crate::limiter::LimiterError;
use crate::metrics::{GroupCounters, Outcome, Source};
use crate::policy::Policy;
use crate::sliding_log::{Logged, SlidingLog};
use crate::sliding_redis::RedisWindows;
use std::sync::Arc;

/// Per-subject sliding windows under one global backstop.
#[derive(Debug)]
pub struct SlidingWindow {
    local: SlidingLog,
    shared: Option<RedisWindows>,
    clock: SharedClock,
    counters: Option<Arc<GroupCounters>>,
}

impl SlidingWindow {
    /// An in-memory window, uncounted: `per_subject` for each key, `global` for all of them, at
    /// most `max_tracked_keys` keys.
    pub fn new(
        per_subject: Policy,
        global: Policy,
        max_tracked_keys: usize,
        clock: SharedClock,
    ) -> Self {
        Self {
            local: SlidingLog::new(per_subject, global, max_tracked_keys),
            shared: None,
            clock,
            counters: None,
        }
    }

    /// Starts a window for `service`'s `group` (the names in metrics and Redis keys).
    pub fn builder(
        service: &str,
        group: &str,
        per_subject: Policy,
        global: Policy,
    ) -> SlidingWindowBuilder {
        SlidingWindowBuilder {
            service: service.to_owned(),
            group: group.to_owned(),
            per_subject,
            global,
            common: Common::default(),
        }
    }

    /// Decides one request for `subject`: in Redis when the window is shared (within its
    /// timeout, else locally), in this process otherwise. The answer never says which ceiling
    /// refused. Never blocks beyond the Redis timeout.
    pub async fn decide(&self, subject: KeyDigest) -> Decision {
        let shared = match &self.shared {
            Some(windows) => windows.decide(&subject).await,
            None => return self.check(subject),
        };
        let (decision, source) = match shared {
            Some(decision) => (decision, Source::Shared),
            None => {
                let Logged { decision, evicted } = self.decide_locally(subject);
                (decision, Source::Fallback { evicted })
            }
        };
        self.count(subject, &decision, source);
        decision
    }

    /// Decides one request for `subject` in this process's windows only, at once (the whole
    /// story for an in-memory window; a shared one is asked with [`SlidingWindow::decide`]).
    pub fn check(&self, subject: KeyDigest) -> Decision {
        let Logged { decision, evicted } = self.decide_locally(subject);
        self.count(subject, &decision, Source::Memory { evicted });
        decision
    }

    /// Subjects tracked in this process (for a shared window, its local fallback's).
    pub fn tracked_keys(&self) -> usize {
        self.local.tracked_keys()
    }

    /// The count of one outcome (0 for a window built without counters), for tests and logs.
    pub fn count_of(&self, outcome: Outcome) -> u64 {
        self.counters
            .as_ref()
            .map_or(0, |counters| counters.get(outcome))
    }

    fn decide_locally(&self, subject: KeyDigest) -> Logged {
        self.local.decide(subject, duration_nanos(self.clock.now()))
    }

    fn count(&self, subject: KeyDigest, decision: &Decision, source: Source) {
        if let Some(counters) = &self.counters {
            counters.record_decision(subject.stripe_byte(), decision, source);
        }
    }
}

/// Declares a window's budgets, bound, clock, counters and backend.
#[derive(Debug)]
pub struct SlidingWindowBuilder {
    service: String,
    group: String,
    per_subject: Policy,
    global: Policy,
    common: Common,
}

impl CommonSettings for SlidingWindowBuilder {
    fn common(&mut self) -> &mut Common {
        &mut self.common
    }
}

impl SlidingWindowBuilder {
    /// Builds the window. Connecting to Redis is lazy: this never waits for it.
    pub fn build(self) -> Result<SlidingWindow, LimiterError> {
        let Common {
            max_tracked_keys,
            clock,
            metrics,
            redis,
        } = self.common;
        let clock = clock.unwrap_or_else(system_clock);
        let shared = match &redis {
            None => None,
            Some(config) => Some(
                RedisWindows::new(
                    config,
                    &self.service,
                    &self.group,
                    &self.per_subject,
                    &self.global,
                    clock.clone(),
                )
                .map_err(|error| LimiterError::Redis(format!("{:?}", error.kind())))?,
            ),
        };
        let counters = Some(metrics.group_counters(&self.service, &self.group));
        Ok(SlidingWindow {
            local: SlidingLog::new(self.per_subject, self.global, max_tracked_keys),
            shared,
            clock,
            counters,
        })
    }
}
