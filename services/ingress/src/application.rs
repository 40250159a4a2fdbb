//! Building and running the ingress: read and validate the file, bind every port (so their
//! numbers are known before serving), then serve until SIGTERM and drain.
//!
//! The drain: the admin health turns 503, the proxied listener closes (new connections are
//! refused, so a peer ingress or a load balancer moves on), idle keep-alive connections
//! close, in-flight requests and open tunnels get `estate.drainTimeout` to finish, and
//! whatever is still open then is cut when the process exits.

use crate::admin::Admin;
use crate::config::{ClientBounds, IngressConfig};
use crate::gate::Gate;
use crate::metrics::Metrics;
use crate::origin::{self, Pools};
use crate::proxy::Proxy;
use crate::server::{self, TlsServing};
use crate::settings::Settings;
use crate::tls::{Edge, Tls, Transports};
use crate::workers::{self, Listeners};
use hyper::service::service_fn;
use platform_core::StartFailure;
use prometheus_client::registry::Registry;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The admin port's bounds: its clients are the estate's own (health checks, Prometheus),
/// but a port that answers must not hold unbounded connections either.
const ADMIN_BOUNDS: ClientBounds = ClientBounds {
    max_connections: 256,
    max_connections_per_client: 256,
    ..ClientBounds::DEFAULT
};

/// A validated file, a loaded certificate (with TLS) and the bound, not yet serving,
/// listeners.
pub struct Application {
    config: IngressConfig,
    proxy: std::net::TcpListener,
    tls: Option<(std::net::TcpListener, Tls)>,
    transports: Transports,
    admin: TcpListener,
    workers: usize,
}

impl Application {
    /// Binds the ports for a validated file and its `transports` (`tls` is their pair,
    /// loaded). Must run inside a Tokio runtime.
    pub fn build(
        settings: &Settings,
        config: IngressConfig,
        transports: Transports,
        tls: Option<Tls>,
    ) -> Result<Self, StartFailure> {
        let admin = bind(settings.admin)?;
        admin.set_nonblocking(true).map_err(other)?;
        let tls = match (&transports.tls, tls) {
            (Some(served), Some(tls)) => Some((bind(served.listen)?, tls)),
            _ => None,
        };
        Ok(Self {
            config,
            proxy: bind(settings.listen)?,
            tls,
            transports,
            admin: TcpListener::from_std(admin).map_err(other)?,
            workers: workers::count(),
        })
    }

    /// The proxied address (plain HTTP).
    pub fn proxy_addr(&self) -> std::io::Result<SocketAddr> {
        self.proxy.local_addr()
    }

    /// The TLS address, when TLS is configured.
    pub fn tls_addr(&self) -> Option<std::io::Result<SocketAddr>> {
        self.tls.as_ref().map(|(listener, _)| listener.local_addr())
    }

    /// The admin address.
    pub fn admin_addr(&self) -> std::io::Result<SocketAddr> {
        self.admin.local_addr()
    }

    /// Serves until SIGTERM or Ctrl-C, then drains.
    pub async fn run_until_stopped(self) -> Result<(), StartFailure> {
        let stop_requested = platform_core::shutdown::signal().map_err(other)?;
        let running = self.start()?;
        let signal = stop_requested.await;
        running.drain(signal.name()).await;
        Ok(())
    }

