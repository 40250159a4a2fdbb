//! Opening a connection to an origin: TCP with a timeout, `TCP_NODELAY`, keep-alive probes,
//! then hyper's HTTP/1 client handshake (with upgrades, for WebSocket).
//!
//! A failure here happens before any byte of the request is written, which is what makes a
//! retry safe for every method.

use crate::config::OriginRequest;
use crate::proxy::UpstreamBody;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use std::io;
use std::time::Duration;
use tokio::net::TcpStream;

/// The sending half of one origin connection; proxied bodies stream through unbuffered.
pub type Sender = http1::SendRequest<UpstreamBody>;

/// Connects to `dial` (`host:port`, resolved on every call so a DNS name with several
/// replicas spreads), within `timeout`.
pub async fn open(dial: &str, settings: &OriginRequest, timeout: Duration) -> io::Result<Sender> {
    let stream = tokio::time::timeout(timeout, TcpStream::connect(dial))
        .await
        .map_err(|_| io::Error::new(io::ErrorKind::TimedOut, "connect timed out"))??;
    stream.set_nodelay(true)?;
    let keepalive = socket2::TcpKeepalive::new().with_time(settings.tcp_keep_alive);
    socket2::SockRef::from(&stream).set_tcp_keepalive(&keepalive)?;
    let (sender, connection) = http1::Builder::new()
        .handshake(TokioIo::new(stream))
        .await
        .map_err(io::Error::other)?;
    let dial = dial.to_owned();
    tokio::spawn(async move {
        if let Err(error) = connection.with_upgrades().await {
            log_connection_end(&dial, &error);
        }
    });
    Ok(sender)
}

fn log_connection_end(dial: &str, error: &hyper::Error) {
    tracing::debug!(origin = dial, %error, "origin connection ended with an error");
}
