//! A connection's service whose streams are counted in its [`Activity`]: each request is
//! counted open from the moment it reaches the service until its answer's body is dropped
//! ([`Held`]), and, while its own body streams, until that ends too ([`RequestHold`]); one past
//! its client's share of streams reaches the service marked [`crate::gate::OverShare`].

use super::{Activity, Busy, RequestHold};
use bytes::Bytes;
use http::{Request, Response};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::Service;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

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
    B: Body,
{
    type Response = Response<Held<B>>;
    type Error = S::Error;
    type Future = Answer<S::Future>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        let busy = self.activity.busy();
        if let Err(over) = busy.open.place {
            request.extensions_mut().insert(over);
        } else if !request.body().is_end_stream() {
            request.extensions_mut().insert(RequestHold {
                _open: busy.open.clone(),
            });
        }
        let busy = Some(busy);
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
    B: Body,
{
    type Output = Result<Response<Held<B>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        let mut busy = this.busy.take();
        if let Some(busy) = &mut busy {
            busy.wait(false);
        }
        Poll::Ready(Ok(response.map(|inner| Held { inner, busy })))
    }
}

/// An answer's body that keeps its stream counted as open while it lives, and finished once
/// it has ended.
pub struct Held<B: Body> {
    inner: B,
    busy: Option<Busy>,
}

impl<B: Body> Held<B> {
    fn wait(&mut self, waiting: bool) {
        if let Some(busy) = &mut self.busy {
            busy.wait(waiting);
        }
    }

    fn finish(&mut self) {
        if let Some(busy) = &mut self.busy {
            busy.finished = true;
        }
    }
}

impl<B: Body> Drop for Held<B> {
    fn drop(&mut self) {
        // An answer without a body is sent with its head, its body never polled.
        if self.inner.is_end_stream() {
            self.finish();
        }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for Held<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) else {
            self.wait(true);
            return Poll::Pending;
        };
        self.wait(false);
        // Ended, or broken by the origin: either way not the client's cancel.
        if !matches!(frame, Some(Ok(_))) || self.inner.is_end_stream() {
            self.finish();
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}
