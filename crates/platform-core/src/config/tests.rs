//! Unit tests of the typed environment helpers.

use std::net::Ipv4Addr;

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
fn parsed_values_use_their_types_parser_and_fall_back_to_the_default() {
    let vars = env(&[("ADDRESS", "10.0.0.1"), ("EMPTY", "")]);
    let set: Ipv4Addr = vars.parsed_or("ADDRESS", "127.0.0.1").unwrap();
    assert_eq!(set, Ipv4Addr::new(10, 0, 0, 1));
    let fallback: Ipv4Addr = vars.parsed_or("EMPTY", "127.0.0.2").unwrap();
    assert_eq!(fallback, Ipv4Addr::new(127, 0, 0, 2));
    let absent: Ipv4Addr = vars.parsed_or("ABSENT", "127.0.0.3").unwrap();
    assert_eq!(absent, Ipv4Addr::new(127, 0, 0, 3));
}

#[test]
fn a_value_its_parser_refuses_names_the_variable_and_the_parsers_reason() {
    let err = env(&[("ADDRESS", "ten")])
        .parsed_or::<Ipv4Addr>("ADDRESS", "127.0.0.1")
        .unwrap_err();
    assert_eq!(
        err,
        ConfigError::Unparsed {
            name: "ADDRESS",
            reason: "invalid IPv4 address syntax".to_owned()
        }
    );
    assert_eq!(
        err.to_string(),
        "ADDRESS is invalid: invalid IPv4 address syntax"
    );
}

#[test]
fn a_bad_default_is_reported_as_a_bug_not_as_the_operators_value() {
    let err = MapEnv::default()
        .parsed_or::<Ipv4Addr>("ADDRESS", "localhost")
        .unwrap_err();
    assert_eq!(
        err,
        ConfigError::BadDefault {
            name: "ADDRESS",
            reason: "invalid IPv4 address syntax".to_owned()
        }
    );
    assert!(err.to_string().starts_with("built-in default of ADDRESS"));
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
        vars.parsed_or::<Ipv4Addr>("SECRET", "127.0.0.1")
            .unwrap_err(),
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
