//! [`ChatStream`]: an answer that arrives in pieces, whichever provider writes it.
//!
//! A remote provider's pieces are the `delta.content` of its server-sent events (read by
//! `eventsource-stream`), until `[DONE]`; a provider that ignores `stream: true` and sends one
//! JSON completion gives one piece. The local provider's reply is cut at word boundaries, so
//! the pieces join to exactly the text [`LlmClient::chat`](crate::LlmClient::chat) returns.
//!
//! Every wait for the next piece is bounded: a provider that goes quiet for the timeout ends
//! the stream with [`LlmError::Timeout`]. So is what a provider can make the client hold and
//! parse: an answer (all its events together) longer than the answer bound, or one line of it
//! longer than [`MAX_EVENT_LINE_BYTES`] (the event parser reads a line that has not ended again
//! from its start with each new chunk), ends the stream with [`LlmError::BadResponse`]. After
//! an error the stream ends.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::stream::{self, BoxStream, Stream, StreamExt};

use bytes::Bytes;
use platform_core::bounds::{BodyError, body_stream, read_body};

use crate::error::body_failure;
use crate::wire::{Chunk, MAX_ANSWER_BYTES, parse_chunk, parse_completion};
use crate::{ChatReply, LlmError, Provider};

/// The pieces of one answer, in order. Ends after the last piece or the first error.
pub struct ChatStream {
    provider: Provider,
    model: String,
    pieces: BoxStream<'static, Result<String, LlmError>>,
}

impl ChatStream {
    /// Which kind of provider is answering.
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The model asked for (the local provider's is `local`).
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The pieces of a provider's success response, each awaited for at most `idle`.
    pub(crate) fn from_response(
        response: reqwest::Response,
        model: String,
        idle: Duration,
    ) -> Self {
        let is_event_stream = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .is_some_and(|value| value.starts_with("text/event-stream"));
        let pieces = if is_event_stream {
            events(response, idle)
        } else {
            whole(response, model.clone(), idle)
        };
        Self {
            provider: Provider::OpenAiCompatible,
            model,
            pieces,
        }
    }
}

/// A reply already complete (the local provider's, or a caller's own fallback text), given
/// word by word: the pieces join to exactly `reply.content`.
impl From<ChatReply> for ChatStream {
    fn from(reply: ChatReply) -> Self {
        let pieces: Vec<Result<String, LlmError>> = reply
            .content
            .split_inclusive(char::is_whitespace)
            .map(|piece| Ok(piece.to_owned()))
            .collect();
        Self {
            provider: reply.provider,
            model: reply.model,
            pieces: stream::iter(pieces).boxed(),
        }
    }
}

impl Stream for ChatStream {
    type Item = Result<String, LlmError>;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.pieces.poll_next_unpin(context)
    }
}

impl std::fmt::Debug for ChatStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatStream")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

/// A provider that answered `stream: true` with one JSON completion: one piece.
fn whole(
    response: reqwest::Response,
    model: String,
    idle: Duration,
) -> BoxStream<'static, Result<String, LlmError>> {
    stream::once(async move {
        let body = tokio::time::timeout(idle, read_body(response, MAX_ANSWER_BYTES))
            .await
            .map_err(|_elapsed| LlmError::Timeout)?
            .map_err(body_failure)?;
        parse_completion(&body, &model).map(|reply| reply.content)
    })
    .boxed()
}

/// The longest line of an event stream the client reads: far above one event's JSON.
pub const MAX_EVENT_LINE_BYTES: usize = 256 * 1024;

type Events = BoxStream<'static, Result<eventsource_stream::Event, EventStreamError<LlmError>>>;

struct Reading {
    events: Events,
    idle: Duration,
    finished: bool,
}

/// The non-empty delta texts of the events, until `[DONE]`, the end of the body or an error.
fn events(
    response: reqwest::Response,
    idle: Duration,
) -> BoxStream<'static, Result<String, LlmError>> {
    let reading = Reading {
        events: short_lines(body_stream(response, MAX_ANSWER_BYTES))
            .eventsource()
            .boxed(),
        idle,
        finished: false,
    };
    stream::unfold(reading, |mut reading| async move {
        if reading.finished {
            return None;
        }
        let piece = next_piece(&mut reading).await?;
        reading.finished = piece.is_err();
        Some((piece, reading))
    })
    .boxed()
}

/// `body` until a line runs past [`MAX_EVENT_LINE_BYTES`]: then that refusal, as its last item.
fn short_lines(
    body: impl Stream<Item = Result<Bytes, BodyError>> + Send + 'static,
) -> impl Stream<Item = Result<Bytes, LlmError>> + Send + 'static {
    let mut open_line = 0_usize;
    body.map(move |chunk| {
        let chunk = chunk.map_err(body_failure)?;
        open_line = match chunk.iter().rposition(|byte| matches!(byte, b'\n' | b'\r')) {
            Some(end) => chunk.len() - end - 1,
            None => open_line + chunk.len(),
        };
        if open_line > MAX_EVENT_LINE_BYTES {
            return Err(LlmError::BadResponse(format!(
                "a line of the event stream is longer than {MAX_EVENT_LINE_BYTES} bytes"
            )));
        }
        Ok(chunk)
    })
}

/// The next non-empty piece; `None` at the end.
async fn next_piece(reading: &mut Reading) -> Option<Result<String, LlmError>> {
    loop {
        let event = match tokio::time::timeout(reading.idle, reading.events.next()).await {
            Err(_elapsed) => return Some(Err(LlmError::Timeout)),
            Ok(None) => return None,
            Ok(Some(Err(EventStreamError::Transport(error)))) => return Some(Err(error)),
            Ok(Some(Err(_unparseable))) => {
                return Some(Err(LlmError::BadResponse(
                    "the event stream could not be read".to_owned(),
                )));
            }
            Ok(Some(Ok(event))) => event,
        };
        match parse_chunk(&event.data) {
            Ok(Chunk::Done) => return None,
            Ok(Chunk::Text(text)) if text.is_empty() => {}
            Ok(Chunk::Text(text)) => return Some(Ok(text)),
            Err(error) => return Some(Err(error)),
        }
    }
}
