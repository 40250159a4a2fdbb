//! Pools: the origins behind one service, offered round-robin, those that are up first.
//!
//! An origin written with an IP address is one origin. One written with a name (compose's
//! `http://backend:9800`, whose DNS answer is every running replica) becomes one origin per
//! address it resolves to, re-resolved on every health check (every [`RESOLVE_EVERY`]
//! without one), so each replica is checked, chosen and taken out of rotation on its own.
//! Until a name has resolved, or when it resolves to nothing, the name itself is the origin
//! and is resolved on each connection.

use super::Origin;
use crate::config::{HealthCheck, IngressConfig, Service};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

/// How long a refused origin is offered last when its pool has no health check.
pub const REFUSED_COOLDOWN: Duration = Duration::from_secs(1);
/// How often names are re-resolved in a pool without a health check.
pub const RESOLVE_EVERY: Duration = Duration::from_secs(5);

/// Every origin by address, shared by the pools, so an address keeps its state and its
/// idle connections across pools and re-resolutions.
type Known = Arc<Mutex<HashMap<String, Arc<Origin>>>>;

/// The origins behind one service.
#[derive(Debug)]
pub struct Pool {
    service: String,
    /// `host:port` of each origin as written.
    written: Vec<String>,
    origins: RwLock<Arc<[Arc<Origin>]>>,
    known: Known,
    workers: usize,
    next: AtomicUsize,
    check: Option<HealthCheck>,
}

impl Pool {
    fn new(
        service: String,
        written: Vec<String>,
        check: Option<HealthCheck>,
        known: &Known,
        workers: usize,
    ) -> Self {
        let pool = Self {
            service,
            written: written.clone(),
            origins: RwLock::new(Arc::from(Vec::new())),
            known: known.clone(),
            workers,
            next: AtomicUsize::new(0),
            check,
        };
        pool.update(written.into_iter().map(|dial| (dial, Vec::new())).collect());
        pool
    }

    /// The service as written in the rules.
    pub fn service(&self) -> &str {
        &self.service
    }

    /// The origins now: one per address of each written origin.
    pub fn origins(&self) -> Arc<[Arc<Origin>]> {
        self.origins
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The active health check, if any.
    pub fn health_check(&self) -> Option<&HealthCheck> {
        self.check.as_ref()
    }

    /// Whether any origin is written with a name (so the pool re-resolves).
    pub fn has_names(&self) -> bool {
        self.written.iter().any(|dial| !is_address(dial))
    }

    /// Resolves every written name again and takes the answer as the pool's origins.
    pub async fn resolve(&self) {
        let mut resolved = Vec::with_capacity(self.written.len());
        for dial in &self.written {
            let addresses = if is_address(dial) {
                Vec::new()
            } else {
                match tokio::net::lookup_host(dial.as_str()).await {
                    Ok(found) => found.map(|address| address.to_string()).collect(),
                    Err(_) => Vec::new(),
                }
            };
            resolved.push((dial.clone(), addresses));
        }
        self.update(resolved);
    }

    /// Sets the origins from (written dial, its addresses): a dial without addresses stands
    /// for itself. Known addresses keep their [`Origin`].
    pub fn update(&self, resolved: Vec<(String, Vec<String>)>) {
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        let mut origins: Vec<Arc<Origin>> = Vec::new();
        for (dial, addresses) in resolved {
            let dials = if addresses.is_empty() {
                vec![dial]
            } else {
                addresses
            };
            for dial in dials {
                let origin = known
                    .entry(dial.clone())
                    .or_insert_with(|| Arc::new(Origin::new(dial, self.workers)))
                    .clone();
                if !origins.iter().any(|seen| Arc::ptr_eq(seen, &origin)) {
                    origins.push(origin);
                }
            }
        }
        *self.origins.write().unwrap_or_else(PoisonError::into_inner) = Arc::from(origins);
    }

    /// The order in which one request tries the origins: round-robin from the next turn,
    /// origins that are up first, then the others (a stale "down" must not refuse a request
    /// that an origin could serve).
    pub fn candidates(&self) -> Vec<Arc<Origin>> {
        let origins = self.origins();
        let count = origins.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        let mut order = Vec::with_capacity(count);
        let mut down = Vec::new();
        for offset in 0..count {
            let origin = &origins[(start + offset) % count];
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

/// Whether `dial` (`host:port`) names an IP address rather than a host name.
fn is_address(dial: &str) -> bool {
    dial.parse::<SocketAddr>().is_ok()
        || dial
            .rsplit_once(':')
            .is_some_and(|(host, _)| host.parse::<IpAddr>().is_ok())
}

/// Every pool, keyed by service.
#[derive(Debug, Default)]
pub struct Pools {
    by_service: HashMap<String, Arc<Pool>>,
}

impl Pools {
    /// A pool for every HTTP service of `config`: its `estate.pools` entry, or the service's
    /// own address alone; idle connections are kept per worker (`workers` of them).
    pub fn build(config: &IngressConfig, workers: usize) -> Self {
        let known = Known::default();
        let mut by_service = HashMap::new();
        for rule in &config.rules {
            let Service::Http(http) = &rule.service else {
                continue;
            };
            if by_service.contains_key(&http.text) {
                continue;
            }
            let declared = config.estate.pool(&http.text);
            let written = declared.map_or_else(
                || vec![http.dial.clone()],
                |pool| {
                    pool.origins
                        .iter()
                        .map(|origin| origin.dial.clone())
                        .collect()
                },
            );
            let check = declared.and_then(|pool| pool.health_check.clone());
            let pool = Pool::new(http.text.clone(), written, check, &known, workers);
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
mod tests;
