//! `/api/v1/user/**`: the signed-in user's own settings.
//!
//! - `PUT /user/mfa {"enabled"}`: turns the e-mailed second step on or off.
//! - `POST /user/password/change {"currentPassword","newPassword"}`: a password check, so it
//!   sits under the same attempt ceiling as login (five wrong answers lock the address).
//! - `POST /user/password-reset`: mails the user a reset link (the same link forgot-password
//!   sends), for a signed-in user who wants to set a password without knowing the current one.
//!
//! A password change, and a switch that turns MFA on or off, end every session of the user,
//! the caller's own included: the answers carry no tokens, and the client signs in again.

use super::auth::{ending_sessions, hash_password, locked, mail_reset_link};
use crate::auth::passwords;
use crate::errors::ApiError;
use crate::identity::Authenticated;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;
use serde_json::json;

/// Mounts the routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.route("/api/v1/user/mfa", web::put().to(set_mfa))
        .route(
            "/api/v1/user/password/change",
            web::post().to(change_password),
        )
        .route("/api/v1/user/password-reset", web::post().to(request_reset));
}

/// The MFA switch.
#[derive(Debug, Deserialize)]
pub struct MfaSwitch {
    enabled: bool,
}

async fn set_mfa(
    state: web::Data<AppState>,
    user: Authenticated,
    body: web::Json<MfaSwitch>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let users = &state.auth.users;
    let account = users
        .find_by_id(&user.0.sub)
        .await?
        .ok_or_else(|| gone(&request))?;
    if account.mfa_enabled != body.enabled {
        let switch = async { Ok(users.set_mfa(&account.id, body.enabled).await?) };
        ending_sessions(&state, &account.id, switch)
            .await?
            .ok_or_else(|| gone(&request))?;
    }
    Ok(HttpResponse::Ok().json(json!({ "mfaEnabled": body.enabled })))
}

/// The password change.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PasswordChange {
    current_password: String,
    new_password: String,
}

async fn change_password(
    state: web::Data<AppState>,
    user: Authenticated,
    body: web::Json<PasswordChange>,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let PasswordChange {
        current_password,
        new_password,
    } = body.into_inner();
    let account = state
        .auth
        .users
        .find_by_id(&user.0.sub)
        .await?
        .ok_or_else(|| gone(&request))?;
    let attempts = &state.auth.attempts;
    if let Some(remaining) = attempts.locked(&account.email).await? {
        return Err(locked(remaining));
    }
    let hash = account.password_hash.clone();
    let matches = web::block(move || passwords::verify(&hash, &current_password))
        .await
        .map_err(|error| ApiError::Internal {
            kind: "password check did not complete",
            cause: error.to_string(),
        })?;
    if !matches {
        attempts.record_failure(&account.email).await?;
        return Err(ApiError::client(
            StatusCode::UNAUTHORIZED,
            "Invalid password",
            &request,
        ));
    }
    passwords::check_policy(&new_password)
        .map_err(|error| ApiError::client(StatusCode::BAD_REQUEST, error.to_string(), &request))?;
    let new_hash = hash_password(new_password).await?;
    let users = &state.auth.users;
    let change = async { Ok(users.set_password_hash(&account.id, &new_hash).await?) };
    ending_sessions(&state, &account.id, change).await?;
    attempts.reset(&account.email).await?;
    Ok(HttpResponse::Ok().json(json!({ "message": "Password updated" })))
}

async fn request_reset(
    state: web::Data<AppState>,
    user: Authenticated,
    request: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    let account = state
        .auth
        .users
        .find_by_id(&user.0.sub)
        .await?
        .ok_or_else(|| gone(&request))?;
    mail_reset_link(&state, account.email).await?;
    Ok(HttpResponse::Accepted().json(json!({ "message": "A reset link is on its way" })))
}

/// The account behind a valid token is gone.
fn gone(request: &HttpRequest) -> ApiError {
    ApiError::client(StatusCode::UNAUTHORIZED, "authentication required", request)
}
