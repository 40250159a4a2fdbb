//! A circuit breaker for the shared backend: after a run of failures, stop asking for a while.
//!
//! While open, every decision is made locally at once instead of each paying the timeout.
//! After the cool-down one request probes the backend (half-open); success closes it.

use crate::clock::SharedClock;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

#[derive(Debug, Default)]
struct State {
    consecutive_failures: u32,
    open_until: Option<Duration>,
}

/// Tracks the backend's health on the limiter's clock.
#[derive(Debug)]
pub struct Breaker {
    state: Mutex<State>,
    failure_threshold: u32,
    cool_down: Duration,
    clock: SharedClock,
}

impl Breaker {
    /// Opens after `failure_threshold` failures in a row, for `cool_down`.
    pub fn new(failure_threshold: u32, cool_down: Duration, clock: SharedClock) -> Self {
        Self {
            state: Mutex::default(),
            failure_threshold: failure_threshold.max(1),
            cool_down,
            clock,
        }
    }

    /// True when the backend may be asked now. Past the cool-down, one caller gets `true`
    /// and the window is pushed out again, so a recovering backend sees one probe, not a herd.
    pub fn permits(&self) -> bool {
        let now = self.clock.now();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        match state.open_until {
            None => true,
            Some(until) if now >= until => {
                state.open_until = Some(now + self.cool_down);
                true
            }
            Some(_) => false,
        }
    }

    /// The backend answered.
    pub fn succeeded(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        *state = State::default();
    }

    /// The backend failed or was too slow.
    pub fn failed(&self) {
        let now = self.clock.now();
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.consecutive_failures = state.consecutive_failures.saturating_add(1);
        if state.consecutive_failures >= self.failure_threshold {
            state.open_until = Some(now + self.cool_down);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FakeClock;
    use std::sync::Arc;

    #[test]
    fn opens_after_the_threshold_and_probes_once_after_cool_down() {
        let clock = FakeClock::new();
        let breaker = Breaker::new(3, Duration::from_secs(2), Arc::new(clock.clone()));
        for _ in 0..2 {
            breaker.failed();
            assert!(breaker.permits());
        }
        breaker.failed();
        assert!(!breaker.permits());
        clock.advance(Duration::from_secs(2));
        assert!(breaker.permits(), "the probe");
        assert!(!breaker.permits(), "only one probe");
        breaker.succeeded();
        assert!(breaker.permits());
    }
}
