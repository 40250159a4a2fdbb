//! Building and running the ai-service: bind first (so the port is known), then serve.
//!
//! The layers and their order are the estate's one stack (`platform::stack`); what is the
//! ai-service's own: CORS, no guard in the stack (the chat route has its own gate, token then
//! window, around its handler), and the per-address limiter of the public log analysis.

use crate::chat::backend::BackendClient;
use crate::config::AiConfig;
use crate::errors::{internal_envelope, rejected};
use crate::metrics::ServiceMetrics;
use crate::state::AppState;
use crate::{limits, routes};
use actix_web::dev::Server;
use limiter::{LimiterMetrics, SharedClock};
use platform::server::Bound;
use platform::{Stack, StartFailure};
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// A bound, not yet running ai-service.
pub struct Application {
    bound: Bound,
}

impl Application {
    /// Builds on the system clock.
    pub fn build(config: AiConfig) -> Result<Self, StartFailure> {
        Self::build_with_clock(config, limiter::system_clock())
    }

    /// Builds with an injected clock (tests move a fake one): the windows, the per-address
    /// budget and the language model's pacer all read it.
    pub fn build_with_clock(config: AiConfig, clock: SharedClock) -> Result<Self, StartFailure> {
        let fail = |error: &dyn std::fmt::Display| StartFailure::Other(error.to_string());
        let mut registry = Registry::default();
        let limiter_metrics = LimiterMetrics::default();
        limiter_metrics.register(&mut registry);
        let metrics = ServiceMetrics::default();
        metrics.register(&mut registry);
        let window = limits::chat_window(&config, limiter_metrics.clone(), clock.clone())
            .map_err(|e| fail(&e))?;
        let limiter =
            limits::limiter(&config, limiter_metrics, clock.clone()).map_err(|e| fail(&e))?;
        let rate_limit = limits::middleware(limiter, &config).map_err(|e| fail(&e))?;
        tracing::info!("ai-service ceilings:\n{}", limits::describe(&config));
        let state = AppState {
            jwt: Arc::new(config.jwt.clone()),
            window,
            chat_policy: config.chat,
            backend: BackendClient::new(&config.backend_url, config.backend_timeout)
                .map_err(|e| fail(&e))?,
            llm: llm::LlmClient::new(config.llm.clone(), clock).map_err(|e| fail(&e))?,
            metrics,
            registry: Arc::new(registry),
        };
        let cors = config.cors.clone();
        let listener = config.listen.bind().map_err(|e| fail(&e))?;
        let shutdown_delay = config.listen.shutdown_delay;
        let stack = Stack::new(
            state,
            routes::config,
            |reference| internal_envelope("panic", reference),
            rate_limit,
        )
        .cors(cors)
        .rejections(|rejection, _| rejected(rejection));
        let bound = Bound::new("ai-service", listener, shutdown_delay, move || stack.app())?;
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
