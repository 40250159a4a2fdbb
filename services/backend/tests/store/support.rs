//! Constructors for the two implementations and the checks every module shares.

use backend::store::{Space, Store, StoreError, StoreResult};
use std::time::{Duration, Instant};
use tempfile::TempDir;
pub use testkit::{Redis, free_port};

/// An embedded store in a fresh directory; keep the directory alive as long as the store.
pub fn embedded() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Store::embedded(dir.path()).expect("the embedded store opens");
    (dir, store)
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

/// One replica's store on this Redis, under `key_prefix`.
pub fn store_on(redis: &Redis, key_prefix: &str) -> Store {
    Store::redis(&redis.url, key_prefix).expect("the Redis store is prepared")
}
