//! `/api/v1/workspace/members`: who belongs to the token's workspace, and their roles.
//!
//! Reading takes VIEWER, changing takes ADMIN, both checked against the caller's stored
//! membership. An ADMIN cannot reach past their own rank: they neither grant a role above
//! theirs nor change or remove a member who outranks them (so an ADMIN cannot make itself
//! OWNER or demote the OWNER). The last OWNER is never demoted or removed.

use crate::errors::ApiError;
use crate::identity::Scoped;
use crate::state::AppState;
use crate::tenancy::error::INSUFFICIENT_ROLE;
use crate::tenancy::{Membership, Role, TenancyError, rank};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::{Value, json};

/// A role name that is none of VIEWER, MEMBER, ADMIN, OWNER.
pub const UNKNOWN_ROLE: &str = "unknown role";

/// Mounts the member routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/workspace/members", web::get().to(list))
        .route(
            "/api/v1/workspace/members/{user_id}",
            web::put().to(set_role),
        )
        .route(
            "/api/v1/workspace/members/{user_id}",
            web::delete().to(remove),
        );
}

/// The workspace's members: `{"members":[{"userId","email","role"}]}`.
async fn list(state: web::Data<AppState>, scope: Scoped) -> Result<HttpResponse, ApiError> {
    let tenancy = &state.tenancy;
    tenancy
        .members
        .require(&scope.workspace_id, &scope.claims.sub, Role::Viewer)
        .await?;
    let mut members = Vec::new();
    for membership in tenancy.members.list(&scope.workspace_id).await? {
        let user = state.auth.users.find_by_id(&membership.user_id).await?;
        let email = user.map(|user| user.email);
        members
            .push(json!({ "userId": membership.user_id, "email": email, "role": membership.role }));
    }
    Ok(HttpResponse::Ok().json(json!({ "members": members })))
}

/// The role-change body.
#[derive(Debug, Deserialize)]
pub struct RoleChange {
    role: String,
}

/// Gives a member a new role: 200 `{"userId","role"}`.
async fn set_role(
    state: web::Data<AppState>,
    scope: Scoped,
    user_id: web::Path<String>,
    body: web::Json<RoleChange>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let members = &state.tenancy.members;
    let workspace = &scope.workspace_id;
    let caller = members
        .require(workspace, &scope.claims.sub, Role::Admin)
        .await?;
    let role = parse_role(&body.role, &request)?;
    within_reach(&caller, role)?;
    if let Some(target) = members.get(workspace, &user_id).await? {
        within_reach_of(&caller, &target)?;
    }
    let membership = members.set_role(workspace, &user_id, role).await?;
    Ok(HttpResponse::Ok().json(view(&membership)))
}

/// Removes a member: 204.
async fn remove(
    state: web::Data<AppState>,
    scope: Scoped,
    user_id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let members = &state.tenancy.members;
    let workspace = &scope.workspace_id;
    let caller = members
        .require(workspace, &scope.claims.sub, Role::Admin)
        .await?;
    if let Some(target) = members.get(workspace, &user_id).await? {
        within_reach_of(&caller, &target)?;
    }
    members.remove(workspace, &user_id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The role `name` names (any letter case), or 400 [`UNKNOWN_ROLE`].
pub(super) fn parse_role(name: &str, request: &HttpRequest) -> Result<Role, ApiError> {
    Role::parse(name)
        .ok_or_else(|| ApiError::client(StatusCode::BAD_REQUEST, UNKNOWN_ROLE, request))
}

/// Refuses to grant `role` when it ranks above the caller's own role.
pub(super) fn within_reach(caller: &Membership, role: Role) -> Result<(), ApiError> {
    if role.rank() <= rank(&caller.role) {
        Ok(())
    } else {
        Err(TenancyError::Forbidden(INSUFFICIENT_ROLE).into())
    }
}

fn within_reach_of(caller: &Membership, target: &Membership) -> Result<(), ApiError> {
    if rank(&target.role) <= rank(&caller.role) {
        Ok(())
    } else {
        Err(TenancyError::Forbidden(INSUFFICIENT_ROLE).into())
    }
}

fn view(membership: &Membership) -> Value {
    json!({ "userId": membership.user_id, "role": membership.role })
}
