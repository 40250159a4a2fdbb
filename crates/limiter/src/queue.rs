//! Admission control (the analyzer's, opt-in): a bounded number in flight, a bounded queue
//! behind them, and a bounded wait in it. Beyond any bound the answer is a refusal with a
//! wait, at once, never an unbounded pile-up on one event loop.
//!
//! Waiting uses tokio's clock, so tests pause and advance it instead of sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The queue's bounds. `max_inflight == 0` switches admission control off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueConfig {
    /// Requests running at once (0: off).
    pub max_inflight: usize,
    /// Requests waiting at once.
    pub max_queue: usize,
    /// Longest wait in the queue.
    pub queue_timeout: Duration,
}

/// Why a request was not admitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueRefusal {
    /// The queue was full on arrival.
    Full {
        /// Suggested wait: one queue timeout, by which every current waiter has left.
        retry_after: Duration,
    },
    /// The request waited the whole timeout.
    TimedOut {
        /// Suggested wait, as for `Full`.
        retry_after: Duration,
    },
}

impl QueueRefusal {
    /// The wait to send back.
    pub fn retry_after(&self) -> Duration {
        match self {
            Self::Full { retry_after } | Self::TimedOut { retry_after } => *retry_after,
        }
    }
}

/// Held while a request runs; dropping it admits the next one.
#[derive(Debug)]
pub struct Admission {
    _permit: Option<OwnedSemaphorePermit>,
}

/// Bounded in-flight, bounded queue, bounded wait.
#[derive(Debug)]
pub struct AdmissionQueue {
    config: QueueConfig,
    running: Arc<Semaphore>,
    waiting: AtomicUsize,
}

impl AdmissionQueue {
    /// A queue with these bounds.
    pub fn new(config: QueueConfig) -> Self {
        Self {
            config,
            running: Arc::new(Semaphore::new(config.max_inflight)),
            waiting: AtomicUsize::new(0),
        }
    }

    /// True when admission control is on.
    pub fn enabled(&self) -> bool {
        self.config.max_inflight > 0
    }

    /// Requests running now.
    pub fn inflight(&self) -> usize {
        self.config.max_inflight - self.running.available_permits()
    }

    /// Requests waiting now.
    pub fn queued(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }

    /// Waits for a place, within the bounds.
    pub async fn admit(&self) -> Result<Admission, QueueRefusal> {
        if !self.enabled() {
            return Ok(Admission { _permit: None });
        }
        if let Ok(permit) = self.running.clone().try_acquire_owned() {
            return Ok(Admission {
                _permit: Some(permit),
            });
        }
        let retry_after = self.config.queue_timeout.max(Duration::from_secs(1));
        let joined = self
            .waiting
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |waiting| {
                (waiting < self.config.max_queue).then_some(waiting + 1)
            });
        if joined.is_err() {
            return Err(QueueRefusal::Full { retry_after });
        }
        let waited = tokio::time::timeout(
            self.config.queue_timeout,
            self.running.clone().acquire_owned(),
        )
        .await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        match waited {
            Ok(Ok(permit)) => Ok(Admission {
                _permit: Some(permit),
            }),
            _ => Err(QueueRefusal::TimedOut { retry_after }),
        }
    }
}
