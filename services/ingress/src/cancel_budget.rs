//! A client's cancelled HTTP/2 streams, counted over all its connections
//! (`estate.cancelledStreamsPerClient` a minute): each cancelled request may have cost an
//! origin connection, opened and closed for nothing, and a client that reconnects must not
//! start its count again. Past the budget, the connection whose stream was cancelled is told
//! GOAWAY ([`crate::idle`]), and so is every new one of that client at its first cancel, until
//! its budget has refilled.
//!
//! The budget is the estate's own limiter, in memory (a client's streams all reach one
//! process), keyed by the client's subscriber and bounded in how many clients it tracks.

use futures_util::FutureExt;
use limiter::{CommonSettings, GroupId, KeyDigest, Limiter, Policy};
use platform_core::subscriber::Subscriber;
use std::time::Duration;

/// Clients whose cancels are tracked at once; past it the limiter forgets the ones whose
/// budget is full first, so a flood of fresh clients cannot reset one in debt.
const MAX_TRACKED_CLIENTS: usize = 65_536;
/// The period the budget is counted over.
const PERIOD: Duration = Duration::from_secs(60);
/// The limiter's one group.
const GROUP: &str = "cancelled_streams";

/// Every client's cancelled streams.
#[derive(Debug)]
pub struct CancelBudget {
    limiter: Limiter,
    group: GroupId,
}

impl CancelBudget {
    /// `per_minute` cancelled streams for each client.
    pub fn new(per_minute: u32) -> Result<Self, String> {
        let policy = Policy::new(per_minute, PERIOD).map_err(|error| error.to_string())?;
        let limiter = Limiter::builder("ingress")
            .hidden_group(GROUP, policy)
            .max_tracked_keys(MAX_TRACKED_CLIENTS)
            .build()
            .map_err(|error| error.to_string())?;
        let group = limiter
            .group_id(GROUP)
            .ok_or_else(|| format!("the cancel budget's limiter has no group {GROUP}"))?;
        Ok(Self { limiter, group })
    }

    /// Counts one cancelled stream of `subscriber`: whether it was still within its budget.
    pub fn spend(&self, subscriber: Subscriber) -> bool {
        let key = KeyDigest::of(subscriber.as_bytes());
        // The memory backend decides at once.
        self.limiter
            .check(self.group, key)
            .now_or_never()
            .is_none_or(|decision| decision.is_allowed())
    }
}
