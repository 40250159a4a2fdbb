//! Custom rules stored by `/rules`: validated once, held compiled, applied to every analysis.
//!
//! Held in process memory: a restart forgets them (docs/analyzer.md says so). The store is a
//! map behind one lock; analyses clone the compiled rules out and never hold the lock. It holds
//! at most [`MAX_STORED_RULES`]: each rule is compiled memory and a pass over every analyzed
//! line, so their number bounds both.

use logscan::CustomRule;
use std::collections::BTreeMap;
use std::sync::{PoisonError, RwLock};

/// The most rules the store holds.
pub const MAX_STORED_RULES: usize = 200;

/// Why a rule was not stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Its id is taken (only [`RuleStore::insert`] refuses so).
    Taken,
    /// The store holds [`MAX_STORED_RULES`] already and this one is new.
    Full,
}

/// The stored rules, by id.
#[derive(Debug, Default)]
pub struct RuleStore {
    rules: RwLock<BTreeMap<String, CustomRule>>,
}

impl RuleStore {
    /// Every rule, in id order.
    pub fn all(&self) -> Vec<CustomRule> {
        self.rules
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// One rule.
    pub fn get(&self, id: &str) -> Option<CustomRule> {
        self.rules
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// Adds a rule whose id is not taken.
    pub fn insert(&self, rule: CustomRule) -> Result<(), Refusal> {
        let mut rules = self.rules.write().unwrap_or_else(PoisonError::into_inner);
        if rules.contains_key(rule.id()) {
            return Err(Refusal::Taken);
        }
        if rules.len() >= MAX_STORED_RULES {
            return Err(Refusal::Full);
        }
        rules.insert(rule.id().to_owned(), rule);
        Ok(())
    }

    /// Adds or replaces a rule; true when it replaced one.
    pub fn put(&self, rule: CustomRule) -> Result<bool, Refusal> {
        let mut rules = self.rules.write().unwrap_or_else(PoisonError::into_inner);
        if !rules.contains_key(rule.id()) && rules.len() >= MAX_STORED_RULES {
            return Err(Refusal::Full);
        }
        Ok(rules.insert(rule.id().to_owned(), rule).is_some())
    }

    /// Removes a rule; false when there was none.
    pub fn remove(&self, id: &str) -> bool {
        self.rules
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id)
            .is_some()
    }
}
