//! The origins behind the rules: one [`Origin`] per address (its up/down state and its idle
//! keep-alive connections), grouped into a [`Pool`] per service, with active health checks.
//!
//! Several origins per service, health checks and connect retry are what cloudflared users
//! ask for and cloudflared lacks (cloudflared #434, #725, PR #1745): the `estate:` extension.

mod connect;
mod counted;
mod health;
mod pool;

pub use connect::{Connection, Sender, open};
pub use health::{probe, spawn_checks};
pub use pool::{Pool, Pools};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// `down_until` of an origin that is up.
const UP: u64 = 0;
/// `down_until` of an origin whose health check failed: down until a check passes.
const UNTIL_HEALTHY: u64 = u64::MAX;

/// One origin address and what the ingress knows about it.
#[derive(Debug)]
pub struct Origin {
    dial: String,
    epoch: Instant,
    /// Milliseconds since `epoch` before which the origin is not offered first.
    down_until: AtomicU64,
    /// Idle connections, one list per worker, so a connection stays on the thread that
    /// drives it.
    idle: Box<[Mutex<Vec<Idle>>]>,
}

/// A keep-alive connection waiting for its next request.
#[derive(Debug)]
struct Idle {
    connection: Connection,
    since: Instant,
}

impl Origin {
    /// An origin at `dial` (`host:port`) used by `workers` workers, up until told otherwise.
    pub fn new(dial: String, workers: usize) -> Self {
        Self {
            dial,
            // A second back, so that no deadline computed from it is ever 0 (which means up).
            epoch: Instant::now()
                .checked_sub(Duration::from_secs(1))
                .unwrap_or_else(Instant::now),
            down_until: AtomicU64::new(UP),
            idle: (0..workers.max(1)).map(|_| Mutex::default()).collect(),
        }
    }

    /// `host:port`.
    pub fn dial(&self) -> &str {
        &self.dial
    }

    /// Whether the origin is offered before the others.
    pub fn is_up(&self) -> bool {
        match self.down_until.load(Ordering::Relaxed) {
            UP => true,
            UNTIL_HEALTHY => false,
            until => self.now_ms() >= until,
        }
    }

    /// A connection was refused: offer the others first for `cooldown` (or until the next
    /// passing health check, whichever comes first), and forget its idle connections.
    pub fn mark_refused(&self, cooldown: Duration) {
        let until = self.now_ms().saturating_add(millis(cooldown));
        let _ = self
            .down_until
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |current| {
                (current != UNTIL_HEALTHY).then_some(until)
            });
        self.forget_idle();
    }

    /// The result of an active health check; returns whether the state changed.
    pub fn set_healthy(&self, healthy: bool) -> bool {
        let was_up = self.is_up();
        self.down_until
            .store(if healthy { UP } else { UNTIL_HEALTHY }, Ordering::Relaxed);
        if !healthy {
            self.forget_idle();
        }
        was_up != healthy
    }

    /// The most recent idle connection that is still open, ready and younger than `max_age`.
    pub fn take_idle(&self, max_age: Duration) -> Option<Connection> {
        let mut idle = self.lock_idle();
        while let Some(candidate) = idle.pop() {
            if candidate.since.elapsed() < max_age && candidate.connection.sender.is_ready() {
                return Some(candidate.connection);
            }
        }
        None
    }

    /// Keeps a connection for reuse, unless `max_idle` are already kept.
    pub fn put_idle(&self, connection: Connection, max_idle: usize) {
        let mut idle = self.lock_idle();
        if idle.len() < max_idle && self.is_up() {
            idle.push(Idle {
                connection,
                since: Instant::now(),
            });
        }
    }

    /// This worker's idle list.
    fn lock_idle(&self) -> std::sync::MutexGuard<'_, Vec<Idle>> {
        let slot = &self.idle[crate::worker_index::current() % self.idle.len()];
        slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Closes every worker's idle connections (the origin is going away).
    fn forget_idle(&self) {
        for slot in &self.idle {
            slot.lock().unwrap_or_else(PoisonError::into_inner).clear();
        }
    }

    fn now_ms(&self) -> u64 {
        millis(self.epoch.elapsed())
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_cools_down_and_health_overrides() {
        let origin = Origin::new("127.0.0.1:1".to_owned(), 1);
        assert!(origin.is_up());
        origin.mark_refused(Duration::from_secs(60));
        assert!(!origin.is_up());
        assert!(origin.set_healthy(true), "back up is a change");
        assert!(origin.is_up());
        origin.mark_refused(Duration::ZERO);
        assert!(origin.is_up(), "a zero cooldown is over at once");
        assert!(origin.set_healthy(false));
        origin.mark_refused(Duration::ZERO);
        assert!(
            !origin.is_up(),
            "a refusal does not shorten a failed health check"
        );
        assert!(!origin.set_healthy(false), "still down is no change");
    }
}
