//! The generic cell rate algorithm on one bucket: the arithmetic the memory and Redis
//! backends share (the Redis Lua script is this function, line for line).
//!
//! State is the theoretical arrival time (`tat`). With emission interval `t` and tolerance
//! `tau = t * (limit - 1)`, a request at `now` conforms when `now >= tat - tau`, and then
//! `tat = max(tat, now) + t`. This is governor's rule exactly, so decisions can be compared.

use crate::decision::Decision;
use crate::policy::Policy;
use std::time::Duration;

/// One policy's constants, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gcra {
    interval: u64,
    tolerance: u64,
}

impl Gcra {
    /// The constants of a policy.
    pub fn new(policy: &Policy) -> Self {
        let interval = crate::clock::duration_nanos(policy.emission_interval()).max(1);
        Self {
            interval,
            tolerance: interval * u64::from(policy.limit() - 1),
        }
    }

    /// Emission interval in nanoseconds.
    pub fn interval_nanos(&self) -> u64 {
        self.interval
    }

    /// Tolerance (`tau`) in nanoseconds.
    pub fn tolerance_nanos(&self) -> u64 {
        self.tolerance
    }

    /// Decides one request at `now` on a bucket whose state is `tat` (`None`: never seen,
    /// or forgotten). Returns the decision and the state to store, if it changed.
    pub fn decide(&self, tat: Option<u64>, now: u64) -> (Decision, Option<u64>) {
        let tat = tat.unwrap_or(now).max(now);
        let earliest = tat.saturating_sub(self.tolerance);
        if now < earliest {
            let decision = Decision::refused(
                Duration::from_nanos(earliest - now),
                Duration::from_nanos(tat - now),
            );
            return (decision, None);
        }
        let next = tat + self.interval;
        let remaining = (now + self.tolerance + self.interval).saturating_sub(next) / self.interval;
        let decision = Decision::allowed(
            u32::try_from(remaining).unwrap_or(u32::MAX),
            Duration::from_nanos(next - now),
        );
        (decision, Some(next))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gcra(text: &str) -> Gcra {
        Gcra::new(&text.parse().unwrap())
    }

    #[test]
    fn a_fresh_bucket_allows_limit_then_refuses() {
        let gcra = gcra("3/3s");
        let mut tat = None;
        let mut remaining = Vec::new();
        for _ in 0..3 {
            let (decision, next) = gcra.decide(tat, 0);
            remaining.push(decision.remaining());
            tat = next;
        }
        assert_eq!(remaining, [2, 1, 0]);
        let (decision, next) = gcra.decide(tat, 0);
        assert_eq!(decision.retry_after(), Some(Duration::from_secs(1)));
        assert_eq!(next, None);
    }

    #[test]
    fn reset_after_is_time_until_full() {
        let gcra = gcra("300/1h");
        let (decision, _) = gcra.decide(None, 0);
        assert_eq!(decision.reset_after(), Duration::from_secs(12));
    }
}
