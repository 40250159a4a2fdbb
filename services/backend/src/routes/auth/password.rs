//! `POST /forgot-password` and `/reset-password/{token}`: password-reset links. A link's token
//! is stored only as its digest and redeemed atomically, once. Forgot-password writes one job
//! for any address; the account is looked up and the link mailed in the background.

use super::{EmailOnly, accepted, ending_sessions, hash_password, queue, refuse};
use crate::auth::email::normalise;
use crate::auth::mail_jobs::{Job, mails};
use crate::auth::passwords;
use crate::auth::tokens::TokenPurpose;
use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;

/// Leaves a reset link for the background (mailed only to an existing account); the same
/// answer, in the same time, for any address.
pub async fn forgot(
    state: web::Data<AppState>,
    body: web::Json<EmailOnly>,
) -> Result<HttpResponse, ApiError> {
    if let Some(email) = normalise(&body.email) {
        state
            .auth
            .mail_jobs
            .enqueue(Job::ResetLink { email })
            .await?;
    }
    Ok(accepted(
        StatusCode::ACCEPTED,
        "If this address has an account, a reset link is on its way",
    ))
}

/// Mails a single-use reset link (valid 30 minutes) to `email`, at once: for a signed-in
/// account, which reveals nothing.
pub(in crate::routes) async fn mail_reset_link(
    state: &AppState,
    email: String,
) -> Result<(), ApiError> {
    let mail = mails::reset_link(&state.auth.tokens, &email).await?;
    queue(state, mail).await
}

/// The reset body.
#[derive(Debug, Deserialize)]
pub struct Reset {
    password: String,
}

/// Sets a new password with a reset link; also lifts a login lock ("or reset your password")
/// and ends every session of the account.
pub async fn reset(
    state: web::Data<AppState>,
    token: web::Path<String>,
    body: web::Json<Reset>,
) -> Result<HttpResponse, ApiError> {
    let invalid = || refuse(StatusCode::BAD_REQUEST, "Invalid or expired link");
    let Reset { password } = body.into_inner();
    passwords::check_policy(&password)?;
    let email = state
        .auth
        .tokens
        .redeem(TokenPurpose::PasswordReset, &token)
        .await?
        .ok_or_else(invalid)?;
    let user = state
        .auth
        .users
        .find_by_email(&email)
        .await?
        .ok_or_else(invalid)?;
    let hash = hash_password(password).await?;
    let users = &state.auth.users;
    ending_sessions(&state, &user.id, async {
        Ok(users.set_password_hash(&user.id, &hash).await?)
    })
    .await?;
    state.auth.attempts.reset(&email).await?;
    Ok(accepted(StatusCode::OK, "Password updated"))
}
