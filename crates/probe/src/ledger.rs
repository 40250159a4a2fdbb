//! The buckets this run's requests spend, by the group name the estate gives them in its
//! `RateLimit` field, and the one rule for a request metered by several groups in order
//! (the backend's login: `credential`, then `auth_credential`): asking stops at the first
//! refusal, so the groups before it spent a token and the ones after it were never asked.

use crate::bucket::{Bucket, Expect};
use crate::exchange::Exchange;
use crate::expect::Expectations;
use crate::fields;
use std::collections::BTreeMap;
use std::time::Instant;

/// Backend, public filter, per client address.
pub const CREDENTIAL: &str = "credential";
/// Backend, auth filter, per client address.
pub const AUTH_CREDENTIAL: &str = "auth_credential";
/// Analyzer, per token.
pub const WRITE: &str = "write";

/// The modelled buckets.
#[derive(Clone, Debug)]
pub struct Ledger {
    buckets: BTreeMap<&'static str, Bucket>,
}

impl Ledger {
    /// Nothing known yet; instants count from `origin`.
    pub fn new(origin: Instant, expect: &Expectations) -> Self {
        let buckets = BTreeMap::from([
            (CREDENTIAL, Bucket::new(expect.credential, origin)),
            (AUTH_CREDENTIAL, Bucket::new(expect.auth_credential, origin)),
            (WRITE, Bucket::new(expect.analyzer_write, origin)),
        ]);
        Self { buckets }
    }

    /// One group's model.
    pub fn bucket(&self, group: &str) -> Option<&Bucket> {
        self.buckets.get(group)
    }

    /// One group's model, to record a burst.
    pub fn bucket_mut(&mut self, group: &str) -> Option<&mut Bucket> {
        self.buckets.get_mut(group)
    }

    /// What `exchange` should have got from `groups`, asked in order, before it is recorded.
    pub fn expect(&self, groups: &[&'static str], exchange: &Exchange) -> Expect {
        for group in groups {
            let Some(bucket) = self.buckets.get(group) else {
                continue;
            };
            match bucket.expect(exchange.window) {
                Expect::Allow => {}
                other => return other,
            }
        }
        Expect::Allow
    }

    /// Records `exchange` on `groups`; `refused` says whether the limiter refused it.
    pub fn record(&mut self, groups: &[&'static str], exchange: &Exchange, refused: bool) {
        let refusing = refused.then(|| self.refusing_group(groups, exchange));
        for group in groups {
            let Some(bucket) = self.buckets.get_mut(group) else {
                continue;
            };
            if Some(*group) == refusing {
                bucket.refused(exchange.window, exchange.retry_after().unwrap_or(1));
                return;
            }
            let field = (!refused)
                .then(|| fields::state(exchange, group))
                .flatten()
                .and_then(|item| Some((item.get("r")?, item.get("t")?)));
            bucket.served(exchange.window, field);
        }
    }

    /// The group that refused: the last of `groups` the answer lists (the ones after it were
    /// never asked), else the first the model did not expect to serve.
    fn refusing_group(&self, groups: &[&'static str], exchange: &Exchange) -> &'static str {
        let listed: Vec<String> = fields::items(exchange, "ratelimit")
            .into_iter()
            .map(|item| item.group)
            .collect();
        let last_listed = groups
            .iter()
            .rev()
            .find(|group| listed.iter().any(|name| name == *group));
        let first_doubtful = groups.iter().find(|group| {
            self.buckets
                .get(*group)
                .is_some_and(|bucket| bucket.expect(exchange.window) != Expect::Allow)
        });
        last_listed
            .or(first_doubtful)
            .or(groups.last())
            .copied()
            .unwrap_or_default()
    }
}
