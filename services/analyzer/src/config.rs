//! The analyzer's settings, read once from the environment (every variable in docs/config.md).

use limiter::{Policy, QueueConfig};
use platform::{ConfigError, Env, ListenConfig, Parsed};
use std::time::Duration;

/// The analyzer's port.
pub const DEFAULT_PORT: u16 = 9001;
/// The shared secret every caller presents in `X-Analyzer-Token`.
pub const ENV_TOKEN: &str = "ANALYZER_TOKEN";
/// The limiter is on unless this is exactly `false`.
pub const ENV_RATE_LIMIT_ENABLED: &str = "ANALYZER_RATE_LIMIT_ENABLED";
/// Budget of `POST /analyze` per caller token.
pub const ENV_BUDGET_ANALYZE: &str = "ANALYZER_RATE_LIMIT_ANALYZE";
/// Budget of `/llm/**` per caller token.
pub const ENV_BUDGET_LLM: &str = "ANALYZER_RATE_LIMIT_LLM";
/// Budget of the reads per caller token.
pub const ENV_BUDGET_READ: &str = "ANALYZER_RATE_LIMIT_READ";
/// Budget of rule validation and changes per caller token.
pub const ENV_BUDGET_WRITE: &str = "ANALYZER_RATE_LIMIT_WRITE";
/// Analyses running at once (0: admission control off).
pub const ENV_MAX_INFLIGHT: &str = "ANALYZE_MAX_INFLIGHT";
/// Analyses waiting at once.
pub const ENV_MAX_QUEUE: &str = "ANALYZE_MAX_QUEUE";
/// Longest wait in the queue, in milliseconds.
pub const ENV_QUEUE_TIMEOUT_MS: &str = "ANALYZE_QUEUE_TIMEOUT_MS";
/// Largest request body, in bytes.
pub const ENV_MAX_BODY_BYTES: &str = "ANALYZER_MAX_BODY_BYTES";
/// Findings one analysis answer keeps (the first in report order; the rest are counted).
pub const ENV_MAX_FINDINGS: &str = "ANALYZE_MAX_FINDINGS";
/// Largest analysis answer, in bytes.
pub const ENV_MAX_ANSWER_BYTES: &str = "ANALYZE_MAX_ANSWER_BYTES";
/// Longest time one analysis works, in milliseconds.
pub const ENV_DEADLINE_MS: &str = "ANALYZE_DEADLINE_MS";

/// What one analysis may keep, answer and spend (docs/analyzer.md, "Bounded work").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalysisBounds {
    /// Findings kept in an answer.
    pub max_findings: usize,
    /// Bytes of an answer.
    pub max_answer_bytes: usize,
    /// Time an analysis works, from its start on the blocking pool.
    pub deadline: Duration,
}

/// Findings kept by default.
pub const DEFAULT_MAX_FINDINGS: usize = 1000;
/// Answer bytes by default: half of what the relays read of an analysis answer.
pub const DEFAULT_MAX_ANSWER_BYTES: usize = analysis::MAX_ANALYSIS_ANSWER_BYTES / 2;
/// Analysis time by default: under every caller's own timeout, so callers get the cut answer.
pub const DEFAULT_DEADLINE_MS: u64 = 5000;
/// The smallest answer bound accepted: room for the summary and a few findings.
const MIN_ANSWER_BYTES: u64 = 1024;

impl AnalysisBounds {
    fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let count = |value: u64| usize::try_from(value).unwrap_or(usize::MAX);
        let findings = at_least(env, ENV_MAX_FINDINGS, DEFAULT_MAX_FINDINGS as u64, 1)?;
        let answer_bytes = at_least(
            env,
            ENV_MAX_ANSWER_BYTES,
            DEFAULT_MAX_ANSWER_BYTES as u64,
            MIN_ANSWER_BYTES,
        )?;
        let deadline_ms = at_least(env, ENV_DEADLINE_MS, DEFAULT_DEADLINE_MS, 1)?;
        Ok(Self {
            max_findings: count(findings),
            max_answer_bytes: count(answer_bytes),
            deadline: Duration::from_millis(deadline_ms),
        })
    }
}

/// `name` as an integer of at least `min`, or `default` when unset.
fn at_least(env: &dyn Env, name: &'static str, default: u64, min: u64) -> Result<u64, ConfigError> {
    match env.u64_or(name, default)? {
        value if value >= min => Ok(value),
        _ => Err(ConfigError::Invalid {
            name,
            expected: format!("an integer of at least {min}"),
        }),
    }
}

/// The four groups' budgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// `POST /analyze`.
    pub analyze: Policy,
    /// `/llm/**`.
    pub llm: Policy,
    /// `GET /analysis-types`, `GET /rules/**`.
    pub read: Policy,
    /// `POST /rules/validate` and rule changes.
    pub write: Policy,
}

/// Everything the analyzer reads from its environment.
#[derive(Clone, Debug)]
pub struct AnalyzerConfig {
    /// Where to listen.
    pub listen: ListenConfig,
    /// The caller token (never logged).
    pub token: String,
    /// False only when `ANALYZER_RATE_LIMIT_ENABLED=false`.
    pub rate_limit_enabled: bool,
    /// Group budgets.
    pub budgets: Budgets,
    /// The keys each limiter tracks and the Redis the replicas share (budgets and, for the
    /// backend, its store).
    pub limiter: platform::LimiterSettings,
    /// Admission control (off by default).
    pub queue: QueueConfig,
    /// Largest request body.
    pub max_body_bytes: usize,
    /// Findings, bytes and time of one analysis.
    pub bounds: AnalysisBounds,
    /// The language model for `/llm/**` (local provider when unset).
    pub llm: llm::LlmConfig,
}

impl AnalyzerConfig {
    /// Reads every setting; the first bad one stops start-up, named.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        Ok(Self {
            listen: ListenConfig::from_env(env, DEFAULT_PORT)?,
            token: env.required(ENV_TOKEN)?,
            rate_limit_enabled: platform::limits::limiter_switch(
                env,
                ENV_RATE_LIMIT_ENABLED,
                "false",
            ),
            budgets: Budgets {
                analyze: env.parsed_or(ENV_BUDGET_ANALYZE, "15000/60s")?,
                llm: env.parsed_or(ENV_BUDGET_LLM, "30/60s")?,
                read: env.parsed_or(ENV_BUDGET_READ, "600/60s")?,
                write: env.parsed_or(ENV_BUDGET_WRITE, "60/60s")?,
            },
            limiter: platform::LimiterSettings::from_env(env)?,
            queue: QueueConfig {
                max_inflight: env.usize_or(ENV_MAX_INFLIGHT, 0)?,
                max_queue: env.usize_or(ENV_MAX_QUEUE, 64)?,
                queue_timeout: Duration::from_millis(env.u64_or(ENV_QUEUE_TIMEOUT_MS, 5000)?),
            },
            max_body_bytes: env.usize_or(ENV_MAX_BODY_BYTES, 4 * 1024 * 1024)?,
            bounds: AnalysisBounds::from_env(env)?,
            llm: llm::LlmConfig::from_env(env)?,
        })
    }
}

#[cfg(test)]
mod tests;
