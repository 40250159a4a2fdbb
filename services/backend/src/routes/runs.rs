//! `GET /api/v1/runs/{id}`: a scan run as stored (`status`, `frames`, `findings`, …). Never
//! metered: a client polls it. A run whose runner died (its lease lapsed) is ended by this
//! read with `ERROR: <stage>: runner stopped` (see `scans::runs`).
//!
//! A run of another workspace answers exactly like one that does not exist, 404
//! `{"status":"NOT_FOUND","message":"scan not found"}` ([`Denial`] decides, so the legacy
//! 403 switch applies here too).
//!
//! [`Denial`]: crate::tenancy::Denial

use crate::errors::ApiError;
use crate::identity::Scoped;
use crate::scans::runs::Run;
use crate::state::AppState;
use crate::tenancy::Resource;
use actix_web::{HttpResponse, web};
use uuid::Uuid;

/// Mounts the route.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/runs/{id}", web::get().to(get_run));
}

async fn get_run(
    scope: Scoped,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let run = owned_run(&state, &scope.workspace_id, &id).await?;
    Ok(HttpResponse::Ok().json(run))
}

/// The run `id` names if it belongs to `workspace`; "scan not found" for a missing run, an id
/// that is no UUID and (by default) another workspace's run alike.
pub(super) async fn owned_run(
    state: &AppState,
    workspace: &str,
    id: &str,
) -> Result<Run, ApiError> {
    let missing = || ApiError::from(Resource::Scan.missing());
    let Ok(id) = Uuid::parse_str(id) else {
        return Err(missing());
    };
    let Some(run) = state.scans.runs.read(id).await? else {
        return Err(missing());
    };
    if run.workspace_id != workspace {
        return Err(state.tenancy.denial.deny(Resource::Scan).into());
    }
    Ok(run)
}
