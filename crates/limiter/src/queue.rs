//! Admission control (the analyzer's, opt-in): a bounded number in flight, a bounded queue
//! behind them, and a bounded wait in it. Beyond any bound the answer is a refusal with a
//! wait, at once, never an unbounded pile-up on one event loop.
//!
//! Waiting uses tokio's clock, so tests pause and advance it instead of sleeping.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
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
    counts: [AtomicU64; 4],
}

/// How a request left the queue, for the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueOutcome {
    /// Ran at once.
    Immediate,
    /// Ran after waiting.
    AfterWaiting,
    /// Refused: the queue was full.
    Full,
    /// Refused: waited the whole timeout.
    TimedOut,
}

impl QueueOutcome {
    const ALL: [QueueOutcome; 4] = [
        Self::Immediate,
        Self::AfterWaiting,
        Self::Full,
        Self::TimedOut,
    ];

    fn label(self) -> &'static str {
        match self {
            Self::Immediate => "immediate",
            Self::AfterWaiting => "after_waiting",
            Self::Full => "refused_full",
            Self::TimedOut => "refused_timeout",
        }
    }
}

impl AdmissionQueue {
    /// A queue with these bounds.
    pub fn new(config: QueueConfig) -> Self {
        Self {
            config,
            running: Arc::new(Semaphore::new(config.max_inflight)),
            waiting: AtomicUsize::new(0),
            counts: Default::default(),
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

    /// Requests that left the queue this way so far.
    pub fn count(&self, outcome: QueueOutcome) -> u64 {
        self.counts[outcome as usize].load(Ordering::Relaxed)
    }

    /// Waits for a place, within the bounds.
    pub async fn admit(&self) -> Result<Admission, QueueRefusal> {
        let result = self.try_admit().await;
        let outcome = match &result {
            Ok((_, outcome)) => *outcome,
            Err(QueueRefusal::Full { .. }) => QueueOutcome::Full,
            Err(QueueRefusal::TimedOut { .. }) => QueueOutcome::TimedOut,
        };
        self.counts[outcome as usize].fetch_add(1, Ordering::Relaxed);
        result.map(|(admission, _)| admission)
    }

    async fn try_admit(&self) -> Result<(Admission, QueueOutcome), QueueRefusal> {
        if !self.enabled() {
            return Ok((Admission { _permit: None }, QueueOutcome::Immediate));
        }
        if let Ok(permit) = self.running.clone().try_acquire_owned() {
            return Ok((
                Admission {
                    _permit: Some(permit),
                },
                QueueOutcome::Immediate,
            ));
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
            Ok(Ok(permit)) => Ok((
                Admission {
                    _permit: Some(permit),
                },
                QueueOutcome::AfterWaiting,
            )),
            _ => Err(QueueRefusal::TimedOut { retry_after }),
        }
    }
}

/// The queue's figures for a service's registry: `admission_inflight`, `admission_queued`
/// and `admission_decisions_total{outcome}`, read from the live queue at each scrape.
#[derive(Clone, Debug)]
pub struct QueueMetrics(pub Arc<AdmissionQueue>);

impl Collector for QueueMetrics {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let queue = &self.0;
        let gauges = [
            (
                "admission_inflight",
                "Requests running under admission control",
                queue.inflight(),
            ),
            (
                "admission_queued",
                "Requests waiting for admission",
                queue.queued(),
            ),
        ];
        for (name, help, value) in gauges {
            let value = i64::try_from(value).unwrap_or(i64::MAX);
            ConstGauge::new(value).encode(encoder.encode_descriptor(
                name,
                help,
                None,
                MetricType::Gauge,
            )?)?;
        }
        let help = "Admission decisions by outcome";
        let mut metric =
            encoder.encode_descriptor("admission_decisions", help, None, MetricType::Counter)?;
        for outcome in QueueOutcome::ALL {
            let labels = [("outcome", outcome.label())];
            ConstCounter::new(queue.count(outcome)).encode(metric.encode_family(&labels)?)?;
        }
        Ok(())
    }
}
