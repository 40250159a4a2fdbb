//! The ai-service's one error type and its one envelope, `{"error": code, "message": text}`.
//!
//! docs/DESIGN.md names no envelope of its own for this service, so it takes the analyzer's shape (a stable
//! code a client can match, a sentence a person can read). Every failure a handler, an
//! extractor or a middleware can produce maps to a status and a body here and nowhere else.
//! A 429 says neither which ceiling refused nor how much of it is left (that would be an
//! oracle on other users' traffic); a 500 adds an `err-` reference logged with the cause.

use actix_web::http::StatusCode;
use actix_web::http::header::RETRY_AFTER;
use actix_web::{HttpResponse, ResponseError};
use platform::Rejection;
pub use platform::envelope::{envelope, internal_envelope, internal_error};
use std::time::Duration;

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No, a bad, an expired or a non-access token.
    #[error("a valid access token is required")]
    Unauthorized,
    /// A body, path or query the extractors refused.
    #[error("{}", .0.message)]
    Rejected(Rejection),
    /// A well-formed request asking for something invalid.
    #[error("{message}")]
    Invalid {
        /// Stable code.
        code: &'static str,
        /// What is wrong.
        message: String,
    },
    /// No such route.
    #[error("{0}")]
    NotFound(String),
    /// The route exists, not with this method.
    #[error("{0}")]
    MethodNotAllowed(String),
    /// A ceiling refused (which one is never said).
    #[error("too many requests; try again in {} second(s)", limiter::retry_after_secs(*.retry_after))]
    RateLimited {
        /// Exact wait until the refusing ceiling has room.
        retry_after: Duration,
    },
    /// Our own failure; the kind is safe to show, the cause is only logged.
    #[error("{kind}")]
    Internal {
        /// What failed, in a few words.
        kind: &'static str,
        /// The cause, for the log.
        cause: String,
    },
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Unauthorized => StatusCode::UNAUTHORIZED,
            Self::Rejected(rejection) => rejection.status,
            Self::Invalid { .. } => StatusCode::BAD_REQUEST,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Internal { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let code = match self {
            Self::Unauthorized => "unauthorized",
            Self::Rejected(rejection) => rejection.code,
            Self::Invalid { code, .. } => code,
            Self::NotFound(_) => "not_found",
            Self::MethodNotAllowed(_) => "method_not_allowed",
            Self::RateLimited { .. } => "rate_limited",
            Self::Internal { kind, cause } => return internal_error(kind, cause),
        };
        let mut response = HttpResponse::build(self.status_code());
        if let Self::RateLimited { retry_after } = self {
            let secs = limiter::retry_after_secs(*retry_after);
            response.insert_header((RETRY_AFTER, secs.to_string()));
        }
        response.json(envelope(code, &self.to_string()))
    }
}

/// A refused body, path or query, in the envelope.
pub fn rejected(rejection: Rejection) -> actix_web::Error {
    ApiError::Rejected(rejection).into()
}