    /// Starts the admin port, the health checks, the certificate's watch and the proxy's
    /// workers.
    fn start(self) -> Result<Running, StartFailure> {
        let Self {
            config,
            proxy: listener,
            tls,
            transports,
            admin: admin_listener,
            workers,
        } = self;
        let proxy_addr = listener.local_addr().map_err(other)?;
        let admin_addr = admin_listener.local_addr().map_err(other)?;
        let tls_addr = match &tls {
            Some((listener, _)) => Some(listener.local_addr().map_err(other)?),
            None => None,
        };
        let drain_timeout = config.estate.drain_timeout;
        let pools = Pools::build(&config, workers);
        let mut registry = Registry::default();
        let metrics = Metrics::register(&mut registry, &pools);
        let (stop, tasks) = (CancellationToken::new(), TaskTracker::new());
        origin::spawn_checks(&pools, &stop, &TaskTracker::new());
        let draining = Arc::new(AtomicBool::new(false));
        let admin = Admin::new(registry, draining.clone());
        let answer = move |_peer| {
            let admin = admin.clone();
            service_fn(move |request| {
                let answer = admin.answer(&request);
                async move { Ok::<_, Infallible>(answer) }
            })
        };
        let forever = (CancellationToken::new(), TaskTracker::new());
        let send_timeout = config.estate.send_timeout;
        tokio::spawn(server::serve(
            admin_listener,
            Gate::http1_only(&ADMIN_BOUNDS),
            answer,
            send_timeout,
            forever.0,
            forever.1,
        ));
        let serving = TlsServing {
            hsts: config.estate.hsts,
            http2_idle_timeout: config.estate.http2_idle_timeout,
            send_timeout: config.estate.send_timeout,
        };
        let gate =
            Gate::new(&config.estate.bounds, metrics.gate.clone()).map_err(StartFailure::Other)?;
        let proxy = Arc::new(Proxy::new(config, &pools, metrics, tasks.clone()));
        let tls = match tls {
            Some((listener, tls)) => Some((listener, watch(tls, &stop)?)),
            None => None,
        };
        let edge = Edge::new(
            proxy,
            serving,
            transports.plain_http,
            tls_addr.map(|addr| addr.port()),
        );
        let listeners = Listeners {
            plain: listener,
            tls,
        };
        let edge = Arc::new(edge);
        workers::spawn(&listeners, workers, &edge, &gate, &stop, &tasks).map_err(other)?;
        // The workers hold their own handles on the sockets; once they let go, they close.
        drop(listeners);
        log_listening(proxy_addr, tls_addr, admin_addr, workers);
        Ok(Running {
            stop,
            tasks,
            draining,
            drain_timeout,
        })
    }
}

/// A serving ingress, ready to drain.
struct Running {
    stop: CancellationToken,
    tasks: TaskTracker,
    draining: Arc<AtomicBool>,
    drain_timeout: Duration,
}

impl Running {
    /// Health turns 503, the listener closes, connections finish within the deadline.
    async fn drain(self, signal: &str) {
        log_draining(signal, self.drain_timeout);
        self.draining.store(true, Ordering::Relaxed);
        self.stop.cancel();
        self.tasks.close();
        let drained = tokio::time::timeout(self.drain_timeout, self.tasks.wait())
            .await
            .is_ok();
        log_drained(drained, self.tasks.len());
    }
}

fn other(error: std::io::Error) -> StartFailure {
    StartFailure::Other(error.to_string())
}

fn watch(tls: Tls, stop: &CancellationToken) -> Result<tokio_rustls::TlsAcceptor, StartFailure> {
    tls.watch(stop.clone())
        .map_err(|error| StartFailure::Other(error.to_string()))
}

fn bind(listen: platform_core::ListenConfig) -> Result<std::net::TcpListener, StartFailure> {
    listen.bind().map_err(|error| {
        StartFailure::Other(format!(
            "cannot listen on {}:{}: {error}",
            listen.bind_addr, listen.port
        ))
    })
}

fn log_listening(proxy: SocketAddr, tls: Option<SocketAddr>, admin: SocketAddr, workers: usize) {
    match tls {
        Some(tls) => log_listening_tls(proxy, tls, admin, workers),
        None => tracing::info!(proxy = %proxy, admin = %admin, workers, "listening"),
    }
}

fn log_listening_tls(proxy: SocketAddr, tls: SocketAddr, admin: SocketAddr, workers: usize) {
    tracing::info!(proxy = %proxy, tls = %tls, admin = %admin, workers, "listening");
}

fn log_draining(signal: &str, deadline: Duration) {
    tracing::info!(signal, deadline = ?deadline, "stop requested; draining in-flight requests");
}

fn log_drained(complete: bool, left: usize) {
    if complete {
        tracing::info!("drained; exiting");
    } else {
        log_drain_cut(left);
    }
}

fn log_drain_cut(left: usize) {
    tracing::warn!(left, "drain deadline passed; cutting what is still open");
}
