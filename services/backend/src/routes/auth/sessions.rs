//! Where sessions meet the API: every sign-in opens one and answers its first
//! `{"accessToken","refreshToken"}`; `POST /refresh` spends the refresh token and answers the
//! next pair; a credential change ends every session of the user.
//!
//! A session lasts [`REFRESH_TTL`] from its sign-in: each new refresh token keeps the expiry of
//! the one it replaces, so rotating never extends a session. The answers to a password change
//! and an MFA change hold no tokens: the caller's own session ends with the others, and the
//! client signs in again. Fresh tokens there would let a stolen access token outlive its
//! 15 minutes by switching MFA, or skip the second factor by changing the password.

use super::refuse;
use crate::auth::sessions::Rotation;
use crate::auth::users::User;
use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use platform::jwt::{ACCESS_TTL, REFRESH_TTL, Subject, TokenKind};
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A new session for a user; the answer carries its first two tokens.
pub(in crate::routes) async fn session(
    state: &AppState,
    user_id: &str,
    email: &str,
) -> Result<HttpResponse, ApiError> {
    Ok(open(state, user_id, email).await?.1)
}

/// A new session for a user who just proved the password `user` holds. The account is read
/// again once the session exists: when a reset, a change or an MFA switch landed while the
/// password was being checked, the session is ended and the sign-in refused, so no session
/// opened with the old credential outlives its change.
pub(super) async fn after_password(
    state: &AppState,
    user: &User,
) -> Result<HttpResponse, ApiError> {
    let (session, response) = open(state, &user.id, &user.email).await?;
    let current = state.auth.users.find_by_id(&user.id).await?;
    let unchanged = current.is_some_and(|current| {
        current.password_hash == user.password_hash && current.mfa_enabled == user.mfa_enabled
    });
    if unchanged {
        return Ok(response);
    }
    state.auth.sessions.end(&session).await?;
    Err(refuse(
        StatusCode::UNAUTHORIZED,
        "Invalid email or password",
    ))
}

async fn open(
    state: &AppState,
    user_id: &str,
    email: &str,
) -> Result<(String, HttpResponse), ApiError> {
    let opened = state.auth.sessions.open(user_id, REFRESH_TTL).await?;
    let subject = Subject {
        email: Some(email.to_owned()),
        session: Some(opened.session.clone()),
        ..Subject::user(user_id)
    };
    let body = pair(
        state,
        &subject,
        &opened.refresh_id,
        SystemTime::now(),
        REFRESH_TTL,
    )?;
    Ok((opened.session, HttpResponse::Ok().json(body)))
}

/// Ends every session of `user_id` around `change` (a new password, MFA on or off): before it,
/// so a change that fails half-way has still ended them, and after it, so a sign-in that
/// checked the old credential while the change was made is ended too.
pub(in crate::routes) async fn ending_sessions<T>(
    state: &AppState,
    user_id: &str,
    change: impl Future<Output = Result<T, ApiError>>,
) -> Result<T, ApiError> {
    let sessions = &state.auth.sessions;
    let before = sessions.end_all(user_id).await?;
    let changed = change.await?;
    let after = sessions.end_all(user_id).await?;
    tracing::info!(
        user = user_id,
        ended = before + after,
        "credential changed; sessions ended"
    );
    Ok(changed)
}

/// The refresh body.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RefreshBody {
    refresh_token: String,
}

/// Spends a refresh token and answers the session's next pair. A token that is not a live
/// refresh token, or one that was spent already (which ends its session), is the one 401.
pub async fn refresh(
    state: web::Data<AppState>,
    body: web::Json<RefreshBody>,
) -> Result<HttpResponse, ApiError> {
    let invalid = || refuse(StatusCode::UNAUTHORIZED, "Invalid or expired token");
    let claims = state
        .config
        .jwt
        .verify(TokenKind::Refresh, &body.refresh_token)
        .map_err(|_| invalid())?;
    let (Some(session), Some(refresh_id)) = (claims.sid, claims.jti) else {
        return Err(invalid());
    };
    let now = SystemTime::now();
    let remaining = claims.exp.saturating_sub(unix_secs(now));
    if remaining == 0 {
        return Err(invalid());
    }
    let remaining = Duration::from_secs(remaining);
    let sessions = &state.auth.sessions;
    let rotation = sessions
        .rotate(&session, &claims.sub, &refresh_id, remaining)
        .await?;
    let Rotation::Rotated { refresh_id } = rotation else {
        return Err(invalid());
    };
    let subject = Subject {
        email: claims.email,
        session: Some(session),
        ..Subject::user(claims.sub)
    };
    let body = pair(&state, &subject, &refresh_id, now, remaining)?;
    Ok(HttpResponse::Ok().json(body))
}

/// A session's access token and its refresh token `refresh_id`, which expires `remaining`
/// after `now`.
fn pair(
    state: &AppState,
    subject: &Subject,
    refresh_id: &str,
    now: SystemTime,
    remaining: Duration,
) -> Result<Value, ApiError> {
    let refresh = Subject {
        token_id: Some(refresh_id.to_owned()),
        ..subject.clone()
    };
    Ok(json!({
        "accessToken": sign(state, TokenKind::Access, subject, now, ACCESS_TTL)?,
        "refreshToken": sign(state, TokenKind::Refresh, &refresh, now, remaining)?,
    }))
}

/// Signs a token of `kind` for `subject`, issued at `now` and valid for `ttl`.
pub(super) fn sign(
    state: &AppState,
    kind: TokenKind,
    subject: &Subject,
    now: SystemTime,
    ttl: Duration,
) -> Result<String, ApiError> {
    state
        .config
        .jwt
        .issue_at(kind, subject, now, ttl)
        .map_err(|error| ApiError::Internal {
            kind: "token signing failed",
            cause: error.to_string(),
        })
}

fn unix_secs(instant: SystemTime) -> u64 {
    instant
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs()
}
