//! Custom rules: every validation message, exactly; the normalised spec; hostile patterns
//! refused fast; and matching line by line in the rule's languages only.

use std::time::{Duration, Instant};

use super::{MAX_MESSAGE_CHARS, MAX_RULE_LINE_BYTES, RuleSpec};
use crate::checks::testing::UNBOUNDED;
use crate::{Language, RuleError, Severity, SourceFile, analyze};

fn valid() -> RuleSpec {
    RuleSpec {
        rule_id: Some("no-todo".into()),
        pattern: Some("TODO".into()),
        severity: None,
        message: Some("  no TODO in log messages ".into()),
        languages: None,
    }
}

/// The client-facing message for `spec`'s refusal.
fn refusal(spec: RuleSpec) -> String {
    spec.validate()
        .expect_err("the spec is invalid")
        .to_string()
}

const BAD_RULE_ID: &str = "rule.ruleId must be 1-64 letters, digits, '.', '_' or '-'";

/// Asserts that `spec` is refused with exactly `expected`.
fn assert_refused(spec: RuleSpec, expected: &str) {
    assert_eq!(refusal(spec.clone()), expected, "{spec:?}");
}

#[test]
fn rule_id_is_checked_first() {
    assert_refused(RuleSpec::default(), "rule.ruleId is mandatory");
    assert_refused(
        RuleSpec {
            rule_id: Some("  ".into()),
            ..valid()
        },
        "rule.ruleId is mandatory",
    );
    assert_eq!(
        RuleError::MissingRuleId.to_string(),
        "rule.ruleId is mandatory"
    );
    for rule_id in ["-x", "a b", " a", &"a".repeat(65)] {
        assert_refused(
            RuleSpec {
                rule_id: Some(rule_id.into()),
                ..valid()
            },
            BAD_RULE_ID,
        );
    }
    let longest = RuleSpec {
        rule_id: Some(format!("A.{}", "_".repeat(62))),
        ..valid()
    };
    assert!(longest.validate().is_ok());
}

#[test]
fn pattern_is_checked_second() {
    let with = |pattern: &str| RuleSpec {
        pattern: Some(pattern.into()),
        ..valid()
    };
    assert_refused(
        RuleSpec {
            pattern: None,
            message: None,
            ..valid()
        },
        "rule.pattern is mandatory",
    );
    assert_refused(with(""), "rule.pattern is mandatory");
    assert_refused(
        with(&"a".repeat(1001)),
        "rule.pattern is longer than 1000 characters",
    );
    assert!(with(&"a".repeat(1000)).validate().is_ok());
    assert_refused(
        with("(unclosed"),
        "rule.pattern is not a valid regular expression",
    );
    assert_refused(with("(a{1000}){1000}"), "rule.pattern is too complex");
}

#[test]
fn message_severity_and_languages_come_last() {
    assert_refused(
        RuleSpec {
            message: Some(" ".into()),
            ..valid()
        },
        "rule.message is mandatory",
    );
    let no_message = RuleSpec {
        message: None,
        severity: Some("fatal".into()),
        ..valid()
    };
    assert_refused(no_message, "rule.message is mandatory");
    assert_refused(
        RuleSpec {
            severity: Some("fatal".into()),
            ..valid()
        },
        "rule.severity must be one of info, warning, error",
    );
    let languages = Some(vec!["rust".into(), "cobol".into()]);
    assert_refused(
        RuleSpec {
            languages,
            severity: Some("Info".into()),
            ..valid()
        },
        "rule.languages has an unknown language 'cobol'",
    );
}

#[test]
fn an_invalid_pattern_keeps_a_one_line_reason() {
    let error = RuleSpec {
        pattern: Some("(unclosed".into()),
        ..valid()
    }
    .validate();
    let Err(RuleError::InvalidPattern { reason }) = error else {
        panic!("expected InvalidPattern, got {error:?}");
    };
    assert_eq!(reason, "unclosed group");
}

#[test]
fn hostile_patterns_are_refused_fast() {
    for pattern in [
        "(a{1000}){1000}",
        "((a|b)*){500}",
        "(((a{100}){100}){100})",
        "\\w{1000}{1000}",
    ] {
        let started = Instant::now();
        let error = RuleSpec {
            pattern: Some(pattern.into()),
            ..valid()
        }
        .validate();
        let elapsed = started.elapsed();
        assert_eq!(
            error.map(|_| ()),
            Err(RuleError::PatternTooComplex),
            "{pattern}"
        );
        assert!(
            elapsed < Duration::from_secs(1),
            "{pattern} took {elapsed:?}"
        );
    }
}

