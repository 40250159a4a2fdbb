//! What the estate is supposed to answer: docs/DESIGN.md's defaults ("The backend", "The analyzer",
//! "Budgets are settings") (the published figures), each under the variable the service itself
//! reads, so an estate run with another value is probed against that value (`--expect NAME=VALUE`,
//! or the same variable in the probe's environment).
//!
//! The defaults are written here again on purpose: a probe that read them from the services'
//! code would agree with any change to that code.

use limiter::Policy;
use platform_core::cors::{DEFAULT_ALLOWED_ORIGINS, ENV_CORS_ALLOWED_ORIGINS};
use platform_core::{ConfigError, Env, Parsed};

/// Backend, public filter, per IP.
pub const ENV_RATE_LIMIT_CREDENTIAL: &str = "RATE_LIMIT_CREDENTIAL";
/// Backend, auth filter, per IP.
pub const ENV_AUTH_RATE_LIMIT_CREDENTIAL: &str = "AUTH_RATE_LIMIT_CREDENTIAL";
/// Backend, wrong passwords per address before the lock.
pub const ENV_LOGIN_MAX_ATTEMPTS: &str = "LOGIN_MAX_ATTEMPTS";
/// Backend, the lock's length in minutes.
pub const ENV_LOCK_MINUTES: &str = "SECURITY_AUTH_ATTEMPT_LOCK_MINUTES";
/// Analyzer, GETs, per token.
pub const ENV_ANALYZER_READ: &str = "ANALYZER_RATE_LIMIT_READ";
/// Analyzer, `POST /rules/validate`, per token.
pub const ENV_ANALYZER_WRITE: &str = "ANALYZER_RATE_LIMIT_WRITE";
/// Analyzer, the largest body it reads.
pub const ENV_ANALYZER_MAX_BODY_BYTES: &str = "ANALYZER_MAX_BODY_BYTES";
/// ai-service, public log analysis per IP per minute.
pub const ENV_LOG_ANALYSIS_LIMIT: &str = "LOG_ANALYSIS_PUBLIC_RATE_LIMIT";
/// mcp-server, `/mcp`.
pub const ENV_MCP_RATE_LIMIT_MCP: &str = "MCP_RATE_LIMIT_MCP";

/// Every variable `--expect` accepts.
pub const NAMES: [&str; 10] = [
    ENV_RATE_LIMIT_CREDENTIAL,
    ENV_AUTH_RATE_LIMIT_CREDENTIAL,
    ENV_LOGIN_MAX_ATTEMPTS,
    ENV_LOCK_MINUTES,
    ENV_ANALYZER_READ,
    ENV_ANALYZER_WRITE,
    ENV_ANALYZER_MAX_BODY_BYTES,
    ENV_LOG_ANALYSIS_LIMIT,
    ENV_MCP_RATE_LIMIT_MCP,
    ENV_CORS_ALLOWED_ORIGINS,
];

/// The contract values the checks compare against.
#[derive(Clone, Debug)]
pub struct Expectations {
    /// `RATE_LIMIT_CREDENTIAL` (300/1h).
    pub credential: Policy,
    /// `AUTH_RATE_LIMIT_CREDENTIAL` (20/15m).
    pub auth_credential: Policy,
    /// `LOGIN_MAX_ATTEMPTS` (5).
    pub login_max_attempts: u32,
    /// `SECURITY_AUTH_ATTEMPT_LOCK_MINUTES` (10).
    pub lock_minutes: u64,
    /// `ANALYZER_RATE_LIMIT_READ` (600/60s).
    pub analyzer_read: Policy,
    /// `ANALYZER_RATE_LIMIT_WRITE` (60/60s).
    pub analyzer_write: Policy,
    /// `ANALYZER_MAX_BODY_BYTES` (4 MiB).
    pub analyzer_max_body_bytes: usize,
    /// `LOG_ANALYSIS_PUBLIC_RATE_LIMIT`, per minute (60).
    pub log_analysis_per_minute: u32,
    /// `MCP_RATE_LIMIT_MCP` (600/60s).
    pub mcp: Policy,
    /// The first of `CORS_ALLOWED_ORIGINS`: an origin the backend must allow.
    pub allowed_origin: String,
}

