//! A request body on its way to an origin: the client's, streamed as it arrives, or none (a
//! replay). It reports how far it got, so the forwarder can tell a client whose own body
//! broke (a 400, the client's error) from an origin that failed (a 502), and can start the
//! origin's answer deadline only once the whole request has been sent: a slow upload is the
//! client's time, not the origin's.

use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::sync::watch;

/// How far a request body has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    Streaming,
    Ended,
    Failed,
}

/// A request body towards an origin.
#[derive(Debug)]
pub struct UpstreamBody {
    body: Option<Incoming>,
    progress: watch::Sender<Progress>,
}

/// What the forwarder watches of an [`UpstreamBody`].
#[derive(Clone, Debug)]
pub struct BodyWatch(watch::Receiver<Progress>);

impl UpstreamBody {
    /// The client's `body`, streamed.
    pub fn client(body: Incoming) -> (Self, BodyWatch) {
        let start = if body.is_end_stream() {
            Progress::Ended
        } else {
            Progress::Streaming
        };
        Self::with(Some(body), start)
    }

    /// No body at all.
    pub fn empty() -> (Self, BodyWatch) {
        Self::with(None, Progress::Ended)
    }

    fn with(body: Option<Incoming>, start: Progress) -> (Self, BodyWatch) {
        let (progress, watch) = watch::channel(start);
        (Self { body, progress }, BodyWatch(watch))
    }
}

impl BodyWatch {
    /// Resolves once the body has been sent whole (or has failed, or was dropped unsent).
    pub async fn sent(&mut self) {
        let _ = self
            .0
            .wait_for(|progress| *progress != Progress::Streaming)
            .await;
    }

    /// Whether the client's body broke (malformed chunks, a connection that ended early).
    pub fn failed(&self) -> bool {
        *self.0.borrow() == Progress::Failed
    }
}

impl Body for UpstreamBody {
    type Data = Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, hyper::Error>>> {
        let Some(body) = self.body.as_mut() else {
            return Poll::Ready(None);
        };
        let polled = Pin::new(&mut *body).poll_frame(cx);
        let reached = match &polled {
            Poll::Ready(None) => Some(Progress::Ended),
            Poll::Ready(Some(Err(_))) => Some(Progress::Failed),
            Poll::Ready(Some(Ok(_))) if body.is_end_stream() => Some(Progress::Ended),
            _ => None,
        };
        if let Some(reached) = reached {
            self.progress.send_replace(reached);
        }
        polled
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
