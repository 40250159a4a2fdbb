//! Run leases: how a reader on any replica tells a run that is still being driven from one
//! whose process died before its terminal frame.
//!
//! The lease is a record in [`Space::RunLeases`] under the run's id with a TTL of the lease
//! length. [`Runs::create`] takes it; the driving task keeps it with a [`LeaseKeeper`], which
//! renews it every third of the lease; the hub renews it before storing each frame. Renewal is
//! [`Store::expire`](crate::store::Store::expire), which never recreates an expired record:
//! once a lease has lapsed it stays lapsed, so a reader that ended the run and a runner that
//! comes back cannot both be right.

use super::{Run, Runs, frames};
use crate::store::{Space, StoreError, StoreResult};
use std::time::Duration;
use tokio::task::JoinHandle;
use uuid::Uuid;

/// A run's lease length unless `SCAN_LEASE_SECONDS` says otherwise.
pub const DEFAULT_LEASE: Duration =
    Duration::from_secs(crate::config::DEFAULT_SCAN_LEASE_SECONDS as u64);

/// The reason in the terminal frame of a run whose lease lapsed.
pub const RUNNER_STOPPED: &str = "runner stopped";

/// The stage named when a run ends before its first progress frame.
const QUEUE_STAGE: &str = "queue";

/// Renews a run's lease until dropped (the driving task holds it).
#[derive(Debug)]
pub struct LeaseKeeper(JoinHandle<()>);

impl Drop for LeaseKeeper {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Runs {
    /// The lease length.
    pub const fn lease(&self) -> Duration {
        self.lease
    }

    pub(super) async fn take_lease(&self, id: Uuid) -> StoreResult<()> {
        let key = id.to_string();
        let lease = Some(self.lease);
        self.store
            .put(Space::RunLeases, &key, b"running", lease)
            .await
    }

    pub(super) async fn is_leased(&self, id: Uuid) -> StoreResult<bool> {
        let lease = self.store.get(Space::RunLeases, &id.to_string()).await?;
        Ok(lease.is_some())
    }

    /// Extends run `id`'s lease; `false` when it had already lapsed (the run is then over:
    /// a reader may have ended it).
    pub async fn renew_lease(&self, id: Uuid) -> StoreResult<bool> {
        let key = id.to_string();
        self.store.expire(Space::RunLeases, &key, self.lease).await
    }

    /// Renews run `id`'s lease every third of its length until the keeper is dropped or the
    /// lease is found lapsed. Call it inside a Tokio runtime.
    pub fn keep_leased(&self, id: Uuid) -> LeaseKeeper {
        let runs = self.clone();
        LeaseKeeper(tokio::spawn(async move {
            loop {
                tokio::time::sleep(runs.lease / 3).await;
                match runs.renew_lease(id).await {
                    Ok(true) => {}
                    Ok(false) => return log_lapsed(id),
                    Err(error) => log_unrenewed(id, &error),
                }
            }
        }))
    }

    /// Ends `run` as abandoned and stores it. Readers racing here write the same record.
    pub(super) async fn end_abandoned(&self, mut run: Run) -> StoreResult<Run> {
        run.record(&abandoned_frame(&run));
        log_abandoned(run.id);
        self.save(&run).await?;
        Ok(run)
    }
}

/// `ERROR: <the stage it was in>: runner stopped`.
pub(super) fn abandoned_frame(run: &Run) -> String {
    let stage = run
        .frames
        .iter()
        .rev()
        .find_map(|frame| frames::progress_stage(frame))
        .unwrap_or(QUEUE_STAGE);
    frames::error(stage, RUNNER_STOPPED)
}

fn log_lapsed(id: Uuid) {
    tracing::warn!(run_id = %id, "run lease lapsed while its runner was alive");
}

fn log_unrenewed(id: Uuid, error: &StoreError) {
    tracing::warn!(run_id = %id, %error, cause = ?error, "run lease not renewed");
}

fn log_abandoned(id: Uuid) {
    tracing::warn!(run_id = %id, "run lease gone before its terminal frame; ended as abandoned");
}
