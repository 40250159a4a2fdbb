//! The proxied port's workers: one thread per core, each with its own single-threaded Tokio
//! runtime accepting from the one listening socket (nginx's worker model). A connection, the
//! origin connections its requests use and their hand-offs then stay on one thread: no
//! cross-thread wake-ups on the hot path, which is most of what a proxy does.
//!
//! Each worker accepts from the plain port and, when TLS is configured, the TLS port.
//!
//! The listening sockets are shared, not duplicated with `SO_REUSEPORT`: a second ingress
//! started by mistake on the same port fails with "address in use" instead of silently
//! taking half the traffic.

use crate::gate::Gate;
use crate::server;
use crate::timer_floor;
use crate::tls::Edge;
use crate::tls::automatic::{Answering, Told};
use crate::worker_index;
use hyper::service::service_fn;
use std::convert::Infallible;
use std::io;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// How many workers: one per core the process may use.
pub fn count() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The proxied sockets every worker accepts from.
pub struct Listeners {
    /// The plain HTTP port.
    pub plain: std::net::TcpListener,
    /// The TLS port and its acceptor, when TLS is configured.
    pub tls: Option<(std::net::TcpListener, TlsAcceptor)>,
}

impl Listeners {
    fn try_clone(&self) -> io::Result<Self> {
        let tls = match &self.tls {
            Some((listener, acceptor)) => Some((listener.try_clone()?, acceptor.clone())),
            None => None,
        };
        Ok(Self {
            plain: self.plain.try_clone()?,
            tls,
        })
    }
}

/// Starts `count` workers serving `listeners` with `edge` until `stop`, to the connections
/// `gate` admits (one gate for every worker and both ports); each keeps running until every
/// task in `tasks` (which the caller closes when it stops) has finished.
pub fn spawn(
    listeners: &Listeners,
    count: usize,
    edge: &Arc<Edge>,
    gate: &Arc<Gate>,
    stop: &CancellationToken,
    tasks: &TaskTracker,
) -> io::Result<()> {
    listeners.plain.set_nonblocking(true)?;
    if let Some((listener, _)) = &listeners.tls {
        listener.set_nonblocking(true)?;
    }
    for index in 0..count {
        let listeners = listeners.try_clone()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (edge, gate) = (edge.clone(), gate.clone());
        let (stop, tasks) = (stop.clone(), tasks.clone());
        std::thread::Builder::new()
            .name(format!("ingress-worker-{index}"))
            .spawn(move || {
                worker_index::set(index);
                runtime.block_on(work(listeners, edge, gate, stop, tasks));
            })?;
    }
    Ok(())
}

async fn work(
    listeners: Listeners,
    edge: Arc<Edge>,
    gate: Arc<Gate>,
    stop: CancellationToken,
    tasks: TaskTracker,
) {
    let plain = async {
        match tokio::net::TcpListener::from_std(listeners.plain) {
            Ok(listener) => serve_plain(listener, edge.clone(), gate.clone(), &stop, &tasks).await,
            Err(error) => log_failed(&error),
        }
    };
    let tls = async {
        let Some((listener, acceptor)) = listeners.tls else {
            return;
        };
        match tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => {
                let serving = (acceptor, edge.clone(), gate.clone());
                serve_tls(listener, serving, &stop, &tasks).await;
            }
            Err(error) => log_failed(&error),
        }
    };
    // Ends with the runtime, once the connections have finished.
    tokio::spawn(timer_floor::hold());
    tokio::join!(plain, tls);
    tasks.wait().await;
}

async fn serve_plain(
    listener: tokio::net::TcpListener,
    edge: Arc<Edge>,
    gate: Arc<Gate>,
    stop: &CancellationToken,
    tasks: &TaskTracker,
) {
    let send_timeout = edge.tls_serving().send_timeout;
    let make = move |peer| {
        let edge = edge.clone();
        service_fn(move |request| {
            let edge = edge.clone();
            async move { Ok::<_, Infallible>(edge.plain(peer, request).await) }
        })
    };
    server::serve(
        listener,
        gate,
        make,
        send_timeout,
        stop.clone(),
        tasks.clone(),
    )
    .await;
}

async fn serve_tls(
    listener: tokio::net::TcpListener,
    (acceptor, edge, gate): (TlsAcceptor, Arc<Edge>, Arc<Gate>),
    stop: &CancellationToken,
    tasks: &TaskTracker,
) {
    let serving = edge.tls_serving();
    let make = move |peer, answering: Arc<Answering>| {
        let edge = edge.clone();
        service_fn(move |request| {
            let (edge, answering) = (edge.clone(), answering.clone());
            async move {
                let response = edge.https(peer, request, &answering).await;
                Ok::<_, Infallible>(response.map(|body| Told::new(body, answering)))
            }
        })
    };
    server::serve_tls(
        listener,
        gate,
        acceptor,
        serving,
        make,
        stop.clone(),
        tasks.clone(),
    )
    .await;
}

fn log_failed(error: &io::Error) {
    tracing::error!(%error, "a worker could not take the listening socket");
}
