//! Test support shared by the workspace's test binaries: a real Redis in Docker, started the
//! one way every Redis-backed test starts it, an upstream whose answer never ends, and requests
//! written byte for byte with the sweep that sends every spelling of a metered path. A
//! dev-dependency only; nothing ships with it.
//!
//! # Layout
//! - [`TestApp`]: a real service on a free port and a fake clock, built by a closure; each
//!   service's helpers wrap it with what is theirs.
//! - [`Redis`]: a container from the locally built image (`scripts/offline-images.sh`;
//!   `REDIS_IMAGE` overrides it) on a fixed free host port, so a stopped and restarted
//!   container comes back on the same address; `None` when `ESTATE_SKIP_DOCKER=1`.
//! - [`SentinelSet`]: a primary, a replica and three Sentinels on a Docker network of their
//!   own, reached at their container addresses, to fail the primary under a test.
//! - [`free_port`]: a loopback port nothing listens on.
//! - [`Flood`]: an HTTP stand-in answering a body far past any read bound, counting what it
//!   handed over.
//! - [`raw`]: one HTTP/1.1 exchange with the request target written byte for byte;
//!   [`spellings`]: the other spellings of a path; [`sweep`]: that none of them, and no other
//!   method, reaches a metered route's handler unmetered.
//! - [`logs`]: the test binary's log, captured as JSON lines for a test to search;
//!   [`request_id`]: the `x-request-id` an answer carries, and the shape of a minted one.

mod app;
mod flood;
pub mod logs;
pub mod raw;
pub mod request_id;
mod sentinel;
pub mod spellings;
pub mod sweep;

pub use app::{Served, TestApp};
pub use flood::Flood;
pub use sentinel::{PRIMARY_NAME, SentinelSet};

use std::net::TcpListener;
use testcontainers::core::{IntoContainerPort, WaitFor};
use testcontainers::runners::AsyncRunner;
use testcontainers::{ContainerAsync, GenericImage, ImageExt};

/// The image the Redis-backed tests start unless `REDIS_IMAGE` names another.
pub const DEFAULT_REDIS_IMAGE: &str = "estate/redis:7";

/// A running Redis container and its URL.
pub struct Redis {
    /// The container (stop, start, pause and unpause it to test failures).
    pub container: ContainerAsync<GenericImage>,
    /// `redis://127.0.0.1:<port>`.
    pub url: String,
}

impl Redis {
    /// Starts Redis, or returns `None` after a skip line when `ESTATE_SKIP_DOCKER=1`
    /// (`scripts/test.sh` refuses that setting under `CI=true`).
    ///
    /// # Panics
    /// When Docker or the image is missing: a Redis-backed test that cannot start Redis fails.
    pub async fn start() -> Option<Self> {
        if std::env::var("ESTATE_SKIP_DOCKER").is_ok_and(|value| value == "1") {
            eprintln!("ESTATE_SKIP_DOCKER=1: skipping a Redis-backed test");
            return None;
        }
        let image = std::env::var("REDIS_IMAGE").unwrap_or_else(|_| DEFAULT_REDIS_IMAGE.to_owned());
        let (name, tag) = image.rsplit_once(':').unwrap_or((image.as_str(), "latest"));
        let port = free_port();
        let container = GenericImage::new(name, tag)
            .with_exposed_port(6379.tcp())
            .with_wait_for(WaitFor::message_on_stdout("Ready to accept connections"))
            .with_mapped_port(port, 6379.tcp())
            .start()
            .await
            .expect("a Redis container (run scripts/offline-images.sh)");
        Some(Self {
            container,
            url: format!("redis://127.0.0.1:{port}"),
        })
    }
}

/// A loopback port nothing listens on (just now).
///
/// # Panics
/// When the machine has no free loopback port.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}
