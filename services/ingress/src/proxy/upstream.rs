//! A request body on its way to an origin: the client's, streamed as it arrives, or none (a
//! replay). It reports how far it got, so the forwarder can tell a client whose own body
//! broke (a 400, the client's error) from an origin that failed (a 502), and can start the
//! origin's answer deadline only once the whole request has been sent: a slow upload is the
//! client's time, not the origin's.
//!
//! The edge also cuts a client's body itself ([`guard`]): one that sends nothing for
//! `estate.requestBodyTimeout` while the origin waits for it (nginx's `client_body_timeout`:
//! the edge answers `408`, and the origin's connection, which would otherwise be held for as
//! long as the client likes, is closed), and one that grows past `estate.maxRequestBodyBytes`
//! (`413`). While the origin's answer streams, the silence is not timed: the answer may come
//! while the body is still open. A body that streams keeps its HTTP/2 stream counted open, and
//! in its client's share, until it ends ([`RequestHold`]): an answer that ended first does not
//! free what the upload still holds (the origin's connection).

mod guard;

pub use guard::{AnswerEnd, BodyBounds, Cut};

use crate::idle::RequestHold;
use bytes::Bytes;
use guard::{AnswerState, Guard};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio::sync::watch;

/// How far a request body has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    Streaming,
    Ended,
    Failed,
    Cut(Cut),
}

/// Why a request body did not reach its origin whole.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The client's body broke (malformed chunks, a connection that ended early).
    #[error("the client's body broke: {0}")]
    Client(#[from] hyper::Error),
    /// The edge cut it.
    #[error("{0}")]
    Cut(Cut),
}

/// A request body towards an origin.
#[derive(Debug)]
pub struct UpstreamBody {
    body: Option<Incoming>,
    /// Where its progress is told; none for a body that was over before it began (most
    /// requests), which has nothing to tell.
    progress: Option<watch::Sender<Progress>>,
    /// Its silence and size; none for a body with nothing to send.
    guard: Option<Guard>,
    /// Its HTTP/2 stream, held open until the body ends.
    hold: Option<RequestHold>,
}

/// What the forwarder watches of an [`UpstreamBody`]: nothing for a body that was over before
/// it began.
#[derive(Clone, Debug)]
pub struct BodyWatch(Option<(watch::Receiver<Progress>, Arc<AnswerState>)>);

impl UpstreamBody {
    /// The client's `body`, streamed within `bounds`, holding its stream's `hold` until it ends.
    pub fn client(
        body: Incoming,
        bounds: BodyBounds,
        hold: Option<RequestHold>,
    ) -> (Self, BodyWatch) {
        if body.is_end_stream() {
            return Self::without_progress(Some(body));
        }
        let (progress, watch) = watch::channel(Progress::Streaming);
        let (guard, answer) = Guard::new(bounds);
        let upstream = Self {
            body: Some(body),
            progress: Some(progress),
            guard: Some(guard),
            hold,
        };
        (upstream, BodyWatch(Some((watch, answer))))
    }

    /// No body at all.
    pub fn empty() -> (Self, BodyWatch) {
        Self::without_progress(None)
    }

    fn without_progress(body: Option<Incoming>) -> (Self, BodyWatch) {
        let upstream = Self {
            body,
            progress: None,
            guard: None,
            hold: None,
        };
        (upstream, BodyWatch(None))
    }

    /// Ends the body with the edge's `cut`.
    fn cut(&mut self, cut: Cut) -> Poll<Option<Result<Frame<Bytes>, UpstreamError>>> {
        self.body = None;
        self.hold = None;
        if let Some(progress) = &self.progress {
            progress.send_replace(Progress::Cut(cut));
        }
        Poll::Ready(Some(Err(UpstreamError::Cut(cut))))
    }
}

impl BodyWatch {
    /// Resolves once the body has been sent whole (or has failed, or was dropped unsent).
    pub async fn sent(&mut self) {
        if let Some((watch, _)) = &mut self.0 {
            let _ = watch
                .wait_for(|progress| *progress != Progress::Streaming)
                .await;
        }
    }

    /// Whether the client's body broke (malformed chunks, a connection that ended early).
    pub fn failed(&self) -> bool {
        self.reached(Progress::Failed)
    }

    /// Whether the edge cut the client's body, and why.
    pub fn cut(&self) -> Option<Cut> {
        match self.0.as_ref().map(|(watch, _)| *watch.borrow()) {
            Some(Progress::Cut(cut)) => Some(cut),
            _ => None,
        }
    }

    /// The origin's answer head has come: the body's silence is not timed until the returned
    /// token, which the answer's body holds, is dropped.
    pub fn answered(&self) -> AnswerEnd {
        self.0
            .as_ref()
            .map_or_else(AnswerEnd::default, |(_, answer)| answer.streaming())
    }

    fn reached(&self, end: Progress) -> bool {
        self.0
            .as_ref()
            .is_some_and(|(watch, _)| *watch.borrow() == end)
    }
}

impl Body for UpstreamBody {
    type Data = Bytes;
    type Error = UpstreamError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, UpstreamError>>> {
        let this = &mut *self;
        let Some(body) = this.body.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = Pin::new(&mut *body).poll_frame(cx);
        if let Some(guard) = &mut this.guard {
            match &polled {
                Poll::Pending if guard.waited_too_long(cx) => return this.cut(Cut::Stalled),
                Poll::Ready(Some(Ok(frame))) => {
                    let bytes = frame.data_ref().map_or(0, Bytes::len);
                    if guard.passed_too_much(bytes) {
                        return this.cut(Cut::TooLarge);
                    }
                }
                _ => {}
            }
        }
        let ended = this.body.as_ref().is_none_or(Incoming::is_end_stream);
        let reached = match &polled {
            Poll::Ready(None) => Some(Progress::Ended),
            Poll::Ready(Some(Err(_))) => Some(Progress::Failed),
            Poll::Ready(Some(Ok(_))) if ended => Some(Progress::Ended),
            _ => None,
        };
        if let Some(reached) = reached {
            this.hold = None;
            if let Some(progress) = &this.progress {
                progress.send_replace(reached);
            }
        }
        polled.map(|frame| frame.map(|frame| frame.map_err(UpstreamError::Client)))
    }

    fn is_end_stream(&self) -> bool {
        self.body.as_ref().is_none_or(Incoming::is_end_stream)
    }

    fn size_hint(&self) -> SizeHint {
        self.body
            .as_ref()
            .map_or_else(|| SizeHint::with_exact(0), Incoming::size_hint)
    }
}
