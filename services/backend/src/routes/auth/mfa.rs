//! `POST /mfa/send-otp` and `/mfa/verify`: the second step of a login for accounts with MFA.
//!
//! A login with the right password for such an account answers `{"mfaRequired":true,
//! "mfaToken"}` and mails a code. The MFA token (its own kind: never an access token) names
//! the account; the code, under the same ceiling as every code, opens the session.

use super::codes::CODE_SENT;
use super::{accept_code, accepted, refuse, send_code, session};
use crate::auth::otp::OtpPurpose;
use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use platform::jwt::{Claims, Subject, TokenKind};
use serde::Deserialize;
use serde_json::json;

/// The body of `send-otp`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MfaToken {
    mfa_token: String,
}

/// The body of `verify`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MfaCode {
    mfa_token: String,
    code: String,
}

/// The first step's answer: a code on its way and the token that names the account.
pub(super) async fn challenge(
    state: &AppState,
    user_id: &str,
    email: &str,
) -> Result<HttpResponse, ApiError> {
    send_code(state, email, OtpPurpose::Mfa).await?;
    let subject = Subject {
        email: Some(email.to_owned()),
        ..Subject::user(user_id)
    };
    let token = super::mint(state, TokenKind::Mfa, &subject)?;
    Ok(HttpResponse::Ok().json(json!({ "mfaRequired": true, "mfaToken": token })))
}

fn claims(state: &AppState, token: &str) -> Result<(Claims, String), ApiError> {
    let claims = state
        .config
        .jwt
        .verify(TokenKind::Mfa, token)
        .map_err(|_| refuse(StatusCode::UNAUTHORIZED, "Invalid or expired token"))?;
    let email = claims
        .email
        .clone()
        .ok_or_else(|| refuse(StatusCode::UNAUTHORIZED, "Invalid or expired token"))?;
    Ok((claims, email))
}

/// Mails a fresh code for a pending MFA login.
pub async fn send_otp(
    state: web::Data<AppState>,
    body: web::Json<MfaToken>,
) -> Result<HttpResponse, ApiError> {
    let (_, email) = claims(&state, &body.mfa_token)?;
    send_code(&state, &email, OtpPurpose::Mfa).await?;
    Ok(accepted(StatusCode::ACCEPTED, CODE_SENT))
}

/// Opens the session with the MFA token and its code.
pub async fn verify(
    state: web::Data<AppState>,
    body: web::Json<MfaCode>,
) -> Result<HttpResponse, ApiError> {
    let (claims, email) = claims(&state, &body.mfa_token)?;
    accept_code(
        state
            .auth
            .otp
            .verify(&email, OtpPurpose::Mfa, &body.code)
            .await?,
    )?;
    session(&state, &claims.sub, &email).await
}
