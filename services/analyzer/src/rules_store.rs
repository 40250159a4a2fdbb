//! Custom rules stored by `/rules`: validated once, held compiled, applied to every analysis.
//!
//! Two homes, one behaviour. Without `REDIS_URL` they live in this process's memory (a
//! restart forgets them). With it they live in Redis ([`shared`]), so every replica answers the
//! same rule set and a restart forgets nothing. Analyses clone the compiled rules out and never
//! hold a lock. The store holds at most [`MAX_STORED_RULES`]: each rule is compiled memory and a
//! pass over every analyzed line, so their number bounds both.

mod shared;

use logscan::CustomRule;
use shared::SharedRules;
use std::collections::BTreeMap;
use std::sync::{PoisonError, RwLock};

/// The most rules the store holds.
pub const MAX_STORED_RULES: usize = 200;

/// Why a rule was not stored (or removed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Its id is taken (only [`RuleStore::insert`] refuses so).
    Taken,
    /// The store holds [`MAX_STORED_RULES`] already and this one is new.
    Full,
    /// The shared store did not confirm the write in time: it may yet take effect.
    Unavailable,
}

/// The stored rules, by id.
#[derive(Debug)]
pub enum RuleStore {
    /// In this process.
    Memory(RwLock<BTreeMap<String, CustomRule>>),
    /// In Redis, shared by every replica.
    Shared(SharedRules),
}

impl Default for RuleStore {
    fn default() -> Self {
        Self::Memory(RwLock::default())
    }
}

impl RuleStore {
    /// In Redis at `redis_url` when one is given (connected lazily: the analyzer starts while
    /// Redis is still down), else in memory.
    pub fn new(redis_url: Option<&str>) -> redis::RedisResult<Self> {
        Ok(match redis_url {
            Some(url) => Self::Shared(SharedRules::new(url)?),
            None => Self::default(),
        })
    }

    /// Every rule, in id order. From Redis, the set last read when it does not answer.
    pub async fn all(&self) -> Vec<CustomRule> {
        match self {
            Self::Memory(rules) => read(rules).values().cloned().collect(),
            Self::Shared(shared) => shared.all().await,
        }
    }

    /// One rule.
    pub async fn get(&self, id: &str) -> Option<CustomRule> {
        match self {
            Self::Memory(rules) => read(rules).get(id).cloned(),
            Self::Shared(shared) => shared.all().await.into_iter().find(|rule| rule.id() == id),
        }
    }

    /// Adds a rule whose id is not taken.
    pub async fn insert(&self, rule: CustomRule) -> Result<(), Refusal> {
        match self {
            Self::Memory(rules) => {
                let mut rules = write(rules);
                if rules.contains_key(rule.id()) {
                    return Err(Refusal::Taken);
                }
                if rules.len() >= MAX_STORED_RULES {
                    return Err(Refusal::Full);
                }
                rules.insert(rule.id().to_owned(), rule);
                Ok(())
            }
            Self::Shared(shared) => shared.insert(&rule).await,
        }
    }

    /// Adds or replaces a rule; true when it replaced one.
    pub async fn put(&self, rule: CustomRule) -> Result<bool, Refusal> {
        match self {
            Self::Memory(rules) => {
                let mut rules = write(rules);
                if !rules.contains_key(rule.id()) && rules.len() >= MAX_STORED_RULES {
                    return Err(Refusal::Full);
                }
                Ok(rules.insert(rule.id().to_owned(), rule).is_some())
            }
            Self::Shared(shared) => shared.put(&rule).await,
        }
    }

    /// Removes a rule; false when there was none.
    pub async fn remove(&self, id: &str) -> Result<bool, Refusal> {
        match self {
            Self::Memory(rules) => Ok(write(rules).remove(id).is_some()),
            Self::Shared(shared) => shared.remove(id).await,
        }
    }
}

fn read(
    rules: &RwLock<BTreeMap<String, CustomRule>>,
) -> std::sync::RwLockReadGuard<'_, BTreeMap<String, CustomRule>> {
    rules.read().unwrap_or_else(PoisonError::into_inner)
}

fn write(
    rules: &RwLock<BTreeMap<String, CustomRule>>,
) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, CustomRule>> {
    rules.write().unwrap_or_else(PoisonError::into_inner)
}
