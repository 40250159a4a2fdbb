//! Active health checks: `GET <path>` on each origin of a pool that declares one, every
//! interval, on a fresh connection; a 2xx or 3xx within the timeout is up, anything else down.
//! The same loop re-resolves the pool's names first, so a new replica is checked on the tick
//! it appears.

use super::pool::RESOLVE_EVERY;
use super::{Origin, Pool, Pools};
use crate::config::HealthCheck;
use bytes::Bytes;
use http::header::{HOST, USER_AGENT};
use http_body_util::Empty;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpStream;
use tokio::task::JoinSet;
use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The `User-Agent` of a probe, so an origin's logs can tell them apart.
pub const PROBE_USER_AGENT: &str = "estate-ingress-health";

/// Starts one loop per pool that has a health check or a name to re-resolve: every
/// interval it re-resolves the pool's names, then probes each of its origins at once. The
/// loops end when `stop` is cancelled.
pub fn spawn_checks(pools: &Pools, stop: &CancellationToken, tasks: &TaskTracker) {
    for pool in pools.iter() {
        if pool.health_check().is_none() && !pool.has_names() {
            continue;
        }
        let (pool, stop) = (pool.clone(), stop.clone());
        tasks.spawn(async move {
            let interval = pool
                .health_check()
                .map_or(RESOLVE_EVERY, |check| check.interval);
            let mut ticks = tokio::time::interval(interval);
            ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    () = stop.cancelled() => break,
                    _ = ticks.tick() => {}
                }
                if pool.has_names() {
                    pool.resolve().await;
                }
                if let Some(check) = pool.health_check() {
                    check_all(&pool, check).await;
                }
            }
        });
    }
}

/// Probes every origin of `pool` at once and records each answer.
async fn check_all(pool: &Pool, check: &HealthCheck) {
    let mut probes = JoinSet::new();
    for origin in pool.origins().iter() {
        let (origin, path, timeout) = (origin.clone(), check.path.clone(), check.timeout);
        probes.spawn(async move {
            let healthy = probe(origin.dial(), &path, timeout).await;
            (origin, healthy)
        });
    }
    while let Some(Ok((origin, healthy))) = probes.join_next().await {
        record(&origin, pool.service(), healthy);
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
