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
    let mut outcomes = record_operations(store).await;
    outcomes.extend(index_operations(store).await);
    outcomes
}

/// Times one call, keeping only whether it answered.
macro_rules! timed {
    ($outcomes:ident, $name:literal, $call:expr) => {{
        let started = Instant::now();
        let result = $call.await.map(drop);
        $outcomes.push(($name, started.elapsed(), result));
    }};
}

async fn record_operations(store: &Store) -> Vec<(&'static str, Duration, StoreResult<()>)> {
    let mut outcomes = Vec::new();
    let (space, ttl) = (Space::Tokens, Some(Duration::from_secs(60)));
    timed!(outcomes, "get", store.get(space, "k"));
    timed!(outcomes, "put", store.put(space, "k", b"v", ttl));
    timed!(
        outcomes,
        "insert_new",
        store.insert_new(space, "n", b"v", ttl)
    );
    timed!(outcomes, "delete", store.delete(space, "k"));
    timed!(outcomes, "take", store.take(space, "k"));
    let window = Duration::from_secs(60);
    timed!(
        outcomes,
        "increment",
        store.increment(Space::Attempts, "c", window)
    );
    timed!(outcomes, "ttl", store.ttl(space, "k"));
    timed!(outcomes, "list", store.list(space, ""));
    timed!(
        outcomes,
        "get_json",
        store.get_json::<serde_json::Value>(space, "k")
    );
    timed!(outcomes, "put_json", store.put_json(space, "k", &1, ttl));
    outcomes
}

async fn index_operations(store: &Store) -> Vec<(&'static str, Duration, StoreResult<()>)> {
    let mut outcomes = Vec::new();
    let space = Space::Tokens;
    timed!(
        outcomes,
        "expire",
        store.expire(space, "k", Duration::from_secs(60))
    );
    timed!(
        outcomes,
        "get_many",
        store.get_many(space, &["k".to_owned()])
    );
    timed!(outcomes, "add_to_set", store.add_to_set(space, "s", "m"));
    timed!(
        outcomes,
        "remove_from_set",
        store.remove_from_set(space, "s", "m")
    );
    timed!(outcomes, "set_members", store.set_members(space, "s"));
    outcomes
}

/// One replica's store on this Redis, under `key_prefix`.
pub fn store_on(redis: &Redis, key_prefix: &str) -> Store {
    Store::redis(&redis.url, key_prefix).expect("the Redis store is prepared")
}
