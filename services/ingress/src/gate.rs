//! The edge's bounds on connections and streams, per client and for everyone
//! (`estate.maxConnections`, `estate.maxConnectionsPerClient`, `estate.maxStreamsPerClient`).
//!
//! A client is its subscriber ([`Subscriber`]: an IPv4 address, an IPv6 /64), so a client
//! cannot take a fresh share by picking another address of its own network. A connection
//! from a client already holding its share is closed at once, before a byte is read or a TLS
//! handshake starts. Once every place is taken, the accept loops wait for one to be free
//! (the kernel's backlog holds what arrives meanwhile), so the process never holds more
//! connections than its bound, however many clients ask.
//!
//! A [`Place`] lives as long as its connection's socket: [`Placed`] wraps the socket, so a
//! WebSocket tunnel, which carries the socket on after HTTP ends, keeps its connection's
//! place until it closes. An HTTP/2 stream holds a [`StreamPlace`] from its request to the
//! end of its answer's body, or of its request's body if that ends later; past the client's
//! share of streams in flight, across all of its connections, a stream is answered `429`
//! ([`OverShare`]). Its cancelled streams are counted over all its connections too
//! ([`Place::cancelled`]), and while it is in debt of that budget its streams are `429` too.

use crate::cancel_budget::CancelBudget;
use crate::config::ClientBounds;
use platform_core::subscriber::{DEFAULT_IPV6_PREFIX, Subscriber};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// What the gate reports: connections open now, and those refused for a client's share.
#[derive(Debug, Clone, Default)]
pub struct GateMetrics {
    /// Client connections holding a place.
    pub open: Gauge,
    /// Connections closed at once because their client held its share.
    pub refused: Counter,
}

/// One client's connections and streams in flight.
#[derive(Debug, Default)]
struct Share {
    connections: usize,
    streams: usize,
}

/// Every place at the edge, and who holds them.
#[derive(Debug)]
pub struct Gate {
    room: Arc<Semaphore>,
    per_client: usize,
    streams_per_client: usize,
    clients: Mutex<HashMap<Subscriber, Share>>,
    /// None on a port that speaks HTTP/1.1 only, where nothing is cancelled.
    cancels: Option<CancelBudget>,
    metrics: GateMetrics,
}

impl Gate {
    /// A gate with `bounds`, reporting to `metrics`; the error is the cancel budget's.
    pub fn new(bounds: &ClientBounds, metrics: GateMetrics) -> Result<Arc<Self>, String> {
        let cancels = CancelBudget::new(bounds.cancelled_streams_per_client)?;
        Ok(Self::with(bounds, Some(cancels), metrics))
    }

    /// A gate for a port that speaks HTTP/1.1 only (the admin port): its connections'
    /// bounds, no cancel budget (nothing there is cancelled), no metrics.
    pub fn http1_only(bounds: &ClientBounds) -> Arc<Self> {
        Self::with(bounds, None, GateMetrics::default())
    }

    fn with(
        bounds: &ClientBounds,
        cancels: Option<CancelBudget>,
        metrics: GateMetrics,
    ) -> Arc<Self> {
        Arc::new(Self {
            room: Arc::new(Semaphore::new(bounds.max_connections)),
            per_client: bounds.max_connections_per_client,
            streams_per_client: bounds.max_streams_per_client,
            clients: Mutex::new(HashMap::new()),
            cancels,
            metrics,
        })
    }

    /// A place for a connection from `peer`, once there is room; `None` at once when its
    /// client already holds its share (the caller closes the connection).
    pub async fn admit(self: &Arc<Self>, peer: SocketAddr) -> Option<Place> {
        let subscriber = Subscriber::of(peer.ip(), DEFAULT_IPV6_PREFIX);
        if !self.count(subscriber, |share| {
            grow(&mut share.connections, self.per_client)
        }) {
            self.metrics.refused.inc();
            return None;
        }
        let ticket = Ticket {
            gate: self.clone(),
            subscriber,
        };
        // Never closed, so acquiring only waits.
        let room = self.room.clone().acquire_owned().await.ok()?;
        self.metrics.open.inc();
        Some(Place {
            ticket,
            _room: room,
        })
    }

    /// Applies `change` to `subscriber`'s share (made if it has none, removed once empty).
    fn count(&self, subscriber: Subscriber, change: impl FnOnce(&mut Share) -> bool) -> bool {
        let mut clients = self.clients.lock().unwrap_or_else(PoisonError::into_inner);
        let share = clients.entry(subscriber).or_default();
        let changed = change(share);
        if share.connections == 0 && share.streams == 0 {
            clients.remove(&subscriber);
        }
        changed
    }
}

/// Adds one to `count` if it is below `bound`.
fn grow(count: &mut usize, bound: usize) -> bool {
    let room = *count < bound;
    if room {
        *count += 1;
    }
    room
}

/// A connection counted in its client's share, until dropped.
#[derive(Debug)]
struct Ticket {
    gate: Arc<Gate>,
    subscriber: Subscriber,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.gate.count(self.subscriber, |share| {
            share.connections = share.connections.saturating_sub(1);
            true
        });
    }
}

/// One connection's place at the edge: its client's share and a room of the total.
#[derive(Debug)]
pub struct Place {
    ticket: Ticket,
    _room: OwnedSemaphorePermit,
}

impl Place {
    /// A place for one more stream of this connection's client; none past its share of
    /// streams, or while it is in debt of its cancel budget.
    pub fn stream(&self) -> Result<StreamPlace, OverShare> {
        let Ticket { gate, subscriber } = &self.ticket;
        if let Some(left) = gate
            .cancels
            .as_ref()
            .and_then(|cancels| cancels.debt(*subscriber))
        {
            return Err(OverShare::Cancels(left));
        }
        let placed = gate.count(*subscriber, |share| {
            grow(&mut share.streams, gate.streams_per_client)
        });
        if !placed {
            return Err(OverShare::Streams);
        }
        Ok(StreamPlace {
            gate: gate.clone(),
            subscriber: *subscriber,
        })
    }

    /// Counts a cancelled stream of this connection's client ([`crate::cancel_budget`]):
    /// whether the client was still within its budget.
    pub fn cancelled(&self) -> bool {
        let Ticket { gate, subscriber } = &self.ticket;
        gate.cancels
            .as_ref()
            .is_none_or(|cancels| cancels.spend(*subscriber))
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        self.ticket.gate.metrics.open.dec();
    }
}

/// One HTTP/2 stream counted in its client's share, until dropped.
#[derive(Debug)]
pub struct StreamPlace {
    gate: Arc<Gate>,
    subscriber: Subscriber,
}

impl Drop for StreamPlace {
    fn drop(&mut self) {
        self.gate.count(self.subscriber, |share| {
            share.streams = share.streams.saturating_sub(1);
            true
        });
    }
}

/// Marks a request whose client had no stream place: the edge answers it `429`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OverShare {
    /// Its client has its share of streams in flight.
    Streams,
    /// Its client is in debt of its cancel budget, for this long still.
    Cancels(Duration),
}

pin_project_lite::pin_project! {
    /// A client socket holding its [`Place`] for as long as it is open.
    pub struct Placed<S> {
        #[pin]
        inner: S,
        place: Arc<Place>,
    }
}

impl<S> Placed<S> {
    /// `inner`, holding `place`.
    pub fn new(inner: S, place: Arc<Place>) -> Self {
        Self { inner, place }
    }
}

impl<S: AsyncRead> AsyncRead for Placed<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.project().inner.poll_read(cx, buf)
    }
}

impl<S: AsyncWrite> AsyncWrite for Placed<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        self.project().inner.poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }
}
