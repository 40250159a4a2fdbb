//! The accept loops: plain HTTP/1.1 (the proxy's plain port and the admin port) and TLS (the
//! proxy's TLS port: HTTP/2 or HTTP/1.1 as ALPN chose, [`tls`]). Both keep connections alive,
//! allow upgrades and run one task per connection. A connection that has taken nothing of its
//! answers for the send timeout is dropped ([`crate::stall`]). Each connection holds a place
//! at the [`Gate`] while its socket is open. They stop gracefully (an HTTP/2
//! connection also after [`crate::idle`]'s timeout): when `stop` is cancelled the listener
//! closes (new connections are refused), idle connections close, in-flight HTTP/1.1 requests
//! finish with `Connection: close` and HTTP/2 connections get a GOAWAY and finish their open
//! streams; the caller waits for `tasks` within its deadline.

use crate::gate::{Gate, Place, Placed};
use crate::stall::Watched;
use bytes::Bytes;
use http::{Request, Response};
use hyper::body::{Body, Incoming};
use hyper::server::conn::{http1, http2};
use hyper::service::Service;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use std::error::Error as StdError;
use std::fmt::Display;
use std::future::pending;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

mod tls;

pub use tls::{TlsServing, serve_tls};

/// Time a client has to send a request head.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Largest request head (request line and headers), in both protocols: past it, `431`.
/// HTTP/1.1's read buffer is bounded to the same size (hyper's default is ~400 KiB, and it
/// grows by doubling): a head that never ends then holds at most this much, not four times
/// what the client sent.
const MAX_HEADER_BYTES: usize = 64 * 1024;
/// HTTP/2 streams one connection may have open at once (nginx's `http2_max_concurrent_streams`;
/// hyper's default is 200).
const MAX_STREAMS_PER_CONNECTION: u32 = 128;
/// Pause after a failed accept (out of file descriptors, say) before the next.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves plain HTTP/1.1 on `listener` until `stop`, one `make(peer)` service per connection
/// admitted by `gate`; a connection whose writes have been blocked for `send_timeout` is
/// dropped.
pub async fn serve<F, S, B>(
    listener: TcpListener,
    gate: Arc<Gate>,
    make: F,
    send_timeout: Duration,
    stop: CancellationToken,
    tasks: TaskTracker,
) where
    F: Fn(SocketAddr) -> S,
    S: Service<Request<Incoming>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let builder = http1_builder();
    accept_each(&listener, &gate, &stop, |stream, peer, _| {
        let (stream, blocked) = Watched::new(stream);
        let connection = builder
            .serve_connection(TokioIo::new(stream), make(peer))
            .with_upgrades();
        let stop = stop.clone();
        tasks.spawn(async move {
            drive(
                connection,
                stop,
                pending(),
                |connection| connection.graceful_shutdown(),
                pending(),
                blocked.for_longer_than(send_timeout),
            )
            .await;
        });
    })
    .await;
}

/// HTTP/1.1 as both ports speak it. hyper-util's `auto` builder would sniff for HTTP/2
/// instead of trusting ALPN and cannot bound the head exactly ([`MAX_HEADER_BYTES`]), so
/// each protocol has hyper's own builder.
fn http1_builder() -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT)
        .max_header_size(MAX_HEADER_BYTES)
        .max_buf_size(MAX_HEADER_BYTES);
    builder
}

/// HTTP/2 on connections that chose `h2` by ALPN.
fn http2_builder() -> http2::Builder<TokioExecutor> {
    let mut builder = http2::Builder::new(TokioExecutor::new());
    builder
        .timer(TokioTimer::new())
        .max_header_list_size(u32::try_from(MAX_HEADER_BYTES).unwrap_or(u32::MAX))
        .max_concurrent_streams(MAX_STREAMS_PER_CONNECTION);
    builder
}

/// Accepts until `stop`, handing each connection `gate` admits to `each`, holding its place;
/// one whose client holds its share is closed at once. While the gate has no room, accepting
/// waits.
async fn accept_each(
    listener: &TcpListener,
    gate: &Arc<Gate>,
    stop: &CancellationToken,
    mut each: impl FnMut(Placed<TcpStream>, SocketAddr, Arc<Place>),
) {
    loop {
        let (stream, peer) = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    log_accept_failed(&error);
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
        };
        let admitted = tokio::select! {
            () = stop.cancelled() => break,
            admitted = gate.admit(peer) => admitted,
        };
        let Some(place) = admitted else {
            log_refused(peer);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let place = Arc::new(place);
        each(Placed::new(stream, place.clone()), peer, place);
    }
}

/// Runs one connection; on `stop` or once `done` resolves, asks it to finish gracefully (an
/// HTTP/2 one is sent GOAWAY) and waits for it, or drops it once `linger` resolves. Once
/// `stalled` resolves (the client has taken nothing for the send timeout), drops it at once.
async fn drive<C, E>(
    connection: C,
    stop: CancellationToken,
    done: impl Future<Output = ()>,
    shutdown: fn(Pin<&mut C>),
    linger: impl Future<Output = ()>,
    stalled: impl Future<Output = ()>,
) where
    C: Future<Output = Result<(), E>>,
    E: Display,
{
    tokio::pin!(connection);
    tokio::pin!(stalled);
    let asked = tokio::select! {
        ended = connection.as_mut() => Some(ended),
        () = stop.cancelled() => None,
        () = done => None,
        () = stalled.as_mut() => return log_stalled(),
    };
    let ended = match asked {
        Some(ended) => ended,
        None => {
            shutdown(connection.as_mut());
            tokio::select! {
                ended = connection => ended,
                () = linger => Ok(()),
                () = stalled => return log_stalled(),
            }
        }
    };
    if let Err(error) = ended {
        log_connection_failed(&error);
    }
}

fn log_accept_failed(error: &std::io::Error) {
    tracing::warn!(%error, "accept failed");
}

fn log_refused(peer: SocketAddr) {
    // Counted in `ingress_client_connections_refused_total`; at debug, so a flood of
    // connections cannot flood the log.
    tracing::debug!(%peer, "the client holds its share of connections: closed");
}

fn log_stalled() {
    tracing::info!("the client took nothing of its answers for the send timeout: closed");
}

fn log_connection_failed(error: &dyn Display) {
    tracing::debug!(%error, "client connection ended with an error");
}
