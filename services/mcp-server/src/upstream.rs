//! The two services the tools call: the analyzer (with this server's `X-Analyzer-Token`) and
//! the backend (with the caller's own bearer, never a token of this server's).
//!
//! A reply is handed back as status and JSON whatever the status, so each tool decides what a
//! refusal means for its caller; only "no answer at all" is an error here. Nothing is retried:
//! the agent on the other end sees the failure in the tool result and decides for itself.
//!
//! An answer is read up to [`MAX_ANALYSIS_ANSWER_BYTES`]; a longer one is not read further and
//! counts as no answer ([`BodyError::TooLarge`]).

pub use analysis::MAX_ANALYSIS_ANSWER_BYTES;
use platform::bounds::{BodyError, read_body};
use reqwest::header::RETRY_AFTER;
use serde_json::Value;
use std::time::Duration;

/// The header the analyzer reads its caller's token from.
const ANALYZER_TOKEN_HEADER: &str = "x-analyzer-token";
/// One upstream call (connect, send, read the answer) is abandoned after this.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(15);

/// An upstream answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The HTTP status.
    pub status: u16,
    /// The body, parsed (`null` when it was not JSON).
    pub body: Value,
    /// `Retry-After` in seconds, when the answer carried one.
    pub retry_after: Option<u64>,
}

impl Reply {
    /// The message a refusal carries: the envelope's `message`, else its `error`.
    pub fn message(&self) -> String {
        ["message", "error"]
            .iter()
            .find_map(|key| self.body.get(key).and_then(Value::as_str))
            .map_or_else(|| format!("HTTP {}", self.status), str::to_owned)
    }
}

/// The upstream gave no readable answer (refused connection, timeout, broken body, or a body
/// past the read bound).
#[derive(Debug, thiserror::Error)]
#[error("{service} did not answer")]
pub struct Unreachable {
    /// `analyzer` or `backend`.
    pub service: &'static str,
    /// What went wrong: the transport error is for the log only.
    #[source]
    pub cause: BodyError,
}

/// The clients of the analyzer and the backend: cheap to clone (one connection pool).
#[derive(Clone, Debug)]
pub struct Upstream {
    http: reqwest::Client,
    analyzer_url: String,
    analyzer_token: String,
    backend_url: String,
}

impl Upstream {
    /// Clients of the services at these base URLs.
    pub fn new(
        analyzer_url: &str,
        analyzer_token: &str,
        backend_url: &str,
    ) -> Result<Self, reqwest::Error> {
        Ok(Self {
            http: reqwest::Client::builder().timeout(CALL_TIMEOUT).build()?,
            analyzer_url: analyzer_url.to_owned(),
            analyzer_token: analyzer_token.to_owned(),
            backend_url: backend_url.to_owned(),
        })
    }

    /// `GET` an analyzer path.
    pub async fn analyzer_get(&self, path: &str) -> Result<Reply, Unreachable> {
        let request = self.http.get(format!("{}{path}", self.analyzer_url));
        self.send_to_analyzer(request).await
    }

    /// `POST` JSON to an analyzer path.
    pub async fn analyzer_post(&self, path: &str, body: &Value) -> Result<Reply, Unreachable> {
        let request = self
            .http
            .post(format!("{}{path}", self.analyzer_url))
            .json(body);
        self.send_to_analyzer(request).await
    }

    /// `GET` a backend path as the caller whose verified bearer this is.
    pub async fn backend_get(&self, path: &str, bearer: &str) -> Result<Reply, Unreachable> {
        let request = self
            .http
            .get(format!("{}{path}", self.backend_url))
            .bearer_auth(bearer);
        send(request, "backend").await
    }

    async fn send_to_analyzer(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<Reply, Unreachable> {
        send(
            request.header(ANALYZER_TOKEN_HEADER, &self.analyzer_token),
            "analyzer",
        )
        .await
    }
}

async fn send(
    request: reqwest::RequestBuilder,
    service: &'static str,
) -> Result<Reply, Unreachable> {
    let unreachable = |cause| Unreachable { service, cause };
    let response = request
        .send()
        .await
        .map_err(|error| unreachable(BodyError::Transport(error)))?;
    let status = response.status().as_u16();
    let retry_after = response
        .headers()
        .get(RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse().ok());
    let bytes = read_body(response, MAX_ANALYSIS_ANSWER_BYTES)
        .await
        .map_err(unreachable)?;
    Ok(Reply {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        retry_after,
    })
}
