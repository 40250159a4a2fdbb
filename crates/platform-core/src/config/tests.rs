//! Unit tests of the typed environment helpers.

use std::time::Duration;

use super::*;

fn env(pairs: &[(&str, &str)]) -> MapEnv {
    pairs.iter().copied().collect()
}

#[test]
fn required_and_optional_treat_empty_as_unset() {
    let vars = env(&[("NAME", "estate"), ("BLANK", "")]);
    assert_eq!(vars.required("NAME"), Ok("estate".to_owned()));
    assert_eq!(vars.optional("NAME").as_deref(), Some("estate"));
    assert_eq!(vars.optional("BLANK"), None);
    assert_eq!(vars.optional("ABSENT"), None);
    for name in ["BLANK", "ABSENT"] {
        let err = vars.required(name).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{name} is not set: a value is required")
        );
    }
}

#[test]
fn integers_fall_back_to_their_default_and_parse_what_is_set() {
    let vars = env(&[
        ("PORT", "9800"),
        ("KEYS", "20000"),
        ("MS", "5000"),
        ("EMPTY", ""),
    ]);
    assert_eq!(vars.u16_or("PORT", 1), Ok(9800));
    assert_eq!(vars.u16_or("EMPTY", 1), Ok(1));
    assert_eq!(vars.usize_or("KEYS", 1), Ok(20_000));
    assert_eq!(vars.usize_or("ABSENT", 7), Ok(7));
    assert_eq!(vars.u64_or("MS", 1), Ok(5000));
    assert_eq!(vars.u64_or("ABSENT", 9), Ok(9));
}

#[test]
fn a_bad_integer_names_the_variable_and_the_range() {
    let vars = env(&[
        ("PORT", "65536"),
        ("NEG", "-1"),
        ("WORD", "many"),
        ("PAD", " 80"),
    ]);
    let err = vars.u16_or("PORT", 0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "PORT is invalid: expected an integer from 0 to 65535"
    );
    for name in ["NEG", "WORD", "PAD"] {
        assert!(vars.u16_or(name, 0).is_err(), "{name}");
        assert!(vars.usize_or(name, 0).is_err(), "{name}");
        let err = vars.u64_or(name, 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{name} is invalid: expected an integer from 0 to {}",
                u64::MAX
            )
        );
    }
}

#[test]
fn booleans_are_exactly_true_or_false() {
    let vars = env(&[("ON", "true"), ("OFF", "false"), ("EMPTY", "")]);
    assert_eq!(vars.bool_or("ON", false), Ok(true));
    assert_eq!(vars.bool_or("OFF", true), Ok(false));
    assert_eq!(vars.bool_or("EMPTY", true), Ok(true));
    assert_eq!(vars.bool_or("ABSENT", false), Ok(false));
    for text in [
        "TRUE", "True", "1", "0", "yes", "no", "on", " true", "false ",
    ] {
        let err = env(&[("FLAG", text)]).bool_or("FLAG", true).unwrap_err();
        assert_eq!(
            err.to_string(),
            "FLAG is invalid: expected exactly true or false"
        );
    }
}

#[test]
fn budgets_parse_with_the_limiter_and_fall_back_to_the_default() {
    let vars = env(&[("RATE_LIMIT_CI", "600/1h"), ("EMPTY", "")]);
    let set = vars.budget("RATE_LIMIT_CI", "1/1s").unwrap();
    assert_eq!(
        (set.limit(), set.period()),
        (600, Duration::from_secs(3600))
    );
    let fallback = vars.budget("EMPTY", "20/15m").unwrap();
    assert_eq!(
        (fallback.limit(), fallback.period()),
        (20, Duration::from_secs(900))
    );
    let absent = vars.budget("ABSENT", "60/60s").unwrap();
    assert_eq!(absent, "60/60s".parse::<Policy>().unwrap());
}

#[test]
fn a_bad_budget_names_the_variable_and_the_format() {
    let err = env(&[("RATE_LIMIT_CI", "600 per hour")])
        .budget("RATE_LIMIT_CI", "600/1h")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "RATE_LIMIT_CI is invalid: expected <limit>/<period> such as 300/1h, 20/15m or 60/60s"
    );
    let zero = env(&[("RATE_LIMIT_CI", "0/1h")]).budget("RATE_LIMIT_CI", "600/1h");
    assert_eq!(
        zero,
        Err(ConfigError::Budget {
            name: "RATE_LIMIT_CI",
            reason: PolicyError::Zero
        })
    );
}

#[test]
fn a_bad_default_is_reported_as_a_bug_not_as_the_operators_value() {
    let err = MapEnv::default()
        .budget("RATE_LIMIT_CI", "600/1d")
        .unwrap_err();
    assert_eq!(
        err,
        ConfigError::BadDefault {
            name: "RATE_LIMIT_CI",
            reason: PolicyError::Format
        }
    );
    assert!(
        err.to_string()
            .starts_with("built-in default of RATE_LIMIT_CI")
    );
}

#[test]
fn no_message_echoes_the_value() {
    let secret = "s3cr3t-value-that-must-not-leak";
    let vars = env(&[("SECRET", secret)]);
    let errors = [
        vars.u16_or("SECRET", 0).unwrap_err(),
        vars.usize_or("SECRET", 0).unwrap_err(),
        vars.u64_or("SECRET", 0).unwrap_err(),
        vars.bool_or("SECRET", false).unwrap_err(),
        vars.budget("SECRET", "1/1s").unwrap_err(),
    ];
    for err in errors {
        let shown = format!("{err} {err:?}");
        assert!(
            shown.contains("SECRET") && !shown.contains(secret),
            "{shown}"
        );
    }
}

#[test]
fn process_env_reads_this_process() {
    assert!(ProcessEnv.var("PATH").is_some());
    assert_eq!(ProcessEnv.var("ESTATE_PLATFORM_TEST_SURELY_UNSET"), None);
}
