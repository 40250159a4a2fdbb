//! A model of one of the estate's buckets, kept from the answers the probe saw, so every
//! expected value is the limiter's own arithmetic (GCRA, `limiter::gcra`) applied to this run's
//! timing instead of a number copied from a past run.
//!
//! The server decides a request at some moment between sending and receiving; the model keeps
//! the bucket's state (GCRA's theoretical arrival time) as an interval: `late` assumes every
//! past request was decided as late as possible, `early` as early as possible. A request is
//! expected served when even the late state serves it at its sending instant, refused when
//! even the early state refuses it at its receiving instant, and either otherwise (a token
//! accrued inside its window). Each `RateLimit` field narrows the interval again. The server's
//! clock is coarse, so "after sending" is taken as "at most `CLOCK_SLACK` before sending".

use crate::exchange::Window;
use limiter::Policy;
use limiter::gcra::Gcra;
use limiter::policy::retry_after_secs;
use std::time::{Duration, Instant};

const SECOND: u64 = 1_000_000_000;
/// How far the server's clock may lag the probe's: the estate's limiter reads the coarse
/// monotonic clock, which advances once per kernel tick (1–10 ms).
const CLOCK_SLACK: u64 = 20_000_000;

/// What the arithmetic says about one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Nothing is known yet (the first request on this bucket).
    Unknown,
    /// Served.
    Allow,
    /// Refused, with `Retry-After` and the exact wait (ms, rounded up) within these bounds.
    Refuse {
        /// Lowest and highest `Retry-After`, in seconds.
        retry_after: (u64, u64),
        /// Lowest and highest wait, in milliseconds.
        wait_ms: (u64, u64),
    },
    /// Served or refused: a token accrues while the request is in flight.
    Either,
}

/// One bucket's model.
#[derive(Clone, Debug)]
pub struct Bucket {
    policy: Policy,
    gcra: Gcra,
    origin: Instant,
    /// (early, late) theoretical arrival time, in nanoseconds after `origin`.
    state: Option<(u64, u64)>,
}

impl Bucket {
    /// A bucket of `policy` about which nothing is known; instants are measured from `origin`.
    pub fn new(policy: Policy, origin: Instant) -> Self {
        Self {
            policy,
            gcra: Gcra::new(&policy),
            origin,
            state: None,
        }
    }

    /// The budget.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// What the next request, in `window`, should get.
    pub fn expect(&self, window: Window) -> Expect {
        let Some((early, late)) = self.state else {
            return Expect::Unknown;
        };
        let (worst, _) = self.gcra.decide(Some(late), self.earliest(window));
        if worst.is_allowed() {
            return Expect::Allow;
        }
        let (best, _) = self.gcra.decide(Some(early), self.nanos(window.received));
        match (best.retry_after(), worst.retry_after()) {
            (Some(low), Some(high)) => Expect::Refuse {
                retry_after: (retry_after_secs(low), retry_after_secs(high)),
                wait_ms: (millis_up(low), millis_up(high)),
            },
            _ => Expect::Either,
        }
    }

    /// A request in `window` was served; `field` is its `(remaining, reset secs)` if it said.
    pub fn served(&mut self, window: Window, field: Option<(u64, u64)>) {
        let (sent, received) = (self.earliest(window), self.nanos(window.received));
        let interval = self.gcra.interval_nanos();
        let next = match self.state {
            Some((early, late)) => (early.max(sent) + interval, late.max(received) + interval),
            None => (sent + interval, u64::MAX),
        };
        let bounds = field.map(|(remaining, reset_secs)| {
            let by_reset = (
                (sent + reset_secs.saturating_sub(1) * SECOND),
                received + reset_secs * SECOND,
            );
            let full = interval * u64::from(self.policy.limit());
            let by_remaining = (
                (sent + full).saturating_sub((remaining + 1) * interval),
                (received + full).saturating_sub(remaining * interval),
            );
            (
                by_reset.0.max(by_remaining.0),
                by_reset.1.min(by_remaining.1),
            )
        });
        self.settle(next, bounds);
    }

    /// A request in `window` was refused by this bucket with `Retry-After: retry_after_secs`.
    pub fn refused(&mut self, window: Window, retry_after_secs: u64) {
        let (sent, received) = (self.earliest(window), self.nanos(window.received));
        let tolerance = self.gcra.tolerance_nanos();
        let bounds = (
            sent + tolerance + retry_after_secs.saturating_sub(1) * SECOND,
            received + tolerance + retry_after_secs * SECOND,
        );
        let current = self.state.unwrap_or((0, u64::MAX));
        self.settle(current, Some(bounds));
    }

    /// `count` requests between `window.sent` and `window.received` were served (a burst at
    /// concurrency, whose order the probe cannot see).
    pub fn served_many(&mut self, count: u32, window: Window) {
        let Some((early, late)) = self.state else {
            return;
        };
        let spent = self.gcra.interval_nanos() * u64::from(count);
        let (sent, received) = (self.earliest(window), self.nanos(window.received));
        self.state = Some((early.max(sent) + spent, late.max(received) + spent));
    }

    /// How many requests sent at once would be served: at least the first number (late state,
    /// at `window.sent`), at most the second (early state, at `window.received`).
    pub fn available(&self, window: Window) -> Option<(u32, u32)> {
        let (early, late) = self.state?;
        Some((
            self.tokens(late, self.earliest(window)),
            self.tokens(early, self.nanos(window.received)),
        ))
    }

    /// The longest a refusal at or after `at` can make a client wait, in whole seconds.
    pub fn longest_wait_secs(&self, at: Instant) -> Option<u64> {
        let (_, late) = self.state?;
        let now = self.nanos(at).saturating_sub(CLOCK_SLACK);
        let wait = late.saturating_sub(self.gcra.tolerance_nanos() + now);
        Some(retry_after_secs(Duration::from_nanos(wait)))
    }

    fn tokens(&self, tat: u64, now: u64) -> u32 {
        let interval = self.gcra.interval_nanos();
        let start = tat.max(now);
        let horizon = now + self.gcra.tolerance_nanos();
        if horizon < start {
            return 0;
        }
        u32::try_from((horizon - start) / interval + 1).unwrap_or(u32::MAX)
    }

    fn settle(&mut self, (early, late): (u64, u64), bounds: Option<(u64, u64)>) {
        let (early, late) = match bounds {
            Some((low, high)) if early.max(low) <= late.min(high) => {
                (early.max(low), late.min(high))
            }
            Some(bounds) => bounds,
            None => (early, late),
        };
        self.state = (late != u64::MAX).then_some((early, late));
    }

    /// The earliest moment the server can have decided a request sent in `window`.
    fn earliest(&self, window: Window) -> u64 {
        self.nanos(window.sent).saturating_sub(CLOCK_SLACK)
    }

    fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.origin).as_nanos()).unwrap_or(u64::MAX)
    }
}

fn millis_up(wait: Duration) -> u64 {
    let whole = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
    whole + u64::from(!wait.subsec_nanos().is_multiple_of(1_000_000))
}

#[cfg(test)]
mod tests;
