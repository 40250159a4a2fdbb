//! A sliding-window limiter keyed per subject, with a global backstop (the ai-service's chat).
//!
//! Each subject keeps the arrival times of its last `limit` served requests (a sliding log:
//! exact, and bounded at `limit` entries per subject and `max_tracked_keys` subjects). A
//! request is served when fewer than `limit` fall inside the last `period` for its subject
//! *and* for the whole service; the wait is until the oldest of them leaves the window.

use crate::clock::{SharedClock, duration_nanos};
use crate::decision::Decision;
use crate::key::KeyDigest;
use crate::policy::Policy;
use lru::LruCache;
use std::collections::VecDeque;
use std::num::NonZeroUsize;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

#[derive(Debug)]
struct Window {
    arrivals: VecDeque<u64>,
}

impl Window {
    fn new() -> Self {
        Self {
            arrivals: VecDeque::new(),
        }
    }

    /// Forgets arrivals older than the window; returns the wait before one more fits.
    fn wait(&mut self, policy: &Policy, now: u64) -> Option<Duration> {
        let period = duration_nanos(policy.period());
        while self.arrivals.front().is_some_and(|&at| at + period <= now) {
            self.arrivals.pop_front();
        }
        let limit = usize::try_from(policy.limit()).unwrap_or(usize::MAX);
        (self.arrivals.len() >= limit).then(|| {
            let oldest = self.arrivals[self.arrivals.len() - limit];
            Duration::from_nanos(oldest + period - now)
        })
    }

    fn remaining(&self, policy: &Policy) -> u32 {
        policy
            .limit()
            .saturating_sub(u32::try_from(self.arrivals.len()).unwrap_or(u32::MAX))
    }

    fn reset_after(&self, policy: &Policy, now: u64) -> Duration {
        let period = duration_nanos(policy.period());
        let newest = self.arrivals.back().copied().unwrap_or(now);
        Duration::from_nanos((newest + period).saturating_sub(now))
    }
}

#[derive(Debug)]
struct State {
    subjects: LruCache<KeyDigest, Window>,
    global: Window,
}

/// Per-subject sliding windows under one global backstop.
#[derive(Debug)]
pub struct SlidingWindow {
    per_subject: Policy,
    global: Policy,
    state: Mutex<State>,
    clock: SharedClock,
}

impl SlidingWindow {
    /// `per_subject` for each key, `global` for all of them, at most `max_tracked_keys` keys.
    pub fn new(
        per_subject: Policy,
        global: Policy,
        max_tracked_keys: usize,
        clock: SharedClock,
    ) -> Self {
        let capacity = NonZeroUsize::new(max_tracked_keys).unwrap_or(NonZeroUsize::MIN);
        let state = State {
            subjects: LruCache::new(capacity),
            global: Window::new(),
        };
        Self {
            per_subject,
            global,
            state: Mutex::new(state),
            clock,
        }
    }

    /// Decides one request for `subject`. The answer never says which ceiling refused.
    pub fn check(&self, subject: KeyDigest) -> Decision {
        let now = duration_nanos(self.clock.now());
        let mut guard = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let State { subjects, global } = &mut *guard;
        let window = subjects.get_or_insert_mut(subject, Window::new);
        let subject_wait = window.wait(&self.per_subject, now);
        let global_wait = global.wait(&self.global, now);
        if let Some(wait) = subject_wait.max(global_wait) {
            return Decision::refused(wait, window.reset_after(&self.per_subject, now));
        }
        window.arrivals.push_back(now);
        global.arrivals.push_back(now);
        Decision::allowed(
            window
                .remaining(&self.per_subject)
                .min(global.remaining(&self.global)),
            window.reset_after(&self.per_subject, now),
        )
    }

    /// Subjects tracked now.
    pub fn tracked_keys(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .subjects
            .len()
    }
}
