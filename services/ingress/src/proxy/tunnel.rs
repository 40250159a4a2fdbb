//! A WebSocket (or any HTTP/1.1 upgrade) passed through: once the origin has answered `101`
//! and the client has received it, bytes are copied both ways until either side closes, or
//! until no byte has gone either way for `estate.websocketIdleTimeout` (Cloudflare closes an
//! idle WebSocket after 100 s): a silent tunnel would hold an origin connection, and the
//! client's place at the edge, for ever. Any byte keeps it open, a ping frame included.

use crate::metrics::{Metrics, Open};
use hyper::upgrade::{OnUpgrade, Upgraded};
use hyper_util::rt::TokioIo;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::time::Instant;
use tokio_util::io::InspectReader;
use tokio_util::task::TaskTracker;

/// Copies between the two upgraded connections in a task the drain waits for; closes both
/// once neither side has sent a byte for `idle_timeout`, and gives up on upgrades that have
/// not both completed within it.
pub fn spawn(
    tasks: &TaskTracker,
    metrics: Arc<Metrics>,
    (client, origin): (OnUpgrade, OnUpgrade),
    idle_timeout: Duration,
) {
    tasks.spawn(async move {
        let _open = Open::new(&metrics.tunnels);
        let upgraded =
            tokio::time::timeout(idle_timeout, async { tokio::try_join!(client, origin) });
        let Ok(upgraded) = upgraded.await else {
            return log_idle(idle_timeout);
        };
        match upgraded {
            Ok((client, origin)) => {
                let heard = Arc::new(Heard::new());
                let mut client = listened(client, &heard);
                let mut origin = listened(origin, &heard);
                tokio::select! {
                    copied = tokio::io::copy_bidirectional(&mut client, &mut origin) => {
                        if let Err(error) = copied {
                            log_end(&error);
                        }
                    }
                    () = heard.silent_for(idle_timeout) => log_idle(idle_timeout),
                }
            }
            Err(error) => log_failed(&error),
        }
    });
}

/// One side of a tunnel, its reads told to the tunnel's [`Heard`].
fn listened(
    side: Upgraded,
    heard: &Arc<Heard>,
) -> InspectReader<TokioIo<Upgraded>, impl FnMut(&[u8])> {
    let heard = heard.clone();
    InspectReader::new(TokioIo::new(side), move |bytes: &[u8]| {
        if !bytes.is_empty() {
            heard.heard();
        }
    })
}

/// When a byte last came from either side.
struct Heard {
    started: Instant,
    /// Milliseconds from `started` to the last byte read.
    last: AtomicU64,
}

impl Heard {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            last: AtomicU64::new(0),
        }
    }

    fn now(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn heard(&self) {
        self.last.store(self.now(), Ordering::Relaxed);
    }

    /// Resolves once no byte has come from either side for `timeout`.
    async fn silent_for(&self, timeout: Duration) {
        let limit = u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX);
        loop {
            let quiet = self.now().saturating_sub(self.last.load(Ordering::Relaxed));
            if quiet >= limit {
                return;
            }
            tokio::time::sleep(Duration::from_millis(limit - quiet)).await;
        }
    }
}

fn log_end(error: &io::Error) {
    tracing::debug!(%error, "tunnel closed with an error");
}

fn log_idle(timeout: Duration) {
    tracing::debug!(
        ?timeout,
        "tunnel silent both ways for the idle timeout: closed"
    );
}

fn log_failed(error: &hyper::Error) {
    tracing::debug!(%error, "upgrade did not complete");
}
