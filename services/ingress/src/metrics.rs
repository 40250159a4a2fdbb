//! The ingress's Prometheus metrics, served on the admin port (never on the proxied port, so
//! no hostname or path of the ingress file can reach or shadow them).
//!
//! - `ingress_requests_total{rule,code}`: answers by matched rule (from 0) and status;
//! - `ingress_request_duration_seconds{rule}`: time to the response head;
//! - `ingress_origin_connect_failures_total{origin}`: connections that could not be opened;
//! - `ingress_connect_retry_waits_total`: pauses of a request waiting for an origin to accept;
//! - `ingress_replays_total{origin}`: idempotent requests sent again (and this time sent)
//!   after a connection to this origin failed under them before any answer byte;
//! - `ingress_origin_failures_total{origin,reason}`: requests an origin failed once they were
//!   sent (`closed`, `malformed`, `timeout`, `upgrade`);
//! - `ingress_client_errors_total{reason}`: requests the edge refused for the client's own
//!   fault: `400` (`host`, `path`, `body`), `405` (`method`), `501` (`coding`), `408` (`stalled`:
//!   a body that stopped coming), `413` (`size`: a body too large) and `429` (`streams`: past
//!   the client's share in flight);
//! - `ingress_origin_up{origin}`: 1 when an origin is offered first, 0 when it is down;
//! - `ingress_pool_origins_up{service}`: how many of a service's origins are up (0: none);
//! - `ingress_inflight_requests`, `ingress_websocket_tunnels`: what is open now;
//! - `ingress_client_connections`: client connections holding a place ([`crate::gate`]);
//! - `ingress_client_connections_refused_total`: connections closed at once because their
//!   client already held its share.

use crate::gate::GateMetrics;
use crate::origin::{Origin, Pool, Pools};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeLabelSet, EncodeMetric};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::{ConstGauge, Gauge};
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::sync::Arc;
use std::time::Duration;

/// Labels of one answer.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    rule: u32,
    code: u16,
}

/// Labels of one rule.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RuleLabels {
    rule: u32,
}

/// Labels of one origin.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OriginLabels {
    origin: String,
}

/// Labels of one origin's failure.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct FailureLabels {
    origin: String,
    reason: &'static str,
}

/// Labels of one kind of client error.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ClientLabels {
    reason: &'static str,
}

/// Every metric the proxy records.
#[derive(Debug)]
pub struct Metrics {
    requests: Family<RequestLabels, Counter>,
    durations: Family<RuleLabels, Histogram, fn() -> Histogram>,
    connect_failures: Family<OriginLabels, Counter>,
    replays: Family<OriginLabels, Counter>,
    origin_failures: Family<FailureLabels, Counter>,
    client_errors: Family<ClientLabels, Counter>,
    retry_waits: Counter,
    /// Requests being answered now.
    pub inflight: Gauge,
    /// WebSocket tunnels open now.
    pub tunnels: Gauge,
    /// Client connections held, and refused for a client's share.
    pub gate: GateMetrics,
}

fn duration_histogram() -> Histogram {
    // 0.25 ms to ~4 s.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 15))
}

impl Metrics {
    /// New metrics, registered in `registry` with the origins' up/down state of `pools`.
    pub fn register(registry: &mut Registry, pools: &Pools) -> Arc<Self> {
        let metrics = Self {
            requests: Family::default(),
            durations: Family::new_with_constructor(duration_histogram),
            connect_failures: Family::default(),
            replays: Family::default(),
            origin_failures: Family::default(),
            client_errors: Family::default(),
            retry_waits: Counter::default(),
            inflight: Gauge::default(),
            tunnels: Gauge::default(),
            gate: GateMetrics::default(),
        };
        let ingress = registry.sub_registry_with_prefix("ingress");
        let help = "Answers by matched rule (from 0) and status code";
        ingress.register("requests", help, metrics.requests.clone());
        let help = "Time from the request to the response head, by matched rule";
        ingress.register("request_duration_seconds", help, metrics.durations.clone());
        let help = "Connections to an origin that could not be opened (nothing was sent)";
        ingress.register(
            "origin_connect_failures",
            help,
            metrics.connect_failures.clone(),
        );
        let help = "Idempotent requests sent again after a connection failed under them";
        ingress.register("replays", help, metrics.replays.clone());
        let help = "Requests an origin failed once sent, by reason";
        ingress.register("origin_failures", help, metrics.origin_failures.clone());
        let help = "Requests the edge refused for the client's own fault, by reason";
        ingress.register("client_errors", help, metrics.client_errors.clone());
        let help = "Pauses of a request waiting, within the retry deadline, for an origin";
        ingress.register("connect_retry_waits", help, metrics.retry_waits.clone());
        let help = "Requests being answered now";
        ingress.register("inflight_requests", help, metrics.inflight.clone());
        let help = "WebSocket tunnels open now";
        ingress.register("websocket_tunnels", help, metrics.tunnels.clone());
        let help = "Client connections holding a place at the edge";
        ingress.register("client_connections", help, metrics.gate.open.clone());
        let help = "Client connections closed at once: their client held its share";
        let refused = metrics.gate.refused.clone();
        ingress.register("client_connections_refused", help, refused);
        let pools = pools.iter().cloned().collect();
        ingress.register_collector(Box::new(OriginsUp(pools)));
        Arc::new(metrics)
    }

