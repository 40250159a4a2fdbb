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
//! A stream the client resets before its answer is whole is counted as cancelled. A client
//! that cancels most of what it asks ([`Activity::unruly`]: at least [`CANCELLED_FLOOR`]
//! streams, and more than half of all), or [`CANCELLED_CEILING`] streams whatever else it
//! asked, is told GOAWAY: each cancelled request may have cost an origin connection, opened
//! and closed for nothing (a paced "rapid reset", padded with cheap requests or not). So is
//! a client past its budget of cancels over all its connections ([`crate::cancel_budget`]),
//! so reconnecting does not start its count again.
//!
//! Each stream also holds a place in its client's share of streams in flight
//! ([`crate::gate::Place::stream`]); a request past that share reaches the service marked
//! [`OverShare`], which answers it `429`.
//!
//! The count is an atomic, and only its moves to and from zero wake the waiter: a busy
//! connection's streams open and close without taking a lock.

use crate::gate::{OverShare, Place, StreamPlace};
use crate::stall::{Clock, Progress};
use bytes::Bytes;
use http::{Request, Response};
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::service::Service;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};
use std::time::Duration;
use tokio::sync::Notify;

/// Cancelled streams a connection may have before [`Activity::unruly`] looks at their share.
pub const CANCELLED_FLOOR: usize = 100;
/// Cancelled streams a connection may have, whatever their share.
pub const CANCELLED_CEILING: usize = 1000;

/// How many streams of one connection are open, and how many it had and cancelled.
pub struct Activity {
    open: AtomicUsize,
    /// Told when `open` leaves or reaches zero.
    turned: Notify,
    streams: AtomicUsize,
    cancelled: AtomicUsize,
    /// Set, and `calm` told, once the client cancelled too much.
    unruly: AtomicBool,
    calm: Notify,
    progress: Progress,
    /// The connection's place at the gate, which its streams' places are taken from.
    place: Arc<Place>,
}

impl Activity {
    /// A connection holding `place`, with nothing open yet.
    pub fn new(place: Arc<Place>) -> Arc<Self> {
        Arc::new(Self {
            open: AtomicUsize::new(0),
            turned: Notify::new(),
            streams: AtomicUsize::new(0),
            cancelled: AtomicUsize::new(0),
            unruly: AtomicBool::new(false),
            calm: Notify::new(),
            progress: Progress::default(),
            place,
        })
    }

    /// Counts a stream open until the guard is dropped.
    fn busy(self: &Arc<Self>) -> Busy {
        self.streams.fetch_add(1, Ordering::Relaxed);
        if self.open.fetch_add(1, Ordering::AcqRel) == 0 {
            self.turned.notify_waiters();
        }
        Busy {
            stream_place: self.place.stream(),
            clock: self.progress.clock(),
            activity: self.clone(),
            finished: false,
            waiting: true,
        }
    }

    /// Counts a stream the client cancelled.
    fn cancel(&self) {
        let cancelled = self.cancelled.fetch_add(1, Ordering::Relaxed) + 1;
        let streams = self.streams.load(Ordering::Relaxed);
        let within_budget = self.place.cancelled();
        let unruly = !within_budget
            || cancelled >= CANCELLED_CEILING
            || (cancelled >= CANCELLED_FLOOR && cancelled * 2 > streams);
        if unruly && !self.unruly.swap(true, Ordering::AcqRel) {
            self.calm.notify_one();
        }
    }

    /// Resolves once the client has cancelled at least [`CANCELLED_FLOOR`] streams, more than
    /// half of all it opened, or [`CANCELLED_CEILING`].
    pub async fn unruly(&self) {
        self.calm.notified().await;
    }

    /// Resolves once an open stream has waited on the client for `timeout`
    /// ([`crate::stall`]).
    pub async fn stalled_for(&self, timeout: Duration) {
        self.progress.stalled_for(timeout).await;
    }

    /// Resolves once more than `slack` streams have been opened since it was first polled
    /// (after a GOAWAY, a client that goes on opening streams ignores it): checked every
    /// tenth of a second.
    pub async fn opens_more_than(&self, slack: usize) {
        let before = self.streams.load(Ordering::Relaxed);
        while self.streams.load(Ordering::Relaxed) <= before + slack {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
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

/// One open stream; cancelled if dropped before its answer's body ended.
pub struct Busy {
    activity: Arc<Activity>,
    finished: bool,
    /// Waiting on its origin (as its clock says, kept here to touch the clock on changes only).
    waiting: bool,
    clock: Arc<Clock>,
    /// Its place in its client's share of streams; `None` past the share.
    stream_place: Option<StreamPlace>,
}

impl Busy {
    /// The stream starts or stops waiting on its origin; when it stops, it has handed hyper a
    /// head or a frame.
    fn wait(&mut self, waiting: bool) {
        if waiting && self.waiting {
            return;
        }
        self.waiting = waiting;
        self.activity.progress.waits(&self.clock, waiting);
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if !self.finished {
            self.activity.cancel();
        }
        if self.activity.open.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.activity.turned.notify_waiters();
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
    B: Body,
{
    type Response = Response<Held<B>>;
    type Error = S::Error;
    type Future = Answer<S::Future>;

    fn call(&self, mut request: Request<Incoming>) -> Self::Future {
        let busy = self.activity.busy();
        if busy.stream_place.is_none() {
            request.extensions_mut().insert(OverShare);
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
