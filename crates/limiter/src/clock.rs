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

/// The kernel's coarse monotonic clock: a vDSO read without the cycle counter (several times
/// cheaper than `Instant::now()` on a VM) at tick resolution (1–4 ms), which is ample for
/// buckets whose waits are told in whole seconds. Monotonic, and never stalls: the kernel
/// advances it every tick.
#[derive(Debug, Clone)]
pub struct CoarseClock {
    origin: Duration,
}

impl CoarseClock {
    /// A coarse clock whose origin is now.
    pub fn new() -> Self {
        Self {
            origin: coarse_now(),
        }
    }
}

impl Default for CoarseClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for CoarseClock {
    fn now(&self) -> Duration {
        coarse_now().saturating_sub(self.origin)
    }
}

fn coarse_now() -> Duration {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::MonotonicCoarse);
    let secs = u64::try_from(now.tv_sec).unwrap_or(0);
    let nanos = u32::try_from(now.tv_nsec).unwrap_or(0);
    Duration::new(secs, nanos)
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

/// The default clock handle: the coarse monotonic clock (see [`CoarseClock`]).
pub fn system_clock() -> SharedClock {
    Arc::new(CoarseClock::new())
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
    fn real_clocks_never_go_back() {
        let clocks: [&dyn Clock; 2] = [&SystemClock::new(), &CoarseClock::new()];
        for clock in clocks {
            let first = clock.now();
            assert!(clock.now() >= first);
        }
    }

    #[test]
    fn the_coarse_clock_moves() {
        let clock = CoarseClock::new();
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            clock.now() >= Duration::from_millis(10),
            "{:?}",
            clock.now()
        );
    }
}
