//! A streamed answer as server-sent events (`text/event-stream`):
//!
//! ```text
//! event: meta    data: {"provider","model","analysis","unavailable"}   (once, first)
//! event: delta   data: {"delta":"…"}                                    (each piece)
//! event: error   data: {"error":"llm_unavailable","message":"…"}        (a provider cut off)
//! event: done    data: {"unavailable":[…]}                              (once, last)
//! ```
//!
//! Each `data` is one line of JSON (serde escapes newlines), so the encoding below is the
//! whole of the format. The provider's own start is awaited before the headers go out, so a
//! provider that does not answer turns into the local answer, streamed the same way; one that
//! stops halfway gets an `error` event and the stream still ends with `done`.

use super::analysis::Analysis;
use super::reply::{LLM_DOWN_OPENING, answer, fallback_reply, first_unavailable, llm_failed};
use crate::errors::envelope;
use crate::metrics::{Dependency, provider_name};
use crate::state::AppState;
use actix_web::HttpResponse;
use actix_web::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use actix_web::web::Bytes;
use futures_util::stream::{self, StreamExt};
use llm::{ChatRequest, ChatStream, Provider};
use serde_json::{Value, json};

/// The event-stream response for one turn.
pub async fn respond(
    state: &AppState,
    message: &str,
    analysis: Analysis,
    conversation: &ChatRequest,
) -> HttpResponse {
    let mut unavailable = first_unavailable(&analysis);
    let pieces = start(state, message, &analysis, conversation, &mut unavailable).await;
    state.metrics.answer(pieces.provider());
    let meta = event(
        "meta",
        &json!({
            "provider": provider_name(pieces.provider()),
            "model": pieces.model(),
            "analysis": analysis.to_json(),
            "unavailable": unavailable,
        }),
    );
    let relay = Relay {
        pieces,
        unavailable,
        state: state.clone(),
        phase: Phase::Pieces,
    };
    let body = stream::once(async move { Ok::<_, actix_web::Error>(meta) })
        .chain(stream::unfold(relay, next_event).map(Ok));
    HttpResponse::Ok()
        .insert_header((CONTENT_TYPE, "text/event-stream"))
        .insert_header((CACHE_CONTROL, "no-cache"))
        .streaming(body)
}

/// The provider's stream, or the local answer's pieces when there is no provider or it did
/// not start answering.
async fn start(
    state: &AppState,
    message: &str,
    analysis: &Analysis,
    conversation: &ChatRequest,
    unavailable: &mut Vec<&'static str>,
) -> ChatStream {
    if state.llm.provider() != Provider::Local {
        match state.llm.chat_stream(conversation).await {
            Ok(pieces) => return pieces,
            Err(error) => {
                llm_failed(state, &error);
                unavailable.push(Dependency::Llm.name());
                let reply = fallback_reply(LLM_DOWN_OPENING, analysis);
                return ChatStream::from(reply);
            }
        }
    }
    let mut none = Vec::new();
    ChatStream::from(answer(state, message, analysis, conversation, &mut none).await)
}

enum Phase {
    Pieces,
    Done,
    Finished,
}

struct Relay {
    pieces: ChatStream,
    unavailable: Vec<&'static str>,
    state: AppState,
    phase: Phase,
}

async fn next_event(mut relay: Relay) -> Option<(Bytes, Relay)> {
    let bytes = match relay.phase {
        Phase::Finished => return None,
        Phase::Done => done(&mut relay),
        Phase::Pieces => match relay.pieces.next().await {
            Some(Ok(piece)) => event("delta", &json!({ "delta": piece })),
            Some(Err(error)) => {
                llm_failed(&relay.state, &error);
                relay.unavailable.push(Dependency::Llm.name());
                relay.phase = Phase::Done;
                let message = "the language model stopped answering; the answer is incomplete";
                event("error", &envelope("llm_unavailable", message))
            }
            None => done(&mut relay),
        },
    };
    Some((bytes, relay))
}

fn done(relay: &mut Relay) -> Bytes {
    relay.phase = Phase::Finished;
    event("done", &json!({ "unavailable": relay.unavailable }))
}

/// One event: its name and one line of JSON.
fn event(name: &str, data: &Value) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}
