//! A request body on its way to an origin: the client's, streamed as it arrives, or none (a
//! replay). It reports how far it got, so the forwarder can tell a client whose own body
//! broke (a 400, the client's error) from an origin that failed (a 502), and can start the
//! origin's answer deadline only once the whole request has been sent: a slow upload is the
//! client's time, not the origin's.
//!
//! A client's body that sends nothing for `estate.requestBodyTimeout` while the origin waits
//! for it (nginx's `client_body_timeout`) ends as [`UpstreamError::Stalled`]: the edge answers
//! `408` and closes the origin's connection, which would otherwise be held for as long as the
//! client likes. Once the origin's answer head has come the timer stops: the answer may
//! stream while the body is still open.

use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};

/// How far a request body has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    Streaming,
    Ended,
    Failed,
    Stalled,
}

/// Why a request body did not reach its origin whole.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The client's body broke (malformed chunks, a connection that ended early).
    #[error("the client's body broke: {0}")]
    Client(#[from] hyper::Error),
    /// The client sent nothing of its body for the request body timeout.
    #[error("the client sent nothing of its body for the request body timeout")]
    Stalled,
}

/// A body's silence, timed while its origin waits for it.
#[derive(Debug)]
struct Silence {
    timeout: Duration,
    /// Armed once the body first waits on the client.
    timer: Option<Pin<Box<Sleep>>>,
    /// Set once the origin's answer head has come: the timer stops.
    answered: Arc<AtomicBool>,
}

/// A request body towards an origin.
#[derive(Debug)]
pub struct UpstreamBody {
    body: Option<Incoming>,
    /// Where its progress is told; none for a body that was over before it began (most
    /// requests), which has nothing to tell.
    progress: Option<watch::Sender<Progress>>,
    /// How long it has sent nothing; none for a body with nothing to send.
    silence: Option<Silence>,
}

/// What the forwarder watches of an [`UpstreamBody`]: nothing for a body that was over before
/// it began.
#[derive(Clone, Debug)]
pub struct BodyWatch(Option<(watch::Receiver<Progress>, Arc<AtomicBool>)>);

impl UpstreamBody {
    /// The client's `body`, streamed; it may send nothing for `timeout` at most.
    pub fn client(body: Incoming, timeout: Duration) -> (Self, BodyWatch) {
        if body.is_end_stream() {
            return Self::without_progress(Some(body));
        }
        let (progress, watch) = watch::channel(Progress::Streaming);
        let answered = Arc::new(AtomicBool::new(false));
        let upstream = Self {
            body: Some(body),
            progress: Some(progress),
            silence: Some(Silence {
                timeout,
                timer: None,
                answered: answered.clone(),
            }),
        };
        (upstream, BodyWatch(Some((watch, answered))))
    }

    /// No body at all.
    pub fn empty() -> (Self, BodyWatch) {
        Self::without_progress(None)
    }

    fn without_progress(body: Option<Incoming>) -> (Self, BodyWatch) {
        let upstream = Self {
            body,
            progress: None,
            silence: None,
        };
        (upstream, BodyWatch(None))
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

    /// Whether the client's body sent nothing for the request body timeout.
    pub fn stalled(&self) -> bool {
        self.reached(Progress::Stalled)
    }

    /// The origin's answer head has come: the body's silence is no longer timed.
    pub fn answered(&self) {
        if let Some((_, answered)) = &self.0 {
            answered.store(true, Ordering::Relaxed);
        }
    }

    fn reached(&self, end: Progress) -> bool {
        self.0
            .as_ref()
            .is_some_and(|(watch, _)| *watch.borrow() == end)
    }
}

impl Silence {
    /// Whether the body has now waited on the client for the whole timeout.
    fn over(&mut self, cx: &mut Context<'_>) -> bool {
        if self.answered.load(Ordering::Relaxed) {
            return false;
        }
        let timeout = self.timeout;
        let timer = self
            .timer
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        timer.as_mut().poll(cx).is_ready()
    }

    /// A frame came: the silence starts again.
    fn broken(&mut self) {
        if let Some(timer) = &mut self.timer {
            timer.as_mut().reset(Instant::now() + self.timeout);
        }
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
        if let Some(silence) = &mut this.silence {
            if polled.is_ready() {
                silence.broken();
            } else if silence.over(cx) {
                this.body = None;
                if let Some(progress) = &this.progress {
                    progress.send_replace(Progress::Stalled);
                }
                return Poll::Ready(Some(Err(UpstreamError::Stalled)));
            }
        }
        let reached = match &polled {
            Poll::Ready(None) => Some(Progress::Ended),
            Poll::Ready(Some(Err(_))) => Some(Progress::Failed),
            Poll::Ready(Some(Ok(_))) if body.is_end_stream() => Some(Progress::Ended),
            _ => None,
        };
        if let (Some(reached), Some(progress)) = (reached, &this.progress) {
            progress.send_replace(reached);
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
