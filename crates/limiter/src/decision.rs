//! The answer to one request on one bucket: allowed with what is left, or refused with a wait.

use std::time::Duration;

/// What a bucket said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Served; `remaining` more would be served now, the bucket is full again after `reset_after`.
    Allowed {
        /// Requests that would still be served right now.
        remaining: u32,
        /// Time until the bucket is full again.
        reset_after: Duration,
    },
    /// Refused; one more request would be served after `retry_after`.
    Refused {
        /// Time until one token has accrued.
        retry_after: Duration,
        /// Time until the bucket is full again.
        reset_after: Duration,
    },
}

impl Decision {
    pub(crate) fn allowed(remaining: u32, reset_after: Duration) -> Self {
        Self::Allowed {
            remaining,
            reset_after,
        }
    }

    pub(crate) fn refused(retry_after: Duration, reset_after: Duration) -> Self {
        Self::Refused {
            retry_after,
            reset_after,
        }
    }

    /// True when the request is served.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Self::Allowed { .. })
    }

    /// Requests left right now (0 when refused).
    pub fn remaining(&self) -> u32 {
        match self {
            Self::Allowed { remaining, .. } => *remaining,
            Self::Refused { .. } => 0,
        }
    }

    /// The wait, when refused.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Allowed { .. } => None,
            Self::Refused { retry_after, .. } => Some(*retry_after),
        }
    }

    /// Time until the bucket is full again.
    pub fn reset_after(&self) -> Duration {
        match self {
            Self::Allowed { reset_after, .. } | Self::Refused { reset_after, .. } => *reset_after,
        }
    }
}
