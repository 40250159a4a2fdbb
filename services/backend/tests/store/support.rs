//! Constructors for the two implementations and the checks every module shares.

use backend::store::{Space, Store, StoreError, StoreResult};
use std::net::TcpListener;
use std::time::{Duration, Instant};
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

/// A Redis container on a fixed free host port, so a stopped and restarted container comes
/// back on the same address.
pub struct Redis {
    pub container: ContainerAsync<GenericImage>,
    pub url: String,
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
        let port = free_port();
        let container = GenericImage::new(name, tag)
            .with_exposed_port(6379.tcp())
            .with_wait_for(WaitFor::message_on_stdout("Ready to accept connections"))
            .with_mapped_port(port, 6379.tcp())
            .start()
            .await
            .expect("Redis container (run scripts/offline-images.sh)");
        Some(Self {
            container,
            url: format!("redis://127.0.0.1:{port}"),
        })
    }

    /// One replica's store on this Redis.
    pub fn store(&self, key_prefix: &str) -> Store {
        Store::redis(&self.url, key_prefix).expect("the Redis store is prepared")
    }
}

/// A loopback port nothing listens on (just now).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port")
        .port()
}

pub fn assert_unavailable<T: std::fmt::Debug>(result: StoreResult<T>, what: &str) {
    match result {
        Err(error @ StoreError::Unavailable(_)) => {
            assert_eq!(error.to_string(), "store unavailable", "{what}");
        }
        other => panic!("{what}: expected Unavailable, got {other:?}"),
    }
}

/// Each public operation once, with how long it took.
pub async fn every_operation(store: &Store) -> Vec<(&'static str, Duration, StoreResult<()>)> {
    let mut outcomes = Vec::new();
    macro_rules! timed {
        ($name:literal, $call:expr) => {{
            let started = Instant::now();
            let result = $call.await.map(drop);
            outcomes.push(($name, started.elapsed(), result));
        }};
    }
    let (space, ttl) = (Space::Tokens, Some(Duration::from_secs(60)));
    timed!("get", store.get(space, "k"));
    timed!("put", store.put(space, "k", b"v", ttl));
    timed!("insert_new", store.insert_new(space, "n", b"v", ttl));
    timed!("delete", store.delete(space, "k"));
    timed!("take", store.take(space, "k"));
    timed!(
        "increment",
        store.increment(Space::Attempts, "c", Duration::from_secs(60))
    );
    timed!("ttl", store.ttl(space, "k"));
    timed!("list", store.list(space, ""));
    timed!("get_json", store.get_json::<serde_json::Value>(space, "k"));
    timed!("put_json", store.put_json(space, "k", &1, ttl));
    outcomes
}
