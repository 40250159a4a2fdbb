//! Integration tests of the llm crate, one binary: a real client over real HTTP against a stub
//! chat-completions server on port 0 (the stand-in for a paid API), plus config and the local
//! provider.

mod bounds;
mod chat;
mod config;
mod local;
mod pacing;
mod retries;
mod streaming;
mod stub;

use std::sync::Arc;
use std::time::Duration;

use llm::{LlmClient, LlmConfig};

/// The key every remote test client sends; no error or `Debug` may ever show it.
pub const TEST_KEY: &str = "sk-test-0123456789";

/// A config for `base_url` with a key, a model, a pace that never waits and a 5 s timeout.
pub fn remote_config(base_url: &str) -> LlmConfig {
    LlmConfig {
        base_url: Some(base_url.to_owned()),
        api_key: Some(TEST_KEY.to_owned()),
        model: "test-model".to_owned(),
        pace: "1000/1s".parse().expect("a valid pace"),
        timeout: Duration::from_secs(5),
    }
}

/// A client for `config` on the real monotonic clock.
pub fn client(config: LlmConfig) -> LlmClient {
    LlmClient::new(config, Arc::new(limiter::SystemClock::new())).expect("a valid config")
}
