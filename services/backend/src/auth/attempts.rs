//! The login ceiling: `LOGIN_MAX_ATTEMPTS` (5) wrong passwords for one normalised address,
//! then a lock of `SECURITY_AUTH_ATTEMPT_LOCK_MINUTES` (10) during which even the right
//! password is refused. It counts addresses that have no account exactly like ones that do,
//! so the sixth answer never reveals which is which.
//!
//! # How a login uses it
//! 1. [`LoginAttempts::locked`]: `Some(remaining)` → 429 with `Retry-After` = the remaining
//!    whole seconds (599 right after locking); the password is not even looked at.
//! 2. Verify the password (always: see [`super::passwords::verify_or_dummy`]).
//! 3. Wrong → [`LoginAttempts::record_failure`] and 401, whatever the outcome: the guess that
//!    sets the lock is still answered 401, and the *next* attempt finds the lock.
//!    Right → [`LoginAttempts::reset`].
//!
//! # Keys and windows
//! In the store's `Attempts` space, keyed by [`super::email::key_digest`]: `login:{digest}`
//! counts failures and expires one hour after the first of them (the store never extends a
//! counter's TTL), and `lock:{digest}` exists, with TTL = the lock, while the address is
//! locked. Reaching the ceiling sets the lock and clears the counter, so the address has a
//! fresh five once the lock expires. That allows at most 5 failures per lock period (30 an
//! hour at the defaults), well inside ASVS 4.0.3 §2.2.1's 100 per hour per account. Both keys
//! are in the store: the ceiling survives a restart, and with Redis every replica shares it.

use super::email::key_digest;
use crate::store::{Space, Store, StoreError};
use std::time::Duration;

/// How long a run of failures stays counted, from the first of them.
pub const FAILURE_WINDOW: Duration = Duration::from_secs(60 * 60);

/// What one wrong password did to the address's ceiling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureOutcome {
    /// Counted: this many failures in the current window (below the ceiling).
    Counted {
        /// Failures so far, this one included.
        failures: u32,
    },
    /// The address is locked (by this failure or an earlier one) for this much longer.
    Locked {
        /// The lock's remaining time.
        remaining: Duration,
    },
}

/// The login ceiling over the store: cheap to clone, clones share the counters.
#[derive(Clone, Debug)]
pub struct LoginAttempts {
    store: Store,
    max_attempts: u32,
    lock: Duration,
}

impl LoginAttempts {
    /// A ceiling of `max_attempts` failures (at least 1), then a lock of `lock`.
    pub fn new(store: Store, max_attempts: u32, lock: Duration) -> Self {
        Self {
            store,
            max_attempts: max_attempts.max(1),
            lock,
        }
    }

    /// The exact time the address's lock has left; `None` when it is not locked.
    pub async fn locked(&self, email: &str) -> Result<Option<Duration>, StoreError> {
        self.lock_remaining(&key_digest(email)).await
    }

    /// Counts one wrong password. The `max_attempts`-th in the window locks the address and
    /// clears the count; while locked, failures are not counted and report the lock.
    pub async fn record_failure(&self, email: &str) -> Result<FailureOutcome, StoreError> {
        let digest = key_digest(email);
        if let Some(remaining) = self.lock_remaining(&digest).await? {
            return Ok(FailureOutcome::Locked { remaining });
        }
        let failures = self
            .store
            .increment(Space::Attempts, &failures_key(&digest), FAILURE_WINDOW)
            .await?;
        if failures < u64::from(self.max_attempts) {
            let failures = u32::try_from(failures).unwrap_or(u32::MAX);
            return Ok(FailureOutcome::Counted { failures });
        }
        self.lock(&digest).await
    }

    /// Clears the address's count and any lock: after a successful login, or once its
    /// password has been reset through the inbox (the lock message offers that way out).
    pub async fn reset(&self, email: &str) -> Result<(), StoreError> {
        let digest = key_digest(email);
        self.store
            .delete(Space::Attempts, &failures_key(&digest))
            .await?;
        self.store
            .delete(Space::Attempts, &lock_key(&digest))
            .await?;
        Ok(())
    }

    async fn lock_remaining(&self, digest: &str) -> Result<Option<Duration>, StoreError> {
        self.store.ttl(Space::Attempts, &lock_key(digest)).await
    }

    async fn lock(&self, digest: &str) -> Result<FailureOutcome, StoreError> {
        let lock_key = lock_key(digest);
        // `insert_new`: of two failures racing past the ceiling, neither extends the other's lock.
        let marker = b"locked";
        if self
            .store
            .insert_new(Space::Attempts, &lock_key, marker, Some(self.lock))
            .await?
        {
            tracing::info!(
                email_digest = digest,
                "login attempt ceiling reached; locked"
            );
        }
        self.store
            .delete(Space::Attempts, &failures_key(digest))
            .await?;
        let remaining = self.lock_remaining(digest).await?.unwrap_or(self.lock);
        Ok(FailureOutcome::Locked { remaining })
    }
}

fn failures_key(digest: &str) -> String {
    format!("login:{digest}")
}

fn lock_key(digest: &str) -> String {
    format!("lock:{digest}")
}
