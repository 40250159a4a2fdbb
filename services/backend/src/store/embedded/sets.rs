//! The embedded store's sets: one redb multimap table, a set's members under `{space}:{set}`
//! (redb keeps each key's values sorted and distinct).

use super::transactions::{SETS, table};
use super::{EmbeddedStore, unavailable};
use crate::store::record::{self, Record};
use crate::store::{Space, StoreResult};
use redb::ReadableDatabase;
use std::time::Duration;

fn set_key(space: Space, set: &str) -> String {
    format!("{}:{set}", space.name())
}

impl EmbeddedStore {
    pub(crate) async fn add_to_set(
        &self,
        space: Space,
        set: &str,
        member: &str,
    ) -> StoreResult<bool> {
        self.change_set(set_key(space, set), member.to_owned(), true)
            .await
    }

    /// Writes the record and adds its key to `set` in one write transaction.
    pub(crate) async fn put_in_set(
        &self,
        space: Space,
        set: &str,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<()> {
        let (set, key, value) = (set_key(space, set), key.to_owned(), value.to_vec());
        self.run(move |database| {
            let bytes = Record::encode(record::expiry(ttl, record::now_ms()), &value);
            let transaction = database.begin_write().map_err(unavailable)?;
            {
                let mut records = transaction.open_table(table(space)).map_err(unavailable)?;
                records
                    .insert(key.as_str(), bytes.as_slice())
                    .map_err(unavailable)?;
                let mut sets = transaction.open_multimap_table(SETS).map_err(unavailable)?;
                sets.insert(set.as_str(), key.as_str())
                    .map_err(unavailable)?;
            }
            transaction.commit().map_err(unavailable)
        })
        .await
    }

    pub(crate) async fn remove_from_set(
        &self,
        space: Space,
        set: &str,
        member: &str,
    ) -> StoreResult<bool> {
        self.change_set(set_key(space, set), member.to_owned(), false)
            .await
    }

    /// Adds (`insert`) or removes `member`; whether that changed the set.
    async fn change_set(&self, key: String, member: String, insert: bool) -> StoreResult<bool> {
        self.run(move |database| {
            let transaction = database.begin_write().map_err(unavailable)?;
            let changed = {
                let mut sets = transaction.open_multimap_table(SETS).map_err(unavailable)?;
                if insert {
                    !sets
                        .insert(key.as_str(), member.as_str())
                        .map_err(unavailable)?
                } else {
                    sets.remove(key.as_str(), member.as_str())
                        .map_err(unavailable)?
                }
            };
            transaction.commit().map_err(unavailable)?;
            Ok(changed)
        })
        .await
    }

    pub(crate) async fn set_members(&self, space: Space, set: &str) -> StoreResult<Vec<String>> {
        let key = set_key(space, set);
        self.run(move |database| {
            let transaction = database.begin_read().map_err(unavailable)?;
            let sets = transaction.open_multimap_table(SETS).map_err(unavailable)?;
            sets.get(key.as_str())
                .map_err(unavailable)?
                .map(|member| {
                    member
                        .map(|member| member.value().to_owned())
                        .map_err(unavailable)
                })
                .collect()
        })
        .await
    }
}
