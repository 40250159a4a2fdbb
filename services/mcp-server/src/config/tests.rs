//! Unit tests of the settings: defaults, the switch, and refusals that name the variable.

use super::*;
use platform::MapEnv;

const SECRET: &str = "4f1c9a7e2b8d6053a1e4c7b9d2f608e35a7c1b9e4d2f6a8c0b3e5d7f9a1c3e5b";

fn env(extra: &[(&'static str, &'static str)]) -> MapEnv {
    let mut pairs = vec![
        (ENV_ANALYZER_TOKEN, "analyzer-token"),
        ("SECURITY_JWT_SECRET_KEY", SECRET),
    ];
    pairs.extend_from_slice(extra);
    pairs.into_iter().collect()
}

#[test]
fn defaults_are_the_contract() {
    let config = McpConfig::from_env(&env(&[])).unwrap();
    let budgets = [
        config.budgets.mcp,
        config.budgets.skills_package,
        config.budgets.installer,
    ];
    let shown: Vec<String> = budgets.iter().map(ToString::to_string).collect();
    assert_eq!(shown, ["600/60s", "20/60s", "60/60s"]);
    assert!(config.rate_limit_enabled);
    assert_eq!(config.listen.port, 9500);
    assert_eq!(config.analyzer_url, "http://127.0.0.1:9001");
    assert_eq!(config.backend_url, "http://127.0.0.1:9800");
    assert_eq!(config.public_url, None);
}

#[test]
fn the_limiter_is_on_unless_exactly_false() {
    for (value, expected) in [
        ("true", true),
        ("FALSE", true),
        ("0", true),
        ("off", true),
        ("false", false),
    ] {
        let config = McpConfig::from_env(&env(&[(ENV_RATE_LIMIT_ENABLED, value)])).unwrap();
        assert_eq!(config.rate_limit_enabled, expected, "{value}");
    }
}

#[test]
fn upstream_urls_lose_their_trailing_slash_and_must_be_http() {
    let config = McpConfig::from_env(&env(&[
        (ENV_ANALYZER_URL, "http://analyzer:9001/"),
        (ENV_BACKEND_URL, "https://api.example.com/base/"),
    ]))
    .unwrap();
    assert_eq!(config.analyzer_url, "http://analyzer:9001");
    assert_eq!(config.backend_url, "https://api.example.com/base");
    for bad in ["analyzer:9001", "ftp://analyzer", "not a url"] {
        let error = McpConfig::from_env(&env(&[(ENV_ANALYZER_URL, bad)]))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("ANALYZER_URL is invalid") && !error.contains(bad),
            "{error}"
        );
    }
}

#[test]
fn required_and_bad_values_are_named_never_quoted() {
    let missing = McpConfig::from_env(&MapEnv::from_iter([("SECURITY_JWT_SECRET_KEY", SECRET)]))
        .unwrap_err()
        .to_string();
    assert_eq!(missing, "ANALYZER_TOKEN is not set: a value is required");
    let weak = McpConfig::from_env(&MapEnv::from_iter([
        (ENV_ANALYZER_TOKEN, "t"),
        ("SECURITY_JWT_SECRET_KEY", "changeme"),
    ]))
    .unwrap_err()
    .to_string();
    assert!(
        weak.starts_with("SECURITY_JWT_SECRET_KEY is invalid") && !weak.contains("changeme"),
        "{weak}"
    );
    let budget = McpConfig::from_env(&env(&[(ENV_BUDGET_INSTALLER, "sixty")]))
        .unwrap_err()
        .to_string();
    assert!(
        budget.contains(ENV_BUDGET_INSTALLER) && !budget.contains("sixty"),
        "{budget}"
    );
    let url = McpConfig::from_env(&env(&[(ENV_PUBLIC_URL, "http://x.example/'$(id)'")]))
        .unwrap_err()
        .to_string();
    assert!(
        url.starts_with("MCP_PUBLIC_URL is invalid") && !url.contains("$(id)"),
        "{url}"
    );
}
