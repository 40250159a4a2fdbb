//! What the basic-case suites share: every built-in finding of one snippet, unbounded.

use logscan::{Bounds, Language, SourceFile, analyze};

/// The findings of `code` read from `path` (its extension names the language), as (rule,
/// line), in report order.
pub fn findings(path: &str, code: &str) -> Vec<(String, u32)> {
    let language = Language::from_path(path).expect("a known extension");
    let file = SourceFile {
        path,
        content: code,
        language,
    };
    let bounds = Bounds {
        max_findings: usize::MAX,
        deadline_passed: &|| false,
    };
    analyze(&[file], &[], &[], &bounds)
        .expect("all built-in types")
        .findings
        .into_iter()
        .map(|finding| (finding.rule_id, finding.line))
        .collect()
}
