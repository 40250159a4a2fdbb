//! A WebSocket (or any HTTP/1.1 upgrade) passed through: once the origin has answered `101`
//! and the client has received it, bytes are copied both ways until either side closes.

use crate::metrics::{Metrics, Open};
use hyper::upgrade::OnUpgrade;
use hyper_util::rt::TokioIo;
use std::sync::Arc;
use tokio_util::task::TaskTracker;

/// Copies between the two upgraded connections in a task the drain waits for.
pub fn spawn(tasks: &TaskTracker, metrics: Arc<Metrics>, client: OnUpgrade, origin: OnUpgrade) {
    tasks.spawn(async move {
        let _open = Open::new(&metrics.tunnels);
        match tokio::try_join!(client, origin) {
            Ok((client, origin)) => {
                let (mut client, mut origin) = (TokioIo::new(client), TokioIo::new(origin));
                if let Err(error) = tokio::io::copy_bidirectional(&mut client, &mut origin).await {
                    log_end(&error);
                }
            }
            Err(error) => log_failed(&error),
        }
    });
}

fn log_end(error: &std::io::Error) {
    tracing::debug!(%error, "tunnel closed with an error");
}

fn log_failed(error: &hyper::Error) {
    tracing::debug!(%error, "upgrade did not complete");
}
