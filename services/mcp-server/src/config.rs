//! The MCP server's settings, read once from the environment (every variable in docs/config.md).

use crate::public_url::PublicUrl;
use limiter::Policy;
use platform::{ClientIp, ConfigError, CorsConfig, Env, JwtKeys, ListenConfig, Parsed};

/// The MCP server's port.
pub const DEFAULT_PORT: u16 = 9500;
/// The analyzer the analysis tools call.
pub const ENV_ANALYZER_URL: &str = "ANALYZER_URL";
/// The token this server presents to the analyzer (`X-Analyzer-Token`).
pub const ENV_ANALYZER_TOKEN: &str = "ANALYZER_TOKEN";
/// The backend the project tool calls with the caller's own bearer.
pub const ENV_BACKEND_URL: &str = "BACKEND_URL";
/// The limiter is on unless this is exactly `false`.
pub const ENV_RATE_LIMIT_ENABLED: &str = "MCP_RATE_LIMIT_ENABLED";
/// Budget of `/mcp` per caller (JWT subject, or client address when anonymous).
pub const ENV_BUDGET_MCP: &str = "MCP_RATE_LIMIT_MCP";
/// Budget of `GET /skills/package` per caller.
pub const ENV_BUDGET_SKILLS_PACKAGE: &str = "MCP_RATE_LIMIT_SKILLS_PACKAGE";
/// Budget of `GET /install.sh` per caller.
pub const ENV_BUDGET_INSTALLER: &str = "MCP_RATE_LIMIT_INSTALLER";
/// The URL people reach this server at, written into the installer script.
pub const ENV_PUBLIC_URL: &str = "MCP_PUBLIC_URL";
/// Largest `/mcp` request body, in bytes.
pub const ENV_MAX_BODY_BYTES: &str = "MCP_MAX_BODY_BYTES";

/// Default analyzer address (docs/DESIGN.md, "Services, ports and hostnames").
pub const DEFAULT_ANALYZER_URL: &str = "http://127.0.0.1:9001";
/// Default backend address (docs/DESIGN.md, "Services, ports and hostnames").
pub const DEFAULT_BACKEND_URL: &str = "http://127.0.0.1:9800";

/// The three groups' budgets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// `/mcp`.
    pub mcp: Policy,
    /// `GET /skills/package`.
    pub skills_package: Policy,
    /// `GET /install.sh`.
    pub installer: Policy,
}

/// Everything the MCP server reads from its environment.
#[derive(Clone, Debug)]
pub struct McpConfig {
    /// Where to listen.
    pub listen: ListenConfig,
    /// The analyzer's base URL, without a trailing slash.
    pub analyzer_url: String,
    /// The analyzer token (never logged).
    pub analyzer_token: String,
    /// The backend's base URL, without a trailing slash.
    pub backend_url: String,
    /// The keys access tokens are verified with.
    pub jwt: JwtKeys,
    /// The origins allowed to call from a browser.
    pub cors: CorsConfig,
    /// The client address behind the trusted proxies, and the key of its per-address budgets.
    pub client_ip: ClientIp,
    /// False only when `MCP_RATE_LIMIT_ENABLED=false`.
    pub rate_limit_enabled: bool,
    /// Group budgets.
    pub budgets: Budgets,
    /// The keys each limiter tracks and the Redis the replicas share (budgets and, for the
    /// backend, its store).
    pub limiter: platform::LimiterSettings,
    /// The public URL; unset: loopback on the bound port.
    pub public_url: Option<PublicUrl>,
    /// Largest `/mcp` body.
    pub max_body_bytes: usize,
}

impl McpConfig {
    /// Reads every setting; the first bad one stops start-up, named.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        Ok(Self {
            listen: ListenConfig::from_env(env, DEFAULT_PORT)?,
            analyzer_url: base_url(env, ENV_ANALYZER_URL, DEFAULT_ANALYZER_URL)?,
            analyzer_token: env.required(ENV_ANALYZER_TOKEN)?,
            backend_url: base_url(env, ENV_BACKEND_URL, DEFAULT_BACKEND_URL)?,
            jwt: JwtKeys::from_env(env)?,
            cors: CorsConfig::from_env(env)?,
            client_ip: ClientIp::from_env(env)?,
            rate_limit_enabled: platform::limits::limiter_switch(
                env,
                ENV_RATE_LIMIT_ENABLED,
                "false",
            ),
            budgets: Budgets {
                mcp: env.parsed_or(ENV_BUDGET_MCP, "600/60s")?,
                skills_package: env.parsed_or(ENV_BUDGET_SKILLS_PACKAGE, "20/60s")?,
                installer: env.parsed_or(ENV_BUDGET_INSTALLER, "60/60s")?,
            },
            limiter: platform::LimiterSettings::from_env(env)?,
            public_url: env
                .optional(ENV_PUBLIC_URL)
                .map(|text| PublicUrl::parse(&text))
                .transpose()
                .map_err(|expected| ConfigError::Invalid {
                    name: ENV_PUBLIC_URL,
                    expected: expected.to_owned(),
                })?,
            max_body_bytes: env.usize_or(ENV_MAX_BODY_BYTES, 1024 * 1024)?,
        })
    }
}

/// An `http(s)://host[:port]` base URL (a path is kept), without its trailing slash.
fn base_url(env: &dyn Env, name: &'static str, default: &str) -> Result<String, ConfigError> {
    let text = env.optional(name).unwrap_or_else(|| default.to_owned());
    let invalid = || ConfigError::Invalid {
        name,
        expected: "an http:// or https:// URL such as http://127.0.0.1:9001".to_owned(),
    };
    let url = reqwest::Url::parse(&text).map_err(|_| invalid())?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err(invalid());
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests;
