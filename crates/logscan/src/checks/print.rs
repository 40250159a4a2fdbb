//! `print-debugging`: prints left in code (`println!`, `dbg!`, `System.out.println`,
//! `printStackTrace()`, `print(`, `console.log`, `fmt.Println`), outside test files and, in
//! Rust, outside the `#[cfg(test)]` part of a file.

use std::sync::LazyLock;

use regex::Regex;

use super::Scan;
use crate::bounds::Kept;
use crate::calls::CallKind;
use crate::catalog::PRINT_DEBUGGING;
use crate::{Language, Severity};

const FIX: &str = "remove it, or log through the logger at debug level";

static CFG_TEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]").expect("constant pattern compiles")
});

/// Directories that hold tests, as path segments.
const TEST_DIRECTORIES: [&str; 5] = ["tests", "test", "__tests__", "testdata", "spec"];
/// Endings of test file names.
const TEST_SUFFIXES: [&str; 5] = [
    "_test.go",
    "_test.py",
    "Test.java",
    "Tests.java",
    "_test.rs",
];
/// Infixes of test file names: `app.test.ts`, `view.spec.jsx`, in every script extension.
const TEST_INFIXES: [&str; 2] = [".test.", ".spec."];

pub(super) fn check(scan: &Scan<'_>, findings: &mut Kept) {
    let source = &scan.source;
    if is_test_path(source.path) {
        return;
    }
    let tests_start = match source.language {
        Language::Rust => CFG_TEST
            .find_iter(source.text)
            .map(|found| found.start())
            .find(|&start| source.is_code(start)),
        _ => None,
    };
    for call in &scan.calls {
        let in_tests = tests_start.is_some_and(|start| call.start > start);
        if call.kind == CallKind::Print && !in_tests {
            let message = format!("print debugging left in the code: `{}`", call.callee);
            findings.push(source.finding(
                PRINT_DEBUGGING,
                Severity::Warning,
                call.start,
                message,
                FIX,
            ));
        }
    }
}

/// Whether `path` is a test file: under a test directory, or named like a test.
fn is_test_path(path: &str) -> bool {
    let path = path.replace('\\', "/");
    let mut segments = path.split('/');
    let file_name = segments.next_back().unwrap_or_default();
    segments.any(|segment| TEST_DIRECTORIES.contains(&segment))
        || TEST_SUFFIXES
            .iter()
            .any(|suffix| file_name.ends_with(suffix))
        || TEST_INFIXES.iter().any(|infix| file_name.contains(infix))
        || (file_name.starts_with("test_") && file_name.ends_with(".py"))
        || matches!(file_name, "conftest.py" | "tests.rs")
}

#[cfg(test)]
mod tests;
