//! The backend's EXPENSIVE analysis endpoint, called with the END USER'S OWN bearer: the
//! backend meters EXPENSIVE per bearer, so each user spends their own budget and one user's
//! retry loop cannot starve the others (which an ai-service token or an IP key would do).
//!
//! One call per turn carries every analyzable block (`POST /api/v1/analyzer`), bounded by
//! `BACKEND_TIMEOUT_MS`. Whatever goes wrong becomes an [`Analysis`] the answer explains,
//! a log line and a metric: never an error for the chat caller.
//!
//! The answer is read up to 4 MiB (a longer one is a failure, not a buffer), and a turn shows
//! at most [`MAX_FINDINGS_SHOWN`] findings in [`MAX_FINDINGS_SHOWN_BYTES`]: they go into the
//! answer, its text and the language model's prompt. The backend's `truncated` marker is kept,
//! or set here when this bound cut first.

use crate::chat::analysis::Analysis;
use crate::chat::blocks::{CodeBlock, MAX_ANALYZED_BLOCKS, extension};
use crate::metrics::{Dependency, ServiceMetrics};
use ::analysis::{AnalyzeAnswer, MAX_ANALYSIS_ANSWER_BYTES, keep_within};
use platform::bounds::{BodyError, read_body};
use reqwest::StatusCode;
use reqwest::header::RETRY_AFTER;
use serde::Deserialize;
use serde_json::json;
use std::time::Duration;

/// The EXPENSIVE endpoint a turn calls.
pub const ANALYZER_PATH: &str = "/api/v1/analyzer";
/// The wait assumed when a 429 names none (the backend always does).
const DEFAULT_RETRY_AFTER_SECS: u64 = 60;
/// The most findings one turn shows.
pub const MAX_FINDINGS_SHOWN: usize = 50;
/// The most bytes those findings take.
pub const MAX_FINDINGS_SHOWN_BYTES: usize = 64 * 1024;

/// A client of the backend's analysis endpoint.
#[derive(Clone, Debug)]
pub struct BackendClient {
    http: reqwest::Client,
    endpoint: String,
    timeout: Duration,
}

#[derive(Deserialize)]
struct Refusal {
    message: Option<String>,
}

/// What went wrong, for the log and the metric.
type Failure = (&'static str, String);

impl BackendClient {
    /// A client of the backend at `base_url` (no trailing slash).
    pub fn new(base_url: &str, timeout: Duration) -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(Self {
            http,
            endpoint: format!("{base_url}{ANALYZER_PATH}"),
            timeout,
        })
    }

    /// Analyzes the turn's blocks as `bearer`'s own call.
    pub async fn analyze(
        &self,
        bearer: &str,
        blocks: &[CodeBlock],
        metrics: &ServiceMetrics,
    ) -> Analysis {
        if blocks.is_empty() {
            return Analysis::NoCode;
        }
        let files: Vec<_> = blocks
            .iter()
            .filter_map(|block| Some((block.language?, &block.code)))
            .take(MAX_ANALYZED_BLOCKS)
            .enumerate()
            .map(|(index, (language, code))| {
                json!({
                    "path": format!("block-{}.{}", index + 1, extension(language)),
                    "content": code,
                    "language": language.name(),
                })
            })
            .collect();
        if files.is_empty() {
            return Analysis::NotAnalyzable {
                blocks: blocks.len(),
            };
        }
        let analyzed = files.len();
        let call = self.call(bearer, json!({ "files": files }));
        let outcome = tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_elapsed| Err(("timeout", "no answer in time".to_owned())));
        match outcome {
            Ok(Ok(AnalyzeAnswer {
                mut findings,
                mut summary,
            })) => {
                let shown = (MAX_FINDINGS_SHOWN, MAX_FINDINGS_SHOWN_BYTES);
                keep_within(&mut findings, &mut summary, shown.0, shown.1);
                Analysis::Done {
                    blocks: blocks.len(),
                    analyzed,
                    findings,
                    truncation: summary.truncation,
                }
            }
            Ok(Err(analysis)) => analysis,
            Err((reason, detail)) => {
                log_failure(reason, &detail);
                metrics.dependency_failure(Dependency::Backend, reason);
                match reason {
                    "rate_limited" => analysis_of_refusal(&detail),
                    _ => Analysis::Unavailable,
                }
            }
        }
    }

    /// `Ok(Ok(findings))`, `Ok(Err(analysis))` for an answer that is the user's own limit
    /// (a 400), or `Err` for a failure to log and count.
    async fn call(
        &self,
        bearer: &str,
        body: serde_json::Value,
    ) -> Result<Result<AnalyzeAnswer, Analysis>, Failure> {
        let response = self
            .http
            .post(&self.endpoint)
            .bearer_auth(bearer)
            .json(&body)
            .send()
            .await
            .map_err(|error| transport(&error))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok());
        let bytes = match read_body(response, MAX_ANALYSIS_ANSWER_BYTES).await {
            Ok(bytes) => bytes,
            Err(BodyError::Transport(error)) => return Err(transport(&error)),
            Err(too_large) => return Err(("bad_response", too_large.to_string())),
        };
        match status {
            StatusCode::OK => serde_json::from_slice::<AnalyzeAnswer>(&bytes)
                .map(Ok)
                .map_err(|error| ("bad_response", error.to_string())),
            StatusCode::TOO_MANY_REQUESTS => Err((
                "rate_limited",
                retry_after.unwrap_or(DEFAULT_RETRY_AFTER_SECS).to_string(),
            )),
            StatusCode::BAD_REQUEST | StatusCode::PAYLOAD_TOO_LARGE => {
                let message = serde_json::from_slice::<Refusal>(&bytes)
                    .ok()
                    .and_then(|refusal| refusal.message)
                    .unwrap_or_else(|| "the code could not be read".to_owned());
                Ok(Err(Analysis::Rejected { message }))
            }
            other if other.is_client_error() => Err(("rejected", other.to_string())),
            other => Err(("unavailable", other.to_string())),
        }
    }
}

/// A 429 from the backend: the detail is the wait in whole seconds.
fn analysis_of_refusal(detail: &str) -> Analysis {
    Analysis::RateLimited {
        retry_after_secs: detail.parse().unwrap_or(DEFAULT_RETRY_AFTER_SECS).max(1),
    }
}

fn transport(error: &reqwest::Error) -> Failure {
    let reason = if error.is_timeout() {
        "timeout"
    } else {
        "unavailable"
    };
    (reason, error.to_string())
}

fn log_failure(reason: &str, detail: &str) {
    tracing::warn!(
        dependency = "backend",
        reason,
        detail,
        "analysis call failed; the answer goes on without it"
    );
}
