//! The outbound pacer: spaces calls this estate makes to paid APIs, by *waiting*.
//!
//! A limiter that makes the caller wait its turn is correct for a worker calling out and
//! catastrophic on an inbound path (a flood would park one task per request). It is its own
//! type and nothing inbound can be built from it:
//!
//! ```compile_fail
//! use limiter::{Pacer, RateLimit, RuleTable};
//! let pacer = Pacer::new("60/1m".parse().unwrap(), limiter::system_clock());
//! let _inbound = RateLimit::new(pacer, RuleTable::new());
//! ```

use crate::clock::{SharedClock, duration_nanos};
use crate::policy::Policy;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// Hands out evenly spaced start times, one every `period / limit`.
#[derive(Debug)]
pub struct Pacer {
    interval: u64,
    next_slot: Mutex<u64>,
    clock: SharedClock,
}

impl Pacer {
    /// A pacer for `policy`.
    pub fn new(policy: Policy, clock: SharedClock) -> Self {
        Self {
            interval: duration_nanos(policy.emission_interval()),
            next_slot: Mutex::new(0),
            clock,
        }
    }

    /// Books the next slot and returns how long to wait for it.
    pub fn reserve(&self) -> Duration {
        let now = duration_nanos(self.clock.now());
        let mut next_slot = self
            .next_slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let slot = (*next_slot).max(now);
        *next_slot = slot + self.interval;
        Duration::from_nanos(slot - now)
    }

    /// Books the next slot only if it starts within `max_wait`: `Ok(wait)` when booked,
    /// `Err(wait)` (nothing booked) when it is further away. A caller with a deadline refuses
    /// at once instead of holding a slot it will give up on, which would push every later
    /// caller further back.
    pub fn try_reserve(&self, max_wait: Duration) -> Result<Duration, Duration> {
        let now = duration_nanos(self.clock.now());
        let mut next_slot = self
            .next_slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let slot = (*next_slot).max(now);
        let wait = Duration::from_nanos(slot - now);
        if wait > max_wait {
            return Err(wait);
        }
        *next_slot = slot + self.interval;
        Ok(wait)
    }

    /// Waits for the next slot.
    pub async fn wait(&self) {
        sleep_for(self.reserve()).await;
    }

    /// Waits for the next slot if it starts within `max_wait`; otherwise returns at once with
    /// the wait it would have taken, booking nothing.
    pub async fn wait_within(&self, max_wait: Duration) -> Result<(), Duration> {
        sleep_for(self.try_reserve(max_wait)?).await;
        Ok(())
    }
}

async fn sleep_for(delay: Duration) {
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FakeClock;
    use std::sync::Arc;

    #[test]
    fn slots_are_one_interval_apart() {
        let clock = FakeClock::new();
        let pacer = Pacer::new("4/1s".parse().unwrap(), Arc::new(clock.clone()));
        let waits: Vec<u128> = (0..4).map(|_| pacer.reserve().as_millis()).collect();
        assert_eq!(waits, [0, 250, 500, 750]);
        clock.advance(Duration::from_secs(2));
        assert_eq!(
            pacer.reserve(),
            Duration::ZERO,
            "an idle pacer does not bank slots"
        );
    }
}
