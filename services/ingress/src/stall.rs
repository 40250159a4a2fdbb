//! The send timeout (`estate.sendTimeout`, nginx's `send_timeout`): a client connection that
//! has taken nothing of its answers for that long is closed, for each such answer may hold an
//! origin connection, and a client would otherwise hold them for as long as it likes. Over
//! HTTP/1.1 that is a write blocked that long ([`Watched`]: the client does not read, its
//! receive window is full). Over HTTP/2 it is a connection whose open streams have all waited
//! on the client that long (a flow-control window it never opens, so their answers cannot be
//! sent); a blocked socket is one such wait.
//!
//! Over HTTP/2 it is a connection with one stream that has waited on the client that long,
//! other streams' answers notwithstanding: a client that keeps one cheap stream busy must not
//! hold the others. A stream waits on its origin from its request until its answer's head, and
//! again whenever its body has no frame ready (a long poll, a slow download); otherwise what it
//! has is the client's to take. Each stream's [`Clock`] keeps whether it waits on its origin and
//! the last time it handed hyper a head or a frame; [`Progress`] holds every open stream's.
//! hyper offers no way to reset one stream from outside (it polls an answer's body only once
//! the client's window has room), so the whole connection goes, where nginx resets the stream.

use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;
use tokio::time::Instant;

/// One stream's clock: when it last handed hyper a head or a frame, and whether it waits on
/// its origin now.
pub struct Clock {
    handed: AtomicU64,
    waiting: AtomicBool,
}

/// Every open stream's [`Clock`] on one connection.
pub struct Progress {
    started: Instant,
    clocks: Mutex<Vec<Weak<Clock>>>,
    /// How many clocks the list may hold before the closed streams' are swept out.
    sweep_at: AtomicUsize,
}

impl Default for Progress {
    /// A connection with no stream yet.
    fn default() -> Self {
        Self {
            started: Instant::now(),
            clocks: Mutex::new(Vec::new()),
            sweep_at: AtomicUsize::new(SWEEP_FLOOR),
        }
    }
}

/// Clocks a connection keeps before the first sweep of closed streams' clocks.
const SWEEP_FLOOR: usize = 64;

impl Progress {
    /// A clock for a new stream, waiting on its origin for its answer's head.
    pub fn clock(&self) -> Arc<Clock> {
        let clock = Arc::new(Clock {
            handed: AtomicU64::new(self.now()),
            waiting: AtomicBool::new(true),
        });
        let mut clocks = self.clocks.lock().unwrap_or_else(PoisonError::into_inner);
        if clocks.len() >= self.sweep_at.load(Ordering::Relaxed) {
            // Amortized: the list is swept when it has doubled since the last sweep.
            clocks.retain(|clock| clock.strong_count() > 0);
            self.sweep_at
                .store((clocks.len() * 2).max(SWEEP_FLOOR), Ordering::Relaxed);
        }
        clocks.push(Arc::downgrade(&clock));
        clock
    }

    /// `clock`'s stream starts (`true`) or stops waiting on its origin; when it stops, it has
    /// handed hyper a head or a frame.
    pub fn waits(&self, clock: &Clock, waiting: bool) {
        clock.waiting.store(waiting, Ordering::Relaxed);
        if !waiting {
            clock.handed.store(self.now(), Ordering::Relaxed);
        }
    }

    /// Resolves once an open stream has neither waited on its origin nor handed hyper
    /// anything for `timeout` (its answer waits on the client): checked every quarter of it.
    pub async fn stalled_for(&self, timeout: Duration) {
        let tick = (timeout / 4).max(Duration::from_millis(100));
        let limit = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        loop {
            tokio::time::sleep(tick).await;
            let now = self.now();
            let mut clocks = self.clocks.lock().unwrap_or_else(PoisonError::into_inner);
            clocks.retain(|clock| clock.strong_count() > 0);
            let stalled = clocks.iter().filter_map(Weak::upgrade).any(|clock| {
                !clock.waiting.load(Ordering::Relaxed)
                    && now.saturating_sub(clock.handed.load(Ordering::Relaxed)) >= limit
            });
            if stalled {
                return;
            }
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }
}

/// Since when writes to a client have been blocked (its receive window full: a client that
/// does not read its answer), for HTTP/1.1 and under TLS.
pub struct Blocked {
    started: Instant,
    /// Milliseconds from `started` plus one to the first blocked write; 0 while none is.
    since: AtomicU64,
    /// Told when writes become blocked.
    turned: Notify,
}

impl Blocked {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            since: AtomicU64::new(0),
            turned: Notify::new(),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn blocked(&self) {
        if self.since.load(Ordering::Relaxed) == 0 {
            self.since.store(self.now() + 1, Ordering::Relaxed);
            self.turned.notify_waiters();
        }
    }

    fn unblocked(&self) {
        if self.since.load(Ordering::Relaxed) != 0 {
            self.since.store(0, Ordering::Relaxed);
        }
    }

    /// Resolves once a write has been blocked for `timeout` without a pause.
    pub async fn for_longer_than(&self, timeout: Duration) {
        let limit = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        loop {
            let turned = self.turned.notified();
            tokio::pin!(turned);
            // Listening before looking, so a block right after the look is not missed.
            turned.as_mut().enable();
            let since = self.since.load(Ordering::Relaxed);
            if since == 0 {
                turned.await;
                continue;
            }
            let blocked_for = (self.now() + 1).saturating_sub(since);
            if blocked_for >= limit {
                return;
            }
            tokio::time::sleep(Duration::from_millis(limit - blocked_for)).await;
        }
    }
}

/// A client connection whose blocked writes are timed in its [`Blocked`].
pub struct Watched<S> {
    inner: S,
    blocked: Arc<Blocked>,
}

impl<S> Watched<S> {
    /// `inner`, and what its writes' blocking is timed in.
    pub fn new(inner: S) -> (Self, Arc<Blocked>) {
        let blocked = Arc::new(Blocked::new());
        let watched = Self {
            inner,
            blocked: blocked.clone(),
        };
        (watched, blocked)
    }

    fn noted<T>(&self, written: Poll<T>) -> Poll<T> {
        if written.is_pending() {
            self.blocked.blocked();
        } else {
            self.blocked.unblocked();
        }
        written
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.noted(written)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let written = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.noted(written)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let flushed = Pin::new(&mut self.inner).poll_flush(cx);
        self.noted(flushed)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
