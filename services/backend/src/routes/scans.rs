//! `POST /api/v1/scan/initiate` `{"projectId","files":[{"path","content","language"?}]}`:
//! 202 `{"runId","status":"QUEUED","progress","socket"}`; the scan goes on in the background.
//!
//! A 202 is never the end of the story (docs/DESIGN.md, "The backend"). A project that is missing, or another
//! workspace's, still gets its 202 and a run whose one frame is the terminal
//! `ERROR: validate: project not found`: the refusal arrives on the channel the caller is
//! reading (the progress URL and the socket), and the two cases read the same, so the answer
//! says nothing about other tenants. Only a store that cannot answer is refused up front
//! (503): there is nowhere to keep a run. Metered EXPENSIVE per bearer by the public filter.

use crate::errors::ApiError;
use crate::identity::Scoped;
use crate::scans::runs::{Run, frames};
use crate::scans::scanner::{FileInput, ScanError};
use crate::state::AppState;
use crate::tenancy::TenancyError;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

/// Mounts the route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/scan/initiate", web::post().to(initiate));
}

/// Missing fields are reported on the run (`ERROR: validate: …`), where the caller reads.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InitiateBody {
    #[serde(default)]
    project_id: Option<String>,
    #[serde(default)]
    files: Vec<FileInput>,
}

async fn initiate(
    scope: Scoped,
    state: web::Data<AppState>,
    body: web::Json<InitiateBody>,
) -> Result<HttpResponse, ApiError> {
    let InitiateBody { project_id, files } = body.into_inner();
    let project_id = project_id.unwrap_or_default();
    let workspace = scope.workspace_id.as_str();
    let run = match state.tenancy.projects.get(workspace, &project_id).await {
        Ok(project) => state
            .scans
            .scanner
            .start(workspace, &project.id.to_string(), files)
            .await
            .map_err(|ScanError::Store(error)| ApiError::from(error))?,
        Err(TenancyError::Store(error)) => return Err(error.into()),
        Err(refusal) => refused(&state, workspace, &project_id, &refusal.to_string()).await?,
    };
    Ok(HttpResponse::Accepted().json(json!({
        "runId": run.id,
        "status": run.status,
        "progress": format!("/api/v1/runs/{}", run.id),
        "socket": format!("/ws/runs/{}", run.id),
    })))
}

/// A run that ends before it starts: stored, then given its one terminal frame. Returns the
/// run as it was created (`QUEUED`), like a run that starts.
async fn refused(
    state: &AppState,
    workspace: &str,
    project_id: &str,
    reason: &str,
) -> Result<Run, ApiError> {
    let run = state.scans.runs.create(workspace, project_id).await?;
    let mut ended = run.clone();
    state
        .scans
        .hub
        .emit(&mut ended, frames::error("validate", reason))
        .await;
    Ok(run)
}
