//! What the checks share: the [`Run`] they spend, a metered request and what the bucket
//! arithmetic expected of it, the refusal bodies they tell apart, and the report's tallies.

use super::restart::plan::Plan;
use crate::bucket::Expect;
use crate::estate::Estate;
use crate::exchange::Exchange;
use crate::expect::Expectations;
use crate::ledger::Ledger;
use crate::service::Service;
use reqwest::RequestBuilder;

/// `POST /rules/validate` with `{}`.
pub const MANDATORY: &str = r#"{"error":"rule.ruleId is mandatory"}"#;

/// Everything a check needs.
pub struct Run {
    /// Where the services are.
    pub estate: Estate,
    /// The contract.
    pub expect: Expectations,
    /// The buckets this run spends.
    pub ledger: Ledger,
    /// Unique to this run: addresses and names carry it, so per-address state is always new.
    pub run_id: String,
    /// `X-Analyzer-Token`, when known.
    pub analyzer_token: Option<String>,
    /// The restart to measure, when asked for.
    pub restart: Option<Plan>,
}

/// A metered request: its answer and what the bucket arithmetic expected of it.
pub struct Metered {
    /// The answer.
    pub exchange: Exchange,
    /// The arithmetic's expectation, from the answers before it.
    pub expected: Expect,
    /// Whether the limiter refused it.
    pub refused: bool,
}

impl Metered {
    /// Whether the answer is one the arithmetic allows.
    pub fn agrees(&self) -> bool {
        match self.expected {
            Expect::Allow => !self.refused,
            Expect::Refuse { retry_after, .. } => {
                self.refused
                    && self
                        .exchange
                        .retry_after()
                        .is_some_and(|secs| (retry_after.0..=retry_after.1).contains(&secs))
            }
            Expect::Unknown | Expect::Either => true,
        }
    }
}

impl Run {
    /// Sends `request`, metered by `groups` in order, and records it in the ledger;
    /// `refusal` tells the limiter's refusal from the service's own answers.
    pub async fn metered(
        &mut self,
        groups: &[&'static str],
        request: RequestBuilder,
        refusal: fn(&Exchange) -> bool,
    ) -> Metered {
        let exchange = self.estate.send(request).await;
        let expected = self.ledger.expect(groups, &exchange);
        let refused = refusal(&exchange);
        self.ledger.record(groups, &exchange, refused);
        Metered {
            exchange,
            expected,
            refused,
        }
    }

    /// Why a check needing `service` cannot run, if it cannot.
    pub fn missing(&self, service: Service) -> Option<String> {
        (!self.estate.includes(service))
            .then(|| format!("{service} is not in this estate (--services)"))
    }
}

/// A progress line on stderr (stdout carries the report).
pub fn progress(message: &str) {
    eprintln!("estate-probe: {message}");
}

/// `lo` or `lo–hi`.
pub fn range_text(low: u64, high: u64) -> String {
    if low == high {
        low.to_string()
    } else {
        format!("{low}–{high}")
    }
}

/// The backend filters' refusal body (docs/DESIGN.md, "The backend").
pub fn fail_body(secs: u64) -> String {
    format!(
        r#"{{"status":"FAIL","message":"Too many requests. Please try again in {secs} second(s)."}}"#
    )
}

/// Whether an answer is the backend filters' refusal (not the login lock's 429).
pub fn backend_refusal(exchange: &Exchange) -> bool {
    exchange.status == Some(429) && exchange.body.starts_with(r#"{"status":"FAIL""#)
}

/// Whether an answer is the analyzer limiter's refusal.
pub fn analyzer_refusal(exchange: &Exchange) -> bool {
    exchange.status == Some(429) && exchange.body.starts_with(r#"{"error":"rate_limited""#)
}

/// `n × status` lines for a set of answers, by status, as the report prints them.
pub fn tally(statuses: impl IntoIterator<Item = String>) -> Vec<(usize, String)> {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for status in statuses {
        *counts.entry(status).or_default() += 1;
    }
    counts.into_iter().map(|(status, n)| (n, status)).collect()
}

/// Consecutive equal answers as runs: `1–14: 401   15–25: 429   retry-after: 45`.
pub fn runs(answers: &[String]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut start = 0;
    for end in 1..=answers.len() {
        if end == answers.len() || answers[end] != answers[start] {
            let span = range_text(start as u64 + 1, end as u64);
            parts.push(format!("{span}: {}", answers[start]));
            start = end;
        }
    }
    parts.join("   ")
}

/// `126 × 404, 3 × 429`.
pub fn tally_text(statuses: impl IntoIterator<Item = String>) -> String {
    let parts: Vec<String> = tally(statuses)
        .into_iter()
        .map(|(n, status)| format!("{n} × {status}"))
        .collect();
    if parts.is_empty() {
        "nothing".to_owned()
    } else {
        parts.join(", ")
    }
}
