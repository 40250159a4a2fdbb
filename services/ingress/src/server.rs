//! The accept loop shared by the proxy and admin ports: HTTP/1.1 with keep-alive and
//! upgrades, one task per connection, and a graceful stop: when `stop` is cancelled the
//! listener closes (new connections are refused), idle connections close, and in-flight
//! requests finish with `Connection: close`; the caller waits for `tasks` within its deadline.

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::{Body, Incoming};
use hyper::server::conn::http1;
use hyper::service::Service;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::error::Error as StdError;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Time a client has to send a request head.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Pause after a failed accept (out of file descriptors, say) before the next.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Serves `listener` until `stop`, one `make(peer)` service per connection.
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
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
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
        let connection = builder
            .serve_connection(TokioIo::new(stream), make(peer))
            .with_upgrades();
        let stop = stop.clone();
        tasks.spawn(async move {
            tokio::pin!(connection);
            let ended = tokio::select! {
                ended = connection.as_mut() => ended,
                () = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = ended {
                log_connection_failed(&error);
            }
        });
    }
}

fn log_accept_failed(error: &std::io::Error) {
    tracing::warn!(%error, "accept failed");
}

fn log_connection_failed(error: &hyper::Error) {
    tracing::debug!(%error, "client connection ended with an error");
}
