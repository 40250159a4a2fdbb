//! Time as the limiter sees it: a monotonic reading injected everywhere, so tests move a fake clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A monotonic clock. Readings are durations since the clock's own origin.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Time elapsed since this clock's origin.
    fn now(&self) -> Duration;
}

/// The real clock: `std::time::Instant`, which is monotonic on every platform we ship to
/// (governor's default quanta clock is not, under some VMs: governor #299).
#[derive(Debug, Clone)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    /// A clock whose origin is now.
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// A clock that moves only when told to. Clones share one reading.
#[derive(Debug, Clone, Default)]
pub struct FakeClock {
    nanos: Arc<AtomicU64>,
}

impl FakeClock {
    /// A fake clock at its origin.
    pub fn new() -> Self {
        Self::default()
    }

    /// Moves the clock forward.
    pub fn advance(&self, by: Duration) {
        self.nanos.fetch_add(duration_nanos(by), Ordering::SeqCst);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.nanos.load(Ordering::SeqCst))
    }
}

/// The shared handle every limiter part holds.
pub type SharedClock = Arc<dyn Clock>;

/// The default clock handle.
pub fn system_clock() -> SharedClock {
    Arc::new(SystemClock::new())
}

/// Whole nanoseconds of a duration, saturating (u64 nanoseconds is 584 years).
pub(crate) fn duration_nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_clones_share_one_reading() {
        let clock = FakeClock::new();
        let other = clock.clone();
        clock.advance(Duration::from_millis(1500));
        assert_eq!(other.now(), Duration::from_millis(1500));
    }

    #[test]
    fn system_clock_never_goes_back() {
        let clock = SystemClock::new();
        let first = clock.now();
        assert!(clock.now() >= first);
    }
}
