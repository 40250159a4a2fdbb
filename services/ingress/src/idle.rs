//! The HTTP/2 idle timeout (`estate.http2IdleTimeout`): a connection with no open stream for
//! that long is sent GOAWAY and closed, as nginx's `keepalive_timeout` and a browser-facing
//! edge do; hyper's HTTP/2 server keeps a connection for as long as the client does.
//!
//! A stream is open from the moment its request reaches the service until its answer's body
//! is dropped (sent whole, or reset): [`Tracked`] wraps the connection's service and holds a
//! [`Busy`] guard in every answer's body; [`Activity::idle_for`] waits for a stretch with
//! none. HTTP/1.1 needs none of this: hyper's header read timeout runs while a kept-alive
//! connection waits for its next request head, so an idle one is closed after it.
//!
//! The count is an atomic, and only its moves to and from zero wake the waiter: a busy
//! connection's streams open and close without taking a lock.

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::Service;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::sync::Notify;

/// How many streams of one connection are open.
pub struct Activity {
    open: AtomicUsize,
    /// Told when `open` leaves or reaches zero.
    turned: Notify,
}

impl Activity {
    /// A connection with nothing open yet.
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            open: AtomicUsize::new(0),
            turned: Notify::new(),
        })
    }

    /// Counts a stream open until the guard is dropped.
    fn busy(self: &Arc<Self>) -> Busy {
        if self.open.fetch_add(1, Ordering::AcqRel) == 0 {
            self.turned.notify_waiters();
        }
        Busy(self.clone())
    }

    /// Resolves once no stream has been open for `timeout`.
    pub async fn idle_for(&self, timeout: Duration) {
        loop {
            let turned = self.turned.notified();
            tokio::pin!(turned);
            // Listening before looking, so a turn right after the look is not missed.
            turned.as_mut().enable();
            if self.open.load(Ordering::Acquire) == 0 {
                tokio::select! {
                    () = tokio::time::sleep(timeout) => return,
                    () = turned => {}
                }
            } else {
                turned.await;
            }
        }
    }
}

/// One open stream.
pub struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        if self.0.open.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.turned.notify_waiters();
        }
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

impl<S, B> Service<Request<Incoming>> for Tracked<S>
where
    S: Service<Request<Incoming>, Response = Response<B>>,
{
    type Response = Response<Held<B>>;
    type Error = S::Error;
    type Future = Answer<S::Future>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        let busy = Some(self.activity.busy());
        Answer {
            inner: self.inner.call(request),
            busy,
        }
    }
}

pin_project_lite::pin_project! {
    /// A stream's answer on its way, its stream counted open from the request on (no box
    /// per stream around the proxy's future).
    pub struct Answer<F> {
        #[pin]
        inner: F,
        busy: Option<Busy>,
    }
}

impl<F, B, E> Future for Answer<F>
where
    F: Future<Output = Result<Response<B>, E>>,
{
    type Output = Result<Response<Held<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        let busy = this.busy.take();
        Poll::Ready(Ok(response.map(|inner| Held { inner, _busy: busy })))
    }
}

/// An answer's body that keeps its stream counted as open while it lives.
pub struct Held<B> {
    inner: B,
    _busy: Option<Busy>,
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