#[test]
fn the_spec_is_normalised() {
    let spec = RuleSpec {
        severity: Some("ERROR".into()),
        languages: Some(vec!["TS".into(), "golang".into(), "typescript".into()]),
        ..valid()
    };
    let rule = spec.validate().expect("a valid rule");
    assert_eq!(rule.id(), "no-todo");
    assert_eq!(rule.spec().severity.as_deref(), Some("error"));
    assert_eq!(
        rule.spec().message.as_deref(),
        Some("no TODO in log messages")
    );
    assert_eq!(
        rule.spec().languages,
        Some(vec!["typescript".into(), "go".into()])
    );
    let defaulted = valid().validate().expect("a valid rule");
    assert_eq!(defaulted.spec().severity.as_deref(), Some("warning"));
    assert_eq!(defaulted.spec().languages.as_ref().map(Vec::len), Some(6));
}

#[test]
fn deserializes_from_camel_case_json() {
    let json = r#"{"ruleId":"r1","pattern":"x","message":"m","languages":["java"],"extra":1}"#;
    let spec: RuleSpec = serde_json::from_str(json).expect("camelCase fields");
    assert_eq!(spec.rule_id.as_deref(), Some("r1"));
    assert_eq!(spec.languages, Some(vec!["java".to_owned()]));
}

#[test]
fn matches_each_line_once_in_its_languages_with_char_columns() {
    let rule = RuleSpec {
        pattern: Some("sleep".into()),
        languages: Some(vec!["java".into()]),
        ..valid()
    };
    let rule = rule.validate().expect("a valid rule");
    let java = SourceFile {
        path: "A.java",
        content: "é sleep(1); sleep(2);\nx\r\nsleep",
        language: Language::Java,
    };
    let go = SourceFile {
        path: "a.go",
        content: "sleep",
        language: Language::Go,
    };
    let findings = analyze(&[java, go], &["custom".into()], &[rule], &UNBOUNDED)
        .expect("custom is known")
        .findings;
    let places: Vec<(u32, u32)> = findings.iter().map(|f| (f.line, f.column)).collect();
    assert_eq!(
        places,
        [(1, 3), (3, 1)],
        "one finding per line: the leftmost match"
    );
    assert_eq!(findings[0].rule_id, "no-todo");
    assert_eq!(findings[0].analysis_type, "custom");
    assert_eq!(findings[0].severity, Severity::Warning);
    assert_eq!(findings[0].message, "no TODO in log messages");
    assert_eq!(findings[0].fix, None);
}

#[test]
fn patterns_that_can_match_nothing_are_refused() {
    for pattern in ["x*", "a|", "(?:TODO)?", "\\b", "^", "(?m)$"] {
        assert_refused(
            RuleSpec {
                pattern: Some(pattern.into()),
                ..valid()
            },
            "rule.pattern can match an empty string",
        );
    }
    for pattern in ["x+", "\\bTODO\\b", "^\\s*print", "a*z|a"] {
        let spec = RuleSpec {
            pattern: Some(pattern.into()),
            ..valid()
        };
        assert!(spec.validate().is_ok(), "{pattern}");
    }
}

#[test]
fn a_long_line_is_searched_in_its_first_bytes_once() {
    let rule = RuleSpec {
        pattern: Some("a*z|é".into()),
        ..valid()
    }
    .validate()
    .expect("valid");
    // `é` is two bytes: the line's first 16 KiB end inside one, which is left out.
    let line = format!(
        "{}{}",
        "a".repeat(MAX_RULE_LINE_BYTES - 1),
        "é".repeat(10_000)
    );
    let content = format!("{line}\né\n{}é\n", "a".repeat(MAX_RULE_LINE_BYTES));
    let file = SourceFile {
        path: "a.rs",
        content: &content,
        language: Language::Rust,
    };
    let findings = analyze(&[file], &["custom".into()], &[rule], &UNBOUNDED)
        .expect("custom is known")
        .findings;
    let places: Vec<(u32, u32)> = findings.iter().map(|f| (f.line, f.column)).collect();
    assert_eq!(places, [(2, 1)], "nothing past the searched bytes");
}

#[test]
fn a_message_is_bounded() {
    let with = |length: usize| RuleSpec {
        message: Some("m".repeat(length)),
        ..valid()
    };
    assert!(with(MAX_MESSAGE_CHARS).validate().is_ok());
    assert_refused(
        with(MAX_MESSAGE_CHARS + 1),
        "rule.message is longer than 500 characters",
    );
}
