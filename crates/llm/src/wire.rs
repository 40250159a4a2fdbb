//! The chat-completions JSON as providers speak it: the body we send, the completion we read
//! back, and what a status other than success means.
//!
//! Anything read from a provider's body reaches an error or a log only as a short, escaped
//! excerpt or a bare identifier: a body may echo the prompt.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::{ChatMessage, ChatReply, ChatRequest, LlmError, Provider, Usage};

/// The most of a provider's answer the client reads (a completion's JSON, or all the events
/// of a streamed one): far above any answer a chat asks for, and a bound on what a provider
/// that does not stop talking can make the service hold.
pub(crate) const MAX_ANSWER_BYTES: usize = 1024 * 1024;

/// The most of a refusal's body read for its error code.
pub(crate) const MAX_ERROR_BYTES: usize = 64 * 1024;

/// How much of an unusable body an error quotes, in characters.
const EXCERPT_CHARS: usize = 60;

/// The request body of `POST /chat/completions`; unset limits are left out, so the provider
/// applies its own defaults.
#[derive(Serialize)]
pub(crate) struct CompletionRequest<'a> {
    model: &'a str,
    messages: &'a [ChatMessage],
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    stream: bool,
}

impl<'a> CompletionRequest<'a> {
    pub(crate) fn new(model: &'a str, request: &'a ChatRequest) -> Self {
        Self {
            model,
            messages: &request.messages,
            max_tokens: request.max_tokens,
            temperature: request.temperature,
            stream: false,
        }
    }

    /// The same request, asking for the answer as server-sent events.
    pub(crate) fn streamed(mut self) -> Self {
        self.stream = true;
        self
    }
}

#[derive(Deserialize)]
struct Completion {
    model: Option<String>,
    #[serde(default)]
    choices: Vec<Choice>,
    usage: Option<Usage>,
}

#[derive(Deserialize)]
struct Choice {
    message: Answer,
}

#[derive(Deserialize)]
struct Answer {
    content: Option<String>,
}

/// The reply in a success body; the provider's `model` when it names one, else ours.
pub(crate) fn parse_completion(body: &[u8], requested_model: &str) -> Result<ChatReply, LlmError> {
    let completion: Completion = serde_json::from_slice(body).map_err(|error| {
        LlmError::BadResponse(format!(
            "not a chat completion ({} at line {}, column {}); the body begins {}",
            error_kind(&error),
            error.line(),
            error.column(),
            excerpt(body)
        ))
    })?;
    let content = completion
        .choices
        .into_iter()
        .next()
        .and_then(|choice| choice.message.content)
        .ok_or_else(|| LlmError::BadResponse("no choice with text content".to_owned()))?;
    Ok(ChatReply {
        content,
        model: completion
            .model
            .unwrap_or_else(|| requested_model.to_owned()),
        provider: Provider::OpenAiCompatible,
        usage: completion.usage,
    })
}

/// One `data:` field of a streamed completion.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Chunk {
    /// A piece of the answer (empty for a chunk that only names the role or counts tokens).
    Text(String),
    /// `[DONE]`: the answer is complete.
    Done,
}

#[derive(Deserialize)]
struct StreamedCompletion {
    #[serde(default)]
    choices: Vec<StreamedChoice>,
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct StreamedChoice {
    #[serde(default)]
    delta: Delta,
}

#[derive(Deserialize, Default)]
struct Delta {
    content: Option<String>,
}

/// Reads one event's data: the first choice's delta text, `[DONE]`, or why it is unusable. An
/// `error` object sent mid-stream is the provider failing, not us.
pub(crate) fn parse_chunk(data: &str) -> Result<Chunk, LlmError> {
    if data.trim() == "[DONE]" {
        return Ok(Chunk::Done);
    }
    let chunk: StreamedCompletion = serde_json::from_str(data).map_err(|error| {
        LlmError::BadResponse(format!(
            "not a completion chunk ({}); the data begins {}",
            error_kind(&error),
            excerpt(data.as_bytes())
        ))
    })?;
    if chunk.error.is_some() {
        return Err(LlmError::Unavailable { status: None });
    }
    let text = chunk
        .choices
        .into_iter()
        .next()
        .and_then(|choice| choice.delta.content)
        .unwrap_or_default();
    Ok(Chunk::Text(text))
}

/// What a status other than success means; `retry_after` is the raw `Retry-After` header.
pub(crate) fn refusal(status: u16, retry_after: Option<&str>) -> LlmError {
    match status {
        429 => LlmError::RateLimited {
            retry_after: retry_after.and_then(retry_after_secs),
        },
        500..=599 => LlmError::Unavailable {
            status: Some(status),
        },
        _ => LlmError::Rejected { status },
    }
}

/// `Retry-After` in whole seconds; the HTTP-date form is not used by these APIs and reads
/// as absent.
fn retry_after_secs(header: &str) -> Option<Duration> {
    header.trim().parse().ok().map(Duration::from_secs)
}

/// The provider's machine-readable error code (`error.code`, else `error.type`) when it is a
/// short identifier: worth logging, unlike the free-text message, which may quote the prompt.
pub(crate) fn error_code(body: &[u8]) -> Option<String> {
    let body: serde_json::Value = serde_json::from_slice(body).ok()?;
    let error = body.get("error")?;
    ["code", "type"]
        .iter()
        .filter_map(|field| error.get(field)?.as_str())
        .find(|code| {
            (1..=64).contains(&code.len())
                && code
                    .bytes()
                    .all(|byte| byte.is_ascii_alphanumeric() || b"_-.".contains(&byte))
        })
        .map(str::to_owned)
}

fn error_kind(error: &serde_json::Error) -> &'static str {
    match error.classify() {
        serde_json::error::Category::Io => "read error",
        serde_json::error::Category::Syntax => "invalid JSON",
        serde_json::error::Category::Data => "unexpected shape",
        serde_json::error::Category::Eof => "truncated JSON",
    }
}

/// The first characters of `body`, escaped, with `…` when there is more.
fn excerpt(body: &[u8]) -> String {
    // A character takes at most four bytes: this slice holds all the excerpt can show.
    let head = &body[..body.len().min(EXCERPT_CHARS * 4)];
    let shown: String = String::from_utf8_lossy(head)
        .chars()
        .take(EXCERPT_CHARS)
        .collect();
    let more = if shown.len() < body.len() { "…" } else { "" };
    format!("{shown:?}{more}")
}

#[cfg(test)]
mod tests;
