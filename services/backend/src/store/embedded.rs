//! The embedded store: one redb file under `DATA_DIR`, one table per [`Space`].
//!
//! redb is blocking, so each call runs on Tokio's blocking pool. redb admits one write
//! transaction at a time, which is what makes `insert_new`, `take` and `increment` atomic:
//! each reads and writes inside one write transaction.

mod sets;
mod transactions;

use super::record::{self, Record};
use super::{Space, StoreError, StoreResult};
use redb::Database;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use transactions::{
    is_live, list_live, live_counter, prepare, read, read_many, remove, remove_if_expired, write,
};

/// The file inside `DATA_DIR`.
pub(crate) const FILE_NAME: &str = "estate.redb";

fn unavailable(cause: impl std::fmt::Display) -> StoreError {
    StoreError::unavailable("embedded store", cause)
}

#[derive(Clone)]
pub(crate) struct EmbeddedStore {
    database: Arc<Database>,
    path: Arc<PathBuf>,
}

impl EmbeddedStore {
    /// Opens (or creates) the file, creates every table and drops expired records.
    pub(crate) fn open(data_dir: &Path) -> StoreResult<Self> {
        std::fs::create_dir_all(data_dir).map_err(unavailable)?;
        let path = data_dir.join(FILE_NAME);
        let database = Database::create(&path).map_err(unavailable)?;
        prepare(&database)?;
        Ok(Self {
            database: Arc::new(database),
            path: Arc::new(path),
        })
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    async fn run<T: Send + 'static>(
        &self,
        operation: impl FnOnce(&Database) -> StoreResult<T> + Send + 'static,
    ) -> StoreResult<T> {
        let runtime = tokio::runtime::Handle::try_current().map_err(unavailable)?;
        let database = Arc::clone(&self.database);
        runtime
            .spawn_blocking(move || operation(&database))
            .await
            .map_err(unavailable)?
    }

    pub(crate) async fn get(&self, space: Space, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let key = key.to_owned();
        self.run(move |database| {
            let now = record::now_ms();
            let Some(bytes) = read(database, space, &key)? else {
                return Ok(None);
            };
            let found = Record::decode(&bytes)?;
            if found.is_live(now) {
                return Ok(Some(found.payload.to_vec()));
            }
            write(database, space, |records| {
                remove_if_expired(records, &key, now)
            })?;
            Ok(None)
        })
        .await
    }

    pub(crate) async fn put(
        &self,
        space: Space,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<()> {
        let (key, value) = (key.to_owned(), value.to_vec());
        self.run(move |database| {
            let bytes = Record::encode(record::expiry(ttl, record::now_ms()), &value);
            write(database, space, |records| {
                records
                    .insert(key.as_str(), bytes.as_slice())
                    .map_err(unavailable)?;
                Ok(())
            })
        })
        .await
    }

    pub(crate) async fn insert_new(
        &self,
        space: Space,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<bool> {
        let (key, value) = (key.to_owned(), value.to_vec());
        self.run(move |database| {
            let now = record::now_ms();
            write(database, space, |records| {
                if is_live(records, &key, now)? {
                    return Ok(false);
                }
                let bytes = Record::encode(record::expiry(ttl, now), &value);
                records
                    .insert(key.as_str(), bytes.as_slice())
                    .map_err(unavailable)?;
                Ok(true)
            })
        })
        .await
    }

    pub(crate) async fn delete(&self, space: Space, key: &str) -> StoreResult<bool> {
        Ok(self.take(space, key).await?.is_some())
    }

    pub(crate) async fn take(&self, space: Space, key: &str) -> StoreResult<Option<Vec<u8>>> {
        let key = key.to_owned();
        self.run(move |database| {
            let now = record::now_ms();
            write(database, space, |records| {
                let Some(bytes) = remove(records, &key)? else {
                    return Ok(None);
                };
                let found = Record::decode(&bytes)?;
                Ok(found.is_live(now).then(|| found.payload.to_vec()))
            })
        })
        .await
    }

    pub(crate) async fn increment(
        &self,
        space: Space,
        key: &str,
        ttl: Duration,
    ) -> StoreResult<u64> {
        let key = key.to_owned();
        self.run(move |database| {
            let now = record::now_ms();
            write(database, space, |records| {
                let (count, expires_at_ms) = live_counter(records, &key, now)?
                    .unwrap_or((0, record::expiry(Some(ttl), now)));
                let count = count
                    .checked_add(1)
                    .ok_or_else(|| StoreError::Corrupt("counter overflow".to_owned()))?;
                let bytes = Record::encode(expires_at_ms, count.to_string().as_bytes());
                records
                    .insert(key.as_str(), bytes.as_slice())
                    .map_err(unavailable)?;
                Ok(count)
            })
        })
        .await
    }

    pub(crate) async fn ttl(&self, space: Space, key: &str) -> StoreResult<Option<Duration>> {
        let key = key.to_owned();
        self.run(move |database| match read(database, space, &key)? {
            Some(bytes) => Ok(Record::decode(&bytes)?.remaining(record::now_ms())),
            None => Ok(None),
        })
        .await
    }

    pub(crate) async fn expire(&self, space: Space, key: &str, ttl: Duration) -> StoreResult<bool> {
        let key = key.to_owned();
        self.run(move |database| {
            let now = record::now_ms();
            write(database, space, |records| {
                let Some(bytes) = remove(records, &key)? else {
                    return Ok(false);
                };
                let found = Record::decode(&bytes)?;
                if !found.is_live(now) {
                    return Ok(false);
                }
                let renewed = Record::encode(record::expiry(Some(ttl), now), found.payload);
                records
                    .insert(key.as_str(), renewed.as_slice())
                    .map_err(unavailable)?;
                Ok(true)
            })
        })
        .await
    }

    pub(crate) async fn get_many(
        &self,
        space: Space,
        keys: &[String],
    ) -> StoreResult<Vec<Option<Vec<u8>>>> {
        let keys = keys.to_vec();
        self.run(move |database| read_many(database, space, &keys))
            .await
    }

    pub(crate) async fn list(
        &self,
        space: Space,
        prefix: &str,
    ) -> StoreResult<Vec<(String, Vec<u8>)>> {
        let prefix = prefix.to_owned();
        self.run(move |database| list_live(database, space, &prefix))
            .await
    }
}
