//! `LlmConfig::from_env`: defaults, the provider switch, and refusals that name the variable
//! and never show the key.

use std::time::Duration;

use llm::{
    ENV_LLM_API_KEY, ENV_LLM_BASE_URL, ENV_LLM_MODEL, ENV_LLM_RATE, ENV_LLM_TIMEOUT_MS, LlmConfig,
};
use platform_core::{ConfigError, MapEnv};

use crate::TEST_KEY;

fn read(vars: &[(&str, &str)]) -> Result<LlmConfig, ConfigError> {
    LlmConfig::from_env(&vars.iter().copied().collect::<MapEnv>())
}

fn refusal(vars: &[(&str, &str)]) -> String {
    match read(vars) {
        Ok(config) => panic!("expected a refusal, got {config:?}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn nothing_set_means_the_local_provider_with_default_pace_and_timeout() {
    let config = read(&[]).expect("defaults");
    assert_eq!(config.base_url, None);
    assert_eq!(config.api_key, None);
    assert_eq!(config.model, "local");
    assert_eq!(config.pace, "60/1m".parse().expect("a valid pace"));
    assert_eq!(config.timeout, Duration::from_secs(30));
}

#[test]
fn empty_values_count_as_unset() {
    let config = read(&[(ENV_LLM_BASE_URL, ""), (ENV_LLM_API_KEY, "")]).expect("defaults");
    assert_eq!(config.base_url, None);
    assert_eq!(config.api_key, None);
}

#[test]
fn a_base_url_selects_the_remote_provider_with_the_default_model() {
    let config = read(&[(ENV_LLM_BASE_URL, "https://api.example.com/v1/")]).expect("valid");
    assert_eq!(
        config.base_url.as_deref(),
        Some("https://api.example.com/v1")
    );
    assert_eq!(config.model, "gpt-4o-mini");
}

#[test]
fn every_variable_is_read() {
    let config = read(&[
        (ENV_LLM_BASE_URL, "http://127.0.0.1:1234/v1"),
        (ENV_LLM_API_KEY, TEST_KEY),
        (ENV_LLM_MODEL, "llama-3.1-8b"),
        (ENV_LLM_RATE, "5/1s"),
        (ENV_LLM_TIMEOUT_MS, "1500"),
    ])
    .expect("valid");
    assert_eq!(config.base_url.as_deref(), Some("http://127.0.0.1:1234/v1"));
    assert_eq!(config.api_key.as_deref(), Some(TEST_KEY));
    assert_eq!(config.model, "llama-3.1-8b");
    assert_eq!(config.pace, "5/1s".parse().expect("a valid pace"));
    assert_eq!(config.timeout, Duration::from_millis(1500));
}

#[test]
fn a_base_url_that_cannot_be_called_is_refused_by_name() {
    let bad = [
        "not a url",
        "ftp://example.com/v1",
        "http://",
        " https://api.example.com/v1",
        "https://user:secret@api.example.com/v1",
        "https://api.example.com/v1?key=secret",
        "https://api.example.com/v1#frag",
    ];
    for url in bad {
        let message = refusal(&[(ENV_LLM_BASE_URL, url), (ENV_LLM_API_KEY, TEST_KEY)]);
        assert!(
            message.starts_with("LLM_BASE_URL is invalid"),
            "{url}: {message}"
        );
        assert!(!message.contains("secret"), "{message}");
    }
}

#[test]
fn a_bad_pace_or_timeout_is_refused_by_name() {
    let message = refusal(&[(ENV_LLM_RATE, "fast")]);
    assert!(
        message.starts_with("LLM_RATE_LIMIT is invalid"),
        "{message}"
    );
    for timeout in ["0", "-1", "30s"] {
        let message = refusal(&[(ENV_LLM_TIMEOUT_MS, timeout)]);
        assert!(
            message.starts_with("LLM_TIMEOUT_MS is invalid"),
            "{message}"
        );
    }
}

#[test]
fn a_key_without_a_base_url_or_unsendable_is_refused_without_showing_it() {
    let unsendable = format!("{TEST_KEY}\n");
    let cases = [
        vec![(ENV_LLM_API_KEY, TEST_KEY)],
        vec![
            (ENV_LLM_BASE_URL, "https://api.example.com/v1"),
            (ENV_LLM_API_KEY, unsendable.as_str()),
        ],
    ];
    for vars in cases {
        let message = refusal(&vars);
        assert!(message.starts_with("LLM_API_KEY is invalid"), "{message}");
        assert!(!message.contains(TEST_KEY), "{message}");
    }
}

#[test]
fn no_refusal_ever_contains_the_key() {
    let bad = [
        (ENV_LLM_BASE_URL, "nope"),
        (ENV_LLM_RATE, "nope"),
        (ENV_LLM_TIMEOUT_MS, "nope"),
    ];
    for (name, value) in bad {
        let message = refusal(&[
            (ENV_LLM_BASE_URL, "https://api.example.com/v1"),
            (ENV_LLM_API_KEY, TEST_KEY),
            (name, value),
        ]);
        assert!(message.contains(name), "{message}");
        assert!(!message.contains(TEST_KEY), "{message}");
    }
}
