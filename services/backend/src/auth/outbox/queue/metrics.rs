//! `outbox_deliveries_total{outcome}`: `sent`, `failed` (one per failed attempt) and
//! `abandoned` (mail given up), on `/actuator/prometheus`.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

type Labels = Vec<(&'static str, &'static str)>;

/// The delivery counters: cheap to clone, clones count together.
#[derive(Clone, Debug, Default)]
pub struct OutboxMetrics {
    deliveries: Family<Labels, Counter>,
}

impl OutboxMetrics {
    /// Adds the counters to `registry`.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "outbox_deliveries",
            "Mail delivery attempts by outcome (sent, failed, abandoned)",
            self.deliveries.clone(),
        );
    }

    pub(super) fn count(&self, outcome: &'static str) {
        self.deliveries
            .get_or_create(&vec![("outcome", outcome)])
            .inc();
    }
}
