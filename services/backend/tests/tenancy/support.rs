//! Stores to run against and the checks every module shares.

use backend::store::{Space, Store};
use backend::tenancy::{TenancyError, Workspace, Workspaces};
use tempfile::TempDir;
pub use testkit::Redis;

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

/// One replica's store on this Redis (every replica uses the same key prefix).
pub fn replica(redis: &Redis) -> Store {
    Store::redis(&redis.url, "estate").expect("the Redis store is prepared")
}
