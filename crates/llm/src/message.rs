//! What a caller sends to a language model and what it gets back, whichever provider answers.
//!
//! Messages use the chat-completions roles and serialise as the API spells them; a
//! [`ChatReply`] serialises in the estate's camelCase JSON so a service can return it as is.

use serde::{Deserialize, Serialize};

/// Who wrote a message.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the conversation.
    System,
    /// The end user.
    User,
    /// The model, in earlier turns.
    Assistant,
}

/// One turn of a conversation.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ChatMessage {
    /// Who wrote it.
    pub role: Role,
    /// What was written.
    pub content: String,
}

impl ChatMessage {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::new(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }

    /// An assistant message (an earlier answer, replayed as context).
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }

    fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }
}

/// A chat-completions request: the conversation and optional sampling limits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatRequest {
    /// The conversation so far, oldest first.
    pub messages: Vec<ChatMessage>,
    /// Upper bound on the answer's length, in tokens; the provider's default when `None`.
    pub max_tokens: Option<u32>,
    /// Sampling temperature; the provider's default when `None`.
    pub temperature: Option<f32>,
}

impl ChatRequest {
    /// A request for `messages` with the provider's default limits.
    pub fn new(messages: Vec<ChatMessage>) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }
}

/// Which kind of provider answered.
#[derive(Serialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    /// The deterministic local provider: no language model is configured.
    Local,
    /// An OpenAI-compatible chat-completions API.
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
}

/// A model's answer.
#[derive(Serialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ChatReply {
    /// The text of the first choice.
    pub content: String,
    /// The model that answered, as the provider names it.
    pub model: String,
    /// Which kind of provider answered.
    pub provider: Provider,
    /// Token counts, when the provider reports them.
    pub usage: Option<Usage>,
}

/// Token counts as the provider reports them (read from its snake_case fields, written in
/// the estate's camelCase).
/// A count the provider leaves out reads as 0.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(
    default,
    rename_all(serialize = "camelCase", deserialize = "snake_case")
)]
pub struct Usage {
    /// Tokens in the request.
    pub prompt_tokens: u64,
    /// Tokens in the answer.
    pub completion_tokens: u64,
    /// Both together.
    pub total_tokens: u64,
}
