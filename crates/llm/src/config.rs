//! The `LLM_*` settings: which provider to call, with which key and model, how fast and for
//! how long.
//!
//! `LLM_BASE_URL` unset means "no language model": the client answers from the local provider.
//! Every refusal names the variable and never its value, because `LLM_API_KEY` is a secret
//! (and a URL may be one too).

use std::fmt;
use std::time::Duration;

use limiter::Policy;
use platform_core::{ConfigError, Env, Parsed};

/// Base URL of an OpenAI-compatible API, up to and including its version segment
/// (`https://api.openai.com/v1`, `http://127.0.0.1:1234/v1`). Unset: the local provider.
pub const ENV_LLM_BASE_URL: &str = "LLM_BASE_URL";
/// Bearer key sent to the provider. Optional: local servers often need none.
pub const ENV_LLM_API_KEY: &str = "LLM_API_KEY";
/// Model name sent with every request; [`DEFAULT_MODEL`] when unset.
pub const ENV_LLM_MODEL: &str = "LLM_MODEL";
/// Outbound pace as a budget (`<limit>/<period>`); [`DEFAULT_RATE`] when unset.
pub const ENV_LLM_RATE: &str = "LLM_RATE_LIMIT";
/// Whole-call timeout in milliseconds; [`DEFAULT_TIMEOUT_MS`] when unset.
pub const ENV_LLM_TIMEOUT_MS: &str = "LLM_TIMEOUT_MS";

/// The model asked for when a provider is configured and `LLM_MODEL` is not.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
/// The outbound pace when `LLM_RATE_LIMIT` is unset: one call a second on average.
pub const DEFAULT_RATE: &str = "60/1m";
/// The whole-call timeout when `LLM_TIMEOUT_MS` is unset.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// The model name the local provider answers with.
pub const LOCAL_MODEL: &str = "local";

/// Settings of an [`LlmClient`](crate::LlmClient). `Debug` prints the key as `<redacted>`.
#[derive(Clone)]
pub struct LlmConfig {
    /// Base URL of the OpenAI-compatible API, without a trailing slash; `None`: local provider.
    pub base_url: Option<String>,
    /// Bearer key, if the provider wants one.
    pub api_key: Option<String>,
    /// Model name sent to the provider ([`LOCAL_MODEL`] when there is none).
    pub model: String,
    /// Outbound pace: every call waits for its slot.
    pub pace: Policy,
    /// Whole-call timeout: pacing, every attempt and every backoff included.
    pub timeout: Duration,
}

impl LlmConfig {
    /// Reads the `LLM_*` variables.
    ///
    /// Refuses a base URL that is not an `http(s)` URL with a host (or that carries
    /// credentials, a query or a fragment), a key that could not be sent as a header, a key
    /// with no base URL (it would go nowhere: most likely a forgotten `LLM_BASE_URL`), a bad
    /// pace and a zero or non-numeric timeout.
    pub fn from_env(env: &dyn Env) -> Result<Self, ConfigError> {
        let base_url = match env.optional(ENV_LLM_BASE_URL) {
            Some(raw) => Some(parse_base_url(&raw).ok_or_else(invalid_base_url)?),
            None => None,
        };
        let api_key = env.optional(ENV_LLM_API_KEY);
        if let Some(key) = &api_key {
            check_api_key(key, base_url.is_some())?;
        }
        let model = match (&base_url, env.optional(ENV_LLM_MODEL)) {
            (Some(_), Some(model)) => model,
            (Some(_), None) => DEFAULT_MODEL.to_owned(),
            (None, _) => LOCAL_MODEL.to_owned(),
        };
        Ok(Self {
            base_url,
            api_key,
            model,
            pace: env.parsed_or(ENV_LLM_RATE, DEFAULT_RATE)?,
            timeout: timeout(env)?,
        })
    }
}

impl fmt::Debug for LlmConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .field("pace", &self.pace)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// The base URL without trailing slashes, or `None` when it is not one we can call.
pub(crate) fn parse_base_url(raw: &str) -> Option<String> {
    // The URL parser would trim spaces silently; the estate's rule is "taken as written".
    if raw.trim() != raw {
        return None;
    }
    let url = reqwest::Url::parse(raw).ok()?;
    let callable = matches!(url.scheme(), "http" | "https")
        && url.host_str().is_some_and(|host| !host.is_empty())
        && url.username().is_empty()
        && url.password().is_none()
        && url.query().is_none()
        && url.fragment().is_none();
    callable.then(|| url.as_str().trim_end_matches('/').to_owned())
}

fn invalid_base_url() -> ConfigError {
    ConfigError::Invalid {
        name: ENV_LLM_BASE_URL,
        expected: "an http:// or https:// URL with a host and no credentials, query or \
                   fragment, such as https://api.openai.com/v1"
            .to_owned(),
    }
}

fn check_api_key(key: &str, has_base_url: bool) -> Result<(), ConfigError> {
    let expected = if !has_base_url {
        "unset while LLM_BASE_URL is unset (the key would be sent nowhere)"
    } else if !key.bytes().all(|byte| byte.is_ascii_graphic()) {
        "printable ASCII without spaces"
    } else {
        return Ok(());
    };
    Err(ConfigError::Invalid {
        name: ENV_LLM_API_KEY,
        expected: expected.to_owned(),
    })
}

fn timeout(env: &dyn Env) -> Result<Duration, ConfigError> {
    match env.u64_or(ENV_LLM_TIMEOUT_MS, DEFAULT_TIMEOUT_MS)? {
        0 => Err(ConfigError::Invalid {
            name: ENV_LLM_TIMEOUT_MS,
            expected: "a positive number of milliseconds".to_owned(),
        }),
        millis => Ok(Duration::from_millis(millis)),
    }
}
