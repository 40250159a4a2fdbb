//! `POST /magic-link` and `/verify-magic`: signing in with a single-use link.
//!
//! `magic-link {"email"}` mails a link (`/magic-link/<token>`, valid 15 minutes) to a verified
//! account's address and answers 202 in the same words for any address, so it tells nobody
//! whether an account exists. It sends mail, so it is metered like every mail-sending route:
//! per IP, per recipient and by the auth filter's e-mail class. `verify-magic {"token"}`
//! redeems the link once and opens a session; an account with MFA on gets the MFA step
//! instead, exactly as a login with the right password does.

use super::{EmailOnly, accepted, queue, refuse, session};
use crate::auth::email::normalise;
use crate::auth::outbox::{Mail, MailKind};
use crate::auth::tokens::TokenPurpose;
use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;
use std::time::Duration;

/// How long a magic link works.
pub const MAGIC_LINK_TTL: Duration = Duration::from_secs(15 * 60);

/// What `magic-link` answers, whether or not a link went out.
pub const LINK_SENT: &str = "If this address has an account, a sign-in link is on its way";

/// Mails a sign-in link to a verified account; the same answer for any address.
pub async fn issue(
    state: web::Data<AppState>,
    body: web::Json<EmailOnly>,
) -> Result<HttpResponse, ApiError> {
    if let Some(email) = normalise(&body.email)
        && let Some(user) = state.auth.users.find_by_email(&email).await?
        && user.verified
    {
        let token = state
            .auth
            .tokens
            .issue(TokenPurpose::MagicLink, &email, MAGIC_LINK_TTL)
            .await?;
        let mail = Mail {
            to: email,
            kind: MailKind::MagicLink,
            code: None,
            link: Some(format!("/magic-link/{token}")),
        };
        queue(&state, mail).await?;
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
