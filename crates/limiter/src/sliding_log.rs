//! The in-memory sliding logs: the in-memory window's state, and the local fallback of a
//! shared one.
//!
//! Each subject keeps the arrival times of its last `limit` served requests (a sliding log:
//! exact, and bounded at `limit` entries per subject and `max_tracked_keys` subjects, least
//! recently used forgotten first). A request is served when fewer than `limit` fall inside the
//! last `period` for its subject *and* for the whole service; the wait is until the oldest of
//! them leaves the window. `sliding.lua` is the same arithmetic on Redis.

use crate::clock::duration_nanos;
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

/// One decision of the logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Logged {
    /// The answer.
    pub(crate) decision: Decision,
    /// True when tracking this subject pushed another one out.
    pub(crate) evicted: bool,
}

/// Per-subject logs under one global log, in this process.
#[derive(Debug)]
pub(crate) struct SlidingLog {
    per_subject: Policy,
    global: Policy,
    state: Mutex<State>,
}

impl SlidingLog {
    /// `per_subject` for each key, `global` for all of them, at most `max_tracked_keys` keys.
    pub(crate) fn new(per_subject: Policy, global: Policy, max_tracked_keys: usize) -> Self {
        let capacity = NonZeroUsize::new(max_tracked_keys).unwrap_or(NonZeroUsize::MIN);
        let state = State {
            subjects: LruCache::new(capacity),
            global: Window::new(),
        };
        Self {
            per_subject,
            global,
            state: Mutex::new(state),
        }
    }

    /// Decides one request for `subject` at `now` (nanoseconds on the window's clock). A
    /// refused request is written to neither log.
    pub(crate) fn decide(&self, subject: KeyDigest, now: u64) -> Logged {
        let mut guard = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let State { subjects, global } = &mut *guard;
        let evicted = subjects.len() == subjects.cap().get() && !subjects.contains(&subject);
        let window = subjects.get_or_insert_mut(subject, Window::new);
        let subject_wait = window.wait(&self.per_subject, now);
        let global_wait = global.wait(&self.global, now);
        let decision = match subject_wait.max(global_wait) {
            Some(wait) => Decision::refused(wait, window.reset_after(&self.per_subject, now)),
            None => {
                window.arrivals.push_back(now);
                global.arrivals.push_back(now);
                Decision::allowed(
                    window
                        .remaining(&self.per_subject)
                        .min(global.remaining(&self.global)),
                    window.reset_after(&self.per_subject, now),
                )
            }
        };
        Logged { decision, evicted }
    }

    /// Subjects tracked now.
    pub(crate) fn tracked_keys(&self) -> usize {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .subjects
            .len()
    }
}
