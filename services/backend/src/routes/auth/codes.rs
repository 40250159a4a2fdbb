//! `POST /signup`, `/resend-otp` (and `/pre-register`, its alias) and `/verify-otp`: accounts
//! and their verification codes.
//!
//! A code is six digits, stored hashed, valid ten minutes, single use. Five wrong answers
//! destroy it: the answer is a 429 with no `Retry-After`, since no wait makes that code
//! succeed; a new one must be sent to the real inbox.

use super::{EmailOnly, accept_code, accepted, hash_password, refuse, send_code, session};
use crate::auth::email::normalise;
use crate::auth::otp::OtpPurpose;
use crate::auth::{AuthError, passwords};
use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;

/// What every code-sending route answers, whether or not a code went out.
pub const CODE_SENT: &str = "If this address can receive a code, one is on its way";

/// The signup body.
#[derive(Debug, Deserialize)]
pub struct Signup {
    email: String,
    password: String,
    name: String,
}

/// Creates an unverified account and sends its code. A taken address gets the same answer.
pub async fn signup(
    state: web::Data<AppState>,
    body: web::Json<Signup>,
) -> Result<HttpResponse, ApiError> {
    let Signup {
        email,
        password,
        name,
    } = body.into_inner();
    let email = normalise(&email).ok_or(AuthError::InvalidEmail)?;
    passwords::check_policy(&password)?;
    let hash = hash_password(password).await?;
    match state.auth.users.create(&email, name.trim(), &hash).await {
        Ok(_) => send_code(&state, &email, OtpPurpose::Signup).await?,
        Err(AuthError::EmailTaken) => {}
        Err(error) => return Err(error.into()),
    }
    Ok(accepted(StatusCode::CREATED, CODE_SENT))
}

/// Sends a fresh code to an unverified account; the same answer for any address.
pub async fn resend(
    state: web::Data<AppState>,
    body: web::Json<EmailOnly>,
) -> Result<HttpResponse, ApiError> {
    if let Some(email) = normalise(&body.email)
        && let Some(user) = state.auth.users.find_by_email(&email).await?
        && !user.verified
    {
        send_code(&state, &email, OtpPurpose::Signup).await?;
    }
    Ok(accepted(StatusCode::ACCEPTED, CODE_SENT))
}

/// The verification body.
#[derive(Debug, Deserialize)]
pub struct CodeBody {
    email: String,
    code: String,
}

/// Verifies the account with its code and opens a session.
pub async fn verify_otp(
    state: web::Data<AppState>,
    body: web::Json<CodeBody>,
) -> Result<HttpResponse, ApiError> {
    let invalid = || refuse(StatusCode::BAD_REQUEST, "Invalid or expired code");
    let email = normalise(&body.email).ok_or_else(invalid)?;
    accept_code(
        state
            .auth
            .otp
            .verify(&email, OtpPurpose::Signup, &body.code)
            .await?,
    )?;
    let user = state
        .auth
        .users
        .find_by_email(&email)
        .await?
        .ok_or_else(invalid)?;
    state.auth.users.mark_verified(&user.id).await?;
    session(&state, &user.id, &user.email).await
}
