//! The HTTP/2 send timeout (`estate.sendTimeout`, nginx's `send_timeout`): a connection whose
//! open streams have all waited on the client for that long (a flow-control window it never
//! opens, so their answers cannot be sent) is closed. Each such stream may hold an origin
//! connection, and a client would otherwise hold them for as long as it likes.
//!
//! A stream waits on its origin from its request until its answer's head, and again whenever
//! its body has no frame ready (a long poll, a slow download); otherwise what it has is the
//! client's to take. [`Progress`] counts the streams waiting on their origins and keeps the
//! last time any stream handed hyper a head or a frame.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;
use tokio::time::Instant;

/// What one connection's streams have handed hyper, and how many wait on their origins.
pub struct Progress {
    started: Instant,
    /// Milliseconds from `started` to the last head or frame handed to hyper.
    handed: AtomicU64,
    /// Streams waiting on their origins.
    waiting: AtomicUsize,
}

impl Default for Progress {
    /// A connection that has handed nothing yet.
    fn default() -> Self {
        Self {
            started: Instant::now(),
            handed: AtomicU64::new(0),
            waiting: AtomicUsize::new(0),
        }
    }
}

impl Progress {
    /// A stream handed hyper a head or a frame now.
    pub fn handed(&self) {
        self.handed.store(self.now(), Ordering::Relaxed);
    }

    /// A stream starts (`true`) or stops waiting on its origin.
    pub fn waits(&self, waiting: bool) {
        if waiting {
            self.waiting.fetch_add(1, Ordering::Relaxed);
        } else {
            self.waiting.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// Resolves once, with `open()` streams, none has waited on its origin and none has
    /// handed anything for `timeout`: checked every quarter of it.
    pub async fn stalled_for(&self, open: impl Fn() -> bool, timeout: Duration) {
        let tick = (timeout / 4).max(Duration::from_millis(100));
        let limit = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        loop {
            tokio::time::sleep(tick).await;
            let since = self
                .now()
                .saturating_sub(self.handed.load(Ordering::Relaxed));
            if open() && self.waiting.load(Ordering::Relaxed) == 0 && since >= limit {
                return;
            }
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}
