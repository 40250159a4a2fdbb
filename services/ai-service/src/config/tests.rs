//! Unit tests of the settings: defaults, the disable switch, and refusals that name the variable.

use super::*;
use platform::MapEnv;

const SECRET: &str = "4f1c9a7e2b8d6053a1e4c7b9d2f608e35a7c1b9e4d2f6a8c0b3e5d7f9a1c3e5b";

fn config(pairs: &[(&str, &str)]) -> Result<AiConfig, ConfigError> {
    let mut env = vec![("SECURITY_JWT_SECRET_KEY", SECRET)];
    env.extend_from_slice(pairs);
    AiConfig::from_env(&env.into_iter().collect::<MapEnv>())
}

#[test]
fn defaults_are_the_contract() {
    let config = config(&[]).expect("defaults are valid");
    let budgets = [config.chat, config.global, config.log_analysis].map(|p| p.to_string());
    assert_eq!(budgets, ["60/60s", "1200/60s", "60/60s"]);
    assert_eq!(config.listen.port, 9300);
    assert_eq!(config.limiter.max_tracked_keys, 20_000);
    assert!(!config.rate_limit_disabled);
    assert_eq!(config.backend_url, "http://127.0.0.1:9800");
    assert_eq!(config.backend_timeout, Duration::from_secs(10));
    assert!(config.llm.base_url.is_none());
}

#[test]
fn only_exactly_true_disables_the_chat_limiter() {
    for (value, disabled) in [
        ("true", true),
        ("false", false),
        ("TRUE", false),
        ("1", false),
        ("yes", false),
    ] {
        let config = config(&[(ENV_RATE_LIMIT_DISABLED, value)]).expect("never refused");
        assert_eq!(config.rate_limit_disabled, disabled, "{value}");
    }
}

#[test]
fn a_weak_or_missing_secret_stops_start_up() {
    let missing = AiConfig::from_env(&MapEnv::default()).expect_err("refused");
    assert_eq!(
        missing.to_string(),
        "SECURITY_JWT_SECRET_KEY is not set: a value is required"
    );
    let weak = config(&[("SECURITY_JWT_SECRET_KEY", "changeme")]).expect_err("refused");
    assert!(
        weak.to_string()
            .starts_with("SECURITY_JWT_SECRET_KEY is invalid"),
        "{weak}"
    );
    let allowed = config(&[
        ("SECURITY_JWT_SECRET_KEY", "short-dev-secret"),
        ("SECURITY_JWT_REQUIRE_STRONG_SECRET", "false"),
    ]);
    assert!(allowed.is_ok(), "the guard can be switched off for dev");
}

#[test]
fn bad_values_are_named_never_quoted() {
    let cases = [
        (ENV_LOG_ANALYSIS_LIMIT, "0"),
        (ENV_LOG_ANALYSIS_LIMIT, "60/1m"),
        (ENV_BUDGET_CHAT, "sixty"),
        (ENV_BUDGET_GLOBAL, "0/1m"),
        (ENV_BACKEND_URL, "ftp://backend"),
        (ENV_BACKEND_URL, "backend:9800"),
        (ENV_BACKEND_TIMEOUT_MS, "0"),
    ];
    for (name, value) in cases {
        let error = config(&[(name, value)]).expect_err("refused").to_string();
        assert!(error.starts_with(name), "{name}={value}: {error}");
        assert!(!error.contains(value), "{name}={value}: {error}");
    }
}

#[test]
fn the_backend_url_loses_its_trailing_slash() {
    let config = config(&[(ENV_BACKEND_URL, "http://backend:9800/")]).expect("valid");
    assert_eq!(config.backend_url, "http://backend:9800");
}
