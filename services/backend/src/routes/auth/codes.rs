//! `POST /signup`, `/resend-otp` (and `/pre-register`, its alias) and `/verify-otp`: accounts
//! and their verification codes.
//!
//! A code is six digits, stored hashed, valid ten minutes, single use. Five wrong answers for
//! an address destroy its code: the answer is a 429 with no `Retry-After`, since no wait
//! makes that code succeed; a new one must be sent to the real inbox. The answers count
//! whether or not a code was sent, so the ceiling is the same for a taken and a free address.
//!
//! Signup and resend write one job for any address and answer; the account is created (or
//! found) and its code mailed in the background ([`crate::auth::mail_jobs`]), so neither the
//! answer nor its timing says whether the address has an account. Signing up again for an
//! unverified address mails a fresh code, bound to that signup's password
//! ([`crate::auth::signups`]).

use super::{EmailOnly, accept_code, accepted, hash_password, refuse, session};
use crate::auth::email::normalise;
use crate::auth::mail_jobs::Job;
use crate::auth::otp::OtpPurpose;
use crate::auth::signups::SignupDetails;
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

/// Leaves the signup for the background (an unverified account and its code, or a fresh
/// code for an unverified one; nothing for a verified one). The same answer for any address.
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
    let details = SignupDetails {
        name: name.trim().to_owned(),
        password_hash: hash_password(password).await?,
    };
    let job = Job::Signup { email, details };
    state.auth.mail_jobs.enqueue(job).await?;
    Ok(accepted(StatusCode::CREATED, CODE_SENT))
}

/// Leaves a fresh code for the background (sent only to an unverified account); the same
/// answer for any address.
pub async fn resend(
    state: web::Data<AppState>,
    body: web::Json<EmailOnly>,
) -> Result<HttpResponse, ApiError> {
    if let Some(email) = normalise(&body.email) {
        state.auth.mail_jobs.enqueue(Job::Code { email }).await?;
    }
    Ok(accepted(StatusCode::ACCEPTED, CODE_SENT))
}

/// The verification body.
#[derive(Debug, Deserialize)]
pub struct CodeBody {
    email: String,
    code: String,
}

/// Verifies the account with its code (setting the password the code's signup gave) and
/// opens a session.
pub async fn verify_otp(
    state: web::Data<AppState>,
    body: web::Json<CodeBody>,
) -> Result<HttpResponse, ApiError> {
    let invalid = || refuse(StatusCode::BAD_REQUEST, "Invalid or expired code");
    let email = normalise(&body.email).ok_or_else(invalid)?;
    let auth = &state.auth;
    let redeemed = auth
        .otp
        .redeem(&email, OtpPurpose::Signup, &body.code)
        .await?;
    accept_code(redeemed.outcome)?;
    let signup = redeemed
        .binding
        .as_deref()
        .and_then(SignupDetails::from_binding);
    let user = auth
        .users
        .complete_signup(&email, signup.as_ref())
        .await?
        .ok_or_else(invalid)?;
    if let Err(error) = auth.mail_jobs.signups().forget(&email).await {
        // The account is verified; a leftover signup only binds codes, which a verified
        // account ignores.
        tracing::warn!(%error, "a verified account's signup record was not deleted");
    }
    session(&state, &user.id, &user.email).await
}
