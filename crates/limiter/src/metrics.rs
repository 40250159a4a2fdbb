//! Decision counters in Prometheus text format, through `prometheus-client`.
//!
//! `limiter_decisions_total{service,group,outcome}`: `allowed` and `refused` add up to every
//! decision; `fallback` counts decisions made locally because Redis did not answer, and
//! `evicted` counts buckets forgotten to keep the map bounded.
//!
//! Counting is on the hot path of every request, so each group's counters are striped by the
//! key's shard (one cache line a stripe): two cores deciding for different keys never bounce
//! one counter between them. A scrape sums the stripes.

use crate::decision::Decision;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::registry::Registry;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

const STRIPES: usize = 16;

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

/// Where a decision was made, which decides what is counted beside allowed or refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// In this process's memory backend; `evicted` when keeping the key pushed another out.
    Memory { evicted: bool },
    /// By the shared backend (Redis).
    Shared,
    /// Locally, because the shared backend did not answer in time; `evicted` as above.
    Fallback { evicted: bool },
}

/// The four outcome counts of one stripe, alone on a cache line.
#[derive(Debug, Default)]
#[repr(align(64))]
struct Stripe([AtomicU64; 4]);

/// One group's counters.
#[derive(Debug)]
pub(crate) struct GroupCounters {
    service: String,
    group: String,
    stripes: [Stripe; STRIPES],
}

impl GroupCounters {
    /// Counts one outcome on the stripe of the key's shard.
    pub(crate) fn record(&self, stripe: u8, outcome: Outcome) {
        self.stripes[usize::from(stripe) % STRIPES].0[outcome as usize]
            .fetch_add(1, Ordering::Relaxed);
    }

    /// Counts one decision: allowed or refused, and how it was made.
    pub(crate) fn record_decision(&self, stripe: u8, decision: &Decision, source: Source) {
        let (fallback, evicted) = match source {
            Source::Memory { evicted } => (false, evicted),
            Source::Shared => (false, false),
            Source::Fallback { evicted } => (true, evicted),
        };
        if fallback {
            self.record(stripe, Outcome::Fallback);
        }
        if evicted {
            self.record(stripe, Outcome::Evicted);
        }
        let outcome = if decision.is_allowed() {
            Outcome::Allowed
        } else {
            Outcome::Refused
        };
        self.record(stripe, outcome);
    }

    /// Counts one decision of the memory store, made under the lock of its shard `shard`.
    /// That store is the group's only writer (a limiter's groups are its own) and its shard
    /// `n` writes only stripe `n`, so the shard's lock already orders every write of the
    /// stripe: a plain load and store per counter is exact, and saves the atomic
    /// read-modify-write on the hot path of every request.
    pub(crate) fn record_serialized(&self, shard: usize, decision: &Decision, evicted: bool) {
        let counts = &self.stripes[shard % STRIPES].0;
        let bump = |outcome: Outcome| {
            let counter = &counts[outcome as usize];
            counter.store(counter.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        };
        if evicted {
            bump(Outcome::Evicted);
        }
        bump(if decision.is_allowed() {
            Outcome::Allowed
        } else {
            Outcome::Refused
        });
    }

    pub(crate) fn get(&self, outcome: Outcome) -> u64 {
        self.stripes
            .iter()
            .map(|stripe| stripe.0[outcome as usize].load(Ordering::Relaxed))
            .sum()
    }
}

/// The decision counters of every limiter built with it; clones share them, so one registry
/// serves every limiter of a service.
#[derive(Clone, Debug, Default)]
pub struct LimiterMetrics {
    groups: Arc<Mutex<Vec<Weak<GroupCounters>>>>,
}

impl LimiterMetrics {
    /// Adds the counters to a service's registry.
    pub fn register(&self, registry: &mut Registry) {
        registry.register_collector(Box::new(self.clone()));
    }

    /// A new group's counters; a dropped limiter's groups leave the exposition.
    pub(crate) fn group_counters(&self, service: &str, group: &str) -> Arc<GroupCounters> {
        let counters = Arc::new(GroupCounters {
            service: service.to_owned(),
            group: group.to_owned(),
            stripes: Default::default(),
        });
        let mut groups = self.groups.lock().unwrap_or_else(PoisonError::into_inner);
        groups.retain(|group| group.strong_count() > 0);
        groups.push(Arc::downgrade(&counters));
        counters
    }
}

impl Collector for LimiterMetrics {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let live: Vec<_> = self
            .groups
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        let help = "Rate-limit decisions by service, group and outcome";
        let mut metric =
            encoder.encode_descriptor("limiter_decisions", help, None, MetricType::Counter)?;
        for counters in &live {
            for outcome in Outcome::ALL {
                let labels = [
                    ("service", counters.service.as_str()),
                    ("group", counters.group.as_str()),
                    ("outcome", outcome.label()),
                ];
                ConstCounter::new(counters.get(outcome)).encode(metric.encode_family(&labels)?)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prometheus_client::encoding::text::encode;

    #[test]
    fn renders_prometheus_text_summed_over_stripes() {
        let metrics = LimiterMetrics::default();
        let mut registry = Registry::default();
        metrics.register(&mut registry);
        let counters = metrics.group_counters("backend", "credential");
        counters.record(3, Outcome::Refused);
        counters.record(200, Outcome::Refused);
        let mut text = String::new();
        encode(&mut text, &registry).unwrap();
        assert!(
            text.contains(r#"limiter_decisions_total{service="backend",group="credential",outcome="refused"} 2"#),
            "{text}"
        );
        assert!(text.contains("# TYPE limiter_decisions counter"), "{text}");
        drop(counters);
        let mut text = String::new();
        encode(&mut text, &registry).unwrap();
        assert!(
            !text.contains("credential"),
            "a dropped limiter leaves: {text}"
        );
    }
}
