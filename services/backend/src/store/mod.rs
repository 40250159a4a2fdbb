//! The backend's one key-value store, chosen at start-up: **embedded** (redb under
//! `DATA_DIR`, the default; survives a restart) or **Redis** (`REDIS_URL`; shared by
//! replicas). Domain code builds typed repositories on top; nothing above this module knows
//! which one is running.
//!
//! # Key layout
//! Records live in a [`Space`] under a string key. Embedded: one redb table per space (named
//! by [`Space::name`]) in `$DATA_DIR/estate.redb`. Redis: the key `{prefix}:{space}:{key}`;
//! [`Store::list`] scans for `{prefix}:{space}:{escaped prefix}*`, with the glob characters
//! `*?[]\` escaped so a caller's prefix is always literal. Counters are stored as decimal
//! text in both, so a [`Store::get`] of a counter reads the same bytes from either.
//!
//! # Expiry
//! A TTL is whole milliseconds (at least 1). Redis expires keys itself. The embedded store
//! prefixes each value with its expiry (8 bytes big-endian, unix milliseconds by the wall
//! clock so it means the same after a restart; 0 = never); every read treats an expired
//! record as absent, a `get` that finds one deletes it, and opening the store drops all of
//! them. A `put` replaces the TTL (`None` clears it); [`Store::increment`] sets it only when
//! it creates the counter, so a run of failures cannot keep its own window open.
//!
//! # Atomicity
//! `insert_new`, `take` and `increment` are single atomic steps: one write transaction each
//! in redb (which admits one writer at a time), `SET NX`, `GETDEL` and one Lua script in
//! Redis. So is `put_in_set` (a record and its key's membership in a set of the same space:
//! one redb transaction, one `MULTI`/`EXEC`). Otherwise, across spaces or keys there are no
//! transactions.
//!
//! # Sets
//! A set is a named collection of distinct strings inside a space, kept apart from the
//! space's records (a set and a record may share a name): the index behind a listing that
//! must not read every record of a space, e.g. the runs of one workspace. Embedded: one redb
//! multimap table, `sets`, keyed `{space}:{set}`. Redis: a SET under `{prefix}:{space}#set:{set}`
//! (`#` never occurs in a space name, so no record key and no `list` pattern meets it). Sets
//! never expire; a member whose record has expired is the reader's to skip (see
//! [`Store::get_many`]).
//!
//! # Failure
//! Every call returns [`StoreError::Unavailable`] when the store cannot answer, and never
//! panics or waits long: a Redis round trip is bounded by 500 ms, and the Redis connection is
//! made lazily and remade after a failure, so start-up never waits for Redis and calls
//! succeed again once it is back. Callers fail closed on `Unavailable` (503 with a short
//! Retry-After) and never skip an attempt ceiling because of it. [`StoreError`]'s `Display`
//! never names a key, a command or the database's message; the cause inside is for logs.
//! [`FaultSwitch`] injects that failure in tests.

mod embedded;
mod error;
mod fault;
mod record;
mod redis;
mod space;

pub use error::{StoreError, StoreResult};
pub use fault::FaultSwitch;
pub use record::now_ms;
pub use space::Space;

use embedded::EmbeddedStore;
use redis::RedisStore;
use std::path::Path;
use std::time::Duration;

/// The store handle: cheap to clone, clones share the database and the fault switch.
#[derive(Clone)]
pub struct Store {
    backend: Backend,
    fault: FaultSwitch,
}

#[derive(Clone)]
enum Backend {
    Embedded(EmbeddedStore),
    Redis(RedisStore),
}

/// Calls the same method on whichever backend is running, after the fault switch (`write`
/// marks a call that changes the store, which the switch can fail on its own).
macro_rules! dispatch {
    (@call $store:expr, $method:ident($($argument:expr),*)) => {{
        match &$store.backend {
            Backend::Embedded(backend) => backend.$method($($argument),*).await,
            Backend::Redis(backend) => backend.$method($($argument),*).await,
        }
    }};
    ($store:expr, write $method:ident($($argument:expr),*)) => {{
        $store.fault.check_write()?;
        dispatch!(@call $store, $method($($argument),*))
    }};
    ($store:expr, $method:ident($($argument:expr),*)) => {{
        $store.fault.check()?;
        dispatch!(@call $store, $method($($argument),*))
    }};
}

impl Store {
    /// Opens (or creates) `data_dir/estate.redb`, creating the directory if needed.
    pub fn embedded(data_dir: &Path) -> StoreResult<Self> {
        Ok(Self::with(Backend::Embedded(EmbeddedStore::open(
            data_dir,
        )?)))
    }

    /// A store on the Redis at `url`, every key under `key_prefix`. Connects on first use, so
    /// it returns at once even while Redis is down. Call it inside a Tokio runtime.
    pub fn redis(url: &str, key_prefix: &str) -> StoreResult<Self> {
        Ok(Self::with(Backend::Redis(RedisStore::connect_lazily(
            url, key_prefix,
        )?)))
    }

    fn with(backend: Backend) -> Self {
        Self {
            backend,
            fault: FaultSwitch::default(),
        }
    }

