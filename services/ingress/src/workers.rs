//! The proxied port's workers: one thread per core, each with its own single-threaded Tokio
//! runtime accepting from the one listening socket (nginx's worker model). A connection, the
//! origin connections its requests use and their hand-offs then stay on one thread: no
//! cross-thread wake-ups on the hot path, which is most of what a proxy does.
//!
//! The listening socket is shared, not duplicated with `SO_REUSEPORT`: a second ingress
//! started by mistake on the same port fails with "address in use" instead of silently
//! taking half the traffic.

use crate::proxy::Proxy;
use crate::server;
use hyper::service::service_fn;
use std::cell::Cell;
use std::convert::Infallible;
use std::io;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

thread_local! {
    static WORKER: Cell<usize> = const { Cell::new(0) };
}

/// The index of the worker running this thread (0 outside workers).
pub fn current() -> usize {
    WORKER.with(Cell::get)
}

/// How many workers: one per core the process may use.
pub fn count() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// Starts `count` workers serving `listener` with `proxy` until `stop`; each keeps running
/// until every task in `tasks` (which the caller closes when it stops) has finished.
pub fn spawn(
    listener: &std::net::TcpListener,
    count: usize,
    proxy: &Arc<Proxy>,
    stop: &CancellationToken,
    tasks: &TaskTracker,
) -> io::Result<()> {
    listener.set_nonblocking(true)?;
    for index in 0..count {
        let listener = listener.try_clone()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (proxy, stop, tasks) = (proxy.clone(), stop.clone(), tasks.clone());
        std::thread::Builder::new()
            .name(format!("ingress-worker-{index}"))
            .spawn(move || {
                WORKER.with(|worker| worker.set(index));
                runtime.block_on(work(listener, proxy, stop, tasks));
            })?;
    }
    Ok(())
}

async fn work(
    listener: std::net::TcpListener,
    proxy: Arc<Proxy>,
    stop: CancellationToken,
    tasks: TaskTracker,
) {
    let listener = match tokio::net::TcpListener::from_std(listener) {
        Ok(listener) => listener,
        Err(error) => return log_failed(&error),
    };
    let make = move |peer| {
        let proxy = proxy.clone();
        service_fn(move |request| {
            let proxy = proxy.clone();
            async move { Ok::<_, Infallible>(proxy.handle(peer, request).await) }
        })
    };
    server::serve(listener, make, stop, tasks.clone()).await;
    tasks.wait().await;
}

fn log_failed(error: &io::Error) {
    tracing::error!(%error, "a worker could not take the listening socket");
}
