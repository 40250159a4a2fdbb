//! Why a call to the analyzer did not produce an answer.
//!
//! `Display` is shown to users (a scan's `ERROR: analyze: <reason>` frame), so it carries the
//! status, the analyzer's short error code and counts — never the token, a URL or the
//! analyzer's free-text message.

use serde_json::Value;
use std::time::Duration;

/// The longest analyzer error code repeated in a message.
const MAX_CODE_CHARS: usize = 80;

/// A failed analyzer call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnalyzerError {
    /// The analyzer refused the request with a 4xx other than 429 (or a 3xx): the request
    /// itself is wrong, so it was sent once and never retried.
    #[error("analyzer rejected the request ({status} {error})")]
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The analyzer's `error` code (`unknown_language`, …), or `unknown`.
        error: String,
    },
    /// No usable answer after every attempt: connection errors, timeouts or 5xx.
    #[error("analyzer unavailable after {attempts} attempts")]
    Unavailable {
        /// How many attempts were made.
        attempts: u32,
    },
    /// A 429 whose `Retry-After` was missing or longer than the policy waits, or one that
    /// came on the last attempt.
    #[error("analyzer rate limited{}", retry_hint(*.retry_after))]
    RateLimited {
        /// The wait the analyzer asked for, when it named one.
        retry_after: Option<Duration>,
    },
    /// A 2xx whose body is not what the contract says, or any answer longer than
    /// [`super::MAX_ANALYSIS_ANSWER_BYTES`].
    #[error("analyzer sent an unreadable response")]
    BadResponse,
    /// The call's deadline passed before an attempt stood.
    #[error("analyzer gave no answer within {} ms", .after.as_millis())]
    TimedOut {
        /// The deadline.
        after: Duration,
    },
}

impl AnalyzerError {
    /// A refusal, with the `error` code from the analyzer's body when it has one.
    pub(super) fn rejected(status: u16, body: &Value) -> Self {
        let error = body
            .get("error")
            .and_then(Value::as_str)
            .filter(|code| !code.is_empty())
            .map_or_else(|| "unknown".to_owned(), short_code);
        Self::Rejected { status, error }
    }
}

/// The code cut to a bounded length, control characters dropped (it ends up in a frame).
fn short_code(code: &str) -> String {
    code.chars()
        .filter(|character| !character.is_control())
        .take(MAX_CODE_CHARS)
        .collect()
}

fn retry_hint(retry_after: Option<Duration>) -> String {
    retry_after.map_or_else(String::new, |wait| {
        format!(" (retry after {} s)", wait.as_secs())
    })
}

#[cfg(test)]
mod tests {
    use super::AnalyzerError;
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn display_names_status_code_and_counts_only() {
        let rejected =
            AnalyzerError::rejected(400, &json!({"error":"unknown_language","message":"cobol"}));
        assert_eq!(
            rejected.to_string(),
            "analyzer rejected the request (400 unknown_language)"
        );
        let opaque = AnalyzerError::rejected(404, &json!("not json at all"));
        assert_eq!(
            opaque.to_string(),
            "analyzer rejected the request (404 unknown)"
        );
        let unavailable = AnalyzerError::Unavailable { attempts: 4 };
        assert_eq!(
            unavailable.to_string(),
            "analyzer unavailable after 4 attempts"
        );
        let limited = AnalyzerError::RateLimited {
            retry_after: Some(Duration::from_secs(60)),
        };
        assert_eq!(
            limited.to_string(),
            "analyzer rate limited (retry after 60 s)"
        );
        let bare = AnalyzerError::RateLimited { retry_after: None };
        assert_eq!(bare.to_string(), "analyzer rate limited");
    }

    #[test]
    fn a_long_or_odd_code_is_bounded() {
        let long = "x".repeat(500);
        let AnalyzerError::Rejected { error, .. } =
            AnalyzerError::rejected(400, &json!({"error": long}))
        else {
            panic!("a 400 is a rejection");
        };
        assert_eq!(error.len(), 80);
        let AnalyzerError::Rejected { error, .. } =
            AnalyzerError::rejected(400, &json!({"error":"a\nb"}))
        else {
            panic!("a 400 is a rejection");
        };
        assert_eq!(error, "ab");
    }
}
