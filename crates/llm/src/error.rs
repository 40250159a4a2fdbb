//! [`LlmError`]: the one error type of this crate, one variant per thing a caller does
//! differently.
//!
//! A service maps [`LlmError::RateLimited`] to a 429 or 503 with `Retry-After`, the transient
//! kinds ([`Timeout`](LlmError::Timeout), [`Unavailable`](LlmError::Unavailable)) to a 503 or
//! 504, and the rest to a 502: none of them is the end user's fault. `Display` is safe to log:
//! it never holds the API key, the prompt, or more of a provider's body than a short excerpt.

use platform_core::bounds::BodyError;
use std::error::Error as _;
use std::time::Duration;

/// Why a chat call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    /// No answer within the whole-call timeout (pacing and retries included).
    #[error("the language model did not answer in time")]
    Timeout,
    /// The provider refused with 429; `retry_after` is its `Retry-After`, when it sent one in
    /// seconds.
    #[error("the language model provider is rate limiting us{}", retry_after_text(*.retry_after))]
    RateLimited {
        /// How long the provider asked us to wait.
        retry_after: Option<Duration>,
    },
    /// The provider could not be reached (`status: None`) or failed (5xx), after retries.
    #[error("the language model provider is unavailable{}", status_text(*.status))]
    Unavailable {
        /// The provider's 5xx status, if it answered at all.
        status: Option<u16>,
    },
    /// The provider refused our request (a 4xx other than 429, or a redirect): a bug or a
    /// misconfiguration on our side, never retried.
    #[error("the language model provider rejected the request with status {status}")]
    Rejected {
        /// The provider's status.
        status: u16,
    },
    /// A success status whose body is not a chat completion with an answer.
    #[error("the language model provider sent an unusable answer: {0}")]
    BadResponse(String),
    /// The client could not be built from its configuration (the reason never holds the key).
    #[error("the language model client could not be set up: {0}")]
    Setup(String),
}

impl LlmError {
    /// The provider's HTTP status behind this error, if there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::RateLimited { .. } => Some(429),
            Self::Unavailable { status } => *status,
            Self::Rejected { status } => Some(*status),
            Self::Timeout | Self::BadResponse(_) | Self::Setup(_) => None,
        }
    }
}

fn retry_after_text(retry_after: Option<Duration>) -> String {
    retry_after.map_or_else(String::new, |wait| {
        format!(" (retry after {} s)", wait.as_secs())
    })
}

fn status_text(status: Option<u16>) -> String {
    status.map_or_else(
        || " (no connection)".to_owned(),
        |status| format!(" (status {status})"),
    )
}

/// A request that got no complete answer: the provider is unreachable for now.
pub(crate) fn transport_failure(error: reqwest::Error) -> LlmError {
    let error = error.without_url();
    let mut detail = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        detail.push_str(": ");
        detail.push_str(&cause.to_string());
        source = cause.source();
    }
    tracing::debug!(%detail, "language model provider unreachable");
    LlmError::Unavailable { status: None }
}

/// An answer that could not be read within its bound: too large is an unusable answer (a
/// provider that does not stop talking is not worth another try), a broken connection is a
/// transport failure.
pub(crate) fn body_failure(error: BodyError) -> LlmError {
    match error {
        BodyError::TooLarge { limit } => {
            tracing::warn!(limit, "language model answer larger than its bound");
            LlmError::BadResponse(format!("the answer is larger than {limit} bytes"))
        }
        BodyError::Transport(error) => transport_failure(error),
    }
}
