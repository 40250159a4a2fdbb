//! Active health checks: `GET <path>` on each origin of a pool that declares one, every
//! interval, on a fresh connection; a 2xx or 3xx within the timeout is up, anything else down.

use super::{Origin, Pools};
use bytes::Bytes;
use http::header::{HOST, USER_AGENT};
use http_body_util::Empty;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The `User-Agent` of a probe, so an origin's logs can tell them apart.
pub const PROBE_USER_AGENT: &str = "estate-ingress-health";

/// Starts one probe loop per checked origin; they end when `stop` is cancelled.
pub fn spawn_checks(pools: &Pools, stop: &CancellationToken, tasks: &TaskTracker) {
    for pool in pools.iter() {
        let Some(check) = pool.health_check() else {
            continue;
        };
        for origin in pool.origins() {
            let (origin, check, stop) = (origin.clone(), check.clone(), stop.clone());
            let service = pool.service().to_owned();
            tasks.spawn(async move {
                let mut ticks = tokio::time::interval(check.interval);
                ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
                loop {
                    tokio::select! {
                        _ = stop.cancelled() => break,
                        _ = ticks.tick() => {}
                    }
                    let healthy = probe(origin.dial(), &check.path, check.timeout).await;
                    record(&origin, &service, healthy);
                }
            });
        }
    }
}

fn record(origin: &Arc<Origin>, service: &str, healthy: bool) {
    if origin.set_healthy(healthy) {
        let state = if healthy { "up" } else { "down" };
        tracing::info!(
            origin = origin.dial(),
            service,
            state,
            "origin health changed"
        );
    }
}

/// One probe: whether `GET path` on `dial` answers 2xx or 3xx within `timeout`.
pub async fn probe(dial: &str, path: &str, timeout: Duration) -> bool {
    let attempt = async {
        let stream = TcpStream::connect(dial).await.ok()?;
        let (mut sender, connection) = http1::handshake(TokioIo::new(stream)).await.ok()?;
        tokio::spawn(connection);
        let request = http::Request::get(path)
            .header(HOST, dial)
            .header(USER_AGENT, PROBE_USER_AGENT)
            .body(Empty::<Bytes>::new())
            .ok()?;
        let status = sender.send_request(request).await.ok()?.status();
        Some(status.is_success() || status.is_redirection())
    };
    tokio::time::timeout(timeout, attempt)
        .await
        .ok()
        .flatten()
        .unwrap_or(false)
}
