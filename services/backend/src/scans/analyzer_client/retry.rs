//! The retry loop: one attempt at a time, each classified as an answer that stands, a failure
//! worth another attempt, or a refusal to give up on.
//!
//! Retried: connection errors, timeouts, a body cut off mid-read, and 5xx, after
//! `base_backoff × 2^(n-1)` (capped at `max_backoff`, plus up to 10% jitter so scans that
//! failed together do not return together); a 429 after its own `Retry-After` when that is at
//! most `max_retry_after`. Everything else is final after one attempt — above all a 4xx, and
//! an answer longer than the read bound (the same request would get it again).

use super::{AnalyzerError, MAX_ANALYSIS_ANSWER_BYTES, RetryPolicy};
use platform::bounds::{BodyError, read_body};
use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{RequestBuilder, StatusCode};
use serde_json::Value;
use std::time::Duration;

/// What one attempt came to.
enum Verdict {
    /// An answer that another attempt would not change: 2xx, 3xx, or a 4xx but 429.
    Answer(StatusCode, Vec<u8>),
    /// Worth another attempt. `retry_after`: the wait a 429 asked for; `None`: back off.
    Retry {
        retry_after: Option<Duration>,
        cause: String,
    },
    /// A 429 with no usable `Retry-After`, or one longer than the policy waits.
    RateLimited(Option<Duration>),
    /// An answer longer than the read bound.
    TooLarge,
}

/// Runs attempts built by `build` until one stands or the policy gives up. A 2xx body must be
/// JSON; any other final body that is not JSON reads as `null`.
pub(super) async fn run(
    policy: &RetryPolicy,
    build: impl Fn() -> RequestBuilder,
) -> Result<(StatusCode, Value), AnalyzerError> {
    let attempts = policy.max_attempts.max(1);
    let mut attempt = 1;
    loop {
        match once(build(), policy).await {
            Verdict::Answer(status, body) => return decode(status, &body),
            Verdict::RateLimited(retry_after) => {
                return Err(AnalyzerError::RateLimited { retry_after });
            }
            Verdict::TooLarge => {
                tracing::warn!(
                    limit = MAX_ANALYSIS_ANSWER_BYTES,
                    "analyzer answer over the read bound; not read further"
                );
                return Err(AnalyzerError::BadResponse);
            }
            Verdict::Retry { retry_after, .. } if attempt >= attempts => {
                return Err(match retry_after {
                    Some(wait) => AnalyzerError::RateLimited {
                        retry_after: Some(wait),
                    },
                    None => AnalyzerError::Unavailable { attempts },
                });
            }
            Verdict::Retry { retry_after, cause } => {
                let wait = retry_after.unwrap_or_else(|| backoff(policy, attempt));
                log_retry(attempt, attempts, wait, &cause);
                tokio::time::sleep(wait).await;
                attempt += 1;
            }
        }
    }
}

/// One attempt, classified.
async fn once(request: RequestBuilder, policy: &RetryPolicy) -> Verdict {
    let response = match request.send().await {
        Ok(response) => response,
        Err(error) => return transport_failure(&error),
    };
    let status = response.status();
    if status == StatusCode::TOO_MANY_REQUESTS {
        return match retry_after(response.headers()) {
            Some(wait) if wait <= policy.max_retry_after => Verdict::Retry {
                retry_after: Some(wait),
                cause: "429".to_owned(),
            },
            too_long_or_absent => Verdict::RateLimited(too_long_or_absent),
        };
    }
    if status.is_server_error() {
        return Verdict::Retry {
            retry_after: None,
            cause: status.as_u16().to_string(),
        };
    }
    match read_body(response, MAX_ANALYSIS_ANSWER_BYTES).await {
        Ok(body) => Verdict::Answer(status, body.into()),
        Err(BodyError::TooLarge { .. }) => Verdict::TooLarge,
        Err(BodyError::Transport(error)) => transport_failure(&error),
    }
}

/// A request that got no complete answer: retried with backoff. The cause is reqwest's
/// classification, not its message, which names the URL.
fn transport_failure(error: &reqwest::Error) -> Verdict {
    let cause = if error.is_timeout() {
        "timeout"
    } else if error.is_connect() {
        "connection failed"
    } else {
        "transport error"
    };
    Verdict::Retry {
        retry_after: None,
        cause: cause.to_owned(),
    }
}

fn decode(status: StatusCode, body: &[u8]) -> Result<(StatusCode, Value), AnalyzerError> {
    match serde_json::from_slice(body) {
        Ok(value) => Ok((status, value)),
        Err(error) if status.is_success() => Err(bad_response("a 2xx body", &error)),
        Err(_) => Ok((status, Value::Null)),
    }
}

/// `Retry-After` in whole seconds (the only form the analyzer sends).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds = headers
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

/// The wait after failed attempt `attempt` (1-based): doubling from `base_backoff`, capped,
/// plus up to 10% jitter.
fn backoff(policy: &RetryPolicy, attempt: u32) -> Duration {
    let doubling = 1_u32 << attempt.saturating_sub(1).min(16);
    let wait = policy
        .base_backoff
        .saturating_mul(doubling)
        .min(policy.max_backoff);
    let jitter = f64::from(uuid::Uuid::new_v4().as_bytes()[0]) / 255.0 / 10.0;
    wait + wait.mul_f64(jitter)
}

/// A body that does not match the contract: logged, reported as [`AnalyzerError::BadResponse`].
pub(super) fn bad_response(what: &str, error: &serde_json::Error) -> AnalyzerError {
    tracing::warn!(what, %error, "analyzer answer unreadable");
    AnalyzerError::BadResponse
}

fn log_retry(attempt: u32, attempts: u32, wait: Duration, cause: &str) {
    tracing::warn!(
        attempt,
        attempts,
        wait_ms = wait.as_millis(),
        cause,
        "analyzer call failed; retrying"
    );
}

#[cfg(test)]
mod tests;
