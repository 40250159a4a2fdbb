//! CI keys of the token's workspace's projects: `POST` and `GET /api/v1/projects/{id}/ci-keys`
//! and `DELETE /api/v1/ci-keys/{id}`, all ADMIN and up.
//!
//! The secret is in the creation answer and nowhere else (the store keeps its digest and an
//! 8-character prefix for display). Another tenant's project is "project not found" and
//! another tenant's key "ci key not found", exactly like ids that never existed.

use super::projects::require;
use crate::errors::ApiError;
use crate::identity::Scoped;
use crate::state::AppState;
use crate::tenancy::Role;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

/// Mounts the CI key routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/projects/{id}/ci-keys", web::post().to(create))
        .route("/api/v1/projects/{id}/ci-keys", web::get().to(list))
        .route("/api/v1/ci-keys/{id}", web::delete().to(revoke));
}

/// The creation body.
#[derive(Debug, Deserialize)]
pub struct NewCiKey {
    name: String,
}

/// A new key: 201 `{"id","name","prefix","secret"}`; the secret is never shown again.
async fn create(
    state: web::Data<AppState>,
    scope: Scoped,
    project_id: web::Path<String>,
    body: web::Json<NewCiKey>,
) -> Result<HttpResponse, ApiError> {
    require(&state, &scope, Role::Admin).await?;
    let (key, secret) = state
        .tenancy
        .ci_keys
        .create(&scope.workspace_id, &project_id, &body.name)
        .await?;
    Ok(HttpResponse::Created().json(json!({
        "id": key.id,
        "name": key.name,
        "prefix": key.prefix,
        "secret": secret,
    })))
}

/// The project's live keys, without secrets: `{"ciKeys":[…]}`.
async fn list(
    state: web::Data<AppState>,
    scope: Scoped,
    project_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    require(&state, &scope, Role::Admin).await?;
    let tenancy = &state.tenancy;
    let project = tenancy
        .projects
        .get(&scope.workspace_id, &project_id)
        .await?;
    let mut keys = tenancy.ci_keys.list(&scope.workspace_id).await?;
    keys.retain(|key| key.project_id == project.id);
    Ok(HttpResponse::Ok().json(json!({ "ciKeys": keys })))
}

/// Revokes a key: 204; it stops authenticating at once.
async fn revoke(
    state: web::Data<AppState>,
    scope: Scoped,
    key_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    require(&state, &scope, Role::Admin).await?;
    state
        .tenancy
        .ci_keys
        .revoke(&scope.workspace_id, &key_id)
        .await?;
    Ok(HttpResponse::NoContent().finish())
}
