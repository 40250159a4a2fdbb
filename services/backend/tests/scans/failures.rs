//! Failures inside a scan's task that no analyzer produces: a panic, and the store failing
//! at the `store` stage. Both must still end the run with one terminal frame, delivered.

use crate::support::{file, follow, scanner};
use analysis::{AnalyzeAnswer, AnalyzeRequest, Summary};
use backend::scans::analyzer_client::AnalyzerError;
use backend::scans::runs::{RunStatus, Runs};
use backend::scans::scanner::Analyze;
use backend::store::FaultSwitch;
use std::sync::{Arc, Mutex};

/// An analyzer stand-in that panics mid-scan.
struct Panics;

impl Analyze for Panics {
    async fn analyze(&self, _batch: &AnalyzeRequest) -> Result<AnalyzeAnswer, AnalyzerError> {
        panic!("injected: the analyzer stand-in panicked");
    }
}

/// An analyzer stand-in that answers, then takes the store down before the `store` stage.
struct BreaksTheStore(Arc<Mutex<Option<FaultSwitch>>>);

impl Analyze for BreaksTheStore {
    async fn analyze(&self, batch: &AnalyzeRequest) -> Result<AnalyzeAnswer, AnalyzerError> {
        if let Some(switch) = self.0.lock().expect("not poisoned").as_ref() {
            switch.fail(true);
        }
        let files = u64::try_from(batch.files.len()).expect("a small batch");
        Ok(AnalyzeAnswer {
            findings: Vec::new(),
            summary: Summary {
                files,
                findings: 0,
                truncation: None,
            },
        })
    }
}

#[tokio::test]
async fn a_panic_in_the_scan_task_ends_the_run_with_an_internal_error() {
    let (_dir, store, scanner, hub) = scanner(Panics, 50);
    let run = scanner
        .start("ws-1", "proj-1", vec![file("a.rs", "fn a() {}", None)])
        .await
        .expect("the run starts");
    let frames = follow(&hub, run.id).await;
    assert_eq!(
        frames,
        [
            "PROGRESS: validate: 1 files",
            "PROGRESS: analyze: batch 1/1 (1 files)",
            "ERROR: internal: scan aborted"
        ]
    );
    let stored = Runs::new(store)
        .get(run.id)
        .await
        .expect("store")
        .expect("the run");
    assert_eq!((stored.status, stored.frames), (RunStatus::Error, frames));
}

#[tokio::test]
async fn a_store_failure_at_the_store_stage_still_reaches_the_subscriber() {
    let slot = Arc::new(Mutex::new(None));
    let (_dir, store, scanner, hub) = scanner(BreaksTheStore(slot.clone()), 50);
    *slot.lock().expect("not poisoned") = Some(store.fault_switch());
    let run = scanner
        .start("ws-1", "proj-1", vec![file("a.rs", "fn a() {}", None)])
        .await
        .expect("the run starts");
    let frames = follow(&hub, run.id).await;
    assert_eq!(
        frames.last().map(String::as_str),
        Some("ERROR: store: store unavailable")
    );
}