    /// The switch that makes this store and its clones fail (for tests).
    pub fn fault_switch(&self) -> FaultSwitch {
        self.fault.clone()
    }

    /// The live value under `key`.
    pub async fn get(&self, space: Space, key: &str) -> StoreResult<Option<Vec<u8>>> {
        dispatch!(self, get(space, key))
    }

    /// Writes `value`, replacing any record and its TTL (`None`: never expires).
    pub async fn put(
        &self,
        space: Space,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<()> {
        dispatch!(self, write put(space, key, value, ttl))
    }

    /// Writes `value` only if no live record has `key`; `false` when one has.
    pub async fn insert_new(
        &self,
        space: Space,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<bool> {
        dispatch!(self, write insert_new(space, key, value, ttl))
    }

    /// Removes `key`; `true` when a live record was there.
    pub async fn delete(&self, space: Space, key: &str) -> StoreResult<bool> {
        dispatch!(self, write delete(space, key))
    }

    /// Removes `key` and returns its value, atomically: of any number of concurrent takers,
    /// exactly one gets it (single-use codes and tokens).
    pub async fn take(&self, space: Space, key: &str) -> StoreResult<Option<Vec<u8>>> {
        dispatch!(self, write take(space, key))
    }

    /// Adds one to the counter under `key` and returns the new value. A new counter (or one
    /// that has expired) starts at 1 and expires after `ttl`; later increments keep that
    /// expiry. [`StoreError::Corrupt`] when `key` holds something other than a counter.
    pub async fn increment(&self, space: Space, key: &str, ttl: Duration) -> StoreResult<u64> {
        dispatch!(self, write increment(space, key, ttl))
    }

    /// The time `key` has left; `None` when there is no such key or it never expires.
    pub async fn ttl(&self, space: Space, key: &str) -> StoreResult<Option<Duration>> {
        dispatch!(self, ttl(space, key))
    }

    /// Resets the TTL of the live record under `key` to `ttl` from now, leaving its value;
    /// `false` (and nothing written) when there is no live record. A lease is renewed with it:
    /// once its record has expired, no renewal brings it back.
    pub async fn expire(&self, space: Space, key: &str, ttl: Duration) -> StoreResult<bool> {
        dispatch!(self, write expire(space, key, ttl))
    }

    /// The live values under `keys`, in the same order (`None` for a missing or expired one):
    /// one read transaction embedded, `MGET`s of at most 200 keys on Redis.
    pub async fn get_many(
        &self,
        space: Space,
        keys: &[String],
    ) -> StoreResult<Vec<Option<Vec<u8>>>> {
        dispatch!(self, get_many(space, keys))
    }

    /// Adds `member` to the set `set`; `true` when it was not there yet.
    pub async fn add_to_set(&self, space: Space, set: &str, member: &str) -> StoreResult<bool> {
        dispatch!(self, write add_to_set(space, set, member))
    }

    /// Writes `value` under `key` (as [`Store::put`]) and adds `key` to the set `set`, as one
    /// atomic step: a reader of the set never meets a key whose record is still to come, and a
    /// failure leaves neither.
    pub async fn put_in_set(
        &self,
        space: Space,
        set: &str,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<()> {
        dispatch!(self, write put_in_set(space, set, key, value, ttl))
    }

    /// Removes `member` from the set `set`; `true` when it was there.
    pub async fn remove_from_set(
        &self,
        space: Space,
        set: &str,
        member: &str,
    ) -> StoreResult<bool> {
        dispatch!(self, write remove_from_set(space, set, member))
    }

    /// Every member of the set `set`, sorted; empty for a set that does not exist.
    pub async fn set_members(&self, space: Space, set: &str) -> StoreResult<Vec<String>> {
        dispatch!(self, set_members(space, set))
    }

    /// Every live record whose key starts with `prefix` (taken literally), sorted by key.
    pub async fn list(&self, space: Space, prefix: &str) -> StoreResult<Vec<(String, Vec<u8>)>> {
        dispatch!(self, list(space, prefix))
    }

    /// [`Store::get`], decoded from JSON; [`StoreError::Corrupt`] when it does not decode.
    pub async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        space: Space,
        key: &str,
    ) -> StoreResult<Option<T>> {
        let Some(bytes) = self.get(space, key).await? else {
            return Ok(None);
        };
        serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|error| StoreError::corrupt("json record", error))
    }

    /// [`Store::put`], encoded as JSON; [`StoreError::Corrupt`] for a value JSON cannot hold.
    pub async fn put_json<T: serde::Serialize>(
        &self,
        space: Space,
        key: &str,
        value: &T,
        ttl: Option<Duration>,
    ) -> StoreResult<()> {
        let bytes =
            serde_json::to_vec(value).map_err(|error| StoreError::corrupt("json value", error))?;
        self.put(space, key, &bytes, ttl).await
    }
}

/// Names the backend and where it keeps data, never a URL (it may hold a password).
impl std::fmt::Debug for Store {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut debug = formatter.debug_struct("Store");
        match &self.backend {
            Backend::Embedded(backend) => debug.field("embedded", &backend.path()),
            Backend::Redis(backend) => debug.field("redis_key_prefix", &backend.key_prefix()),
        };
        debug.field("fault", &self.fault).finish()
    }
}
