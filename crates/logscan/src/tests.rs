//! Tests of `analyze` itself: type selection, unknown types, ordering.

use crate::checks::testing::UNBOUNDED;
use crate::{AnalyzeError, Language, RuleSpec, SourceFile, analyze};

const RUST: &str = "fn run() {\n    println!(\"{:?}\", a); error!(\"failed\");\n}\n";

fn rust_file(path: &str) -> SourceFile<'_> {
    SourceFile {
        path,
        content: RUST,
        language: Language::Rust,
    }
}

#[test]
fn no_types_means_every_built_in_type() {
    let findings = analyze(
        &[rust_file("b.rs"), rust_file("a.rs")],
        &[],
        &[],
        &UNBOUNDED,
    )
    .expect("runs")
    .findings;
    let summary: Vec<(&str, u32, u32, &str)> = findings
        .iter()
        .map(|f| (f.path.as_str(), f.line, f.column, f.rule_id.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            ("a.rs", 2, 5, "print-debugging"),
            ("a.rs", 2, 26, "log-without-context"),
            ("b.rs", 2, 5, "print-debugging"),
            ("b.rs", 2, 26, "log-without-context"),
        ]
    );
}

#[test]
fn types_select_checks_and_custom_selects_none() {
    let only_print = analyze(
        &[rust_file("a.rs")],
        &["print-debugging".into()],
        &[],
        &UNBOUNDED,
    )
    .expect("runs")
    .findings;
    assert_eq!(only_print.len(), 1);
    let custom = analyze(&[rust_file("a.rs")], &["custom".into()], &[], &UNBOUNDED)
        .expect("runs")
        .findings;
    assert!(custom.is_empty());
}

#[test]
fn an_unknown_type_is_refused() {
    let types = vec!["print-debugging".to_owned(), "spelling".to_owned()];
    let error = analyze(&[rust_file("a.rs")], &types, &[], &UNBOUNDED).expect_err("unknown type");
    assert_eq!(error, AnalyzeError::UnknownAnalysisType("spelling".into()));
    assert_eq!(error.to_string(), "unknown analysis type 'spelling'");
}

/// Files built to make a careless scanner quadratic (each of these took minutes once) finish
/// in about a second each in a debug build.
#[test]
fn hostile_files_stay_fast() {
    let nested_calls = "info!(\"password {}\", ".repeat(10_000);
    let open_arms = "Err(e) => (info!(\"x\"), \n".repeat(5_000);
    let open_catches = "try { x(); } catch (e) { logger.info(\"e\", e); \n".repeat(5_000);
    let one_long_line = format!("{}\n", "dbg!(xy, \"é\"); ".repeat(30_000));
    // Headlines each looking at the lines after them, and handlers each looking at their calls.
    let headlines = "log.error(\"failed\")\n".repeat(30_000);
    let handlers = format!(
        "def f():\n{}",
        "    try:\n        x()\n    except E:\n        log.error(\"failed\")\n".repeat(10_000)
    );
    let deep_suites: String = (0..1_500)
        .map(|depth| format!("{}except E:\n", " ".repeat(depth)))
        .collect();
    let files = [
        SourceFile {
            path: "a.rs",
            content: &nested_calls,
            language: Language::Rust,
        },
        SourceFile {
            path: "b.rs",
            content: &open_arms,
            language: Language::Rust,
        },
        SourceFile {
            path: "c.ts",
            content: &open_catches,
            language: Language::TypeScript,
        },
        SourceFile {
            path: "d.py",
            content: &deep_suites,
            language: Language::Python,
        },
        SourceFile {
            path: "e.rs",
            content: &one_long_line,
            language: Language::Rust,
        },
        SourceFile {
            path: "f.py",
            content: &headlines,
            language: Language::Python,
        },
        SourceFile {
            path: "g.py",
            content: &handlers,
            language: Language::Python,
        },
    ];
    let started = std::time::Instant::now();
    let accented = RuleSpec {
        rule_id: Some("e-acute".into()),
        pattern: Some("é".into()),
        message: Some("m".into()),
        ..RuleSpec::default()
    };
    let rules = [accented.validate().expect("a valid rule")];
    let findings = analyze(&files, &[], &rules, &UNBOUNDED)
        .expect("runs")
        .findings;
    let elapsed = started.elapsed();
    let last_print = findings.iter().rfind(|f| f.rule_id == "print-debugging");
    assert_eq!(last_print.map(|f| f.column), Some(29_999 * 15 + 1));
    // A rule reports a line's leftmost match only, however many the line has.
    let custom: Vec<(u32, u32)> = findings
        .iter()
        .filter(|f| f.rule_id == "e-acute")
        .map(|f| (f.line, f.column))
        .collect();
    assert_eq!(custom, [(1, 11)]);
    assert!(
        elapsed < std::time::Duration::from_secs(10),
        "took {elapsed:?}"
    );
}
