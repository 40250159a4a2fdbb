//! What every limiter is finished with, whatever it limits (buckets or sliding windows): the
//! bound on what it tracks, its clock, its counters and the Redis it shares through. Both
//! builders hold a [`Common`] and take its settings through [`CommonSettings`].

use crate::clock::SharedClock;
use crate::limiter::DEFAULT_MAX_TRACKED_KEYS;
use crate::metrics::LimiterMetrics;
use crate::redis_link::RedisConfig;

/// A builder's backing settings, as [`CommonSettings`] sets them.
#[derive(Debug)]
pub struct Common {
    pub(crate) max_tracked_keys: usize,
    pub(crate) clock: Option<SharedClock>,
    pub(crate) metrics: LimiterMetrics,
    pub(crate) redis: Option<RedisConfig>,
}

impl Default for Common {
    fn default() -> Self {
        Self {
            max_tracked_keys: DEFAULT_MAX_TRACKED_KEYS,
            clock: None,
            metrics: LimiterMetrics::default(),
            redis: None,
        }
    }
}

/// The settings every limiter builder takes besides what it limits.
pub trait CommonSettings: Sized {
    /// The builder's backing settings.
    fn common(&mut self) -> &mut Common;

    /// The bound on keys (buckets, or a window's subjects) tracked in this process (default
    /// [`DEFAULT_MAX_TRACKED_KEYS`]).
    #[must_use]
    fn max_tracked_keys(mut self, max: usize) -> Self {
        self.common().max_tracked_keys = max;
        self
    }

    /// The clock (default: the system's monotonic clock). A shared sliding window decides on
    /// Redis's own `TIME`; its clock then serves the in-memory fallback and the breaker.
    #[must_use]
    fn clock(mut self, clock: SharedClock) -> Self {
        self.common().clock = Some(clock);
        self
    }

    /// Counters shared with the service's registry: decisions show in
    /// `limiter_decisions_total{service,group,outcome}`.
    #[must_use]
    fn metrics(mut self, metrics: LimiterMetrics) -> Self {
        self.common().metrics = metrics;
        self
    }

    /// Shares the state through Redis instead of keeping it in this process.
    #[must_use]
    fn redis(mut self, config: RedisConfig) -> Self {
        self.common().redis = Some(config);
        self
    }
}
