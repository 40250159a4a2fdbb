//! Pools: the origins behind one service, offered round-robin, those that are up first.

use super::Origin;
use crate::config::{HealthCheck, IngressConfig, Service};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// How long a refused origin is offered last when its pool has no health check.
pub const REFUSED_COOLDOWN: Duration = Duration::from_secs(1);

/// The origins behind one service.
#[derive(Debug)]
pub struct Pool {
    service: String,
    origins: Vec<Arc<Origin>>,
    next: AtomicUsize,
    check: Option<HealthCheck>,
}

impl Pool {
    /// The service as written in the rules.
    pub fn service(&self) -> &str {
        &self.service
    }

    /// Every origin, in the order written.
    pub fn origins(&self) -> &[Arc<Origin>] {
        &self.origins
    }

    /// The active health check, if any.
    pub fn health_check(&self) -> Option<&HealthCheck> {
        self.check.as_ref()
    }

    /// The order in which one request tries the origins: round-robin from the next turn,
    /// origins that are up first, then the others (a stale "down" must not refuse a request
    /// that an origin could serve).
    pub fn candidates(&self) -> Vec<Arc<Origin>> {
        let count = self.origins.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let mut order = Vec::with_capacity(count);
        let mut down = Vec::new();
        for offset in 0..count {
            let origin = &self.origins[(start + offset) % count];
            if origin.is_up() {
                order.push(origin.clone());
            } else {
                down.push(origin.clone());
            }
        }
        order.append(&mut down);
        order
    }

    /// How long a refused origin is offered last: until its next health check, or
    /// [`REFUSED_COOLDOWN`] without one.
    pub fn cooldown(&self) -> Duration {
        self.check
            .as_ref()
            .map_or(REFUSED_COOLDOWN, |check| check.interval)
    }
}

/// Every pool, keyed by service; origins with the same address are one [`Origin`].
#[derive(Debug, Default)]
pub struct Pools {
    by_service: HashMap<String, Arc<Pool>>,
}

impl Pools {
    /// A pool for every HTTP service of `config`: its `estate.pools` entry, or the service's
    /// own address alone.
    pub fn build(config: &IngressConfig, workers: usize) -> Self {
        let mut origins: HashMap<String, Arc<Origin>> = HashMap::new();
        let mut by_service = HashMap::new();
        for rule in &config.rules {
            let Service::Http(http) = &rule.service else {
                continue;
            };
            if by_service.contains_key(&http.text) {
                continue;
            }
            let declared = config.estate.pool(&http.text);
            let addresses =
                declared.map_or_else(|| vec![http.clone()], |pool| pool.origins.clone());
            let members = addresses
                .iter()
                .map(|address| {
                    origins
                        .entry(address.dial.clone())
                        .or_insert_with(|| Arc::new(Origin::new(address.dial.clone(), workers)))
                        .clone()
                })
                .collect();
            let pool = Pool {
                service: http.text.clone(),
                origins: members,
                next: AtomicUsize::new(0),
                check: declared.and_then(|pool| pool.health_check.clone()),
            };
            by_service.insert(http.text.clone(), Arc::new(pool));
        }
        Self { by_service }
    }

    /// The pool of `service`.
    pub fn get(&self, service: &str) -> Option<&Arc<Pool>> {
        self.by_service.get(service)
    }

    /// Every pool.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Pool>> {
        self.by_service.values()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(count: usize) -> Pool {
        Pool {
            service: "http://x".to_owned(),
            origins: (0..count)
                .map(|at| Arc::new(Origin::new(format!("127.0.0.1:{at}"), 1)))
                .collect(),
            next: AtomicUsize::new(0),
            check: None,
        }
    }

    fn order(pool: &Pool) -> Vec<String> {
        pool.candidates()
            .iter()
            .map(|o| o.dial().to_owned())
            .collect()
    }

    #[test]
    fn round_robin_offers_up_origins_first() {
        let pool = pool(3);
        assert_eq!(order(&pool), ["127.0.0.1:0", "127.0.0.1:1", "127.0.0.1:2"]);
        assert_eq!(order(&pool), ["127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:0"]);
        pool.origins[2].set_healthy(false);
        assert_eq!(order(&pool), ["127.0.0.1:0", "127.0.0.1:1", "127.0.0.1:2"]);
        assert_eq!(order(&pool), ["127.0.0.1:0", "127.0.0.1:1", "127.0.0.1:2"]);
        assert_eq!(order(&pool), ["127.0.0.1:1", "127.0.0.1:0", "127.0.0.1:2"]);
    }
}
