//! The backend's error type and where each kind of failure meets its envelope.
//!
//! Under `/api/v1/auth/**` a failure is rendered in the auth controllers' `status_envelope`;
//! everywhere else in the `api_error` envelope. A store that cannot answer is a 503 with a
//! short `Retry-After` (fail closed: an attempt ceiling is never skipped because the store was
//! down), and a 500 carries only its kind and a reference; the cause goes to the log.

use crate::envelope::{api_error, internal_error, status_envelope};
use crate::store::StoreError;
use actix_web::http::StatusCode;
use actix_web::http::header::RETRY_AFTER;
use actix_web::{HttpRequest, HttpResponse, ResponseError};
use limiter_actix::routed_path;
use platform::{ErrorReference, Rejection};

/// How long a client should wait when the store did not answer.
pub const STORE_RETRY_AFTER_SECS: u64 = 5;

/// Which envelope a failure is rendered in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Envelope {
    /// `{"status":<int>,"message"}` (auth controllers).
    Status,
    /// `{"status":"<NAME>","message"}` (everything else).
    Api,
}

impl Envelope {
    /// The envelope of the controller serving `path`.
    pub fn for_path(path: &str) -> Self {
        if path.starts_with("/api/v1/auth/") {
            Self::Status
        } else {
            Self::Api
        }
    }
}

/// A failure, with the envelope it is rendered in.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// A client error with a message for the client.
    #[error("{message}")]
    Client {
        /// 400, 401, 403, 404, 409, 413, 415, …
        status: StatusCode,
        /// What the client did wrong.
        message: String,
        /// Which envelope.
        envelope: Envelope,
    },
    /// An auth controller's 429: a lock with its exact remaining time, or a refusal no wait can
    /// lift (a destroyed one-time code), which carries no `Retry-After`: a header that lies
    /// is worse than one that is absent.
    #[error("{message}")]
    Refused {
        /// What the client reads.
        message: String,
        /// The wait, when there is one.
        retry_after: Option<std::time::Duration>,
    },
    /// The store did not answer: 503 with a short `Retry-After`.
    #[error("service temporarily unavailable")]
    StoreUnavailable(#[source] StoreError),
    /// Our own failure: 500 with the kind and a reference.
    #[error("{kind}")]
    Internal {
        /// What failed, in a few words (shown).
        kind: &'static str,
        /// Why (logged only).
        cause: String,
    },
}

impl ApiError {
    /// A client error in the envelope of the controller `request` is routed to (by the routed
    /// path, so every spelling of a path gets its controller's envelope).
    pub fn client(status: StatusCode, message: impl Into<String>, request: &HttpRequest) -> Self {
        Self::Client {
            status,
            message: message.into(),
            envelope: Envelope::for_path(routed_path(request)),
        }
    }

    /// A request the extractors refused, in the envelope of its path.
    pub fn rejected(rejection: &Rejection, request: &HttpRequest) -> Self {
        Self::client(rejection.status, rejection.message.clone(), request)
    }
}

impl From<crate::auth::AuthError> for ApiError {
    fn from(error: crate::auth::AuthError) -> Self {
        use crate::auth::AuthError;
        let status_envelope = |message: &str| Self::Client {
            status: StatusCode::BAD_REQUEST,
            message: message.to_owned(),
            envelope: Envelope::Status,
        };
        match error {
            AuthError::Store(store) => store.into(),
            AuthError::WeakPassword(reason) => status_envelope(reason),
            AuthError::InvalidEmail => status_envelope("Invalid email address"),
            AuthError::EmailTaken => status_envelope("Email already registered"),
            AuthError::Hashing => Self::Internal {
                kind: "password hashing failed",
                cause: "argon2".to_owned(),
            },
        }
    }
}

impl From<crate::tenancy::TenancyError> for ApiError {
    fn from(error: crate::tenancy::TenancyError) -> Self {
        use crate::tenancy::TenancyError;
        let api = |status: StatusCode, message: String| Self::Client {
            status,
            message,
            envelope: Envelope::Api,
        };
        match error {
            TenancyError::NotFound(message) => api(StatusCode::NOT_FOUND, message.to_owned()),
            TenancyError::Forbidden(message) | TenancyError::LegacyForbidden(message) => {
                api(StatusCode::FORBIDDEN, message.to_owned())
            }
            TenancyError::Conflict(message) => api(StatusCode::CONFLICT, message.to_owned()),
            TenancyError::Invalid(message) => api(StatusCode::BAD_REQUEST, message),
            TenancyError::Store(store) => store.into(),
        }
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(_) => Self::StoreUnavailable(error),
            StoreError::Corrupt(cause) => Self::Internal {
                kind: "stored record unreadable",
                cause,
            },
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        match self {
            Self::Client { status, .. } => *status,
            Self::Refused { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::StoreUnavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        match self {
            Self::Client {
                status,
                message,
                envelope: Envelope::Status,
            } => status_envelope(*status, message),
            Self::Client {
                status,
                message,
                envelope: Envelope::Api,
            } => api_error(*status, message),
            Self::Refused {
                message,
                retry_after,
            } => {
                let mut response = status_envelope(StatusCode::TOO_MANY_REQUESTS, message);
                if let Some(value) = retry_after
                    .and_then(|wait| limiter::retry_after_secs(wait).to_string().parse().ok())
                {
                    response.headers_mut().insert(RETRY_AFTER, value);
                }
                response
            }
            Self::StoreUnavailable(cause) => {
                log_store_failure(cause);
                let mut response = api_error(StatusCode::SERVICE_UNAVAILABLE, &self.to_string());
                if let Ok(value) = STORE_RETRY_AFTER_SECS.to_string().parse() {
                    response.headers_mut().insert(RETRY_AFTER, value);
                }
                response
            }
            Self::Internal { kind, cause } => {
                let reference = ErrorReference::new();
                log_internal(&reference, kind, cause);
                internal_error(kind, &reference)
            }
        }
    }
}

fn log_store_failure(cause: &StoreError) {
    tracing::warn!(?cause, "store unavailable; answering 503");
}

fn log_internal(reference: &ErrorReference, kind: &str, cause: &str) {
    tracing::error!(%reference, kind, cause, "internal error");
}
