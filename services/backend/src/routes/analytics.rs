//! `GET /api/v1/analytics/summary`: the caller's workspace's runs counted by status, and the
//! findings in all of them, `{"runs":{"total","done","error","running"},"findings":n}`
//! (`running` counts queued runs too). Never metered.
//!
//! It reads the workspace's run index and only those runs ([`Runs::in_workspace`]), so its
//! cost grows with the caller's own runs, not every tenant's. A run whose runner died is
//! counted as the error it is.
//!
//! [`Runs::in_workspace`]: crate::scans::runs::Runs::in_workspace

use crate::errors::ApiError;
use crate::identity::Scoped;
use crate::scans::runs::{Run, RunStatus};
use crate::state::AppState;
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
    for run in state.scans.runs.in_workspace(&scope.workspace_id).await? {
        summary.count(&run);
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
