//! The estate's one road to Redis, from `REDIS_URL`: `redis://…` is one server reached through
//! redis-rs' `ConnectionManager`; `redis-sentinel://…#name` is whichever node the Sentinels
//! name as primary, followed through a failover without a restart.
//!
//! [`Primary`] implements redis-rs' async `ConnectionLike`, so commands, pipelines and scripts
//! run on it as on any connection, and it is cheap to clone. Neither form connects when opened:
//! a service starts while Redis is still down.
//!
//! # Layout
//! - `url`: the sentinel form of the URL.
//! - `sentinel`: the Sentinel-backed connection and its search for the primary.
//! - `error`: the one error, a URL that cannot be used.

mod error;
mod sentinel;
mod url;

pub use error::PrimaryError;
pub use sentinel::{ASK_EVERY, ASK_TIMEOUT, SEARCH_FOR};
pub use url::{SENTINEL_SCHEME, SentinelUrl};

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::{Client, Cmd, Pipeline, RedisFuture, Value};
use sentinel::SentinelLink;
use std::sync::Arc;
use std::time::Duration;

/// A connection to the Redis primary, in either form of `REDIS_URL`.
#[derive(Clone, Debug)]
pub struct Primary {
    road: Road,
}

#[derive(Clone, Debug)]
enum Road {
    Direct(ConnectionManager),
    Sentinel(Arc<SentinelLink>),
}

impl Primary {
    /// Prepares the connection without making it; `timeout` bounds each connect and each
    /// answer. Sentinel searches start on a Tokio runtime, so open it inside one.
    pub fn open(url: &str, timeout: Duration) -> Result<Self, PrimaryError> {
        let road = if url.starts_with(SENTINEL_SCHEME) {
            Road::Sentinel(SentinelLink::open(SentinelUrl::parse(url)?, timeout)?)
        } else {
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(timeout))
                .set_response_timeout(Some(timeout))
                .set_number_of_retries(1);
            Road::Direct(ConnectionManager::new_lazy_with_config(
                Client::open(url)?,
                config,
            )?)
        };
        Ok(Self { road })
    }

    /// Whether the URL was the sentinel form.
    pub fn through_sentinel(&self) -> bool {
        matches!(self.road, Road::Sentinel(_))
    }
}

impl ConnectionLike for Primary {
    fn req_packed_command<'a>(&'a mut self, command: &'a Cmd) -> RedisFuture<'a, Value> {
        match &mut self.road {
            Road::Direct(manager) => manager.req_packed_command(command),
            Road::Sentinel(link) => Box::pin(link.command(command)),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match &mut self.road {
            Road::Direct(manager) => manager.req_packed_commands(pipeline, offset, count),
            Road::Sentinel(link) => Box::pin(link.pipeline(pipeline, offset, count)),
        }
    }

    fn get_db(&self) -> i64 {
        match &self.road {
            Road::Direct(manager) => manager.get_db(),
            Road::Sentinel(link) => link.db(),
        }
    }
}
