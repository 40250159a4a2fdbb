//! Stores to run against and the checks every module shares.

use backend::store::{Space, Store};
use backend::tenancy::{TenancyError, Workspace, Workspaces};
use std::net::TcpListener;
use tempfile::TempDir;
use testcontainers::core::{IntoContainerPort, WaitFor};
use testcontainers::runners::AsyncRunner;
use testcontainers::{ContainerAsync, GenericImage, ImageExt};

/// An embedded store in a fresh directory; keep the directory alive as long as the store.
pub fn embedded() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Store::embedded(dir.path()).expect("the embedded store opens");
    (dir, store)
}

/// A workspace owned by `owner`, which must be creatable.
pub async fn workspace(store: &Store, owner: &str, name: &str) -> Workspace {
    Workspaces::new(store.clone())
        .create(owner, name)
        .await
        .expect("the workspace is created")
}

/// The `Display` of the error `result` must hold: the exact text a client would read.
pub fn error_text<T: std::fmt::Debug>(result: Result<T, TenancyError>) -> String {
    result.expect_err("the call must fail").to_string()
}

/// Whether any key or value in `space` contains `needle`.
pub async fn space_contains(store: &Store, space: Space, needle: &str) -> bool {
    let records = store.list(space, "").await.expect("list the space");
    assert!(!records.is_empty(), "{space:?} holds records to search");
    records
        .iter()
        .any(|(key, value)| key.contains(needle) || String::from_utf8_lossy(value).contains(needle))
}

/// A real Redis in Docker, for the cross-replica tests.
pub struct Redis {
    _container: ContainerAsync<GenericImage>,
    url: String,
}

impl Redis {
    /// `None` (after a skip line) when `ESTATE_SKIP_DOCKER=1`.
    pub async fn start() -> Option<Self> {
        if std::env::var("ESTATE_SKIP_DOCKER").is_ok_and(|value| value == "1") {
            eprintln!("ESTATE_SKIP_DOCKER=1: skipping a Redis-backed test");
            return None;
        }
        let image = std::env::var("REDIS_IMAGE").unwrap_or_else(|_| "estate/redis:7".to_owned());
        let (name, tag) = image.rsplit_once(':').unwrap_or((image.as_str(), "latest"));
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free loopback port")
            .port();
        let container = GenericImage::new(name, tag)
            .with_exposed_port(6379.tcp())
            .with_wait_for(WaitFor::message_on_stdout("Ready to accept connections"))
            .with_mapped_port(port, 6379.tcp())
            .start()
            .await
            .expect("Redis container (run scripts/offline-images.sh)");
        Some(Self {
            _container: container,
            url: format!("redis://127.0.0.1:{port}"),
        })
    }

    /// One replica's store: every replica of the estate uses the same key prefix.
    pub fn replica(&self) -> Store {
        Store::redis(&self.url, "estate").expect("the Redis store is prepared")
    }
}
