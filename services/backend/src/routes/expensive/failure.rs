//! How a failed analyzer call reaches the caller of an EXPENSIVE endpoint or the gatekeeper,
//! always in the api envelope (built by [`ApiError`], never here):
//!
//! - a 4xx is the caller's own request (`unknown_language`, `payload_too_large`, …): 400 with
//!   the analyzer's status and error code in the message; never retried;
//! - a 401 or 403 means the backend's `ANALYZER_TOKEN` is wrong, which no caller can fix: 502,
//!   like an analyzer that does not answer in time or answers more than the backend reads
//!   (`analyzer unavailable`), and logged;
//! - a 429 the client would not wait out: 503 with the analyzer's wait as `Retry-After`.

use crate::errors::{ApiError, Envelope};
use crate::scans::analyzer_client::AnalyzerError;
use actix_web::http::StatusCode;
use actix_web::http::header::{HeaderValue, RETRY_AFTER};
use actix_web::{HttpResponse, ResponseError};
use std::time::Duration;

/// The wait a 503 names when the analyzer named none.
const DEFAULT_RETRY_AFTER: Duration = Duration::from_secs(5);

/// An [`ApiError`], with the wait a 503 asks the caller for.
#[derive(Debug, thiserror::Error)]
#[error("{error}")]
pub struct AnalyzerFailure {
    error: ApiError,
    retry_after: Option<Duration>,
}

impl From<ApiError> for AnalyzerFailure {
    fn from(error: ApiError) -> Self {
        Self {
            error,
            retry_after: None,
        }
    }
}

fn api(status: StatusCode, message: impl Into<String>) -> ApiError {
    ApiError::Client {
        status,
        message: message.into(),
        envelope: Envelope::Api,
    }
}

impl From<AnalyzerError> for AnalyzerFailure {
    fn from(failure: AnalyzerError) -> Self {
        let unavailable = || api(StatusCode::BAD_GATEWAY, "analyzer unavailable");
        match failure {
            AnalyzerError::Rejected { status, .. } if matches!(status, 401 | 403) => {
                log_refused_token(status);
                unavailable().into()
            }
            AnalyzerError::Rejected { .. } => {
                api(StatusCode::BAD_REQUEST, failure.to_string()).into()
            }
            AnalyzerError::Unavailable { .. }
            | AnalyzerError::BadResponse
            | AnalyzerError::TimedOut { .. } => unavailable().into(),
            AnalyzerError::RateLimited { retry_after } => Self {
                error: api(StatusCode::SERVICE_UNAVAILABLE, "analyzer rate limited"),
                retry_after: Some(retry_after.unwrap_or(DEFAULT_RETRY_AFTER)),
            },
        }
    }
}

impl ResponseError for AnalyzerFailure {
    fn status_code(&self) -> StatusCode {
        self.error.status_code()
    }

    fn error_response(&self) -> HttpResponse {
        let mut response = self.error.error_response();
        let seconds = self.retry_after.map(limiter::retry_after_secs);
        if let Some(value) = seconds.and_then(|secs| HeaderValue::from_str(&secs.to_string()).ok())
        {
            response.headers_mut().insert(RETRY_AFTER, value);
        }
        response
    }
}

fn log_refused_token(status: u16) {
    tracing::error!(status, "the analyzer refused ANALYZER_TOKEN; answering 502");
}
