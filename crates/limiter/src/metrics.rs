//! Decision counters in Prometheus text format, through `prometheus-client`.
//!
//! `limiter_decisions_total{service,group,outcome}`: `allowed` and `refused` add up to every
//! decision; `fallback` counts decisions made locally because Redis did not answer, and
//! `evicted` counts buckets forgotten to keep the map bounded.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

/// What happened to one decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Served.
    Allowed,
    /// Refused.
    Refused,
    /// Decided locally because the shared backend did not answer in time.
    Fallback,
    /// A bucket was forgotten to keep the map bounded.
    Evicted,
}

impl Outcome {
    const ALL: [Outcome; 4] = [Self::Allowed, Self::Refused, Self::Fallback, Self::Evicted];

    fn label(self) -> &'static str {
        match self {
            Self::Allowed => "allowed",
            Self::Refused => "refused",
            Self::Fallback => "fallback",
            Self::Evicted => "evicted",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct DecisionLabels {
    service: String,
    group: String,
    outcome: &'static str,
}

/// The decision counters; clones share them, so one registry serves every limiter of a service.
#[derive(Clone, Debug, Default)]
pub struct LimiterMetrics {
    decisions: Family<DecisionLabels, Counter>,
}

impl LimiterMetrics {
    /// Adds the counters to a service's registry.
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "limiter_decisions",
            "Rate-limit decisions by service, group and outcome",
            self.decisions.clone(),
        );
    }

    /// The four counters of one group, resolved once so the hot path is one atomic add.
    pub(crate) fn group_counters(&self, service: &str, group: &str) -> GroupCounters {
        GroupCounters(Outcome::ALL.map(|outcome| {
            self.decisions
                .get_or_create(&DecisionLabels {
                    service: service.to_owned(),
                    group: group.to_owned(),
                    outcome: outcome.label(),
                })
                .clone()
        }))
    }
}

/// One group's counters, indexed by outcome.
#[derive(Clone, Debug)]
pub(crate) struct GroupCounters([Counter; 4]);

impl GroupCounters {
    pub(crate) fn record(&self, outcome: Outcome) {
        self.0[outcome as usize].inc();
    }

    pub(crate) fn get(&self, outcome: Outcome) -> u64 {
        self.0[outcome as usize].get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::encoding::text::encode;

    #[test]
    fn renders_prometheus_text() {
        let metrics = LimiterMetrics::default();
        let mut registry = Registry::default();
        metrics.register(&mut registry);
        metrics
            .group_counters("backend", "credential")
            .record(Outcome::Refused);
        let mut text = String::new();
        encode(&mut text, &registry).unwrap();
        assert!(text.contains(
            r#"limiter_decisions_total{service="backend",group="credential",outcome="refused"} 1"#
        ));
    }
}
