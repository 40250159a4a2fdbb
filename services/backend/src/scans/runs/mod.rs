//! Scan runs: the record a `202` hands out the id of, its progress frames, and the hub that
//! streams them.
//!
//! A run's frames are text, one line each: `PROGRESS: <stage>: <detail>` while it works, and
//! exactly one terminal frame at the end, `DONE` or `ERROR: <stage>: <reason>` ([`frames`]).
//! The record is stored under its id in [`Space::Runs`], rewritten with every frame, so
//! `GET /api/v1/runs/{id}` can answer from any replica and after a restart.
//!
//! # The workspace index
//! Each run's id is also a member of the set named by its workspace id in [`Space::Runs`]
//! ([`Store::add_to_set`]), written before the record: [`Runs::in_workspace`] reads that set
//! and then only those records, never every tenant's runs.
//!
//! # Leases: a run whose process died still ends
//! While a run is being driven, a lease record ([`Space::RunLeases`], under the run's id, with
//! a TTL) says its process is alive ([`lease`]). A reader that finds a run not yet ended and
//! its lease gone ends it ([`Runs::read`]): it appends `ERROR: <stage>: runner stopped` and
//! stores the run, so every reader on every replica sees the same terminal frame. A lease
//! that is gone stays gone (a renewal never recreates it), so the runner, which renews before
//! storing each frame, stops at its next frame rather than writing over that ending.

pub mod frames;
mod hub;
mod lease;

pub use hub::{RunHub, Subscription};
pub use lease::{DEFAULT_LEASE, LeaseKeeper, RUNNER_STOPPED};

use crate::store::{Space, Store, StoreResult, now_ms};
use serde::{Deserialize, Serialize};
use std::time::Duration;
use uuid::Uuid;

/// Where a run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RunStatus {
    /// Created; its task has not reported yet.
    Queued,
    /// At least one progress frame, no terminal frame yet.
    Running,
    /// Ended with `DONE`.
    Done,
    /// Ended with an `ERROR: …` frame.
    Error,
}

impl RunStatus {
    /// `Done` or `Error`: no frame will follow.
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Done | Self::Error)
    }
}

/// One scan run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    /// The id the 202 hands out.
    pub id: Uuid,
    /// The workspace it belongs to (from the caller's token, never the body).
    pub workspace_id: String,
    /// The project scanned.
    pub project_id: String,
    /// Where it is.
    pub status: RunStatus,
    /// Every frame so far, oldest first.
    pub frames: Vec<String>,
    /// Findings in all batches; set by the `store` stage.
    pub findings: u64,
    /// When it was created, unix milliseconds.
    pub created_at_ms: u64,
}

impl Run {
    /// Appends `frame` and moves the status along with it.
    pub(crate) fn record(&mut self, frame: &str) {
        self.frames.push(frame.to_owned());
        self.status = if frames::is_terminal(frame) {
            if frame == frames::DONE {
                RunStatus::Done
            } else {
                RunStatus::Error
            }
        } else {
            RunStatus::Running
        };
    }
}

/// The runs' repository over the store.
#[derive(Clone, Debug)]
pub struct Runs {
    store: Store,
    lease: Duration,
}

impl Runs {
    /// Runs kept in `store`, leased for [`DEFAULT_LEASE`].
    pub const fn new(store: Store) -> Self {
        Self::with_lease(store, DEFAULT_LEASE)
    }

    /// Runs kept in `store` whose leases last `lease` without renewal.
    pub const fn with_lease(store: Store, lease: Duration) -> Self {
        Self { store, lease }
    }

    /// A new `Queued` run with no frames: indexed under its workspace, leased, then stored.
    pub async fn create(&self, workspace_id: &str, project_id: &str) -> StoreResult<Run> {
        let run = Run {
            id: Uuid::new_v4(),
            workspace_id: workspace_id.to_owned(),
            project_id: project_id.to_owned(),
            status: RunStatus::Queued,
            frames: Vec::new(),
            findings: 0,
            created_at_ms: now_ms(),
        };
        let id = run.id.to_string();
        self.store
            .add_to_set(Space::Runs, workspace_id, &id)
            .await?;
        self.take_lease(run.id).await?;
        self.save(&run).await?;
        Ok(run)
    }

    /// The run with `id` exactly as stored (the runner's view).
    pub async fn get(&self, id: Uuid) -> StoreResult<Option<Run>> {
        self.store.get_json(Space::Runs, &id.to_string()).await
    }

    /// The run with `id` as a reader must see it: ended with `ERROR: <stage>: runner stopped`
    /// when it had not ended and its lease is gone.
    pub async fn read(&self, id: Uuid) -> StoreResult<Option<Run>> {
        let Some(run) = self.get(id).await? else {
            return Ok(None);
        };
        if run.status.is_terminal() || self.is_leased(id).await? {
            return Ok(Some(run));
        }
        self.end_abandoned(run).await.map(Some)
    }

    /// Every run of `workspace`, read as [`Runs::read`] reads one, oldest first. Reads the
    /// workspace's index and only its runs; an unreadable record is logged and left out.
    pub async fn in_workspace(&self, workspace: &str) -> StoreResult<Vec<Run>> {
        let ids = self.store.set_members(Space::Runs, workspace).await?;
        let records = self.store.get_many(Space::Runs, &ids).await?;
        let mut runs: Vec<Run> = ids
            .iter()
            .zip(records)
            .filter_map(|(id, bytes)| decode(id, &bytes?))
            .filter(|run| run.workspace_id == workspace)
            .collect();
        let open: Vec<usize> = (0..runs.len())
            .filter(|&index| !runs[index].status.is_terminal())
            .collect();
        let keys: Vec<String> = open
            .iter()
            .map(|&index| runs[index].id.to_string())
            .collect();
        let leases = self.store.get_many(Space::RunLeases, &keys).await?;
        for (index, lease) in open.into_iter().zip(leases) {
            if lease.is_none() {
                runs[index] = self.end_abandoned(runs[index].clone()).await?;
            }
        }
        runs.sort_by_key(|run| run.created_at_ms);
        Ok(runs)
    }

    /// Writes `run` over its stored copy.
    pub async fn save(&self, run: &Run) -> StoreResult<()> {
        self.store
            .put_json(Space::Runs, &run.id.to_string(), run, None)
            .await
    }
}

/// A stored run, or `None` (logged) when its record does not decode.
fn decode(id: &str, bytes: &[u8]) -> Option<Run> {
    serde_json::from_slice(bytes)
        .inspect_err(|error| log_unreadable(id, error))
        .ok()
}

/// One unreadable record does not hide every other run.
fn log_unreadable(id: &str, error: &serde_json::Error) {
    tracing::warn!(run_id = id, %error, "stored run unreadable; left out");
}
