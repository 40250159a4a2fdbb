//! The analyzer's settings: defaults, the limiter switch, and bad values named.

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
            .chain([(ENV_TOKEN, "t")])
            .collect();
        let config = AnalyzerConfig::from_env(&env).unwrap();
        assert_eq!(config.rate_limit_enabled, expected, "{value:?}");
    }
}

#[test]
fn defaults_are_the_contract() {
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

#[test]
fn analysis_bounds_default_and_refuse_nonsense() {
    let config = AnalyzerConfig::from_env(&MapEnv::from_iter([(ENV_TOKEN, "t")])).unwrap();
    assert_eq!(
        config.bounds,
        AnalysisBounds {
            max_findings: 1000,
            max_answer_bytes: 2 * 1024 * 1024,
            deadline: Duration::from_secs(5),
        }
    );
    for (name, value) in [
        (ENV_MAX_FINDINGS, "0"),
        (ENV_MAX_ANSWER_BYTES, "1023"),
        (ENV_DEADLINE_MS, "0"),
        (ENV_DEADLINE_MS, "soon"),
    ] {
        let env = MapEnv::from_iter([(ENV_TOKEN, "t"), (name, value)]);
        let error = AnalyzerConfig::from_env(&env).unwrap_err().to_string();
        assert!(error.contains(name), "{error}");
    }
}
