//! `GET /workspace?name=` (the public lookup a login screen uses to find a tenant) and
//! `POST /workspace {"workspaceId"}` (switching into a workspace: an access token scoped to it).
//!
//! Both answer in the auth status envelope. A workspace that does not exist and one the caller
//! is not a member of are the same 404 `"workspace not found"`, so the switch is no oracle for
//! other tenants' ids. The scoped token carries the membership's role for clients to display;
//! every role floor is still checked against the stored membership, never against the claim.

use crate::errors::ApiError;
use crate::identity::Authenticated;
use crate::state::AppState;
use crate::tenancy::error::WORKSPACE_NOT_FOUND;
use crate::tenancy::{Role, TenancyError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use platform::jwt::{Subject, TokenKind};
use serde::Deserialize;
use serde_json::json;

/// The lookup's query.
#[derive(Debug, Deserialize)]
pub struct Lookup {
    name: String,
}

/// The workspace called `name` (any letter case): its id and name, nothing else.
pub async fn lookup(
    state: web::Data<AppState>,
    query: web::Query<Lookup>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let workspace = state
        .tenancy
        .workspaces
        .find_by_name(&query.name)
        .await
        .map_err(|error| in_auth_envelope(error, &request))?;
    Ok(HttpResponse::Ok().json(json!({ "id": workspace.id, "name": workspace.name })))
}

/// The switch body.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Switch {
    workspace_id: String,
}

/// An access token scoped to a workspace the caller belongs to, in the caller's session (it
/// ends with it).
pub async fn switch(
    state: web::Data<AppState>,
    caller: Authenticated,
    body: web::Json<Switch>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let Authenticated(claims) = caller;
    let membership = state
        .tenancy
        .members
        .require(&body.workspace_id, &claims.sub, Role::Viewer)
        .await
        .map_err(|error| in_auth_envelope(error, &request))?;
    let subject = Subject {
        workspace_id: Some(membership.workspace_id.to_string()),
        role: Some(membership.role),
        email: claims.email,
        session: claims.sid,
        ..Subject::user(claims.sub)
    };
    let access = super::mint(&state, TokenKind::Access, &subject)?;
    Ok(HttpResponse::Ok().json(json!({ "accessToken": access })))
}

/// A tenancy refusal in the auth envelope. Not being a member is "workspace not found" even
/// with the legacy 403 wording switched on: this answer never had a 403 form.
fn in_auth_envelope(error: TenancyError, request: &HttpRequest) -> ApiError {
    let refusal =
        |status: StatusCode, message: &str| ApiError::client(status, message.to_owned(), request);
    match error {
        TenancyError::NotFound(_) | TenancyError::LegacyForbidden(_) => {
            refusal(StatusCode::NOT_FOUND, WORKSPACE_NOT_FOUND)
        }
        TenancyError::Forbidden(message) => refusal(StatusCode::FORBIDDEN, message),
        TenancyError::Conflict(message) => refusal(StatusCode::CONFLICT, message),
        TenancyError::Invalid(message) => refusal(StatusCode::BAD_REQUEST, &message),
        TenancyError::Store(store) => store.into(),
    }
}
