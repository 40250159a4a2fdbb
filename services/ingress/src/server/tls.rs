//! The TLS port's connections: the handshake, bounded in time, then HTTP/2 or HTTP/1.1 as
//! ALPN chose. An HTTP/2 connection is also told GOAWAY once idle or once its client cancels
//! too much ([`crate::idle`]), and dropped if it lingers with no stream after that.

use super::{accept_each, drive, http1_builder, http2_builder};
use crate::gate::{Gate, Placed};
use crate::idle::{Activity, Tracked};
use crate::stall::Watched;
use crate::tls::automatic::{Answering, Automatic};
use bytes::Bytes;
use http::{Request, Response};
use hyper::body::{Body, Incoming};
use hyper::service::Service;
use hyper_util::rt::TokioIo;
use std::error::Error as StdError;
use std::future::pending;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Time a client has to finish the TLS handshake: a peer that opens the connection and says
/// nothing must not hold a task for ever.
const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long an HTTP/2 connection told GOAWAY may go on with no open stream before it is
/// dropped: a client that never answers the GOAWAY's PING, or never sent its preface, must
/// not hold the connection.
const GOAWAY_LINGER: Duration = Duration::from_secs(5);
/// Streams a client may still open after a GOAWAY (those it sent before it read it) before
/// the connection is dropped: hyper sends its final GOAWAY only once the client answers a
/// PING, so a client that never does could otherwise go on opening streams.
const AFTER_GOAWAY: usize = 100;

/// How the TLS port answers beside its service.
#[derive(Debug, Clone, Copy)]
pub struct TlsServing {
    /// HSTS on the answers hyper writes itself (see [`Automatic`]).
    pub hsts: bool,
    /// How long an HTTP/2 connection with no open stream is kept.
    pub http2_idle_timeout: Duration,
    /// How long a connection may take nothing of its answers ([`crate::stall`]).
    pub send_timeout: Duration,
}

/// Serves TLS on `listener` until `stop` to the connections `gate` admits:
/// `make(peer, answering)` is the connection's service, which tells `answering` what it hands
/// hyper (see [`Automatic`]).
pub async fn serve_tls<F, S, B>(
    listener: TcpListener,
    gate: Arc<Gate>,
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
    accept_each(&listener, &gate, &stop, |stream, peer, place| {
        let answering = Arc::new(Answering::default());
        let service = make(peer, answering.clone());
        let (acceptor, builders, stop) = (acceptor.clone(), builders.clone(), stop.clone());
        tasks.spawn(async move {
            let (stream, blocked) = Watched::new(stream);
            let Some(stream) = handshake(&acceptor, stream, &stop).await else {
                return;
            };
            let blocked = blocked.for_longer_than(send_timeout);
            let (http1, http2) = &*builders;
            if stream.get_ref().1.alpn_protocol() == Some(b"h2") {
                let activity = Activity::new(place);
                let service = Tracked::new(service, activity.clone());
                let connection = http2.serve_connection(TokioIo::new(stream), service);
                let done = async {
                    tokio::select! {
                        () = activity.idle_for(http2_idle_timeout) => log_idle(),
                        () = activity.unruly() => log_unruly(),
                    }
                };
                let linger = async {
                    tokio::select! {
                        () = activity.idle_for(GOAWAY_LINGER) => log_lingered(),
                        () = activity.opens_more_than(AFTER_GOAWAY) => log_ignored_goaway(),
                    }
                };
                let stalled = async {
                    tokio::select! {
                        () = activity.stalled_for(send_timeout) => {}
                        () = blocked => {}
                    }
                };
                drive(
                    connection,
                    stop,
                    done,
                    |connection| connection.graceful_shutdown(),
                    linger,
                    stalled,
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
                    blocked,
                )
                .await;
            }
        });
    })
    .await;
}

/// The TLS handshake, bounded in time and abandoned on `stop`.
async fn handshake(
    acceptor: &TlsAcceptor,
    stream: Watched<Placed<TcpStream>>,
    stop: &CancellationToken,
) -> Option<TlsStream<Watched<Placed<TcpStream>>>> {
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

fn log_ignored_goaway() {
    tracing::info!("HTTP/2 client went on opening streams after GOAWAY: dropped");
}

fn log_lingered() {
    tracing::debug!("HTTP/2 connection still open with no stream after GOAWAY: dropped");
}
