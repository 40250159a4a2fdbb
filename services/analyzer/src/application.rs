//! Building and running the analyzer: bind first (so the port is known), then serve.
//!
//! The layers and their order are the estate's one stack (`platform::stack`); what is the
//! analyzer's own: no CORS (no browser calls it), the token gate as its guard (an
//! unauthenticated caller spends no budget), and a limiter keyed on the token that
//! `RATE_LIMIT_ENABLED` can switch off.

use crate::config::AnalyzerConfig;
use crate::errors::{ApiError, internal_envelope};
use crate::rules_store::RuleStore;
use crate::state::AppState;
use crate::{limits, routes};
use actix_web::dev::Server;
use limiter::{AdmissionQueue, LimiterMetrics, QueueMetrics, SharedClock};
use platform::server::Bound;
use platform::{Stack, StartFailure};
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// A bound, not yet running analyzer.
pub struct Application {
    bound: Bound,
}

impl Application {
    /// Builds on the system clock.
    pub fn build(config: AnalyzerConfig) -> Result<Self, StartFailure> {
        Self::build_with_clock(config, limiter::system_clock())
    }

    /// Builds with an injected clock (tests move a fake one).
    pub fn build_with_clock(
        config: AnalyzerConfig,
        clock: SharedClock,
    ) -> Result<Self, StartFailure> {
        let fail = |error: &dyn std::fmt::Display| StartFailure::Other(error.to_string());
        let mut registry = Registry::default();
        let limiter_metrics = LimiterMetrics::default();
        limiter_metrics.register(&mut registry);
        let queue = Arc::new(AdmissionQueue::new(config.queue));
        registry.register_collector(Box::new(QueueMetrics(queue.clone())));
        let limiter =
            limits::limiter(&config, limiter_metrics, clock.clone()).map_err(|e| fail(&e))?;
        let rate_limit = limits::middleware(limiter).map_err(|e| fail(&e))?;
        tracing::info!(
            enabled = config.rate_limit_enabled,
            "analyzer rate limits:\n{}",
            limits::rule_table()
        );
        let state = AppState {
            token: config.token.as_str().into(),
            rules: Arc::new(
                RuleStore::new(config.limiter.redis_url.as_deref()).map_err(|e| fail(&e))?,
            ),
            queue,
            llm: llm::LlmClient::new(config.llm.clone(), clock.clone()).map_err(|e| fail(&e))?,
            registry: Arc::new(registry),
            bounds: config.bounds,
            clock,
        };
        let listener = config.listen.bind().map_err(|e| fail(&e))?;
        let shutdown_delay = config.listen.shutdown_delay;
        let stack = Stack::new(
            state,
            routes::config,
            |reference| internal_envelope("panic", reference),
            rate_limit,
        )
        .limiter_enabled(config.rate_limit_enabled)
        .json_limit(config.max_body_bytes)
        .rejections(|rejection, _| ApiError::Rejected(rejection).into())
        .guard(crate::gate::require_token);
        let bound = Bound::new("analyzer", listener, shutdown_delay, move || stack.app())?;
        Ok(Self { bound })
    }

    /// The bound port.
    pub fn port(&self) -> u16 {
        self.bound.port()
    }

    /// The server, for tests that spawn it.
    pub fn into_server(self) -> Server {
        self.bound.into_server()
    }

    /// Serves until SIGTERM, then drains.
    pub async fn run_until_stopped(self) -> Result<(), StartFailure> {
        self.bound.run_until_stopped().await
    }
}
