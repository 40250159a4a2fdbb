//! The HTTP/2 idle timeout (`estate.http2IdleTimeout`): a connection with no open stream for
//! that long is sent GOAWAY and closed, as nginx's `keepalive_timeout` and a browser-facing
//! edge do; hyper's HTTP/2 server keeps a connection for as long as the client does.
//!
//! A stream is open from the moment its request reaches the service until its answer's body
//! is dropped (sent whole, or reset) and, while its request's body streams, until that ends
//! too ([`RequestHold`]: an upload whose answer came early is still open): [`Tracked`] wraps
//! the connection's service and holds a [`Busy`] guard in every answer's body;
//! [`Activity::idle_for`] waits for a stretch with none. HTTP/1.1 needs none of this: hyper's
//! header read timeout runs while a kept-alive connection waits for its next request head, so
//! an idle one is closed after it.
//!
//! A stream the client resets before its answer is whole is counted as cancelled. A client
//! that cancels most of what it asks ([`Activity::unruly`]: at least [`CANCELLED_FLOOR`]
//! streams, and more than half of all), or [`CANCELLED_CEILING`] streams whatever else it
//! asked, is told GOAWAY: each cancelled request may have cost an origin connection, opened
//! and closed for nothing (a paced "rapid reset", padded with cheap requests or not). So is
//! a client past its budget of cancels over all its connections ([`crate::cancel_budget`]),
//! so reconnecting does not start its count again.
//!
//! Each open stream also holds a place in its client's share of streams in flight
//! ([`crate::gate::Place::stream`]); a request past that share reaches the service marked
//! [`crate::gate::OverShare`], which answers it `429`.
//!
//! The count is an atomic, and only its moves to and from zero wake the waiter: a busy
//! connection's streams open and close without taking a lock.

mod tracked;

pub use tracked::{Answer, Held, Tracked};

use crate::gate::{OverShare, Place, StreamPlace};
use crate::stall::{Clock, Progress};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
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

    /// Counts a stream open until its answer's body, and every [`RequestHold`] of it, are
    /// dropped.
    fn busy(self: &Arc<Self>) -> Busy {
        self.streams.fetch_add(1, Ordering::Relaxed);
        if self.open.fetch_add(1, Ordering::AcqRel) == 0 {
            self.turned.notify_waiters();
        }
        let open = Arc::new(StreamOpen {
            activity: self.clone(),
            place: self.place.stream(),
        });
        Busy {
            clock: self.progress.clock(),
            open,
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

/// A stream counted open, with its place in its client's share of streams (or why it has
/// none), for as long as its answer's body or its request's body ([`RequestHold`]) lives.
pub struct StreamOpen {
    activity: Arc<Activity>,
    place: Result<StreamPlace, OverShare>,
}

impl Drop for StreamOpen {
    fn drop(&mut self) {
        if self.activity.open.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.activity.turned.notify_waiters();
        }
    }
}

/// A request's hold on its stream, handed to the proxy as a request extension: a request body
/// still streaming keeps its stream open, and in its client's share, after the answer ended.
#[derive(Clone)]
pub struct RequestHold {
    _open: Arc<StreamOpen>,
}

impl std::fmt::Debug for RequestHold {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("RequestHold")
    }
}

/// One open stream's answer; cancelled if dropped before its answer's body ended.
pub struct Busy {
    open: Arc<StreamOpen>,
    finished: bool,
    /// Waiting on its origin (as its clock says, kept here to touch the clock on changes only).
    waiting: bool,
    clock: Arc<Clock>,
}

impl Busy {
    /// The stream starts or stops waiting on its origin; when it stops, it has handed hyper a
    /// head or a frame.
    fn wait(&mut self, waiting: bool) {
        if waiting && self.waiting {
            return;
        }
        self.waiting = waiting;
        self.open.activity.progress.waits(&self.clock, waiting);
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        if !self.finished {
            self.open.activity.cancel();
        }
    }
}
