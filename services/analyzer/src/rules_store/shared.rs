//! The rules in Redis: one hash of rule id → its specification (JSON, as `/rules` answers
//! it) and a version number every write raises, both changed together by one script, so a
//! rule is never half-stored and the id and count checks hold across replicas.
//!
//! A replica keeps the compiled set with the version it was read at, and asks for the version
//! (one `GET`) before each use: the hash is read again only after a write somewhere. When
//! Redis does not answer in time, analyses go on with the set last read without asking again
//! for [`READ_BACKOFF`] (logged once per failure), and a write is answered 503. A script already sent cannot be called back, so such a
//! write may still take effect when Redis answers again — whole, never half: the caller reads
//! the rule before retrying (a retried create of a rule that did get stored is a 409).

use super::{MAX_STORED_RULES, Refusal};
use logscan::{CustomRule, RuleSpec};
use redis::Script;
use redis_primary::Primary;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The hash of stored rules.
pub const RULES_KEY: &str = "estate:analyzer:rules";
/// The number every write raises.
pub const VERSION_KEY: &str = "estate:analyzer:rules:version";
/// Longest wait for Redis on any call.
const TIMEOUT: Duration = Duration::from_millis(500);
/// After a read Redis did not answer, how long analyses use the set last read without asking
/// again: an analysis waits for Redis at most once in this window, not every time.
const READ_BACKOFF: Duration = Duration::from_secs(2);

/// Adds a rule whose id is free: `taken`, `full` or `stored`.
const INSERT: &str = r"
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'taken' end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
return 'stored'
";

/// Adds or replaces a rule: `full`, `replaced` or `stored`.
const PUT: &str = r"
local exists = redis.call('HEXISTS', KEYS[1], ARGV[1])
if exists == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
if exists == 1 then return 'replaced' end
return 'stored'
";

/// Removes a rule: 1 when there was one.
const REMOVE: &str = r"
local removed = redis.call('HDEL', KEYS[1], ARGV[1])
if removed == 1 then redis.call('INCR', KEYS[2]) end
return removed
";

/// The compiled set and the version it was read at.
#[derive(Debug, Default)]
struct Cached {
    version: Option<u64>,
    rules: Arc<Vec<CustomRule>>,
    /// Until when reads skip Redis after one it did not answer.
    quiet_until: Option<Instant>,
}

/// The rules every replica shares.
#[derive(Debug)]
pub struct SharedRules {
    connection: Primary,
    cached: Mutex<Cached>,
    insert: Script,
    put: Script,
    remove: Script,
}

impl SharedRules {
    /// Prepares the connection without opening it.
    pub fn new(url: &str) -> redis::RedisResult<Self> {
        Ok(Self {
            connection: Primary::open(url, TIMEOUT)?,
            cached: Mutex::default(),
            insert: Script::new(INSERT),
            put: Script::new(PUT),
            remove: Script::new(REMOVE),
        })
    }

    /// Every rule, in id order: read again when the version moved, the last set read when
    /// Redis does not answer.
    pub async fn all(&self) -> Vec<CustomRule> {
        {
            let cached = self.lock();
            if cached
                .quiet_until
                .is_some_and(|until| Instant::now() < until)
            {
                return cached.rules.to_vec();
            }
        }
        match self.refresh().await {
            Ok(rules) => rules.to_vec(),
            Err(error) => {
                tracing::warn!(%error, "the shared rule store did not answer; analysing with the rules last read");
                let mut cached = self.lock();
                cached.quiet_until = Some(Instant::now() + READ_BACKOFF);
                cached.rules.to_vec()
            }
        }
    }

    /// Adds a rule whose id is free.
    pub async fn insert(&self, rule: &CustomRule) -> Result<(), Refusal> {
        match self.write(&self.insert, rule).await?.as_str() {
            "taken" => Err(Refusal::Taken),
            "full" => Err(Refusal::Full),
            _ => Ok(()),
        }
    }

