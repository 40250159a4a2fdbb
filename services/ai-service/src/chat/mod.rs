//! `POST /api/chat`: one turn of a conversation about the user's own code.
//!
//! The turn does real work: fenced code blocks ([`blocks`]) go to the backend's EXPENSIVE
//! analysis endpoint with the user's own bearer ([`backend`]), and the language model answers
//! with the findings beside the question ([`prompt`]). With no language model configured, or
//! when it does not answer, a deterministic local answer is assembled from the findings and
//! `provider` says `local`. Whatever did not answer is named in `unavailable` and in the
//! answer: a chat turn degrades, it never fails because a dependency did. `"stream": true` or
//! `Accept: text/event-stream` asks for the answer as server-sent events ([`sse`]).
//!
//! The caller's token and window were checked by [`gate`] before the body was read.

pub mod analysis;
pub mod backend;
pub mod blocks;
pub mod gate;
pub mod prompt;
mod sse;

use crate::errors::ApiError;
use crate::metrics::{Dependency, provider_name};
use crate::state::AppState;
use actix_web::http::header::ACCEPT;
use actix_web::{HttpRequest, HttpResponse, web};
use analysis::Analysis;
use gate::Caller;
use llm::{ChatMessage, ChatReply, ChatRequest, LlmError, Provider};
use prompt::ChatBody;
use serde_json::json;

/// Why a local answer is given when a provider is configured but did not answer.
pub const LLM_DOWN_OPENING: &str =
    "The language model did not answer; this answer was assembled from the analysis alone.";

/// Handles one turn.
pub async fn chat(
    state: web::Data<AppState>,
    caller: web::ReqData<Caller>,
    request: HttpRequest,
    body: web::Json<ChatBody>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    body.validate()?;
    let code = blocks::extract(&body.message);
    let analysis = state
        .backend
        .analyze(&caller.bearer, &code, &state.metrics)
        .await;
    let conversation = prompt::build(&body, &analysis);
    if body.stream || accepts_event_stream(&request) {
        return Ok(sse::respond(&state, &body.message, analysis, &conversation).await);
    }
    let mut unavailable = first_unavailable(&analysis);
    let reply = answer(
        &state,
        &body.message,
        &analysis,
        &conversation,
        &mut unavailable,
    )
    .await;
    state.metrics.answer(reply.provider);
    Ok(HttpResponse::Ok().json(json!({
        "answer": reply.content,
        "provider": provider_name(reply.provider),
        "model": reply.model,
        "analysis": analysis.to_json(),
        "unavailable": unavailable,
    })))
}

fn accepts_event_stream(request: &HttpRequest) -> bool {
    request
        .headers()
        .get(ACCEPT)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.contains("text/event-stream"))
}

/// `["backend"]` when the analysis should have run and did not.
fn first_unavailable(analysis: &Analysis) -> Vec<&'static str> {
    if analysis.backend_unavailable() {
        vec![Dependency::Backend.name()]
    } else {
        Vec::new()
    }
}

/// The whole answer: the provider's, or the local one (adding `llm` to `unavailable` when a
/// configured provider failed).
async fn answer(
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
fn fallback_reply(opening: &str, analysis: &Analysis) -> ChatReply {
    ChatReply {
        content: prompt::local_answer(opening, analysis),
        model: "local".to_owned(),
        provider: Provider::Local,
        usage: None,
    }
}

/// Counts and logs a provider that did not answer.
fn llm_failed(state: &AppState, error: &LlmError) {
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
