//! `Scanner`: starts a scan run and drives it to exactly one terminal frame.
//!
//! [`Scanner::start`] stores a `Queued` run and returns it at once (the HTTP layer answers 202
//! with its id); a spawned task then runs the stages (`validate`, `analyze`, `store`, see
//! [`stages`]) and ends the run with `DONE` or `ERROR: <stage>: <reason>`. The terminal frame is
//! written in one place, [`Scanner::drive`], after the stages return — so no stage can forget
//! it — and a panic anywhere in them is caught there and ends the run with
//! `ERROR: internal: scan aborted` (docs/DESIGN.md, "The backend", "A 202 is never the end of the story").
//! The task keeps the run's lease while it runs; if the whole process dies instead, readers
//! end the run once the lease lapses (see [`super::runs`]).

mod stages;

use super::analyzer_client::{AnalyzerClient, AnalyzerError};
use super::runs::{Run, RunHub, Runs, frames};
use crate::store::StoreError;
use analysis::{AnalyzeAnswer, AnalyzeRequest};
use futures_util::FutureExt;
use serde::Deserialize;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use uuid::Uuid;

/// What the `analyze` stage sends batches to: the [`AnalyzerClient`] in service, anything
/// that answers the same way in tests.
pub trait Analyze: Send + Sync + 'static {
    /// The findings for one batch.
    fn analyze(
        &self,
        batch: &AnalyzeRequest,
    ) -> impl Future<Output = Result<AnalyzeAnswer, AnalyzerError>> + Send;
}

impl Analyze for AnalyzerClient {
    fn analyze(
        &self,
        batch: &AnalyzeRequest,
    ) -> impl Future<Output = Result<AnalyzeAnswer, AnalyzerError>> + Send {
        Self::analyze(self, batch)
    }
}

/// One file a scan was asked to analyze, as the caller sent it. Every field may be missing
/// here so that a missing one is reported on the run (`ERROR: validate: …`), where the caller
/// is reading, rather than lost in a body parser.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileInput {
    /// The file's path in the project.
    pub path: Option<String>,
    /// The whole file.
    pub content: Option<String>,
    /// The language, when the extension does not say it.
    pub language: Option<String>,
}

/// Why a scan could not be started (no run exists, so there is nothing to put a frame on).
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The run could not be stored.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Starts and drives scans: cheap to clone.
#[derive(Debug)]
pub struct Scanner<C = AnalyzerClient> {
    runs: Runs,
    hub: RunHub,
    client: Arc<C>,
    batch_size: usize,
}

impl<C> Clone for Scanner<C> {
    fn clone(&self) -> Self {
        Self {
            runs: self.runs.clone(),
            hub: self.hub.clone(),
            client: self.client.clone(),
            batch_size: self.batch_size,
        }
    }
}

impl<C: Analyze> Scanner<C> {
    /// A scanner sending at most `batch_size` files (at least 1) per analyzer call.
    pub fn new(runs: Runs, hub: RunHub, client: C, batch_size: usize) -> Self {
        Self {
            runs,
            hub,
            client: Arc::new(client),
            batch_size: batch_size.max(1),
        }
    }

    /// Stores a `Queued` run for `files`, spawns its task and returns the run at once. Call it
    /// inside a Tokio runtime.
    pub async fn start(
        &self,
        workspace_id: &str,
        project_id: &str,
        files: Vec<FileInput>,
    ) -> Result<Run, ScanError> {
        let run = self.runs.create(workspace_id, project_id).await?;
        self.hub.open(&run);
        tokio::spawn(self.clone().drive(run.clone(), files));
        Ok(run)
    }

    /// Runs the stages and writes the one terminal frame, whatever they did.
    async fn drive(self, mut run: Run, files: Vec<FileInput>) {
        // Renewed for as long as this task lives; a process that dies takes it along, and
        // readers end the run once the lease lapses.
        let _lease = self.runs.keep_leased(run.id);
        let outcome = AssertUnwindSafe(self.stages(&mut run, files))
            .catch_unwind()
            .await;
        let terminal = match outcome {
            Ok(Ok(())) => frames::DONE.to_owned(),
            Ok(Err(failure)) => frames::error(failure.stage, &failure.reason),
            Err(_) => {
                log_panic(run.id);
                frames::error("internal", "scan aborted")
            }
        };
        log_end(run.id, &terminal);
        self.hub.emit(&mut run, terminal).await;
    }
}

fn log_panic(run_id: Uuid) {
    tracing::error!(%run_id, "scan task panicked");
}

fn log_end(run_id: Uuid, terminal: &str) {
    tracing::info!(%run_id, terminal, "scan ended");
}
