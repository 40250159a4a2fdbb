//! The Redis store: keys `{prefix}:{space}:{key}`, shared by every replica on one URL.
//!
//! The connection is made on first use and remade after a failure, so start-up never waits
//! for Redis. Every call is bounded by [`CALL_TIMEOUT`]: a Redis that is down or hung costs a
//! caller at most that long, as [`StoreError::Unavailable`].

mod sets;

use super::record::ttl_millis;
use super::{Space, StoreError, StoreResult};
use ::redis::{Cmd, FromRedisValue, RedisResult, Script, Value, cmd};
use redis_primary::Primary;
use std::sync::Arc;
use std::time::Duration;

/// The longest one Redis round trip may take before the call fails.
pub(crate) const CALL_TIMEOUT: Duration = Duration::from_millis(500);

/// Keys asked for per SCAN step and fetched per MGET.
const BATCH: usize = 200;

/// INCR, and PEXPIRE only on the increment that created the counter, so later increments
/// never extend the window. -1 marks a key that holds something other than a counter.
const INCREMENT: &str = r"
local count = redis.pcall('INCR', KEYS[1])
if type(count) == 'table' then return -1 end
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count
";

fn unavailable(operation: &str, cause: impl std::fmt::Display) -> StoreError {
    StoreError::unavailable(&format!("redis {operation}"), cause)
}

#[derive(Clone)]
pub(crate) struct RedisStore {
    connection: Primary,
    key_prefix: Arc<str>,
    increment: Arc<Script>,
}

impl RedisStore {
    /// Prepares the connection without making it. Needs a Tokio runtime.
    pub(crate) fn connect_lazily(url: &str, key_prefix: &str) -> StoreResult<Self> {
        tokio::runtime::Handle::try_current().map_err(|error| unavailable("setup", error))?;
        // The URL may carry a password: the cause names the kind of error, never the URL.
        let connection =
            Primary::open(url, CALL_TIMEOUT).map_err(|error| unavailable("url", error))?;
        Ok(Self {
            connection,
            key_prefix: Arc::from(key_prefix),
            increment: Arc::new(Script::new(INCREMENT)),
        })
    }

    pub(crate) fn key_prefix(&self) -> &str {
        &self.key_prefix
    }

    fn key(&self, space: Space, key: &str) -> String {
        format!("{}:{}:{key}", self.key_prefix, space.name())
    }

    async fn query<T: FromRedisValue>(&self, operation: &str, command: &Cmd) -> StoreResult<T> {
        let mut connection = self.connection.clone();
        bounded(operation, command.query_async(&mut connection)).await
    }

    pub(crate) async fn get(&self, space: Space, key: &str) -> StoreResult<Option<Vec<u8>>> {
        self.query("get", cmd("GET").arg(self.key(space, key)))
            .await
    }

