//! The cap keeps the first findings in report order and counts the rest; the deadline stops
//! the work where it is asked.

use std::cell::Cell;

use crate::checks::testing::UNBOUNDED;
use crate::{Bounds, CustomRule, Language, RuleSpec, SourceFile, analyze};

fn python(path: &str, lines: usize) -> (String, String) {
    (path.to_owned(), "print(password)\n".repeat(lines))
}

fn files(contents: &[(String, String)]) -> Vec<SourceFile<'_>> {
    contents
        .iter()
        .map(|(path, content)| SourceFile {
            path,
            content,
            language: Language::Python,
        })
        .collect()
}

fn rule(pattern: &str) -> CustomRule {
    let spec = RuleSpec {
        rule_id: Some("r".into()),
        pattern: Some(pattern.into()),
        message: Some("m".into()),
        ..RuleSpec::default()
    };
    spec.validate().expect("a valid rule")
}

#[test]
fn the_cap_keeps_what_an_unbounded_analysis_lists_first() {
    let contents = [python("c.py", 40), python("a.py", 30), python("b.py", 20)];
    let sources = files(&contents);
    let rules = [rule("pass"), rule("print")];
    let all = analyze(&sources, &[], &rules, &UNBOUNDED).expect("runs");
    // Each line: sensitive-data-in-logs (the print is that one problem), and both rules.
    assert_eq!(all.found, 270);
    for cap in [0, 1, 7, 100, 269, 270, 1000] {
        let bounds = Bounds {
            max_findings: cap,
            ..UNBOUNDED
        };
        let report = analyze(&sources, &[], &rules, &bounds).expect("runs");
        assert_eq!(report.findings, all.findings[..cap.min(270)], "cap {cap}");
        assert_eq!(report.found, 270, "cap {cap}");
        assert!(!report.stopped_at_deadline);
    }
}

#[test]
fn the_deadline_stops_between_files_checks_and_lines() {
    let contents = [python("a.py", 50), python("b.py", 50)];
    let sources = files(&contents);
    let rules = [rule("print")];
    // Asked before the file, before each of the four checks, before the rule, then before each
    // of its 50 lines: 56 times for a.py.
    let cases = [
        (0, 0),
        (1, 0),
        (2, 50),
        (6, 50),
        (7, 51),
        (30, 74),
        (56, 100),
        (57, 100),
        (58, 150),
    ];
    for (allowed, found) in cases {
        let asked = Cell::new(0);
        let deadline_passed = || {
            asked.set(asked.get() + 1);
            asked.get() > allowed
        };
        let bounds = Bounds {
            max_findings: 1000,
            deadline_passed: &deadline_passed,
        };
        let report = analyze(&sources, &[], &rules, &bounds).expect("runs");
        assert!(report.stopped_at_deadline, "{allowed}");
        assert_eq!(report.found, found, "{allowed} checks allowed");
        assert_eq!(report.findings.len() as u64, found);
    }
}
