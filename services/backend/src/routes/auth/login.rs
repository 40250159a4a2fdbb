//! `POST /login`: the login attempt ceiling where a client meets it.
//!
//! Five wrong passwords for one address (existing or not) lock it for ten minutes: the fifth
//! wrong answer is still a 401, every attempt after it is a 429 with the exact remaining
//! seconds in `Retry-After`, even with the right password, until the lock expires. The hash
//! is verified on every path (a dummy hash for unknown addresses), so timing says nothing.

use super::sessions::after_password;
use super::{locked, refuse};
use crate::auth::email::normalise;
use crate::auth::passwords::verify_or_dummy;
use crate::errors::ApiError;
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde::Deserialize;

/// The login body.
#[derive(Debug, Deserialize)]
pub struct Credentials {
    email: String,
    password: String,
}

/// Checks the lock, the password, and counts a wrong one.
pub async fn login(
    state: web::Data<AppState>,
    body: web::Json<Credentials>,
) -> Result<HttpResponse, ApiError> {
    let Credentials { email, password } = body.into_inner();
    let email = normalise(&email).unwrap_or_else(|| email.trim().to_lowercase());
    let auth = &state.auth;
    if let Some(remaining) = auth.attempts.locked(&email).await? {
        return Err(locked(remaining));
    }
    let user = auth.users.find_by_email(&email).await?;
    let hash = user.as_ref().map(|user| user.password_hash.clone());
    let matches = web::block(move || verify_or_dummy(hash.as_deref(), &password))
        .await
        .map_err(|error| ApiError::Internal {
            kind: "password check did not complete",
            cause: error.to_string(),
        })?;
    match user {
        Some(user) if matches => {
            auth.attempts.reset(&email).await?;
            if !user.verified {
                return Err(refuse(StatusCode::FORBIDDEN, "Email not verified"));
            }
            if user.mfa_enabled {
                return super::mfa::challenge(&state, &user.id, &user.email).await;
            }
            after_password(&state, &user).await
        }
        _ => {
            auth.attempts.record_failure(&email).await?;
            Err(refuse(
                StatusCode::UNAUTHORIZED,
                "Invalid email or password",
            ))
        }
    }
}
