//! `POST /api/v1/workspaces` and `GET /api/v1/workspaces`: creating a tenant and listing the
//! caller's. Neither is scoped (a new user has no workspace yet): both act for the token's
//! user only, and the creator becomes the workspace's OWNER.

use crate::errors::ApiError;
use crate::identity::Authenticated;
use crate::state::AppState;
use crate::tenancy::Workspace;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

/// Mounts the workspace routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/workspaces", web::post().to(create))
        .route("/api/v1/workspaces", web::get().to(list));
}

/// The creation body.
#[derive(Debug, Deserialize)]
pub struct NewWorkspace {
    name: String,
}

/// A new workspace owned by the caller: 201 `{"id","name"}`.
async fn create(
    state: web::Data<AppState>,
    caller: Authenticated,
    body: web::Json<NewWorkspace>,
) -> Result<HttpResponse, ApiError> {
    let workspace = state
        .tenancy
        .workspaces
        .create(&caller.0.sub, &body.name)
        .await?;
    Ok(HttpResponse::Created().json(summary(&workspace)))
}

/// The caller's workspaces, oldest first: `{"workspaces":[{"id","name"}]}`.
async fn list(state: web::Data<AppState>, caller: Authenticated) -> Result<HttpResponse, ApiError> {
    let workspaces = state
        .tenancy
        .workspaces
        .list_for_user(&caller.0.sub)
        .await?;
    let workspaces: Vec<Value> = workspaces.iter().map(summary).collect();
    Ok(HttpResponse::Ok().json(json!({ "workspaces": workspaces })))
}

fn summary(workspace: &Workspace) -> Value {
    json!({ "id": workspace.id, "name": workspace.name })
}
