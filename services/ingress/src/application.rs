//! Building and running the ingress: read and validate the file, bind both ports (so their
//! numbers are known before serving), then serve until SIGTERM and drain.
//!
//! The drain: the admin health turns 503, the proxied listener closes (new connections are
//! refused, so a peer ingress or a load balancer moves on), idle keep-alive connections
//! close, in-flight requests and open tunnels get `estate.drainTimeout` to finish, and
//! whatever is still open then is cut when the process exits.

use crate::admin::Admin;
use crate::config::IngressConfig;
use crate::metrics::Metrics;
use crate::origin::{self, Pools};
use crate::proxy::Proxy;
use crate::server;
use crate::settings::Settings;
use hyper::service::service_fn;
use platform::StartFailure;
use prometheus_client::registry::Registry;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// A validated file and two bound, not yet serving, listeners.
pub struct Application {
    config: IngressConfig,
    proxy: TcpListener,
    admin: TcpListener,
}

impl Application {
    /// Loads the file and binds. Must run inside a Tokio runtime.
    pub fn build(settings: &Settings) -> Result<Self, StartFailure> {
        let config = IngressConfig::load(&settings.config_path)
            .map_err(|error| StartFailure::Other(error.to_string()))?;
        Ok(Self {
            config,
            proxy: bind(settings.listen)?,
            admin: bind(settings.admin)?,
        })
    }

    /// The proxied address.
    pub fn proxy_addr(&self) -> std::io::Result<SocketAddr> {
        self.proxy.local_addr()
    }

    /// The admin address.
    pub fn admin_addr(&self) -> std::io::Result<SocketAddr> {
        self.admin.local_addr()
    }

    /// Serves until SIGTERM or Ctrl-C, then drains.
    pub async fn run_until_stopped(self) -> Result<(), StartFailure> {
        let fail = |error: std::io::Error| StartFailure::Other(error.to_string());
        let stop_requested = platform::shutdown::signal().map_err(fail)?;
        let (proxy_addr, admin_addr) = (
            self.proxy_addr().map_err(fail)?,
            self.admin_addr().map_err(fail)?,
        );
        let drain_timeout = self.config.estate.drain_timeout;
        let pools = Pools::build(&self.config);
        let mut registry = Registry::default();
        let metrics = Metrics::register(&mut registry, &pools);
        let (stop, tasks) = (CancellationToken::new(), TaskTracker::new());
        origin::spawn_checks(&pools, &stop, &TaskTracker::new());
        let draining = Arc::new(AtomicBool::new(false));
        let admin = Admin::new(registry, draining.clone());
        tokio::spawn(server::serve(
            self.admin,
            move |_peer| {
                let admin = admin.clone();
                service_fn(move |request| {
                    let answer = admin.answer(&request);
                    async move { Ok::<_, Infallible>(answer) }
                })
            },
            CancellationToken::new(),
            TaskTracker::new(),
        ));
        let proxy = Arc::new(Proxy::new(self.config, &pools, metrics, tasks.clone()));
        tokio::spawn(server::serve(
            self.proxy,
            move |peer| {
                let proxy = proxy.clone();
                service_fn(move |request| {
                    let proxy = proxy.clone();
                    async move { Ok::<_, Infallible>(proxy.handle(peer, request).await) }
                })
            },
            stop.clone(),
            tasks.clone(),
        ));
        log_listening(proxy_addr, admin_addr);
        let signal = stop_requested.await;
        log_draining(signal.name(), drain_timeout);
        draining.store(true, Ordering::Relaxed);
        stop.cancel();
        tasks.close();
        let drained = tokio::time::timeout(drain_timeout, tasks.wait())
            .await
            .is_ok();
        log_drained(drained, tasks.len());
        Ok(())
    }
}

fn bind(listen: platform::ListenConfig) -> Result<TcpListener, StartFailure> {
    let fail = |error: std::io::Error| {
        StartFailure::Other(format!(
            "cannot listen on {}:{}: {error}",
            listen.bind_addr, listen.port
        ))
    };
    let listener = listen.bind().map_err(fail)?;
    listener.set_nonblocking(true).map_err(fail)?;
    TcpListener::from_std(listener).map_err(fail)
}

fn log_listening(proxy: SocketAddr, admin: SocketAddr) {
    tracing::info!(proxy = %proxy, admin = %admin, "listening");
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
