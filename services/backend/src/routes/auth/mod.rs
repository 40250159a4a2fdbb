//! `/api/v1/auth/**`: the auth controllers. Failures answer in the status envelope
//! (`{"status":<int>,"message"}`) through [`crate::errors::ApiError`]; success bodies are the
//! tokens or a status envelope saying what happens next.
//!
//! Answers that could tell whether an address has an account (signup of a taken address,
//! resend, forgot-password, magic-link) are the same either way, and so is the work behind
//! them: each writes one job and answers (see [`crate::auth::mail_jobs`]).

mod codes;
mod login;
mod magic;
mod mfa;
mod password;
mod sessions;
mod workspace;

pub(super) use password::mail_reset_link;
pub(super) use sessions::{ending_sessions, session};

use crate::auth::otp::{OtpOutcome, OtpPurpose};
use crate::auth::outbox::{Mail, OutboxError};
use crate::envelope::status_envelope;
use crate::errors::{ApiError, Envelope};
use crate::state::AppState;
use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use platform::jwt::{Subject, TokenKind};
use std::time::SystemTime;

/// Mounts the auth routes.
pub fn config(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::scope("/api/v1/auth")
            .route("/login", web::post().to(login::login))
            .route("/refresh", web::post().to(sessions::refresh))
            .route("/signup", web::post().to(codes::signup))
            .route("/pre-register", web::post().to(codes::resend))
            .route("/resend-otp", web::post().to(codes::resend))
            .route("/verify-otp", web::post().to(codes::verify_otp))
            .route("/magic-link", web::post().to(magic::issue))
            .route("/verify-magic", web::post().to(magic::verify))
            .route("/forgot-password", web::post().to(password::forgot))
            .route("/reset-password/{token}", web::post().to(password::reset))
            .route("/mfa/send-otp", web::post().to(mfa::send_otp))
            .route("/mfa/verify", web::post().to(mfa::verify))
            .route("/mfa/passkey/{tail:.*}", web::to(passkey))
            .route("/workspace", web::get().to(workspace::lookup))
            .route("/workspace", web::post().to(workspace::switch)),
    );
}

/// The body of the routes that take only an address (resend-otp, pre-register,
/// forgot-password, magic-link).
#[derive(Debug, serde::Deserialize)]
pub struct EmailOnly {
    /// The address, as the client typed it.
    pub email: String,
}

/// A client error in the auth envelope.
pub(super) fn refuse(status: StatusCode, message: &str) -> ApiError {
    ApiError::Client {
        status,
        message: message.to_owned(),
        envelope: Envelope::Status,
    }
}

/// The answer that says only what happens next.
pub(super) fn accepted(status: StatusCode, message: &str) -> HttpResponse {
    status_envelope(status, message)
}

/// Hashes a password on the blocking pool (argon2 is deliberately slow).
pub(super) async fn hash_password(password: String) -> Result<String, ApiError> {
    web::block(move || crate::auth::passwords::hash(&password))
        .await
        .map_err(|error| ApiError::Internal {
            kind: "password hashing did not complete",
            cause: error.to_string(),
        })?
        .map_err(ApiError::from)
}

/// Signs a token of `kind` for `subject`, valid for the kind's default lifetime.
pub(super) fn mint(
    state: &AppState,
    kind: TokenKind,
    subject: &Subject,
) -> Result<String, ApiError> {
    sessions::sign(state, kind, subject, SystemTime::now(), kind.default_ttl())
}

/// Hands one mail to the outbox (the file, or the SMTP queue); never waits for delivery. A
/// queue the store cannot take is the store's 503; a file that cannot be written, a 500.
pub(super) async fn queue(state: &AppState, mail: Mail) -> Result<(), ApiError> {
    state
        .auth
        .outbox
        .send(mail)
        .await
        .map_err(|error| match error {
            OutboxError::Store(store) => ApiError::from(store),
            OutboxError::File(cause) => ApiError::Internal {
                kind: "mail not queued",
                cause: cause.to_string(),
            },
        })
}

/// Issues a one-time code for `purpose` and queues it to `email`.
pub(super) async fn send_code(
    state: &AppState,
    email: &str,
    purpose: OtpPurpose,
) -> Result<(), ApiError> {
    let mail = crate::auth::mail_jobs::mails::code(&state.auth.otp, email, purpose, None).await?;
    queue(state, mail).await
}

/// What a code's answer means for the caller: accepted, the one 429 without a `Retry-After`
/// (the code is destroyed; no wait makes it succeed), or a 400.
pub(super) fn accept_code(outcome: OtpOutcome) -> Result<(), ApiError> {
    match outcome {
        OtpOutcome::Accepted => Ok(()),
        OtpOutcome::Exhausted => Err(ApiError::Refused {
            message: "Too many incorrect codes. Request a new code.".to_owned(),
            retry_after: None,
        }),
        OtpOutcome::Wrong { .. } | OtpOutcome::NoCode => {
            Err(refuse(StatusCode::BAD_REQUEST, "Invalid or expired code"))
        }
    }
}

/// The login lock's 429: minutes for a person (rounded up), the exact wait in `Retry-After`.
pub(super) fn locked(remaining: std::time::Duration) -> ApiError {
    let minutes = remaining.as_secs().div_ceil(60).max(1);
    ApiError::Refused {
        message: format!(
            "Too many failed attempts. Try again in {minutes} minute(s), or reset your password."
        ),
        retry_after: Some(remaining),
    }
}

async fn passkey() -> Result<HttpResponse, ApiError> {
    Err(refuse(
        StatusCode::NOT_IMPLEMENTED,
        "Passkeys are not available yet",
    ))
}
