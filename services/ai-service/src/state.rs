//! What every handler shares, cloned into each worker (cheap: `Arc`s inside).

use crate::chat::backend::BackendClient;
use crate::metrics::ServiceMetrics;
use limiter::{Policy, SlidingWindow};
use platform::JwtKeys;
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// The ai-service's shared state.
#[derive(Clone, Debug)]
pub struct AppState {
    /// Keys that verify the users' access tokens.
    pub jwt: Arc<JwtKeys>,
    /// The chat window and its backstop; `None` when `RATE_LIMIT_DISABLED=true`.
    pub window: Option<Arc<SlidingWindow>>,
    /// The per-subject chat budget, for the response fields.
    pub chat_policy: Policy,
    /// The backend's EXPENSIVE analysis endpoint.
    pub backend: BackendClient,
    /// The language model (local provider when none is configured).
    pub llm: llm::LlmClient,
    /// The service's own counters.
    pub metrics: ServiceMetrics,
    /// Everything `/metrics` shows.
    pub registry: Arc<Registry>,
}
