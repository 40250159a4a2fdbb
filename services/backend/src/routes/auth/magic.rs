//! `POST /magic-link` and `/verify-magic`: signing in with a single-use link.
//!
//! `magic-link {"email"}` mails a link (`/magic-link/<token>`, valid 15 minutes) to a verified
//! account's address and answers 202 in the same words for any address, so it tells nobody
//! whether an account exists; the account is looked up and the link issued in the background
//! ([`crate::auth::mail_jobs`]), so the answer's timing does not tell either. It sends mail, so it is metered like every mail-sending route:
//! per IP, per recipient and by the auth filter's e-mail class. `verify-magic {"token"}`
//! redeems the link once and opens a session; an account with MFA on gets the MFA step
//! instead, exactly as a login with the right password does.

use super::{EmailOnly, accepted, refuse, session};
use crate::auth::email::normalise;
use crate::auth::mail_jobs::Job;
use crate::auth::tokens::TokenPurpose;
use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;

/// What `magic-link` answers, whether or not a link went out.
pub const LINK_SENT: &str = "If this address has an account, a sign-in link is on its way";

/// Leaves a sign-in link for the background (mailed only to a verified account); the same
/// answer, in the same time, for any address.
pub async fn issue(
    state: web::Data<AppState>,
    body: web::Json<EmailOnly>,
) -> Result<HttpResponse, ApiError> {
    if let Some(email) = normalise(&body.email) {
        state
            .auth
            .mail_jobs
            .enqueue(Job::MagicLink { email })
            .await?;
    }
    Ok(accepted(StatusCode::ACCEPTED, LINK_SENT))
}

/// The magic-link body.
#[derive(Debug, Deserialize)]
pub struct Magic {
    token: String,
}

/// Opens a session with a magic link (or the MFA step, for an account with MFA on).
pub async fn verify(
    state: web::Data<AppState>,
    body: web::Json<Magic>,
) -> Result<HttpResponse, ApiError> {
    let invalid = || refuse(StatusCode::BAD_REQUEST, "Invalid or expired link");
    let email = state
        .auth
        .tokens
        .redeem(TokenPurpose::MagicLink, &body.token)
        .await?
        .ok_or_else(invalid)?;
    let user = state
        .auth
        .users
        .find_by_email(&email)
        .await?
        .ok_or_else(invalid)?;
    if user.mfa_enabled {
        return super::mfa::challenge(&state, &user.id, &user.email).await;
    }
    session(&state, &user.id, &user.email).await
}