    pub(crate) async fn put(
        &self,
        space: Space,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<()> {
        let mut command = cmd("SET");
        command.arg(self.key(space, key)).arg(value);
        if let Some(ttl) = ttl {
            command.arg("PX").arg(ttl_millis(ttl));
        }
        self.query::<()>("put", &command).await
    }

    pub(crate) async fn insert_new(
        &self,
        space: Space,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<bool> {
        let mut command = cmd("SET");
        command.arg(self.key(space, key)).arg(value).arg("NX");
        if let Some(ttl) = ttl {
            command.arg("PX").arg(ttl_millis(ttl));
        }
        let answer: Value = self.query("insert_new", &command).await?;
        Ok(!matches!(answer, Value::Nil))
    }

    pub(crate) async fn delete(&self, space: Space, key: &str) -> StoreResult<bool> {
        let removed: u64 = self
            .query("delete", cmd("DEL").arg(self.key(space, key)))
            .await?;
        Ok(removed > 0)
    }

    pub(crate) async fn take(&self, space: Space, key: &str) -> StoreResult<Option<Vec<u8>>> {
        self.query("take", cmd("GETDEL").arg(self.key(space, key)))
            .await
    }

    pub(crate) async fn increment(
        &self,
        space: Space,
        key: &str,
        ttl: Duration,
    ) -> StoreResult<u64> {
        let mut connection = self.connection.clone();
        let mut invocation = self.increment.key(self.key(space, key));
        invocation.arg(ttl_millis(ttl));
        let count: i64 = bounded("increment", invocation.invoke_async(&mut connection)).await?;
        u64::try_from(count).map_err(|_| StoreError::Corrupt("counter is not a number".to_owned()))
    }

    pub(crate) async fn ttl(&self, space: Space, key: &str) -> StoreResult<Option<Duration>> {
        let millis: i64 = self
            .query("ttl", cmd("PTTL").arg(self.key(space, key)))
            .await?;
        // -2: no such key; -1: no expiry.
        Ok(u64::try_from(millis).ok().map(Duration::from_millis))
    }

    pub(crate) async fn expire(&self, space: Space, key: &str, ttl: Duration) -> StoreResult<bool> {
        let mut command = cmd("PEXPIRE");
        command.arg(self.key(space, key)).arg(ttl_millis(ttl));
        let renewed: u64 = self.query("expire", &command).await?;
        Ok(renewed == 1)
    }

    pub(crate) async fn get_many(
        &self,
        space: Space,
        keys: &[String],
    ) -> StoreResult<Vec<Option<Vec<u8>>>> {
        let mut found = Vec::with_capacity(keys.len());
        for batch in keys.chunks(BATCH) {
            let full: Vec<String> = batch.iter().map(|key| self.key(space, key)).collect();
            let values: Vec<Option<Vec<u8>>> =
                self.query("get_many", cmd("MGET").arg(full)).await?;
            found.extend(values);
        }
        Ok(found)
    }

    pub(crate) async fn list(
        &self,
        space: Space,
        prefix: &str,
    ) -> StoreResult<Vec<(String, Vec<u8>)>> {
        let full_prefix = self.key(space, "");
        let pattern = format!("{}*", escape_glob(&format!("{full_prefix}{prefix}")));
        let mut keys = self.scan(&pattern).await?;
        keys.sort_unstable();
        keys.dedup();
        let mut found = Vec::with_capacity(keys.len());
        for batch in keys.chunks(BATCH) {
            let values: Vec<Option<Vec<u8>>> = self.query("list", cmd("MGET").arg(batch)).await?;
            for (key, value) in batch.iter().zip(values) {
                // A key that expired between SCAN and MGET is skipped, as expired keys are.
                if let (Some(value), Some(key)) = (value, key.strip_prefix(&full_prefix)) {
                    found.push((key.to_owned(), value));
                }
            }
        }
        Ok(found)
    }

    /// Every key matching `pattern`; SCAN may repeat a key, the caller deduplicates.
    async fn scan(&self, pattern: &str) -> StoreResult<Vec<String>> {
        let mut keys = Vec::new();
        let mut cursor = 0_u64;
        loop {
            let mut command = cmd("SCAN");
            command
                .arg(cursor)
                .arg("MATCH")
                .arg(pattern)
                .arg("COUNT")
                .arg(BATCH);
            let (next, batch): (u64, Vec<String>) = self.query("list", &command).await?;
            keys.extend(batch);
            if next == 0 {
                return Ok(keys);
            }
            cursor = next;
        }
    }
}

/// One round trip, bounded by [`CALL_TIMEOUT`] whatever the connection's own timeouts do.
async fn bounded<T>(operation: &str, call: impl Future<Output = RedisResult<T>>) -> StoreResult<T> {
    match tokio::time::timeout(CALL_TIMEOUT, call).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(error)) => Err(unavailable(operation, error)),
        Err(_) => Err(unavailable(
            operation,
            format!("no answer within {CALL_TIMEOUT:?}"),
        )),
    }
}

/// Makes `text` match itself only in a SCAN MATCH pattern.
fn escape_glob(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        if matches!(character, '*' | '?' | '[' | ']' | '\\') {
            escaped.push('\\');
        }
        escaped.push(character);
    }
    escaped
}
