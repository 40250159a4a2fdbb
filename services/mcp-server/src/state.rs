//! What every handler shares, cloned into each worker (cheap: `Arc`s inside).

use crate::metrics::ToolMetrics;
use crate::upstream::Upstream;
use actix_web::web::Bytes;
use platform::JwtKeys;
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// The MCP server's shared state.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The analyzer and backend clients.
    pub upstream: Upstream,
    /// The keys bearer tokens are verified with.
    pub jwt: JwtKeys,
    /// Origins allowed to call (`CORS_ALLOWED_ORIGINS`).
    pub allowed_origins: Arc<[String]>,
    /// Largest `/mcp` body.
    pub max_body_bytes: usize,
    /// The skills package, built once at start-up.
    pub skills_package: Bytes,
    /// The installer script, rendered once at start-up.
    pub installer: Bytes,
    /// Per-tool call counters.
    pub tool_metrics: ToolMetrics,
    /// Metrics for `/metrics`.
    pub registry: Arc<Registry>,
}
