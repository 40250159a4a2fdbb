//! The golden corpus: every source file under `services/analyzer/tests/corpus`, analyzed with
//! every built-in type and the corpus's custom rules (`rules.json`), must produce exactly the
//! findings pinned in `expected.json` (one serialized `Finding` per line).
//!
//! After a deliberate change, `LOGSCAN_BLESS=1 cargo test -p logscan --test corpus` rewrites
//! `expected.json`; read its diff line by line before committing it.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use logscan::{Bounds, CustomRule, Language, RuleSpec, SourceFile, analyze};
use serde_json::Value;

const EXPECTED: &str = "expected.json";
const RULES: &str = "rules.json";

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../services/analyzer/tests/corpus")
}

/// `(file name, content)` of every source file in the corpus, by name.
fn sources() -> Vec<(String, String)> {
    let entries = fs::read_dir(corpus_dir()).expect("the corpus directory exists");
    let mut files: Vec<(String, String)> = entries
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.is_file())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            (name != EXPECTED && name != RULES).then_some(path)
        })
        .map(|path| {
            let name = path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or_default();
            (
                name.to_owned(),
                fs::read_to_string(&path).expect("a UTF-8 corpus file"),
            )
        })
        .collect();
    files.sort();
    files
}

fn rules() -> Vec<CustomRule> {
    let text = fs::read_to_string(corpus_dir().join(RULES)).expect("rules.json exists");
    let specs: Vec<RuleSpec> = serde_json::from_str(&text).expect("rules.json is a list of rules");
    specs
        .iter()
        .map(|spec| spec.validate().expect("corpus rules are valid"))
        .collect()
}

/// Every finding of the corpus, one JSON object per line.
fn actual_lines() -> Vec<String> {
    let sources = sources();
    let files: Vec<SourceFile<'_>> = sources
        .iter()
        .map(|(name, content)| SourceFile {
            path: name,
            content,
            language: Language::from_path(name)
                .unwrap_or_else(|| panic!("corpus file {name} has no known language")),
        })
        .collect();
    // Far above the corpus: the analyzer's default cap is 1000.
    let bounds = Bounds {
        max_findings: 1000,
        deadline_passed: &|| false,
    };
    let report = analyze(&files, &[], &rules(), &bounds).expect("all built-in types");
    assert_eq!(report.found, report.findings.len() as u64, "nothing cut");
    report
        .findings
        .iter()
        .map(|finding| serde_json::to_string(finding).expect("a finding serializes"))
        .collect()
}

fn render(lines: &[String]) -> String {
    format!("[\n  {}\n]\n", lines.join(",\n  "))
}

#[test]
fn corpus_findings_match_expected_json() {
    let actual = actual_lines();
    let expected_path = corpus_dir().join(EXPECTED);
    if std::env::var_os("LOGSCAN_BLESS").is_some_and(|value| value == "1") {
        fs::write(&expected_path, render(&actual)).expect("expected.json is writable");
        return;
    }
    let text = fs::read_to_string(&expected_path).expect("expected.json exists");
    let expected: Vec<Value> = serde_json::from_str(&text).expect("a JSON array");
    let actual: Vec<Value> = actual
        .iter()
        .map(|line| serde_json::from_str(line).expect("our own JSON"))
        .collect();
    if actual == expected {
        return;
    }
    // Values print with sorted keys, so equal findings print equally.
    let canonical =
        |values: &[Value]| -> BTreeSet<String> { values.iter().map(ToString::to_string).collect() };
    let (actual_set, expected_set) = (canonical(&actual), canonical(&expected));
    let mut report = format!("corpus findings differ from {EXPECTED}\n");
    for line in expected_set.difference(&actual_set) {
        report.push_str(&format!("  missing:    {line}\n"));
    }
    for line in actual_set.difference(&expected_set) {
        report.push_str(&format!("  unexpected: {line}\n"));
    }
    if actual_set == expected_set {
        report.push_str("  same findings, in a different order or repeated\n");
    }
    panic!("{report}");
}

#[test]
fn every_corpus_language_is_covered() {
    let languages: BTreeSet<Language> = sources()
        .iter()
        .filter_map(|(name, _)| Language::from_path(name))
        .collect();
    assert_eq!(languages.len(), Language::ALL.len(), "{languages:?}");
}
