//! Scan runs: the record a `202` hands out the id of, its progress frames, and the hub that
//! streams them.
//!
//! A run's frames are text, one line each: `PROGRESS: <stage>: <detail>` while it works, and
//! exactly one terminal frame at the end, `DONE` or `ERROR: <stage>: <reason>` ([`frames`]).
//! The record is stored under its id in [`Space::Runs`], rewritten with every frame, so
//! `GET /api/v1/runs/{id}` can answer from any replica and after a restart.

pub mod frames;
mod hub;

pub use hub::{RunHub, Subscription};

use crate::store::{Space, Store, StoreResult};
use serde::{Deserialize, Serialize};
use std::time::{SystemTime, UNIX_EPOCH};
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
}

impl Runs {
    /// Runs kept in `store`.
    pub const fn new(store: Store) -> Self {
        Self { store }
    }

    /// A new `Queued` run with no frames, stored before it is returned.
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
        self.save(&run).await?;
        Ok(run)
    }

    /// The run with `id`, if there is one.
    pub async fn get(&self, id: Uuid) -> StoreResult<Option<Run>> {
        self.store.get_json(Space::Runs, &id.to_string()).await
    }

    /// Writes `run` over its stored copy.
    pub async fn save(&self, run: &Run) -> StoreResult<()> {
        self.store
            .put_json(Space::Runs, &run.id.to_string(), run, None)
            .await
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}
