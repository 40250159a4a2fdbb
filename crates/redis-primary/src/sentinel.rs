//! The primary that Redis Sentinel names, followed through a failover.
//!
//! One connection to the current primary is shared by every clone. A call that fails in a way
//! a failover explains (IO error, timeout, refused connection, `READONLY`, `MASTERDOWN`), or
//! that its caller gives up on, starts one bounded background search: ask the Sentinels every
//! [`ASK_EVERY`], each ask bounded by [`ASK_TIMEOUT`], for at most [`SEARCH_FOR`], until one
//! names a node that answers `ROLE` as a primary; calls then go there. A call made while no
//! primary is known waits for one for at most the call timeout.

use crate::url::SentinelUrl;
use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::sentinel::{SentinelClient, SentinelClientBuilder, SentinelServerType};
use redis::{
    AsyncConnectionConfig, Cmd, ConnectionAddr, ErrorKind, Pipeline, RedisError, RedisResult,
    ServerErrorKind, Value,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{Mutex, watch};
use tokio::time::{Instant, sleep, timeout};

/// The pause between two asks while searching.
pub const ASK_EVERY: Duration = Duration::from_millis(250);
/// The longest one ask of the Sentinels (and the connection to the node it names) may take.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one search goes on before it gives up; the next failed call starts another.
pub const SEARCH_FOR: Duration = Duration::from_secs(30);

/// A connection to the primary and which one it is.
#[derive(Clone)]
struct Current {
    generation: u64,
    connection: MultiplexedConnection,
}

/// The Sentinels, the current primary and the search.
pub(crate) struct SentinelLink {
    current: watch::Sender<Option<Current>>,
    sentinels: Mutex<SentinelClient>,
    searching: AtomicBool,
    generations: AtomicU64,
    config: AsyncConnectionConfig,
    timeout: Duration,
    db: i64,
}

impl std::fmt::Debug for SentinelLink {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("SentinelLink")
            .field("timeout", &self.timeout)
            .field("db", &self.db)
            .finish_non_exhaustive()
    }
}

impl SentinelLink {
    /// Prepares the link; inside a Tokio runtime the first search starts at once.
    pub(crate) fn open(url: SentinelUrl, call_timeout: Duration) -> RedisResult<Arc<Self>> {
        let addresses = url
            .sentinels
            .iter()
            .map(|(host, port)| ConnectionAddr::Tcp(host.clone(), *port));
        let mut builder =
            SentinelClientBuilder::new(addresses, &url.primary_name, SentinelServerType::Master)?
                .set_client_to_redis_db(url.db);
        if let Some(username) = &url.username {
            builder = builder.set_client_to_redis_username(username);
        }
        if let Some(password) = &url.password {
            builder = builder.set_client_to_redis_password(password);
        }
        let link = Arc::new(Self {
            current: watch::Sender::new(None),
            sentinels: Mutex::new(builder.build()?),
            searching: AtomicBool::new(false),
            generations: AtomicU64::new(0),
            config: AsyncConnectionConfig::new()
                .set_connection_timeout(Some(call_timeout))
                .set_response_timeout(Some(call_timeout)),
            timeout: call_timeout,
            db: url.db,
        });
        if tokio::runtime::Handle::try_current().is_ok() {
            link.search_in_background();
        }
        Ok(link)
    }

    pub(crate) fn db(&self) -> i64 {
        self.db
    }

    /// The current primary, waiting at most the call timeout for one when none is known.
    async fn connection(self: &Arc<Self>) -> RedisResult<Current> {
        let known = self.current.borrow().clone();
        if let Some(current) = known {
            return Ok(current);
        }
        self.search_in_background();
        let mut receiver = self.current.subscribe();
        match timeout(self.timeout, receiver.wait_for(Option::is_some)).await {
            Ok(Ok(found)) => found.clone().ok_or_else(no_primary),
            _ => Err(no_primary()),
        }
    }

    /// A call on `generation`'s connection failed or was given up: search again, unless a
    /// newer primary is already in use.
    fn lost(self: &Arc<Self>, generation: u64) {
        let in_use = self
            .current
            .borrow()
            .as_ref()
            .map(|current| current.generation);
        if in_use.is_none_or(|in_use| in_use == generation) {
            self.search_in_background();
        }
    }