    /// Counts one answer.
    pub fn answered(&self, rule: usize, code: u16, elapsed: Duration) {
        let rule = u32::try_from(rule).unwrap_or(u32::MAX);
        self.requests
            .get_or_create(&RequestLabels { rule, code })
            .inc();
        self.durations
            .get_or_create(&RuleLabels { rule })
            .observe(elapsed.as_secs_f64());
    }

    /// Counts a connection that could not be opened.
    pub fn connect_failed(&self, origin: &str) {
        let labels = OriginLabels {
            origin: origin.to_owned(),
        };
        self.connect_failures.get_or_create(&labels).inc();
    }

    /// Counts an idempotent request sent again.
    pub fn replayed(&self, origin: &str) {
        let labels = OriginLabels {
            origin: origin.to_owned(),
        };
        self.replays.get_or_create(&labels).inc();
    }

    /// Counts a request `origin` failed after it was sent.
    pub fn origin_failed(&self, origin: &str, reason: &'static str) {
        let labels = FailureLabels {
            origin: origin.to_owned(),
            reason,
        };
        self.origin_failures.get_or_create(&labels).inc();
    }

    /// Counts a request refused as the client's error.
    pub fn client_error(&self, reason: &'static str) {
        self.client_errors
            .get_or_create(&ClientLabels { reason })
            .inc();
    }

    /// Counts a pause before another pass over the origins.
    pub fn retry_wait(&self) {
        self.retry_waits.inc();
    }
}

/// Counts something open in a gauge for as long as it lives (a dropped request future too).
#[derive(Debug)]
pub struct Open(Gauge);

impl Open {
    /// Adds one to `gauge` until dropped.
    pub fn new(gauge: &Gauge) -> Self {
        gauge.inc();
        Self(gauge.clone())
    }
}

impl Drop for Open {
    fn drop(&mut self) {
        self.0.dec();
    }
}

/// `ingress_origin_up` and `ingress_pool_origins_up`, read from the pools' origins at scrape
/// time.
#[derive(Debug)]
struct OriginsUp(Vec<Arc<Pool>>);

impl Collector for OriginsUp {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let mut origins: Vec<Arc<Origin>> = Vec::new();
        for origin in self.0.iter().flat_map(|pool| pool.origins().to_vec()) {
            if !origins.iter().any(|known| Arc::ptr_eq(known, &origin)) {
                origins.push(origin);
            }
        }
        let help = "1 when an origin is offered first, 0 when a check or a refusal put it last";
        let mut metric = encoder.encode_descriptor("origin_up", help, None, MetricType::Gauge)?;
        for origin in &origins {
            let labels = [("origin", origin.dial())];
            ConstGauge::new(i64::from(origin.is_up())).encode(metric.encode_family(&labels)?)?;
        }
        let help = "How many of a service's origins are offered first: 0 means none is healthy";
        let mut metric =
            encoder.encode_descriptor("pool_origins_up", help, None, MetricType::Gauge)?;
        for pool in &self.0 {
            let up = pool
                .origins()
                .iter()
                .filter(|origin| origin.is_up())
                .count();
            let labels = [("service", pool.service())];
            ConstGauge::new(i64::try_from(up).unwrap_or(i64::MAX))
                .encode(metric.encode_family(&labels)?)?;
        }
        Ok(())
    }
}
