//! The chat request body, its limits, and what is sent to the language model: the user's
//! turn with the analyzer's findings beside it.

use crate::chat::analysis::{Analysis, describe, found_words};
use crate::errors::ApiError;
use llm::{ChatMessage, ChatRequest};
use serde::Deserialize;

/// The longest message or history entry, in characters.
pub const MAX_MESSAGE_CHARS: usize = 32_000;
/// The most earlier turns a request may replay.
pub const MAX_HISTORY: usize = 20;
/// The answer's length bound sent to the provider, in tokens.
const MAX_ANSWER_TOKENS: u32 = 800;

const SYSTEM_PROMPT: &str = "You are the assistant of a platform that checks logging code. \
Answer the user's question about their code and logs. When analyzer findings are given, base \
the answer on them: name each finding's rule, line and fix. Be concise.";

/// Who wrote an earlier turn.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    /// The user.
    User,
    /// The assistant.
    Assistant,
}

/// An earlier turn, replayed as context.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Turn {
    role: Speaker,
    content: String,
}

/// `POST /api/chat`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatBody {
    /// The user's message; fenced code blocks in it are analyzed.
    pub message: String,
    /// Earlier turns, oldest first.
    #[serde(default)]
    pub history: Vec<Turn>,
    /// Ask for server-sent events (as does `Accept: text/event-stream`).
    #[serde(default)]
    pub stream: bool,
}

impl ChatBody {
    /// The body's own limits, each a 400 naming the field.
    pub fn validate(&self) -> Result<(), ApiError> {
        if self.message.trim().is_empty() {
            return Err(invalid("message must not be blank".to_owned()));
        }
        if self.message.chars().count() > MAX_MESSAGE_CHARS {
            return Err(invalid(format!(
                "message must be at most {MAX_MESSAGE_CHARS} characters"
            )));
        }
        if self.history.len() > MAX_HISTORY {
            return Err(invalid(format!(
                "history must hold at most {MAX_HISTORY} turns"
            )));
        }
        let long = self
            .history
            .iter()
            .position(|turn| turn.content.chars().count() > MAX_MESSAGE_CHARS);
        match long {
            Some(index) => Err(invalid(format!(
                "history[{index}].content must be at most {MAX_MESSAGE_CHARS} characters"
            ))),
            None => Ok(()),
        }
    }
}

fn invalid(message: String) -> ApiError {
    ApiError::Invalid {
        code: "invalid_request",
        message,
    }
}

/// The conversation sent to the provider: instructions, earlier turns, what the analyzer
/// said about this turn's code, then the user's message.
pub fn build(body: &ChatBody, analysis: &Analysis) -> ChatRequest {
    let mut messages = vec![ChatMessage::system(SYSTEM_PROMPT)];
    messages.extend(body.history.iter().map(|turn| match turn.role {
        Speaker::User => ChatMessage::user(turn.content.clone()),
        Speaker::Assistant => ChatMessage::assistant(turn.content.clone()),
    }));
    if let Some(context) = context(analysis) {
        messages.push(ChatMessage::system(context));
    }
    messages.push(ChatMessage::user(body.message.clone()));
    ChatRequest {
        messages,
        max_tokens: Some(MAX_ANSWER_TOKENS),
        temperature: Some(0.2),
    }
}

fn context(analysis: &Analysis) -> Option<String> {
    match analysis {
        Analysis::NoCode => None,
        Analysis::Done { findings, .. } if findings.is_empty() => Some(
            "The analyzer found no problems in the code blocks of the user's next message."
                .to_owned(),
        ),
        Analysis::Done {
            findings,
            truncation,
            ..
        } => {
            let lines: Vec<String> = findings.iter().map(describe).collect();
            let cut = truncation.map_or_else(String::new, |cut| {
                format!(
                    "\nThe analyzer found {} in all; only these {} are listed.",
                    found_words(cut),
                    findings.len()
                )
            });
            Some(format!(
                "Analyzer findings for the code blocks of the user's next message (block-N is \
                 the N-th analyzed block; path:line:column severity rule: message):\n{}{cut}",
                lines.join("\n")
            ))
        }
        other => Some(format!(
            "The code in the user's next message was not analyzed: {} Say so, and answer \
             from the code itself.",
            other.sentence()
        )),
    }
}

/// The deterministic answer given when no language model answers: `opening` (why), then
/// what became of the code.
pub fn local_answer(opening: &str, analysis: &Analysis) -> String {
    format!("{opening}\n\n{}", analysis.sentence())
}
