//! Running an actix-web service: the run loop that drains in-flight requests when SIGTERM
//! arrives instead of dropping them. Where it listens is [`ListenConfig`] (the framework-free
//! core's, re-exported here).

mod bound;

pub use bound::Bound;
pub use platform_core::listen::{ENV_BIND_ADDR, ENV_PORT, ENV_SHUTDOWN_DELAY_MS, ListenConfig};

use crate::shutdown::StopSignal;
use actix_web::dev::{Server, ServerHandle};
use std::time::Duration;

/// How long a drain may take before open connections are cut.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs a server (built with `.disable_signals()`) until SIGTERM or Ctrl-C. Then health turns
/// 503 ([`crate::health`]) while requests are still served for `shutdown_delay`; then the
/// server stops taking connections and lets in-flight requests finish, for at most
/// [`DRAIN_TIMEOUT`].
async fn run_until_stopped(
    server: Server,
    service: &str,
    shutdown_delay: Duration,
) -> std::io::Result<()> {
    let stop = crate::shutdown::signal()?;
    let handle = server.handle();
    let running = tokio::spawn(server);
    drain(stop.await, handle, service, shutdown_delay).await;
    running.await.map_err(std::io::Error::other)?
}

async fn drain(signal: StopSignal, handle: ServerHandle, service: &str, delay: Duration) {
    crate::health::announce_stop();
    log_stop(service, signal, delay);
    tokio::time::sleep(delay).await;
    handle.stop(true).await;
    log_drained(service);
}

fn log_stop(service: &str, signal: StopSignal, delay: Duration) {
    tracing::info!(
        service,
        signal = signal.name(),
        delay_ms = delay.as_millis(),
        "stop requested; health answers 503, then in-flight requests drain"
    );
}

fn log_drained(service: &str) {
    tracing::info!(service, "drained; exiting");
}
