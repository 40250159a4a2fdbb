//! `POST /api/chat`: one turn of a conversation about the user's own code.
//!
//! The turn does real work: fenced code blocks ([`blocks`]) go to the backend's EXPENSIVE
//! analysis endpoint with the user's own bearer ([`backend`]), and the language model answers
//! with the findings beside the question ([`prompt`]). With no language model configured, or
//! when it does not answer, a deterministic local answer is assembled from the findings and
//! `provider` says `local`. Whatever did not answer is named in `unavailable` and in the
//! answer: a chat turn degrades, it never fails because a dependency did. `"stream": true` or
//! `Accept: text/event-stream` asks for the answer as server-sent events ([`sse`]); either way
//! the answer itself comes from [`reply`].
//!
//! The caller's token and window were checked by [`gate`] before the body was read.

pub mod analysis;
pub mod backend;
pub mod blocks;
pub mod gate;
pub mod prompt;
mod reply;
mod sse;

use crate::errors::ApiError;
use crate::metrics::provider_name;
use crate::state::AppState;
use actix_web::http::header::ACCEPT;
use actix_web::{HttpRequest, HttpResponse, web};
use gate::Caller;
use prompt::ChatBody;
use reply::{answer, first_unavailable};
use serde_json::json;

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
