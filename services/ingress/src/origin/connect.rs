//! Opening a connection to an origin: TCP with a timeout, `TCP_NODELAY`, keep-alive probes,
//! then hyper's HTTP/1 client handshake (with upgrades, for WebSocket), over a stream that
//! counts what the origin sends back.
//!
//! A failure here happens before any byte of the request is written, which is what makes a
//! retry safe for every method.

use super::counted::Counted;
use crate::config::OriginRequest;
use crate::proxy::UpstreamBody;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::net::TcpStream;

/// The sending half of one origin connection; proxied bodies stream through unbuffered.
pub type Sender = http1::SendRequest<UpstreamBody>;

/// One origin connection: where requests are sent, and how many bytes the origin has sent
/// back on it so far.
#[derive(Debug)]
pub struct Connection {
    /// The sending half.
    pub sender: Sender,
    received: Arc<AtomicU64>,
}

impl Connection {
    /// Bytes the origin has sent on this connection so far.
    pub fn received(&self) -> u64 {
        self.received.load(Ordering::Relaxed)
    }
}

/// Connects to `dial` (`host:port`, resolved on every call so a DNS name with several
/// replicas spreads), within `timeout`.
pub async fn open(
    dial: &str,
    settings: &OriginRequest,
    timeout: Duration,
) -> io::Result<Connection> {
    let stream = tokio::time::timeout(timeout, TcpStream::connect(dial))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))??;
    stream.set_nodelay(true)?;
    let keepalive = socket2::TcpKeepalive::new().with_time(settings.tcp_keep_alive);
    socket2::SockRef::from(&stream).set_tcp_keepalive(&keepalive)?;
    let received = Arc::new(AtomicU64::new(0));
    let (sender, connection) = http1::Builder::new()
        .handshake(TokioIo::new(Counted::new(stream, received.clone())))
        .await
        .map_err(io::Error::other)?;
    let dial = dial.to_owned();
    tokio::spawn(async move {
        if let Err(error) = connection.with_upgrades().await {
            log_connection_end(&dial, &error);
        }
    });
    Ok(Connection { sender, received })
}

fn log_connection_end(dial: &str, error: &hyper::Error) {
    tracing::debug!(origin = dial, %error, "origin connection ended with an error");
}
