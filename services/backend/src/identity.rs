//! Who is calling, and in which workspace: the extractors every protected handler takes.
//!
//! [`Authenticated`] is a valid access token (HS256, `exp` required, of the access kind: a
//! refresh, MFA or e-mail token never passes) of a live session: its `sid` is read in the
//! store (one read, after the signature is checked), so a session ended on any replica is
//! refused on every one, and a token without a session is refused. A store that cannot answer
//! is the 503: a token is never let through unchecked.
//!
//! [`Scoped`] adds the workspace, taken from the token's `workspaceId` claim ONLY: never from
//! a path, query or body. A token without the claim fails closed, unless the compatibility switch
//! `SECURITY_ALLOW_TOKENS_WITHOUT_WORKSPACE` is on and the user has exactly one workspace.

use crate::errors::ApiError;
use crate::state::AppState;
use crate::tenancy::WorkspaceScope;
use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use platform::jwt::{Claims, TokenKind, bearer_token};

/// A caller with a valid access token.
#[derive(Clone, Debug)]
pub struct Authenticated(pub Claims);

/// A caller with a valid access token scoped to a workspace.
#[derive(Clone, Debug)]
pub struct Scoped {
    /// The token's claims.
    pub claims: Claims,
    /// The workspace, from the token.
    pub workspace_id: String,
}

fn unauthorized(request: &HttpRequest) -> ApiError {
    ApiError::client(StatusCode::UNAUTHORIZED, "authentication required", request)
}

fn state(request: &HttpRequest) -> Result<web::Data<AppState>, ApiError> {
    request
        .app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or(ApiError::Internal {
            kind: "state missing",
            cause: "AppState not registered".to_owned(),
        })
}

async fn authenticate(request: &HttpRequest) -> Result<Claims, ApiError> {
    let token = bearer_token(request.headers()).ok_or_else(|| unauthorized(request))?;
    let state = state(request)?;
    let claims = state
        .config
        .jwt
        .verify(TokenKind::Access, token)
        .map_err(|_| unauthorized(request))?;
    let session = claims.sid.as_deref().ok_or_else(|| unauthorized(request))?;
    if state.auth.sessions.is_live(session, &claims.sub).await? {
        Ok(claims)
    } else {
        Err(unauthorized(request))
    }
}

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move { authenticate(&request).await.map(Self) })
    }
}

impl FromRequest for Scoped {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let request = request.clone();
        Box::pin(async move {
            let claims = authenticate(&request).await?;
            let state = state(&request)?;
            let legacy = state.config.allow_tokens_without_workspace;
            let fallback = match (legacy, claims.workspace_id.as_deref()) {
                (true, None) => state
                    .tenancy
                    .members
                    .workspace_ids_of(&claims.sub)
                    .await?
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                _ => Vec::new(),
            };
            let workspace_id = WorkspaceScope::from_claim(
                claims.workspace_id.as_deref(),
                legacy,
                WorkspaceScope::sole(&fallback),
            )
            .map_err(|_| {
                ApiError::client(StatusCode::FORBIDDEN, "workspace scope required", &request)
            })?;
            Ok(Self {
                claims,
                workspace_id,
            })
        })
    }
}
