//! The ai-service's own counters, beside the limiter's `limiter_decisions_total`:
//!
//! - `ai_chat_window_decisions_total{outcome}`: the chat window's decisions (`allowed`,
//!   `refused`); one counter for both ceilings, since which one refused is never told;
//! - `ai_dependency_failures_total{dependency,reason}`: a backend or language model call that
//!   did not give what a chat turn needed (`unavailable`, `timeout`, `rate_limited`,
//!   `rejected`, `bad_response`), each one a degraded answer;
//! - `ai_chat_answers_total{provider}`: answers by who wrote them (`local`,
//!   `openai-compatible`).

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;

type Labels = Vec<(&'static str, &'static str)>;

/// A dependency of a chat turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dependency {
    /// The backend's EXPENSIVE endpoints.
    Backend,
    /// The language model.
    Llm,
}

impl Dependency {
    /// The label value, also used in the `unavailable` list of an answer.
    pub fn name(self) -> &'static str {
        match self {
            Self::Backend => "backend",
            Self::Llm => "llm",
        }
    }
}

/// The counters; clones share them.
#[derive(Clone, Debug, Default)]
pub struct ServiceMetrics {
    window: Family<Labels, Counter>,
    failures: Family<Labels, Counter>,
    answers: Family<Labels, Counter>,
}

impl ServiceMetrics {
    /// Adds the counters to the service's registry; the window's outcomes and the providers
    /// show from the start, at 0, so a dashboard sees the series before the first chat.
    pub fn register(&self, registry: &mut Registry) {
        for outcome in ["allowed", "refused"] {
            self.window
                .get_or_create(&vec![("outcome", outcome)])
                .inc_by(0);
        }
        for provider in [llm::Provider::Local, llm::Provider::OpenAiCompatible] {
            let labels = vec![("provider", provider_name(provider))];
            self.answers.get_or_create(&labels).inc_by(0);
        }
        registry.register(
            "ai_chat_window_decisions",
            "Chat window decisions (per-subject window and global backstop together)",
            self.window.clone(),
        );
        registry.register(
            "ai_dependency_failures",
            "Backend or language model calls a chat turn answered without",
            self.failures.clone(),
        );
        registry.register(
            "ai_chat_answers",
            "Chat answers by provider",
            self.answers.clone(),
        );
    }

    /// One chat window decision.
    pub fn window_decision(&self, allowed: bool) {
        let outcome = if allowed { "allowed" } else { "refused" };
        self.window.get_or_create(&vec![("outcome", outcome)]).inc();
    }

    /// One failed dependency call, and why.
    pub fn dependency_failure(&self, dependency: Dependency, reason: &'static str) {
        let labels = vec![("dependency", dependency.name()), ("reason", reason)];
        self.failures.get_or_create(&labels).inc();
    }

    /// One answer, by provider.
    pub fn answer(&self, provider: llm::Provider) {
        let provider = provider_name(provider);
        self.answers
            .get_or_create(&vec![("provider", provider)])
            .inc();
    }
}

/// The provider's name as responses and labels spell it.
pub fn provider_name(provider: llm::Provider) -> &'static str {
    match provider {
        llm::Provider::Local => "local",
        llm::Provider::OpenAiCompatible => "openai-compatible",
    }
}
