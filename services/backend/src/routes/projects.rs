//! `/api/v1/projects`: the token's workspace's projects.
//!
//! Every handler checks the caller's stored membership against the action's floor first
//! (VIEWER reads, MEMBER creates and renames, ADMIN deletes), then asks the repository with
//! the workspace from the token. Another tenant's project id, a random UUID and a string that
//! is no UUID all answer the byte-identical 404 "project not found" (the legacy 403 wording
//! only behind `SECURITY_LEGACY_FORBIDDEN_WORDING`).

use crate::errors::ApiError;
use crate::identity::Scoped;
use crate::state::AppState;
use crate::tenancy::Role;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

/// Mounts the project routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/projects", web::post().to(create))
        .route("/api/v1/projects", web::get().to(list))
        .route("/api/v1/projects/{id}", web::get().to(get))
        .route("/api/v1/projects/{id}", web::put().to(rename))
        .route("/api/v1/projects/{id}", web::delete().to(delete));
}

/// The caller's role reaches `floor` in the token's workspace.
pub(super) async fn require(state: &AppState, scope: &Scoped, floor: Role) -> Result<(), ApiError> {
    state
        .tenancy
        .members
        .require(&scope.workspace_id, &scope.claims.sub, floor)
        .await?;
    Ok(())
}

/// The creation body.
#[derive(Debug, Deserialize)]
pub struct NewProject {
    name: String,
    key: String,
}

/// A new project: 201 with the project.
async fn create(
    state: web::Data<AppState>,
    scope: Scoped,
    body: web::Json<NewProject>,
) -> Result<HttpResponse, ApiError> {
    require(&state, &scope, Role::Member).await?;
    let project = state
        .tenancy
        .projects
        .create(&scope.workspace_id, &body.name, &body.key)
        .await?;
    Ok(HttpResponse::Created().json(project))
}

/// The workspace's projects: `{"projects":[…]}`.
async fn list(state: web::Data<AppState>, scope: Scoped) -> Result<HttpResponse, ApiError> {
    require(&state, &scope, Role::Viewer).await?;
    let projects = state.tenancy.projects.list(&scope.workspace_id).await?;
    Ok(HttpResponse::Ok().json(json!({ "projects": projects })))
}

/// One project.
async fn get(
    state: web::Data<AppState>,
    scope: Scoped,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    require(&state, &scope, Role::Viewer).await?;
    let project = state.tenancy.projects.get(&scope.workspace_id, &id).await?;
    Ok(HttpResponse::Ok().json(project))
}

/// The rename body.
#[derive(Debug, Deserialize)]
pub struct Rename {
    name: String,
}

/// Renames a project: 200 with the project.
async fn rename(
    state: web::Data<AppState>,
    scope: Scoped,
    id: web::Path<String>,
    body: web::Json<Rename>,
) -> Result<HttpResponse, ApiError> {
    require(&state, &scope, Role::Member).await?;
    let project = state
        .tenancy
        .projects
        .update(&scope.workspace_id, &id, &body.name)
        .await?;
    Ok(HttpResponse::Ok().json(project))
}

/// Deletes a project: 204.
async fn delete(
    state: web::Data<AppState>,
    scope: Scoped,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    require(&state, &scope, Role::Admin).await?;
    state
        .tenancy
        .projects
        .delete(&scope.workspace_id, &id)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
