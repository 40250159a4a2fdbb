//! Building and running the MCP server: bind first (so the port is known), then serve.
//!
//! The layers and their order are the estate's one stack (`platform::stack`); what is the MCP
//! server's own: CORS with MCP's request headers, its guard (the `Origin` check, 403 before
//! anything runs, then the bearer check, 401 before any budget is spent, which leaves the
//! caller for the limiter: [`crate::guard`]), and a limiter keyed on that caller that
//! `RATE_LIMIT_ENABLED` can switch off.

use crate::config::McpConfig;
use crate::errors::internal_envelope;
use crate::metrics::ToolMetrics;
use crate::public_url::PublicUrl;
use crate::state::AppState;
use crate::upstream::Upstream;
use crate::{guard, limits, mcp, routes, skills};
use actix_web::dev::Server;
use limiter::{LimiterMetrics, SharedClock};
use platform::server::Bound;
use platform::{ListenConfig, Stack, StartFailure};
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// A bound, not yet running MCP server.
pub struct Application {
    bound: Bound,
}

impl Application {
    /// Builds on the system clock.
    pub fn build(config: McpConfig) -> Result<Self, StartFailure> {
        Self::build_with_clock(config, limiter::system_clock())
    }

    /// Builds with an injected clock (tests move a fake one).
    pub fn build_with_clock(config: McpConfig, clock: SharedClock) -> Result<Self, StartFailure> {
        let fail = |error: &dyn std::fmt::Display| StartFailure::Other(error.to_string());
        let mut registry = Registry::default();
        let limiter_metrics = LimiterMetrics::default();
        limiter_metrics.register(&mut registry);
        let tool_metrics = ToolMetrics::default();
        tool_metrics.register(&mut registry);
        let limiter = limits::limiter(&config, limiter_metrics, clock).map_err(|e| fail(&e))?;
        let rate_limit =
            limits::middleware(limiter, config.client_ip.clone()).map_err(|e| fail(&e))?;
        log_rule_table(config.rate_limit_enabled);
        let listener = config.listen.bind().map_err(|e| fail(&e))?;
        let shutdown_delay = config.listen.shutdown_delay;
        let port = listener.local_addr().map_err(|e| fail(&e))?.port();
        let public_url = config.public_url.clone().unwrap_or_else(|| {
            PublicUrl::local(
                ListenConfig {
                    port,
                    ..config.listen
                }
                .probe_addr(),
            )
        });
        let state = AppState {
            upstream: Upstream::new(
                &config.analyzer_url,
                &config.analyzer_token,
                &config.backend_url,
            )
            .map_err(|e| fail(&e))?,
            jwt: config.jwt.clone(),
            allowed_origins: config.cors.origins().into(),
            max_body_bytes: config.max_body_bytes,
            skills_package: skills::package().map_err(|e| fail(&e))?.into(),
            installer: routes::render_installer(&public_url).into(),
            tool_metrics,
            registry: Arc::new(registry),
        };
        let cors = config
            .cors
            .clone()
            .with_request_headers(&mcp::REQUEST_HEADERS);
        let stack = Stack::new(
            state,
            routes::config,
            |reference| internal_envelope("panic", reference),
            rate_limit,
        )
        .limiter_enabled(config.rate_limit_enabled)
        .cors(cors)
        .guard(guard::guard);
        let bound = Bound::new("mcp-server", listener, shutdown_delay, move || stack.app())?;
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

fn log_rule_table(enabled: bool) {
    tracing::info!(enabled, "mcp-server rate limits:\n{}", limits::rule_table());
}
