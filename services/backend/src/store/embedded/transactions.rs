//! The embedded store's synchronous half: redb transactions, run on the blocking pool.

use super::super::record::{self, Record};
use super::super::{Space, StoreError, StoreResult};
use super::unavailable;
use redb::{
    Database, MultimapTableDefinition, ReadableDatabase, ReadableTable, Table, TableDefinition,
};

type Records<'txn> = Table<'txn, &'static str, &'static [u8]>;

/// Every space's sets, in one multimap table keyed `{space}:{set}`.
pub(super) const SETS: MultimapTableDefinition<'static, &'static str, &'static str> =
    MultimapTableDefinition::new("sets");

pub(super) fn table(space: Space) -> TableDefinition<'static, &'static str, &'static [u8]> {
    TableDefinition::new(space.name())
}

/// Creates every table and drops the records that expired while the service was down.
pub(super) fn prepare(database: &Database) -> StoreResult<()> {
    let now = record::now_ms();
    let transaction = database.begin_write().map_err(unavailable)?;
    transaction.open_multimap_table(SETS).map_err(unavailable)?;
    for space in Space::ALL {
        let mut records = transaction.open_table(table(space)).map_err(unavailable)?;
        records
            .retain(|_, bytes| Record::decode(bytes).is_ok_and(|found| found.is_live(now)))
            .map_err(unavailable)?;
    }
    transaction.commit().map_err(unavailable)
}

/// Runs `change` in one write transaction and commits it; an error aborts it.
pub(super) fn write<T>(
    database: &Database,
    space: Space,
    change: impl FnOnce(&mut Records<'_>) -> StoreResult<T>,
) -> StoreResult<T> {
    let transaction = database.begin_write().map_err(unavailable)?;
    let result = {
        let mut records = transaction.open_table(table(space)).map_err(unavailable)?;
        change(&mut records)?
    };
    transaction.commit().map_err(unavailable)?;
    Ok(result)
}

pub(super) fn read(database: &Database, space: Space, key: &str) -> StoreResult<Option<Vec<u8>>> {
    let transaction = database.begin_read().map_err(unavailable)?;
    let records = transaction.open_table(table(space)).map_err(unavailable)?;
    let found = records.get(key).map_err(unavailable)?;
    Ok(found.map(|bytes| bytes.value().to_vec()))
}

/// The live payloads under `keys`, in order, from one read transaction.
pub(super) fn read_many(
    database: &Database,
    space: Space,
    keys: &[String],
) -> StoreResult<Vec<Option<Vec<u8>>>> {
    let now = record::now_ms();
    let transaction = database.begin_read().map_err(unavailable)?;
    let records = transaction.open_table(table(space)).map_err(unavailable)?;
    let mut found = Vec::with_capacity(keys.len());
    for key in keys {
        let bytes = records.get(key.as_str()).map_err(unavailable)?;
        let live = match bytes {
            Some(bytes) => {
                let stored = Record::decode(bytes.value())?;
                stored.is_live(now).then(|| stored.payload.to_vec())
            }
            None => None,
        };
        found.push(live);
    }
    Ok(found)
}

fn current(records: &Records<'_>, key: &str) -> StoreResult<Option<Vec<u8>>> {
    let found = records.get(key).map_err(unavailable)?;
    Ok(found.map(|bytes| bytes.value().to_vec()))
}

pub(super) fn remove(records: &mut Records<'_>, key: &str) -> StoreResult<Option<Vec<u8>>> {
    let removed = records.remove(key).map_err(unavailable)?;
    Ok(removed.map(|bytes| bytes.value().to_vec()))
}

pub(super) fn is_live(records: &Records<'_>, key: &str, now: u64) -> StoreResult<bool> {
    match current(records, key)? {
        Some(bytes) => Ok(Record::decode(&bytes)?.is_live(now)),
        None => Ok(false),
    }
}

/// Another task may have written a fresh record since the read that found this one expired.
pub(super) fn remove_if_expired(records: &mut Records<'_>, key: &str, now: u64) -> StoreResult<()> {
    if current(records, key)?.is_some() && !is_live(records, key, now)? {
        remove(records, key)?;
    }
    Ok(())
}

/// The live counter's value and expiry, if there is one.
pub(super) fn live_counter(
    records: &Records<'_>,
    key: &str,
    now: u64,
) -> StoreResult<Option<(u64, u64)>> {
    let Some(bytes) = current(records, key)? else {
        return Ok(None);
    };
    let found = Record::decode(&bytes)?;
    if !found.is_live(now) {
        return Ok(None);
    }
    let count = std::str::from_utf8(found.payload)
        .ok()
        .and_then(|text| text.parse::<u64>().ok())
        .ok_or_else(|| StoreError::Corrupt("counter is not a number".to_owned()))?;
    Ok(Some((count, found.expires_at_ms)))
}

pub(super) fn list_live(
    database: &Database,
    space: Space,
    prefix: &str,
) -> StoreResult<Vec<(String, Vec<u8>)>> {
    let now = record::now_ms();
    let transaction = database.begin_read().map_err(unavailable)?;
    let records = transaction.open_table(table(space)).map_err(unavailable)?;
    let mut found = Vec::new();
    for entry in records.range(prefix..).map_err(unavailable)? {
        let (key, bytes) = entry.map_err(unavailable)?;
        if !key.value().starts_with(prefix) {
            break;
        }
        let stored = Record::decode(bytes.value())?;
        if stored.is_live(now) {
            found.push((key.value().to_owned(), stored.payload.to_vec()));
        }
    }
    Ok(found)
}
