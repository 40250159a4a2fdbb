//! What every handler shares, cloned into each worker (cheap: `Arc`s inside).

use crate::config::AnalysisBounds;
use crate::rules_store::RuleStore;
use limiter::{AdmissionQueue, SharedClock};
use prometheus_client::registry::Registry;
use std::sync::Arc;

/// The analyzer's shared state.
#[derive(Clone, Debug)]
pub struct AppState {
    /// The caller token.
    pub token: Arc<str>,
    /// Stored custom rules.
    pub rules: Arc<RuleStore>,
    /// Admission control for `/analyze` (off unless configured).
    pub queue: Arc<AdmissionQueue>,
    /// The language model client (local provider when none is configured).
    pub llm: llm::LlmClient,
    /// Metrics for `/metrics`.
    pub registry: Arc<Registry>,
    /// What one analysis may keep, answer and spend.
    pub bounds: AnalysisBounds,
    /// The clock analysis deadlines are read on (the limiter's).
    pub clock: SharedClock,
}