impl Expectations {
    /// The defaults, with whatever `env` sets instead.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let attempts = env.u64_or(ENV_LOGIN_MAX_ATTEMPTS, 5)?;
        let per_minute = env.u64_or(ENV_LOG_ANALYSIS_LIMIT, 60)?;
        let origins = env
            .optional(ENV_CORS_ALLOWED_ORIGINS)
            .unwrap_or_else(|| DEFAULT_ALLOWED_ORIGINS.to_owned());
        Ok(Self {
            credential: env.parsed_or(ENV_RATE_LIMIT_CREDENTIAL, "300/1h")?,
            auth_credential: env.parsed_or(ENV_AUTH_RATE_LIMIT_CREDENTIAL, "20/15m")?,
            login_max_attempts: small(ENV_LOGIN_MAX_ATTEMPTS, attempts)?,
            lock_minutes: env.u64_or(ENV_LOCK_MINUTES, 10)?,
            analyzer_read: env.parsed_or(ENV_ANALYZER_READ, "600/60s")?,
            analyzer_write: env.parsed_or(ENV_ANALYZER_WRITE, "60/60s")?,
            analyzer_max_body_bytes: env.usize_or(ENV_ANALYZER_MAX_BODY_BYTES, 4 * 1024 * 1024)?,
            log_analysis_per_minute: small(ENV_LOG_ANALYSIS_LIMIT, per_minute)?,
            mcp: env.parsed_or(ENV_MCP_RATE_LIMIT_MCP, "600/60s")?,
            allowed_origin: origins
                .split(',')
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned(),
        })
    }
}

fn small(name: &'static str, value: u64) -> Result<u32, ConfigError> {
    u32::try_from(value).map_err(|_| ConfigError::Invalid {
        name,
        expected: "a count below 2^32".to_owned(),
    })
}

/// `--expect` values in front of another source (the process environment).
pub struct Layered<'a> {
    /// Checked first.
    pub overrides: &'a dyn Env,
    /// Checked when the overrides do not set a name.
    pub fallback: &'a dyn Env,
}

impl Env for Layered<'_> {
    fn var(&self, name: &str) -> Option<String> {
        self.overrides.var(name).or_else(|| self.fallback.var(name))
    }
}

/// The `RateLimit-Policy` item a policy should produce: `"group";q=300;w=3600`.
pub fn policy_field(group: &str, policy: &Policy) -> String {
    format!(
        "\"{group}\";q={};w={}",
        policy.limit(),
        policy.period().as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform_core::MapEnv;

    #[test]
    fn defaults_are_the_contract_and_overrides_win() {
        let defaults = Expectations::from_env(&MapEnv::default()).expect("defaults");
        assert_eq!(
            policy_field("credential", &defaults.credential),
            "\"credential\";q=300;w=3600"
        );
        assert_eq!(defaults.auth_credential.emission_interval().as_secs(), 45);
        assert_eq!(defaults.allowed_origin, "http://localhost:3000");
        let overrides: MapEnv = [(ENV_RATE_LIMIT_CREDENTIAL, "30/1h")].into_iter().collect();
        let process: MapEnv = [
            (ENV_RATE_LIMIT_CREDENTIAL, "1/1h"),
            (ENV_LOGIN_MAX_ATTEMPTS, "3"),
        ]
        .into_iter()
        .collect();
        let layered = Layered {
            overrides: &overrides,
            fallback: &process,
        };
        let chosen = Expectations::from_env(&layered).expect("valid");
        assert_eq!(chosen.credential.limit(), 30);
        assert_eq!(chosen.login_max_attempts, 3);
    }
}
