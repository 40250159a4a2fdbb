//! The analyzer's one error type and its one envelope, `{"error": code, "message": text}`.
//!
//! Every failure a handler or an extractor can produce maps to a status and a body here and
//! nowhere else. Rule validation keeps its historical body, `{"error": "<what is wrong>"}`
//! (clients match `rule.ruleId is mandatory`), and a 500 adds an `err-` reference that is
//! logged with the cause; no internal text ever reaches the caller.

use actix_web::http::StatusCode;
use actix_web::http::header::RETRY_AFTER;
use actix_web::{HttpResponse, ResponseError};
use platform::Rejection;
pub use platform::envelope::{envelope, internal_envelope, internal_error};
use serde_json::json;
use std::time::Duration;

/// Everything a request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// No or wrong `X-Analyzer-Token`.
    #[error("valid X-Analyzer-Token header required")]
    Unauthorized,
    /// A body, path or query the extractors refused.
    #[error("{}", .0.message)]
    Rejected(Rejection),
    /// A well-formed request asking for something invalid.
    #[error("{message}")]
    Invalid {
        /// Stable code (`unknown_language`, …).
        code: &'static str,
        /// What is wrong.
        message: String,
    },
    /// A custom rule that does not validate.
    #[error("{0}")]
    Rule(#[from] logscan::RuleError),
    /// No such resource.
    #[error("{0}")]
    NotFound(String),
    /// The path exists, not with this method.
    #[error("{0}")]
    MethodNotAllowed(String),
    /// The resource exists already.
    #[error("{0}")]
    Conflict(String),
    /// Admission control refused the analysis.
    #[error("too many analyses in progress; retry later")]
    Overloaded {
        /// Suggested wait.
        retry_after: Duration,
    },
    /// The shared rule store did not confirm a write in time: it may still take effect (a
    /// command already sent cannot be called back), so the caller reads before retrying.
    #[error("the rule store did not confirm the write; read the rule before retrying")]
    StoreUnavailable,
    /// The language model did not give an answer.
    #[error("the language model did not answer")]
    LlmUnavailable(#[source] llm::LlmError),
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
            Self::Invalid { .. } | Self::Rule(_) => StatusCode::BAD_REQUEST,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed(_) => StatusCode::METHOD_NOT_ALLOWED,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Overloaded { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::LlmUnavailable(_) => StatusCode::BAD_GATEWAY,
            Self::StoreUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = HttpResponse::build(self.status_code());
        let body = match self {
            Self::Unauthorized => envelope("unauthorized", &self.to_string()),
            Self::Rejected(rejection) => envelope(rejection.code, &rejection.message),
            Self::Invalid { code, message } => envelope(code, message),
            Self::Rule(error) => json!({ "error": error.to_string() }),
            Self::NotFound(message) => envelope("not_found", message),
            Self::MethodNotAllowed(message) => envelope("method_not_allowed", message),
            Self::Conflict(message) => envelope("conflict", message),
            Self::Overloaded { retry_after } => {
                response.insert_header((
                    RETRY_AFTER,
                    limiter::retry_after_secs(*retry_after).to_string(),
                ));
                json!({ "error": "overloaded", "message": self.to_string(), "retry_after_ms": millis(*retry_after) })
            }
            Self::StoreUnavailable => envelope("store_unavailable", &self.to_string()),
            Self::LlmUnavailable(cause) => {
                tracing::warn!(%cause, "language model call failed");
                envelope("llm_unavailable", &self.to_string())
            }
            Self::Internal { kind, cause } => return internal_error(kind, cause),
        };
        response.json(body)
    }
}

/// Whole milliseconds, rounded up, as the refusal bodies carry them.
pub fn millis(wait: Duration) -> u64 {
    let whole = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
    whole + u64::from(!wait.subsec_nanos().is_multiple_of(1_000_000))
}
