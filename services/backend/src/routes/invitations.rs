//! `/api/v1/workspace/invitations`: an ADMIN invites an address into the token's workspace,
//! and the invitee accepts with the link mailed to them.
//!
//! The token travels only in the mail (`/workspace/invitations/<token>/accept`); the store
//! keeps its digest. Accepting needs a signed-in caller whose e-mail is the invited one; an
//! unknown, used, expired or someone else's token is the same 404 "invitation not found".
//! Nobody invites above their own rank.

use super::members::{parse_role, within_reach};
use crate::auth::email::normalise;
use crate::auth::outbox::{Mail, MailKind};
use crate::errors::ApiError;
use crate::identity::{Authenticated, Scoped};
use crate::state::AppState;
use crate::tenancy::error::INVITATION_NOT_FOUND;
use crate::tenancy::invitations::DEFAULT_TTL;
use crate::tenancy::{Role, TenancyError};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

/// An invitation body whose `email` is not an address.
pub const INVALID_EMAIL: &str = "invalid email address";

/// Mounts the invitation routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/workspace/invitations", web::post().to(invite))
        .route(
            "/api/v1/workspace/invitations/{token}/accept",
            web::post().to(accept),
        );
}

/// The invitation body.
#[derive(Debug, Deserialize)]
pub struct NewInvitation {
    email: String,
    role: String,
}

/// Invites an address: 201 `{"email","role","expiresAtMs"}`, and the link goes to the outbox.
async fn invite(
    state: web::Data<AppState>,
    scope: Scoped,
    body: web::Json<NewInvitation>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let tenancy = &state.tenancy;
    let caller = tenancy
        .members
        .require(&scope.workspace_id, &scope.claims.sub, Role::Admin)
        .await?;
    let role = parse_role(&body.role, &request)?;
    within_reach(&caller, role)?;
    let email = normalise(&body.email)
        .ok_or_else(|| ApiError::client(StatusCode::BAD_REQUEST, INVALID_EMAIL, &request))?;
    let invitations = &tenancy.invitations;
    let token = invitations
        .invite(&scope.workspace_id, &email, role, DEFAULT_TTL)
        .await?;
    let invitation = invitations.peek(&token).await?.ok_or(ApiError::Internal {
        kind: "invitation not stored",
        cause: "an invitation was gone right after it was written".to_owned(),
    })?;
    let mail = Mail {
        to: email,
        kind: MailKind::Invitation,
        code: None,
        link: Some(format!("/workspace/invitations/{token}/accept")),
    };
    super::auth::queue(&state, mail).await?;
    Ok(HttpResponse::Created().json(json!({
        "email": invitation.email,
        "role": invitation.role,
        "expiresAtMs": invitation.expires_at_ms,
    })))
}

/// Joins the invitation's workspace: 200 `{"workspaceId","role"}`.
async fn accept(
    state: web::Data<AppState>,
    caller: Authenticated,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let Authenticated(claims) = caller;
    let email = match claims.email {
        Some(email) => Some(email),
        None => state
            .auth
            .users
            .find_by_id(&claims.sub)
            .await?
            .map(|user| user.email),
    };
    let Some(email) = email else {
        return Err(TenancyError::NotFound(INVITATION_NOT_FOUND).into());
    };
    let membership = state
        .tenancy
        .invitations
        .accept(&token, &claims.sub, &email)
        .await?;
    Ok(HttpResponse::Ok().json(json!({
        "workspaceId": membership.workspace_id,
        "role": membership.role,
    })))
}
