//! Building and running the analyzer: bind first (so the port is known), then serve.
//!
//! Middleware order, outermost first: the request log (every answer carries the request's id
//! and gets its line; every line inside runs in its span), the panic layer (a panic anywhere
//! inside is the 500 envelope), token gate (unauthenticated callers spend no budget), limiter
//! (keyed on the token), then the routes.

use crate::config::AnalyzerConfig;
use crate::errors::{ApiError, internal_envelope};
use crate::rules_store::RuleStore;
use crate::state::AppState;
use crate::{limits, routes};
use actix_web::dev::Server;
use actix_web::middleware::{Condition, from_fn};
use actix_web::{App, web};
use limiter::{AdmissionQueue, LimiterMetrics, QueueMetrics, SharedClock};
use platform::server::Bound;
use platform::{Rejection, StartFailure};
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
        let (enabled, max_body) = (config.rate_limit_enabled, config.max_body_bytes);
        let bound = Bound::new("analyzer", listener, shutdown_delay, move || {
            App::new()
                .app_data(web::Data::new(state.clone()))
                .app_data(json_config(max_body))
                .app_data(
                    web::PathConfig::default()
                        .error_handler(|e, _| ApiError::Rejected(Rejection::from(&e)).into()),
                )
                .configure(routes::config)
                .wrap(Condition::new(enabled, rate_limit.clone()))
                .wrap(from_fn(crate::gate::require_token))
                .wrap(platform::panic::CatchPanic::new(|reference| {
                    internal_envelope("panic", reference)
                }))
                .wrap(platform::RequestLog)
        })?;
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

fn json_config(limit: usize) -> web::JsonConfig {
    web::JsonConfig::default()
        .limit(limit)
        .error_handler(|error, _| ApiError::Rejected(Rejection::from(&error)).into())
}
