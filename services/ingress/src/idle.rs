//! The HTTP/2 idle timeout (`estate.http2IdleTimeout`): a connection with no open stream for
//! that long is sent GOAWAY and closed, as nginx's `keepalive_timeout` and a browser-facing
//! edge do; hyper's HTTP/2 server keeps a connection for as long as the client does.
//!
//! A stream is open from the moment its request reaches the service until its answer's body
//! is dropped (sent whole, or reset): [`Tracked`] wraps the connection's service and holds a
//! [`Busy`] guard in every answer's body; [`Activity::idle_for`] waits for a stretch with
//! none. HTTP/1.1 needs none of this: hyper's header read timeout runs while a kept-alive
//! connection waits for its next request head, so an idle one is closed after it.

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::Service;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::watch;

/// How many streams of one connection are open.
pub struct Activity {
    open: watch::Sender<usize>,
}

impl Activity {
    /// A connection with nothing open yet.
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            open: watch::Sender::new(0),
        })
    }

    /// Counts a stream open until the guard is dropped.
    fn busy(self: &Arc<Self>) -> Busy {
        self.open.send_modify(|open| *open += 1);
        Busy(self.clone())
    }

    /// Resolves once no stream has been open for `timeout`.
    pub async fn idle_for(&self, timeout: Duration) {
        let mut open = self.open.subscribe();
        loop {
            let idle = *open.borrow_and_update() == 0;
            if idle {
                tokio::select! {
                    () = tokio::time::sleep(timeout) => return,
                    changed = open.changed() => if changed.is_err() { return },
                }
            } else if open.changed().await.is_err() {
                return;
            }
        }
    }
}

/// One open stream.
pub struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0
            .open
            .send_modify(|open| *open = open.saturating_sub(1));
    }
}

/// A connection's service whose streams are counted in its [`Activity`].
pub struct Tracked<S> {
    inner: S,
    activity: Arc<Activity>,
}

impl<S> Tracked<S> {
    /// `inner`, counted in `activity`.
    pub fn new(inner: S, activity: Arc<Activity>) -> Self {
        Self { inner, activity }
    }
}

type Answer<B, E> = Pin<Box<dyn Future<Output = Result<Response<Held<B>>, E>> + Send>>;

impl<S, B> Service<Request<Incoming>> for Tracked<S>
where
    S: Service<Request<Incoming>, Response = Response<B>>,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<Held<B>>;
    type Error = S::Error;
    type Future = Answer<B, S::Error>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let busy = self.activity.busy();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let response = answer.await?;
            Ok(response.map(|inner| Held { inner, _busy: busy }))
        })
    }
}

/// An answer's body that keeps its stream counted as open while it lives.
pub struct Held<B> {
    inner: B,
    _busy: Busy,
}

impl<B: Body<Data = Bytes> + Unpin> Body for Held<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
