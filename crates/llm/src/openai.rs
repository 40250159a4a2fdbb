//! The OpenAI-compatible provider: `POST {base_url}/chat/completions`, paced by the outbound
//! pacer, bounded by one whole-call timeout, retried where [`crate::retry`] allows.
//!
//! Streamed calls (`stream: true`) share the pacing, the timeout and the retries of the start;
//! [`crate::stream`] reads the events.
//!
//! Only the first attempt of a call waits for a pacer slot: a retry answers a failure the
//! provider does not bill (a 5xx, a refused connection) or a wait the provider itself asked
//! for (a short `Retry-After`), and there are at most three of them per call.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use limiter::{Pacer, SharedClock};
use platform_core::bounds::read_body;
use reqwest::header::{AUTHORIZATION, HeaderValue, RETRY_AFTER};

use crate::config::{ENV_LLM_API_KEY, ENV_LLM_BASE_URL, LlmConfig, parse_base_url};
use crate::error::{body_failure, transport_failure};
use crate::retry::Retries;
use crate::stream::ChatStream;
use crate::wire::{
    CompletionRequest, MAX_ANSWER_BYTES, MAX_ERROR_BYTES, error_code, parse_completion, refusal,
};
use crate::{ChatReply, ChatRequest, LlmError};

/// A configured chat-completions endpoint and how to call it.
pub(crate) struct OpenAiCompatible {
    http: reqwest::Client,
    endpoint: String,
    /// `Bearer <key>`, marked sensitive so no `Debug` of a request shows it.
    authorization: Option<HeaderValue>,
    model: String,
    pacer: Pacer,
    timeout: Duration,
}

impl OpenAiCompatible {
    /// A provider at `base_url`; `config` gives the key, model, pace and timeout.
    pub(crate) fn new(
        base_url: &str,
        config: LlmConfig,
        clock: SharedClock,
    ) -> Result<Self, LlmError> {
        let base_url = parse_base_url(base_url)
            .ok_or_else(|| LlmError::Setup(format!("{ENV_LLM_BASE_URL} is not an http(s) URL")))?;
        let authorization = config.api_key.as_deref().map(bearer).transpose()?;
        // A redirected POST would silently turn into a GET: a redirect is a wrong base URL.
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| LlmError::Setup(error.without_url().to_string()))?;
        Ok(Self {
            http,
            endpoint: format!("{base_url}/chat/completions"),
            authorization,
            model: config.model,
            pacer: Pacer::new(config.pace, clock),
            timeout: config.timeout,
        })
    }

    /// One chat call: a pacer slot, then attempts until one succeeds or retries run out.
    pub(crate) async fn chat(&self, request: &ChatRequest) -> Result<ChatReply, LlmError> {
        let body = &CompletionRequest::new(&self.model, request);
        self.within_timeout(async {
            self.paced().await?;
            self.with_retries(|| async move {
                let response = self.send(body).await?;
                let bytes = read_body(response, MAX_ANSWER_BYTES)
                    .await
                    .map_err(body_failure)?;
                parse_completion(&bytes, &self.model)
            })
            .await
        })
        .await
    }

    /// One streamed call: a pacer slot and attempts until the provider starts answering, all
    /// within the timeout; then the answer as it arrives, each piece within the timeout of the
    /// one before. Only the start is retried: a stream cut halfway is the caller's to handle.
    pub(crate) async fn chat_stream(&self, request: &ChatRequest) -> Result<ChatStream, LlmError> {
        let body = CompletionRequest::new(&self.model, request).streamed();
        let response = self
            .within_timeout(async {
                self.paced().await?;
                self.with_retries(|| self.send(&body)).await
            })
            .await?;
        Ok(ChatStream::from_response(
            response,
            self.model.clone(),
            self.timeout,
        ))
    }

    async fn within_timeout<T>(
        &self,
        call: impl Future<Output = Result<T, LlmError>>,
    ) -> Result<T, LlmError> {
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_elapsed| {
                tracing::warn!(timeout = ?self.timeout, "language model call timed out");
                Err(LlmError::Timeout)
            })
    }

    /// Waits for the next pacer slot; a slot past the deadline is refused at once rather than
    /// booked and abandoned.
    async fn paced(&self) -> Result<(), LlmError> {
        self.pacer
            .wait_within(self.timeout)
            .await
            .map_err(|wait| LlmError::RateLimited {
                retry_after: Some(wait),
            })
    }

    async fn with_retries<T, F, Fut>(&self, attempt: F) -> Result<T, LlmError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, LlmError>>,
    {
        let mut retries = Retries::default();
        let mut attempt_number = 1_u32;
        loop {
            let error = match attempt().await {
                Ok(answer) => return Ok(answer),
                Err(error) => error,
            };
            let wait = retries.next_wait(&error);
            log_failed_attempt(attempt_number, &error, wait);
            match wait {
                Some(wait) => tokio::time::sleep(wait).await,
                None => return Err(error),
            }
            attempt_number += 1;
        }
    }

    /// One request; a success status hands back the response unread, anything else the
    /// error its status means.
    async fn send(&self, body: &CompletionRequest<'_>) -> Result<reqwest::Response, LlmError> {
        let mut request = self.http.post(&self.endpoint).json(body);
        if let Some(authorization) = &self.authorization {
            request = request.header(AUTHORIZATION, authorization.clone());
        }
        let response = request.send().await.map_err(transport_failure)?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        // Only the error's code is read from a refusal; a longer body is not worth reading.
        let body = read_body(response, MAX_ERROR_BYTES).await.ok();
        if status.is_client_error() {
            tracing::warn!(
                status = status.as_u16(),
                code = body.as_deref().and_then(error_code),
                "language model provider refused our request"
            );
        }
        Err(refusal(status.as_u16(), retry_after.as_deref()))
    }
}

fn log_failed_attempt(attempt: u32, error: &LlmError, retry_in: Option<Duration>) {
    tracing::warn!(
        attempt,
        status = error.status(),
        retry_in = ?retry_in,
        %error,
        "language model call failed"
    );
}

impl fmt::Debug for OpenAiCompatible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiCompatible")
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

fn bearer(key: &str) -> Result<HeaderValue, LlmError> {
    let mut value = HeaderValue::from_str(&format!("Bearer {key}"))
        .map_err(|_| LlmError::Setup(format!("{ENV_LLM_API_KEY} cannot be sent as a header")))?;
    value.set_sensitive(true);
    Ok(value)
}
