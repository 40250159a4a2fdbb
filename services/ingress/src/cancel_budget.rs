//! A client's cancelled HTTP/2 streams, counted over all its connections
//! (`estate.cancelledStreamsPerClient` a minute): each cancelled request may have cost an
//! origin connection, opened and closed for nothing, and a client that reconnects must not
//! start its count again. Past the budget the client is in debt until its budget has
//! refilled whole (a minute at most): the connection whose stream was cancelled is told
//! GOAWAY ([`crate::idle`]), and every stream the client opens meanwhile, on any connection,
//! old or new, is the edge's `429` without reaching an origin ([`crate::gate::Place::stream`]).
//! Without that, each new connection would bring a fresh batch of streams to an origin before
//! its first cancel was counted.
//!
//! The budget is the estate's own limiter, in memory (a client's streams all reach one
//! process), keyed by the client's subscriber; it and the list of clients in debt are bounded
//! in how many clients they track.

use futures_util::FutureExt;
use limiter::{CommonSettings, Decision, GroupId, KeyDigest, Limiter, Policy, SystemClock};
use lru::LruCache;
use platform_core::subscriber::Subscriber;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;
use tokio::time::Instant;

/// Clients whose cancels are tracked at once; past it the limiter forgets the ones whose
/// budget is full first, so a flood of fresh clients cannot reset one in debt (only as many
/// clients in debt, each a thousand cancels deep, could). The limiter allocates its table for
/// all of them up front: 16 384 cost about 2 MB of memory, 65 536 about 9 MB.
const MAX_TRACKED_CLIENTS: usize = 16_384;
/// The period the budget is counted over.
const PERIOD: Duration = Duration::from_secs(60);
/// The limiter's one group.
const GROUP: &str = "cancelled_streams";

/// Every client's cancelled streams.
#[derive(Debug)]
pub struct CancelBudget {
    limiter: Limiter,
    group: GroupId,
    /// Clients in debt, until when; the least recently refused go first when it is full.
    debtors: Mutex<LruCache<Subscriber, Instant>>,
    /// How many entries `debtors` holds, so the usual case (nobody in debt) takes no lock.
    in_debt: AtomicUsize,
}

impl CancelBudget {
    /// `per_minute` cancelled streams for each client.
    pub fn new(per_minute: u32) -> Result<Self, String> {
        let policy = Policy::new(per_minute, PERIOD).map_err(|error| error.to_string())?;
        // `Instant`'s clock, not the limiter's default coarse one: decisions are rare here (one
        // per cancelled stream), and the coarse clock's vDSO read cannot run under valgrind,
        // where the ingress's instructions per request are counted.
        let limiter = Limiter::builder("ingress")
            .hidden_group(GROUP, policy)
            .max_tracked_keys(MAX_TRACKED_CLIENTS)
            .clock(Arc::new(SystemClock::new()))
            .build()
            .map_err(|error| error.to_string())?;
        let group = limiter
            .group_id(GROUP)
            .ok_or_else(|| format!("the cancel budget's limiter has no group {GROUP}"))?;
        Ok(Self {
            limiter,
            group,
            // Grown as clients fall into debt, not allocated whole up front: most never do.
            debtors: Mutex::new(LruCache::unbounded()),
            in_debt: AtomicUsize::new(0),
        })
    }

    /// Counts one cancelled stream of `subscriber`: whether it was still within its budget.
    /// Past it, the client is in debt until its budget has refilled whole: were it only until
    /// one more cancel is allowed, each new connection could bring a batch of streams to an
    /// origin between two cancels.
    pub fn spend(&self, subscriber: Subscriber) -> bool {
        let key = KeyDigest::of(subscriber.as_bytes());
        // The memory backend decides at once.
        let decision = self.limiter.check(self.group, key).now_or_never();
        let Some(Decision::Refused { reset_after, .. }) = decision else {
            return true;
        };
        let mut debtors = self.debtors();
        if debtors.len() >= MAX_TRACKED_CLIENTS && !debtors.contains(&subscriber) {
            debtors.pop_lru();
        }
        debtors.put(subscriber, Instant::now() + reset_after);
        self.in_debt.store(debtors.len(), Ordering::Relaxed);
        false
    }

    /// How long `subscriber` is still in debt, if it is.
    pub fn debt(&self, subscriber: Subscriber) -> Option<Duration> {
        if self.in_debt.load(Ordering::Relaxed) == 0 {
            return None;
        }
        let mut debtors = self.debtors();
        let &until = debtors.get(&subscriber)?;
        let left = until.saturating_duration_since(Instant::now());
        if !left.is_zero() {
            return Some(left);
        }
        debtors.pop(&subscriber);
        self.in_debt.store(debtors.len(), Ordering::Relaxed);
        None
    }

    fn debtors(&self) -> std::sync::MutexGuard<'_, LruCache<Subscriber, Instant>> {
        self.debtors.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
