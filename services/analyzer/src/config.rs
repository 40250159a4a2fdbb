//! The analyzer's settings, read once from the environment (every variable in docs/config.md).

use limiter::{DEFAULT_MAX_TRACKED_KEYS, Policy, QueueConfig};
use platform::{ConfigError, Env, ListenConfig};
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
/// Bound on tracked limiter buckets.
pub const ENV_MAX_TRACKED_KEYS: &str = "RATE_LIMIT_MAX_TRACKED_KEYS";
/// Redis shared by replicas (unset: buckets in memory).
pub const ENV_REDIS_URL: &str = "REDIS_URL";

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
    /// Bound on tracked buckets.
    pub max_tracked_keys: usize,
    /// Redis for shared buckets.
    pub redis_url: Option<String>,
    /// Admission control (off by default).
    pub queue: QueueConfig,
    /// Largest request body.
    pub max_body_bytes: usize,
    /// The language model for `/llm/**` (local provider when unset).
    pub llm: llm::LlmConfig,
}

impl AnalyzerConfig {
    /// Reads every setting; the first bad one stops start-up, named.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        Ok(Self {
            listen: ListenConfig::from_env(env, DEFAULT_PORT)?,
            token: env.required(ENV_TOKEN)?,
            rate_limit_enabled: rate_limit_enabled(env),
            budgets: Budgets {
                analyze: env.budget(ENV_BUDGET_ANALYZE, "15000/60s")?,
                llm: env.budget(ENV_BUDGET_LLM, "30/60s")?,
                read: env.budget(ENV_BUDGET_READ, "600/60s")?,
                write: env.budget(ENV_BUDGET_WRITE, "60/60s")?,
            },
            max_tracked_keys: env.usize_or(ENV_MAX_TRACKED_KEYS, DEFAULT_MAX_TRACKED_KEYS)?,
            redis_url: env.optional(ENV_REDIS_URL),
            queue: QueueConfig {
                max_inflight: env.usize_or(ENV_MAX_INFLIGHT, 0)?,
                max_queue: env.usize_or(ENV_MAX_QUEUE, 64)?,
                queue_timeout: Duration::from_millis(env.u64_or(ENV_QUEUE_TIMEOUT_MS, 5000)?),
            },
            max_body_bytes: env.usize_or(ENV_MAX_BODY_BYTES, 4 * 1024 * 1024)?,
            llm: llm::LlmConfig::from_env(env)?,
        })
    }
}

/// On unless exactly `false`: a guard that depends on someone remembering a variable is a
/// guard that is off (the seed's analyzer limiter tested `=== 'true'` and never ran).
fn rate_limit_enabled(env: &dyn Env) -> bool {
    match env.optional(ENV_RATE_LIMIT_ENABLED).as_deref() {
        Some("false") => false,
        None | Some("true") => true,
        Some(_) => {
            tracing::warn!(
                variable = ENV_RATE_LIMIT_ENABLED,
                "not exactly true or false; the limiter stays on"
            );
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::MapEnv;

    #[test]
    fn the_limiter_is_on_unless_exactly_false() {
        for (value, expected) in [
            (None, true),
            (Some("true"), true),
            (Some("FALSE"), true),
            (Some("0"), true),
            (Some("false"), false),
        ] {
            let env: MapEnv = value
                .map(|v| (ENV_RATE_LIMIT_ENABLED, v))
                .into_iter()
                .collect();
            assert_eq!(rate_limit_enabled(&env), expected, "{value:?}");
        }
    }

    #[test]
    fn defaults_are_the_seeds() {
        let config = AnalyzerConfig::from_env(&MapEnv::from_iter([(ENV_TOKEN, "t")])).unwrap();
        let budgets = [
            config.budgets.analyze,
            config.budgets.llm,
            config.budgets.read,
            config.budgets.write,
        ];
        let shown: Vec<String> = budgets.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["15000/60s", "30/60s", "600/60s", "60/60s"]);
        assert_eq!(config.queue.max_inflight, 0);
        assert!(config.rate_limit_enabled);
    }

    #[test]
    fn the_token_is_required_and_a_bad_budget_is_named() {
        let missing = AnalyzerConfig::from_env(&MapEnv::default()).unwrap_err();
        assert!(missing.to_string().contains(ENV_TOKEN));
        let env = MapEnv::from_iter([(ENV_TOKEN, "t"), (ENV_BUDGET_WRITE, "sixty")]);
        let bad = AnalyzerConfig::from_env(&env).unwrap_err().to_string();
        assert!(
            bad.contains(ENV_BUDGET_WRITE) && !bad.contains("sixty"),
            "{bad}"
        );
    }
}
