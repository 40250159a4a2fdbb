//! Custom rules stored by `/rules`: validated once, held compiled, applied to every analysis.
//!
//! Held in process memory: a restart forgets them (docs/analyzer.md says so). The store is a
//! map behind one lock; analyses clone the compiled rules out and never hold the lock.

use logscan::CustomRule;
use std::collections::BTreeMap;
use std::sync::{PoisonError, RwLock};

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

    /// Adds a rule; false when its id is taken.
    pub fn insert(&self, rule: CustomRule) -> bool {
        let mut rules = self.rules.write().unwrap_or_else(PoisonError::into_inner);
        if rules.contains_key(rule.id()) {
            return false;
        }
        rules.insert(rule.id().to_owned(), rule);
        true
    }

    /// Adds or replaces a rule; true when it replaced one.
    pub fn put(&self, rule: CustomRule) -> bool {
        let mut rules = self.rules.write().unwrap_or_else(PoisonError::into_inner);
        rules.insert(rule.id().to_owned(), rule).is_some()
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
