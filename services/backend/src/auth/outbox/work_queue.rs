//! A durable queue of JSON records in one store space, worked in the background by one task
//! per process, any number of processes at once: what the SMTP queue and the account-mail jobs
//! are both built on.
//!
//! # Records (in the queue's space)
//! - `{id}`: one piece of work (a UUID v4 id), kept for as long as its producer asks.
//! - the set [`PENDING`]: the ids still to be worked; an id whose record is gone (expired,
//!   finished elsewhere) or unreadable is dropped from it by the next [`WorkQueue::pending`].
//! - `claim:{id}`: taken with `insert_new` by the one process working that record, for the
//!   queue's claim time, so two replicas sharing Redis never work one record twice; a process
//!   that dies holding a claim loses it when it expires, and the record is worked again.
//!
//! The record and its id's membership in the set are one write ([`Store::put_in_set`]), so a
//! worker never meets an id whose record is still to come, nothing is half-queued, and a
//! record is worked at least once once its producer returned.

use crate::store::{Space, Store, StoreError, StoreResult};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::sync::Weak;
use std::time::Duration;
use tokio::sync::Notify;
use uuid::Uuid;

/// The set of ids waiting to be worked.
pub const PENDING: &str = "pending";

/// One queue: cheap to clone.
#[derive(Clone, Debug)]
pub(crate) struct WorkQueue {
    store: Store,
    space: Space,
    claim: Duration,
}

impl WorkQueue {
    /// The queue in `space`, whose workers hold a record for at most `claim`.
    pub(crate) fn new(store: Store, space: Space, claim: Duration) -> Self {
        Self {
            store,
            space,
            claim,
        }
    }

    /// Keeps `record` for `keep` under a new id and makes it pending; returns the id.
    pub(crate) async fn push<T: Serialize>(
        &self,
        record: &T,
        keep: Duration,
    ) -> StoreResult<String> {
        let id = Uuid::new_v4().to_string();
        let bytes = serde_json::to_vec(record)
            .map_err(|error| StoreError::corrupt("queued record", error))?;
        self.store
            .put_in_set(self.space, PENDING, &id, &bytes, Some(keep))
            .await?;
        Ok(id)
    }

    /// Every pending record with its id; drops from the set the ids whose record is gone or
    /// does not decode.
    pub(crate) async fn pending<T: DeserializeOwned>(&self) -> StoreResult<Vec<(String, T)>> {
        let ids = self.store.set_members(self.space, PENDING).await?;
        let records = self.store.get_many(self.space, &ids).await?;
        let mut pending = Vec::with_capacity(ids.len());
        for (id, bytes) in ids.into_iter().zip(records) {
            match bytes.and_then(|bytes| serde_json::from_slice::<T>(&bytes).ok()) {
                Some(record) => pending.push((id, record)),
                None => self.drop_pending(&id).await?,
            }
        }
        Ok(pending)
    }

    /// Whether no record is pending (tests wait for it).
    pub async fn is_empty(&self) -> StoreResult<bool> {
        Ok(self
            .store
            .set_members(self.space, PENDING)
            .await?
            .is_empty())
    }

    /// Runs `work` on record `id` while holding its claim; `None` when another worker holds
    /// it, or its record is gone (then it is dropped from the set). The record is read again
    /// under the claim, since another worker may have finished or changed it meanwhile.
    pub(crate) async fn with_claim<T, F, Fut, R>(&self, id: &str, work: F) -> StoreResult<Option<R>>
    where
        T: DeserializeOwned,
        F: FnOnce(T) -> Fut,
        Fut: Future<Output = StoreResult<R>>,
    {
        let claim = format!("claim:{id}");
        if !self
            .store
            .insert_new(self.space, &claim, b"", Some(self.claim))
            .await?
        {
            return Ok(None);
        }
        let worked = match self.store.get_json::<T>(self.space, id).await {
            Ok(Some(record)) => work(record).await.map(Some),
            Ok(None) => self.drop_pending(id).await.map(|()| None),
            Err(error) => Err(error),
        };
        self.store.delete(self.space, &claim).await?;
        worked
    }

    /// Writes `record` back under `id`, to be kept `keep` from now.
    pub(crate) async fn replace<T: Serialize>(
        &self,
        id: &str,
        record: &T,
        keep: Duration,
    ) -> StoreResult<()> {
        self.store
            .put_json(self.space, id, record, Some(keep))
            .await
    }

    /// Done with `id`: its record is deleted and it is no longer pending.
    pub(crate) async fn finish(&self, id: &str) -> StoreResult<()> {
        self.store.delete(self.space, id).await?;
        self.drop_pending(id).await
    }

    /// No longer pending; its record (if any) stays until it expires.
    pub(crate) async fn drop_pending(&self, id: &str) -> StoreResult<()> {
        self.store
            .remove_from_set(self.space, PENDING, id)
            .await
            .map(drop)
    }
}

/// Runs `pass` on every wake-up and every `poll`, until every [`Notify`] behind `wake` is
/// dropped (the queue's owner is gone). A pass that cannot reach the store is logged and tried
/// again on the next turn.
pub(crate) async fn work_until_dropped<F, Fut>(
    wake: Weak<Notify>,
    poll: Duration,
    what: &'static str,
    pass: F,
) where
    F: Fn() -> Fut,
    Fut: Future<Output = StoreResult<()>>,
{
    while let Some(notify) = wake.upgrade() {
        tokio::select! {
            () = notify.notified() => {}
            () = tokio::time::sleep(poll) => {}
        }
        drop(notify);
        if let Err(error) = pass().await {
            tracing::warn!(%error, cause = ?error, queue = what, "queue not read; trying again shortly");
        }
    }
}

/// The wait before attempt `attempts + 1`: `first` after the first failure, doubling, never
/// more than `max`.
pub(crate) fn backoff(first: Duration, max: Duration, attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(16);
    first.saturating_mul(1 << doublings).min(max)
}

/// A duration in whole milliseconds, saturating.
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
