//! Stores for the tests: embedded in a temp dir, or one Redis container shared by replicas.

use backend::store::Store;
use tempfile::TempDir;
pub use testkit::Redis;

/// An embedded store in a fresh directory; keep the directory alive as long as the store.
pub fn embedded() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Store::embedded(dir.path()).expect("the embedded store opens");
    (dir, store)
}

/// One replica's store on this Redis (every replica uses the same key prefix).
pub fn replica(redis: &Redis) -> Store {
    Store::redis(&redis.url, "estate").expect("the Redis store is prepared")
}
