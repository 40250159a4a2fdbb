//! The backend's client for the analyzer (`services/analyzer`, docs/DESIGN.md, "The analyzer"): every call sends
//! `X-Analyzer-Token` and goes through one retry loop ([`retry`]).
//!
//! What is retried and what is not is the point of this module (a retry of a request
//! that can never succeed is load, not resilience):
//! connection errors, timeouts and 5xx are retried with exponential backoff; a 429 is retried
//! after its `Retry-After` when that wait is short enough; **no other 4xx is ever retried** — a
//! client's own bad body cannot succeed twice.
//!
//! Every call is bounded: an answer is read up to [`MAX_ANALYSIS_ANSWER_BYTES`] and a larger
//! one is refused as unreadable without being buffered; one logical call, every attempt and
//! wait included, ends at [`RetryPolicy::deadline`].

mod error;
mod retry;

pub use analysis::MAX_ANALYSIS_ANSWER_BYTES;
use analysis::{AnalyzeAnswer, AnalyzeRequest};
pub use error::AnalyzerError;
use reqwest::{Method, StatusCode};
use serde_json::Value;
use std::time::Duration;

/// The header the analyzer reads its caller's token from.
const TOKEN_HEADER: &str = "x-analyzer-token";

/// How hard the client tries before it gives up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (at least 1 is always made).
    pub max_attempts: u32,
    /// The wait before the second attempt; each later wait doubles it.
    pub base_backoff: Duration,
    /// No backoff wait is longer than this.
    pub max_backoff: Duration,
    /// A 429 whose `Retry-After` is longer than this is not waited for.
    pub max_retry_after: Duration,
    /// One attempt (connect, send, read the whole answer) is abandoned after this.
    pub attempt_timeout: Duration,
    /// The whole call, every attempt and wait included, is abandoned after this.
    pub deadline: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 4,
            base_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
            max_retry_after: Duration::from_secs(10),
            attempt_timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(30),
        }
    }
}

/// The analyzer client: cheap to clone (clones share one connection pool).
#[derive(Clone)]
pub struct AnalyzerClient {
    http: reqwest::Client,
    base_url: String,
    token: String,
    policy: RetryPolicy,
}

/// Names the analyzer's address, never the token.
impl std::fmt::Debug for AnalyzerClient {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AnalyzerClient")
            .field("base_url", &self.base_url)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl AnalyzerClient {
    /// A client for the analyzer at `base_url` (e.g. `http://analyzer:9001`).
    pub fn new(base_url: impl Into<String>, token: impl Into<String>, policy: RetryPolicy) -> Self {
        // Redirects are not followed: the token header would go wherever a 3xx points.
        // `build` fails only when a TLS backend cannot start, and this build has none.
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        Self {
            http,
            base_url: base_url.into().trim_end_matches('/').to_owned(),
            token: token.into(),
            policy,
        }
    }

    /// `POST /analyze`: the findings for one batch of files.
    pub async fn analyze(&self, batch: &AnalyzeRequest) -> Result<AnalyzeAnswer, AnalyzerError> {
        let (status, reply) = self.call(Method::POST, "/analyze", Some(batch)).await?;
        require_success(status, &reply)?;
        serde_json::from_value(reply).map_err(|error| retry::bad_response("analyze", &error))
    }

    /// `GET /analysis-types`, passed through as the analyzer wrote it.
    pub async fn analysis_types(&self) -> Result<Value, AnalyzerError> {
        let (status, reply) = self
            .call(Method::GET, "/analysis-types", None::<&Value>)
            .await?;
        require_success(status, &reply)?;
        Ok(reply)
    }

    /// `POST /rules/validate`, passed through: a verdict on the rule is the analyzer's status
    /// and body, a 400 included (`{"error":"rule.ruleId is mandatory"}` is an answer, not a
    /// failure). Any other refusal (401, 403, 413, …) is the backend's problem, not the
    /// rule's, and comes back as [`AnalyzerError::Rejected`].
    pub async fn validate_rule(&self, rule: &Value) -> Result<(u16, Value), AnalyzerError> {
        let (status, reply) = self
            .call(Method::POST, "/rules/validate", Some(rule))
            .await?;
        if status != StatusCode::BAD_REQUEST {
            require_success(status, &reply)?;
        }
        Ok((status.as_u16(), reply))
    }

    /// One logical call: the retry loop around single attempts.
    async fn call<B: serde::Serialize + ?Sized>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
    ) -> Result<(StatusCode, Value), AnalyzerError> {
        let url = format!("{}{path}", self.base_url);
        let attempts = retry::run(&self.policy, || {
            let mut request = self
                .http
                .request(method.clone(), &url)
                .header(TOKEN_HEADER, &self.token)
                .timeout(self.policy.attempt_timeout);
            if let Some(body) = body {
                request = request.json(body);
            }
            request
        });
        tokio::time::timeout(self.policy.deadline, attempts)
            .await
            .unwrap_or(Err(AnalyzerError::TimedOut {
                after: self.policy.deadline,
            }))
    }
}

/// A 2xx passes; anything else the retry loop handed back is a refusal to report.
fn require_success(status: StatusCode, reply: &Value) -> Result<(), AnalyzerError> {
    if status.is_success() {
        return Ok(());
    }
    Err(AnalyzerError::rejected(status.as_u16(), reply))
}
