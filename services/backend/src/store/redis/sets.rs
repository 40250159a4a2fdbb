//! The Redis store's sets: a Redis SET under `{prefix}:{space}#set:{set}`.

use super::{RedisStore, bounded};
use crate::store::record::ttl_millis;
use crate::store::{Space, StoreResult};
use ::redis::{cmd, pipe};
use std::time::Duration;

impl RedisStore {
    fn set_key(&self, space: Space, set: &str) -> String {
        format!("{}:{}#set:{set}", self.key_prefix, space.name())
    }

    pub(crate) async fn add_to_set(
        &self,
        space: Space,
        set: &str,
        member: &str,
    ) -> StoreResult<bool> {
        let command = cmd("SADD")
            .arg(self.set_key(space, set))
            .arg(member)
            .clone();
        let added: u64 = self.query("add_to_set", &command).await?;
        Ok(added == 1)
    }

    /// `SET` the record and `SADD` its key to `set` in one `MULTI`/`EXEC`.
    pub(crate) async fn put_in_set(
        &self,
        space: Space,
        set: &str,
        key: &str,
        value: &[u8],
        ttl: Option<Duration>,
    ) -> StoreResult<()> {
        let mut record = cmd("SET");
        record.arg(self.key(space, key)).arg(value);
        if let Some(ttl) = ttl {
            record.arg("PX").arg(ttl_millis(ttl));
        }
        let mut transaction = pipe();
        transaction
            .atomic()
            .add_command(record)
            .ignore()
            .cmd("SADD")
            .arg(self.set_key(space, set))
            .arg(key)
            .ignore();
        let mut connection = self.connection.clone();
        bounded("put_in_set", transaction.query_async::<()>(&mut connection)).await
    }

    pub(crate) async fn remove_from_set(
        &self,
        space: Space,
        set: &str,
        member: &str,
    ) -> StoreResult<bool> {
        let command = cmd("SREM")
            .arg(self.set_key(space, set))
            .arg(member)
            .clone();
        let removed: u64 = self.query("remove_from_set", &command).await?;
        Ok(removed == 1)
    }

    pub(crate) async fn set_members(&self, space: Space, set: &str) -> StoreResult<Vec<String>> {
        let command = cmd("SMEMBERS").arg(self.set_key(space, set)).clone();
        let mut members: Vec<String> = self.query("set_members", &command).await?;
        members.sort_unstable();
        Ok(members)
    }
}
