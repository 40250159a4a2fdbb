//! `GET /api/v1/analytics/summary`: the caller's workspace's runs counted by status, and the
//! findings in all of them, `{"runs":{"total","done","error","running"},"findings":n}`
//! (`running` counts queued runs too). Never metered.
//!
//! The runs repository has no per-workspace listing yet, so this reads every run in
//! `Space::Runs` and keeps the workspace's: linear in all tenants' runs. A workspace index on
//! the runs (the domain's to add) would make it linear in the caller's own.

use crate::errors::ApiError;
use crate::identity::Scoped;
use crate::scans::runs::{Run, RunStatus};
use crate::state::AppState;
use crate::store::Space;
use actix_web::{HttpResponse, web};
use serde_json::json;

/// Mounts the route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/analytics/summary", web::get().to(summary));
}

#[derive(Debug, Default)]
struct Summary {
    total: u64,
    done: u64,
    error: u64,
    running: u64,
    findings: u64,
}

impl Summary {
    fn count(&mut self, run: &Run) {
        self.total += 1;
        match run.status {
            RunStatus::Done => self.done += 1,
            RunStatus::Error => self.error += 1,
            RunStatus::Queued | RunStatus::Running => self.running += 1,
        }
        self.findings += run.findings;
    }
}

async fn summary(scope: Scoped, state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let mut summary = Summary::default();
    for (key, bytes) in state.store.list(Space::Runs, "").await? {
        match serde_json::from_slice::<Run>(&bytes) {
            Ok(run) if run.workspace_id == scope.workspace_id => summary.count(&run),
            Ok(_) => {}
            Err(error) => log_unreadable(&key, &error),
        }
    }
    Ok(HttpResponse::Ok().json(json!({
        "runs": {
            "total": summary.total,
            "done": summary.done,
            "error": summary.error,
            "running": summary.running,
        },
        "findings": summary.findings,
    })))
}

/// One unreadable record does not hide every other run; it is logged, not counted.
fn log_unreadable(key: &str, error: &serde_json::Error) {
    tracing::warn!(key, %error, "stored run unreadable; left out of the summary");
}
