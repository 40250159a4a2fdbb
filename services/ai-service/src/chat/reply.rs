//! The answer to one turn: the provider's, or the local one assembled from the analysis when
//! no provider is configured or it did not answer (counted and logged as a dependency failure).

use super::analysis::Analysis;
use super::prompt;
use crate::metrics::Dependency;
use crate::state::AppState;
use llm::{ChatMessage, ChatReply, ChatRequest, LlmError, Provider};

/// Why a local answer is given when a provider is configured but did not answer.
pub const LLM_DOWN_OPENING: &str =
    "The language model did not answer; this answer was assembled from the analysis alone.";

/// `["backend"]` when the analysis should have run and did not.
pub(super) fn first_unavailable(analysis: &Analysis) -> Vec<&'static str> {
    if analysis.backend_unavailable() {
        vec![Dependency::Backend.name()]
    } else {
        Vec::new()
    }
}

/// The whole answer: the provider's, or the local one (adding `llm` to `unavailable` when a
/// configured provider failed).
pub(super) async fn answer(
    state: &AppState,
    message: &str,
    analysis: &Analysis,
    conversation: &ChatRequest,
    unavailable: &mut Vec<&'static str>,
) -> ChatReply {
    if state.llm.provider() == Provider::Local {
        return local_reply(state, message, analysis).await;
    }
    match state.llm.chat(conversation).await {
        Ok(reply) => reply,
        Err(error) => {
            llm_failed(state, &error);
            unavailable.push(Dependency::Llm.name());
            fallback_reply(LLM_DOWN_OPENING, analysis)
        }
    }
}

/// The local provider's answer: its own opening (it says no language model is configured and
/// digests the message), then what became of the code.
async fn local_reply(state: &AppState, message: &str, analysis: &Analysis) -> ChatReply {
    let digest = ChatRequest::new(vec![ChatMessage::user(message)]);
    match state.llm.chat(&digest).await {
        Ok(reply) => ChatReply {
            content: prompt::local_answer(&reply.content, analysis),
            ..reply
        },
        Err(_) => fallback_reply(LLM_DOWN_OPENING, analysis),
    }
}

/// A local reply with `opening`.
pub(super) fn fallback_reply(opening: &str, analysis: &Analysis) -> ChatReply {
    ChatReply {
        content: prompt::local_answer(opening, analysis),
        model: "local".to_owned(),
        provider: Provider::Local,
        usage: None,
    }
}

/// Counts and logs a provider that did not answer.
pub(super) fn llm_failed(state: &AppState, error: &LlmError) {
    let reason = match error {
        LlmError::Timeout => "timeout",
        LlmError::RateLimited { .. } => "rate_limited",
        LlmError::Rejected { .. } => "rejected",
        LlmError::BadResponse(_) => "bad_response",
        LlmError::Unavailable { .. } | LlmError::Setup(_) => "unavailable",
    };
    state.metrics.dependency_failure(Dependency::Llm, reason);
    tracing::warn!(
        dependency = "llm",
        reason,
        %error,
        "language model call failed; answering locally"
    );
}
