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
    /// Where its progress is told; none for a body that was over before it began (most
    /// requests), which has nothing to tell.
    progress: Option<watch::Sender<Progress>>,
}

/// What the forwarder watches of an [`UpstreamBody`]: nothing for a body that was over before
/// it began.
#[derive(Clone, Debug)]
pub struct BodyWatch(Option<watch::Receiver<Progress>>);

impl UpstreamBody {
    /// The client's `body`, streamed.
    pub fn client(body: Incoming) -> (Self, BodyWatch) {
        if body.is_end_stream() {
            return Self::without_progress(Some(body));
        }
        let (progress, watch) = watch::channel(Progress::Streaming);
        let upstream = Self {
            body: Some(body),
            progress: Some(progress),
        };
        (upstream, BodyWatch(Some(watch)))
    }

    /// No body at all.
    pub fn empty() -> (Self, BodyWatch) {
        Self::without_progress(None)
    }

    fn without_progress(body: Option<Incoming>) -> (Self, BodyWatch) {
        let upstream = Self {
            body,
            progress: None,
        };
        (upstream, BodyWatch(None))
    }
}

impl BodyWatch {
    /// Resolves once the body has been sent whole (or has failed, or was dropped unsent).
    pub async fn sent(&mut self) {
        if let Some(watch) = &mut self.0 {
            let _ = watch
                .wait_for(|progress| *progress != Progress::Streaming)
                .await;
        }
    }

    /// Whether the client's body broke (malformed chunks, a connection that ended early).
    pub fn failed(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|watch| *watch.borrow() == Progress::Failed)
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
        if let (Some(reached), Some(progress)) = (reached, &self.progress) {
            progress.send_replace(reached);
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
