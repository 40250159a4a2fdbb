//! The accept loops: plain HTTP/1.1 (the proxy's plain port and the admin port) and TLS (the
//! proxy's TLS port: HTTP/2 or HTTP/1.1 as ALPN chose). Both keep connections alive, allow upgrades, run one task per connection and
//! stop gracefully (an HTTP/2 connection also after [`crate::idle`]'s timeout): when `stop` is cancelled the listener closes (new connections are
//! refused), idle connections close, in-flight HTTP/1.1 requests finish with
//! `Connection: close` and HTTP/2 connections get a GOAWAY and finish their open streams; the
//! caller waits for `tasks` within its deadline.

use crate::idle::{Activity, Tracked};
use crate::tls::automatic::{Answering, Automatic};
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
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Time a client has to send a request head.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Largest request head (request line and headers), in both protocols: past it, `431`.
/// HTTP/1.1's read buffer is bounded to the same size (hyper's default is ~400 KiB, and it
/// grows by doubling): a head that never ends then holds at most this much, not four times
/// what the client sent.
const MAX_HEADER_BYTES: usize = 64 * 1024;
/// Time a client has to finish the TLS handshake: a peer that opens the connection and says
/// nothing must not hold a task for ever.
const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an HTTP/2 connection told GOAWAY may go on with no open stream before it is
/// dropped: a client that never answers the GOAWAY's PING, or never sent its preface, must
/// not hold the connection.
const GOAWAY_LINGER: Duration = Duration::from_secs(5);
/// Pause after a failed accept (out of file descriptors, say) before the next.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves plain HTTP/1.1 on `listener` until `stop`, one `make(peer)` service per connection.
pub async fn serve<F, S, B>(
    listener: TcpListener,
    make: F,
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
    accept_each(&listener, &stop, |stream, peer| {
        let connection = builder
            .serve_connection(TokioIo::new(stream), make(peer))
            .with_upgrades();
        tasks.spawn(drive(
            connection,
            stop.clone(),
            pending(),
            |connection| connection.graceful_shutdown(),
            pending(),
        ));
    })
    .await;
}

/// How the TLS port answers beside its service.
#[derive(Debug, Clone, Copy)]
pub struct TlsServing {
    /// HSTS on the answers hyper writes itself (see [`Automatic`]).
    pub hsts: bool,
    /// How long an HTTP/2 connection with no open stream is kept.
    pub http2_idle_timeout: Duration,
    /// How long an HTTP/2 connection's open streams may all wait on the client.
    pub send_timeout: Duration,
}

/// Serves TLS on `listener` until `stop`: `make(peer, answering)` is the connection's
/// service, which tells `answering` what it hands hyper (see [`Automatic`]).
pub async fn serve_tls<F, S, B>(
    listener: TcpListener,
    acceptor: TlsAcceptor,
    serving: TlsServing,
    make: F,
    stop: CancellationToken,
    tasks: TaskTracker,
) where
    F: Fn(SocketAddr, Arc<Answering>) -> S,
    S: Service<Request<Incoming>, Response = Response<B>> + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Into<Box<dyn StdError + Send + Sync>>,
    B: Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let builders = Arc::new((http1_builder(), http2_builder()));
    let TlsServing {
        hsts,
        http2_idle_timeout,
        send_timeout,
    } = serving;
    accept_each(&listener, &stop, |stream, peer| {
        let answering = Arc::new(Answering::default());
        let service = make(peer, answering.clone());
        let (acceptor, builders, stop) = (acceptor.clone(), builders.clone(), stop.clone());
        tasks.spawn(async move {
            let Some(stream) = handshake(&acceptor, stream, &stop).await else {
                return;
            };
            let (http1, http2) = &*builders;
            if stream.get_ref().1.alpn_protocol() == Some(b"h2") {
                let activity = Activity::new();
                let service = Tracked::new(service, activity.clone());
                let connection = http2.serve_connection(TokioIo::new(stream), service);
                let done = async {
                    tokio::select! {
                        () = activity.idle_for(http2_idle_timeout) => log_idle(),
                        () = activity.unruly() => log_unruly(),
                        () = activity.stalled_for(send_timeout) => log_stalled(),
                    }
                };
                // Streams the client takes nothing of never end: they do not hold it either.
                let linger = async {
                    tokio::select! {
                        () = activity.idle_for(GOAWAY_LINGER) => log_lingered(),
                        () = activity.stalled_for(send_timeout) => log_stalled(),
                    }
                };
                drive(
                    connection,
                    stop,
                    done,
                    |connection| connection.graceful_shutdown(),
                    linger,
                )
                .await;
            } else {
                let io = TokioIo::new(Automatic::new(stream, hsts, answering));
                let connection = http1.serve_connection(io, service).with_upgrades();
                drive(
                    connection,
                    stop,
                    pending(),
                    |connection| connection.graceful_shutdown(),
                    pending(),
                )
                .await;
            }
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
        .max_header_list_size(u32::try_from(MAX_HEADER_BYTES).unwrap_or(u32::MAX));
    builder
}

/// Accepts until `stop`, handing each connection to `each`.
async fn accept_each(
    listener: &TcpListener,
    stop: &CancellationToken,
    mut each: impl FnMut(TcpStream, SocketAddr),
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
        let _ = stream.set_nodelay(true);
        each(stream, peer);
    }
}

/// The TLS handshake, bounded in time and abandoned on `stop`.
async fn handshake(
    acceptor: &TlsAcceptor,
    stream: TcpStream,
    stop: &CancellationToken,
) -> Option<TlsStream<TcpStream>> {
    let accepted = tokio::select! {
        () = stop.cancelled() => return None,
        accepted = tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, acceptor.accept(stream)) => accepted,
    };
    match accepted {
        Ok(Ok(stream)) => Some(stream),
        Ok(Err(error)) => {
            log_handshake_failed(&error);
            None
        }
        Err(_) => {
            log_handshake_timed_out();
            None
        }
    }
}

/// Runs one connection; on `stop` or once `done` resolves, asks it to finish gracefully (an
/// HTTP/2 one is sent GOAWAY) and waits for it, or drops it once `linger` resolves.
async fn drive<C, E>(
    connection: C,
    stop: CancellationToken,
    done: impl Future<Output = ()>,
    shutdown: fn(Pin<&mut C>),
    linger: impl Future<Output = ()>,
) where
    C: Future<Output = Result<(), E>>,
    E: Display,
{
    tokio::pin!(connection);
    let asked = tokio::select! {
        ended = connection.as_mut() => Some(ended),
        () = stop.cancelled() => None,
        () = done => None,
    };
    let ended = match asked {
        Some(ended) => ended,
        None => {
            shutdown(connection.as_mut());
            tokio::select! {
                ended = connection => ended,
                () = linger => Ok(()),
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

fn log_handshake_failed(error: &std::io::Error) {
    tracing::debug!(%error, "TLS handshake failed");
}

fn log_handshake_timed_out() {
    tracing::debug!("TLS handshake timed out");
}

fn log_idle() {
    tracing::debug!("HTTP/2 connection idle: GOAWAY");
}

fn log_unruly() {
    tracing::info!("HTTP/2 client cancelled most of its streams: GOAWAY");
}

fn log_stalled() {
    tracing::info!("HTTP/2 client took no answer data for the send timeout: closed");
}

fn log_lingered() {
    tracing::debug!("HTTP/2 connection still open with no stream after GOAWAY: dropped");
}

fn log_connection_failed(error: &dyn Display) {
    tracing::debug!(%error, "client connection ended with an error");
}
