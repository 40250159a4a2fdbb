//! The ai-service's settings, read once from the environment (every variable in docs/config.md).

use limiter::Policy;
use platform::{ClientIp, ConfigError, CorsConfig, Env, JwtKeys, ListenConfig, Parsed};
use std::time::Duration;

/// The ai-service's port.
pub const DEFAULT_PORT: u16 = 9300;
/// Only exactly `true` switches the chat limiter off.
pub const ENV_RATE_LIMIT_DISABLED: &str = "RATE_LIMIT_DISABLED";
/// Chats per subject (sliding window).
pub const ENV_BUDGET_CHAT: &str = "AI_RATE_LIMIT_CHAT";
/// Chats for all subjects together (the backstop).
pub const ENV_BUDGET_GLOBAL: &str = "AI_RATE_LIMIT_GLOBAL";
/// Log analyses per client address per minute.
pub const ENV_LOG_ANALYSIS_LIMIT: &str = "LOG_ANALYSIS_PUBLIC_RATE_LIMIT";
/// The backend whose EXPENSIVE endpoints a chat turn calls.
pub const ENV_BACKEND_URL: &str = "BACKEND_URL";
/// Longest wait for the backend, in milliseconds.
pub const ENV_BACKEND_TIMEOUT_MS: &str = "BACKEND_TIMEOUT_MS";

/// Where the backend listens outside containers.
pub const DEFAULT_BACKEND_URL: &str = "http://127.0.0.1:9800";
/// Default wait for the backend: an analysis of a few snippets takes milliseconds.
pub const DEFAULT_BACKEND_TIMEOUT_MS: u64 = 10_000;
/// Default log analyses per address per minute (the reference run's value).
pub const DEFAULT_LOG_ANALYSIS_LIMIT: u32 = 60;

/// Everything the ai-service reads from its environment.
#[derive(Clone, Debug)]
pub struct AiConfig {
    /// Where to listen.
    pub listen: ListenConfig,
    /// Keys to verify the users' access tokens with.
    pub jwt: JwtKeys,
    /// The CORS allow-list.
    pub cors: CorsConfig,
    /// The client address behind the trusted proxies, and the key of its per-address budgets.
    pub client_ip: ClientIp,
    /// True only when `RATE_LIMIT_DISABLED=true`.
    pub rate_limit_disabled: bool,
    /// Per-subject chat window.
    pub chat: Policy,
    /// Global chat backstop.
    pub global: Policy,
    /// Per-address log-analysis budget.
    pub log_analysis: Policy,
    /// The keys each limiter tracks and the Redis the replicas share (budgets and, for the
    /// backend, its store).
    pub limiter: platform::LimiterSettings,
    /// The backend's base URL, without a trailing slash.
    pub backend_url: String,
    /// Longest wait for one backend call.
    pub backend_timeout: Duration,
    /// The language model (local provider when unset).
    pub llm: llm::LlmConfig,
}

impl AiConfig {
    /// Reads every setting; the first bad one stops start-up, named.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        Ok(Self {
            listen: ListenConfig::from_env(env, DEFAULT_PORT)?,
            jwt: JwtKeys::from_env(env)?,
            cors: CorsConfig::from_env(env)?,
            client_ip: ClientIp::from_env(env)?,
            rate_limit_disabled: !platform::limits::limiter_switch(
                env,
                ENV_RATE_LIMIT_DISABLED,
                "true",
            ),
            chat: env.parsed_or(ENV_BUDGET_CHAT, "60/1m")?,
            global: env.parsed_or(ENV_BUDGET_GLOBAL, "1200/1m")?,
            log_analysis: log_analysis(env)?,
            limiter: platform::LimiterSettings::from_env(env)?,
            backend_url: backend_url(env)?,
            backend_timeout: backend_timeout(env)?,
            llm: llm::LlmConfig::from_env(env)?,
        })
    }
}

/// A whole number of analyses per minute, as the reference run set it (`60`).
fn log_analysis(env: &dyn Env) -> Result<Policy, ConfigError> {
    let per_minute = env.u64_or(
        ENV_LOG_ANALYSIS_LIMIT,
        u64::from(DEFAULT_LOG_ANALYSIS_LIMIT),
    )?;
    u32::try_from(per_minute)
        .ok()
        .and_then(|limit| Policy::new(limit, Duration::from_secs(60)).ok())
        .ok_or(ConfigError::Invalid {
            name: ENV_LOG_ANALYSIS_LIMIT,
            expected: "a whole number of requests per minute from 1 to 4294967295".to_owned(),
        })
}

fn backend_url(env: &dyn Env) -> Result<String, ConfigError> {
    let raw = env
        .optional(ENV_BACKEND_URL)
        .unwrap_or_else(|| DEFAULT_BACKEND_URL.to_owned());
    let usable = reqwest::Url::parse(&raw).ok().filter(|url| {
        matches!(url.scheme(), "http" | "https")
            && url.host_str().is_some_and(|host| !host.is_empty())
            && url.query().is_none()
            && url.fragment().is_none()
    });
    match usable {
        Some(_) => Ok(raw.trim_end_matches('/').to_owned()),
        None => Err(ConfigError::Invalid {
            name: ENV_BACKEND_URL,
            expected: "an http:// or https:// URL with a host, such as http://127.0.0.1:9800"
                .to_owned(),
        }),
    }
}

fn backend_timeout(env: &dyn Env) -> Result<Duration, ConfigError> {
    match env.u64_or(ENV_BACKEND_TIMEOUT_MS, DEFAULT_BACKEND_TIMEOUT_MS)? {
        0 => Err(ConfigError::Invalid {
            name: ENV_BACKEND_TIMEOUT_MS,
            expected: "a positive number of milliseconds".to_owned(),
        }),
        millis => Ok(Duration::from_millis(millis)),
    }
}

#[cfg(test)]
mod tests;