    fn search_in_background(self: &Arc<Self>) {
        if self
            .searching
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            tokio::spawn(Arc::clone(self).search());
        }
    }

    async fn search(self: Arc<Self>) {
        let give_up_at = Instant::now() + SEARCH_FOR;
        while !self.ask_once().await {
            if Instant::now() >= give_up_at {
                tracing::warn!(after = ?SEARCH_FOR, "no redis primary found through sentinel");
                break;
            }
            sleep(ASK_EVERY).await;
        }
        self.searching.store(false, Ordering::Release);
    }

    /// One bounded ask; `true` when it found the primary and put it in use.
    async fn ask_once(&self) -> bool {
        let found = match timeout(ASK_TIMEOUT, self.ask()).await {
            Ok(Ok(found)) => found,
            Ok(Err(error)) => return asked_in_vain(&format!("{:?}", error.kind())),
            Err(_) => return asked_in_vain("no answer in time"),
        };
        let (address, connection) = found;
        let generation = self.generations.fetch_add(1, Ordering::Relaxed) + 1;
        found_primary(&address, generation);
        self.current.send_replace(Some(Current {
            generation,
            connection,
        }));
        true
    }

    async fn ask(&self) -> RedisResult<(String, MultiplexedConnection)> {
        let client = self.sentinels.lock().await.async_get_client().await?;
        let address = client.get_connection_info().addr().to_string();
        let connection = client
            .get_multiplexed_async_connection_with_config(&self.config)
            .await?;
        Ok((address, connection))
    }

    pub(crate) async fn command(self: &Arc<Self>, command: &Cmd) -> RedisResult<Value> {
        let mut current = self.connection().await?;
        let watch = CallWatch::new(self, current.generation);
        let answer = current.connection.req_packed_command(command).await;
        watch.settle(answer.as_ref().err());
        answer
    }

    pub(crate) async fn pipeline(
        self: &Arc<Self>,
        pipeline: &Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisResult<Vec<Value>> {
        let mut current = self.connection().await?;
        let watch = CallWatch::new(self, current.generation);
        let answer = current
            .connection
            .req_packed_commands(pipeline, offset, count)
            .await;
        let failover_answer = answer.as_ref().ok().and_then(|values| {
            values.iter().find_map(|value| match value {
                Value::ServerError(error) => error
                    .kind()
                    .filter(|kind| failover_kind(*kind))
                    .map(|kind| RedisError::from((ErrorKind::Server(kind), "in a pipeline"))),
                _ => None,
            })
        });
        watch.settle(answer.as_ref().err().or(failover_answer.as_ref()));
        answer
    }
}

/// Notices a call that ends in a failover's error or is dropped before its answer.
struct CallWatch {
    link: Arc<SentinelLink>,
    generation: u64,
    settled: bool,
}

impl CallWatch {
    fn new(link: &Arc<SentinelLink>, generation: u64) -> Self {
        Self {
            link: Arc::clone(link),
            generation,
            settled: false,
        }
    }

    fn settle(mut self, error: Option<&RedisError>) {
        self.settled = true;
        if error.is_some_and(calls_for_search) {
            self.link.lost(self.generation);
        }
    }
}

impl Drop for CallWatch {
    fn drop(&mut self) {
        if !self.settled {
            self.link.lost(self.generation);
        }
    }
}

fn asked_in_vain(reason: &str) -> bool {
    tracing::debug!(%reason, "sentinel ask failed; asking again");
    false
}

fn found_primary(address: &str, generation: u64) {
    tracing::info!(%address, generation, "redis primary found through sentinel");
}

fn failover_kind(kind: ServerErrorKind) -> bool {
    matches!(
        kind,
        ServerErrorKind::ReadOnly | ServerErrorKind::MasterDown
    )
}

fn calls_for_search(error: &RedisError) -> bool {
    error.is_io_error()
        || error.is_timeout()
        || error.is_connection_refusal()
        || error.is_connection_dropped()
        || matches!(error.kind(), ErrorKind::Server(kind) if failover_kind(kind))
}

fn no_primary() -> RedisError {
    RedisError::from(std::io::Error::new(
        std::io::ErrorKind::NotConnected,
        "no redis primary known through sentinel yet",
    ))
}