    /// Adds or replaces a rule; true when it replaced one.
    pub async fn put(&self, rule: &CustomRule) -> Result<bool, Refusal> {
        match self.write(&self.put, rule).await?.as_str() {
            "full" => Err(Refusal::Full),
            outcome => Ok(outcome == "replaced"),
        }
    }

    /// Removes a rule; false when there was none.
    pub async fn remove(&self, id: &str) -> Result<bool, Refusal> {
        let mut invocation = self.remove.key(RULES_KEY);
        invocation.key(VERSION_KEY).arg(id);
        let removed: i64 = bounded(invocation.invoke_async(&mut self.connection.clone()))
            .await
            .map_err(unavailable)?;
        self.answered();
        Ok(removed == 1)
    }

    async fn write(&self, script: &Script, rule: &CustomRule) -> Result<String, Refusal> {
        let spec = serde_json::to_string(rule.spec()).map_err(|error| {
            tracing::error!(%error, "a rule could not be written as JSON");
            Refusal::Unavailable
        })?;
        let mut invocation = script.key(RULES_KEY);
        invocation
            .key(VERSION_KEY)
            .arg(rule.id())
            .arg(spec)
            .arg(MAX_STORED_RULES);
        let outcome = bounded(invocation.invoke_async(&mut self.connection.clone()))
            .await
            .map_err(unavailable)?;
        self.answered();
        Ok(outcome)
    }

    /// Redis answered a write: the next read asks it again, so this replica sees its own write
    /// at once even inside a [`READ_BACKOFF`] window.
    fn answered(&self) {
        self.lock().quiet_until = None;
    }

    /// The current set: the cached one while the version has not moved.
    async fn refresh(&self) -> Result<Arc<Vec<CustomRule>>, String> {
        let mut connection = self.connection.clone();
        let version: Option<u64> = bounded(
            redis::cmd("GET")
                .arg(VERSION_KEY)
                .query_async(&mut connection),
        )
        .await?;
        {
            let cached = self.lock();
            if cached.version.is_some() && cached.version == version {
                return Ok(cached.rules.clone());
            }
        }
        let (version, stored): (Option<u64>, Vec<(String, String)>) = bounded(
            redis::pipe()
                .atomic()
                .cmd("GET")
                .arg(VERSION_KEY)
                .cmd("HGETALL")
                .arg(RULES_KEY)
                .query_async(&mut connection),
        )
        .await?;
        let rules = Arc::new(compile(stored));
        *self.lock() = Cached {
            version: Some(version.unwrap_or(0)),
            rules: rules.clone(),
            quiet_until: None,
        };
        Ok(rules)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cached> {
        self.cached.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The stored specifications compiled, in id order; one that no longer validates (stored by
/// an older analyzer) is left out and logged.
fn compile(mut stored: Vec<(String, String)>) -> Vec<CustomRule> {
    stored.sort_by(|left, right| left.0.cmp(&right.0));
    stored
        .into_iter()
        .filter_map(|(id, json)| {
            let rule = serde_json::from_str::<RuleSpec>(&json)
                .map_err(|error| error.to_string())
                .and_then(|spec| spec.validate().map_err(|error| error.to_string()));
            rule.map_err(|error| tracing::warn!(%id, %error, "a stored rule is left out"))
                .ok()
        })
        .collect()
}

/// `call`'s answer, or why there is none (its error, or no answer within [`TIMEOUT`]).
async fn bounded<T>(call: impl Future<Output = redis::RedisResult<T>>) -> Result<T, String> {
    match tokio::time::timeout(TIMEOUT, call).await {
        Ok(answer) => answer.map_err(|error| error.to_string()),
        Err(_) => Err(format!("no answer within {TIMEOUT:?}")),
    }
}

fn unavailable(error: String) -> Refusal {
    tracing::warn!(%error, "the shared rule store did not confirm a write");
    Refusal::Unavailable
}
