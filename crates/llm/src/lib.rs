//! The estate's client for chat-completions language models: one [`LlmClient`] that talks to
//! any OpenAI-compatible API, or, when none is configured, answers from a deterministic local
//! provider that needs no network and says so.
//!
//! Calls to a paid API are paced by the outbound [`limiter::Pacer`] (they *wait* for their
//! slot), bounded by one whole-call timeout, and retried only where a retry can help:
//! connection errors and 5xx twice with a short backoff, a 429 once when its `Retry-After`
//! is short, a 4xx never. [`LlmClient::chat_stream`] asks for the answer as server-sent events
//! and hands it over piece by piece, each piece awaited within the same timeout.
//!
//! ```no_run
//! # async fn explain() -> Result<(), Box<dyn std::error::Error>> {
//! use llm::{ChatMessage, ChatRequest, LlmClient, LlmConfig};
//!
//! let config = LlmConfig::from_env(&platform_core::ProcessEnv)?;
//! let client = LlmClient::new(config, limiter::system_clock())?;
//! let request = ChatRequest::new(vec![ChatMessage::user("Why did the build fail?")]);
//! let reply = client.chat(&request).await?;
//! println!("{} (from {:?})", reply.content, reply.provider);
//! # Ok(())
//! # }
//! ```
//!
//! # Layout
//! - [`config`]: the `LLM_*` variables and [`LlmConfig`].
//! - [`message`]: what a caller sends and gets back ([`ChatRequest`], [`ChatReply`]).
//! - [`error`]: [`LlmError`], the one error type, safe to log.
//! - [`client`]: [`LlmClient`], which picks the provider.
//! - [`stream`]: [`ChatStream`], an answer read piece by piece (server-sent events).
//! - `openai`: the OpenAI-compatible provider (HTTP, pacing, timeout); `wire`: its JSON
//!   shapes; `retry`: which failures get another try.
//! - `local`: the deterministic local provider.

pub mod client;
pub mod config;
pub mod error;
mod local;
pub mod message;
mod openai;
mod retry;
pub mod stream;
mod wire;

pub use client::LlmClient;
pub use config::{
    ENV_LLM_API_KEY, ENV_LLM_BASE_URL, ENV_LLM_MODEL, ENV_LLM_RATE, ENV_LLM_TIMEOUT_MS, LlmConfig,
};
pub use error::LlmError;
pub use message::{ChatMessage, ChatReply, ChatRequest, Provider, Role, Usage};
pub use stream::ChatStream;
