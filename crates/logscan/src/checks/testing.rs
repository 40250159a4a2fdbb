//! Helpers for unit tests: run one analysis type over one snippet, with no bounds in the way.

use crate::{Bounds, Finding, Language, SourceFile, analyze};

fn never() -> bool {
    false
}

/// Bounds that never cut: every finding kept, no deadline.
pub(crate) const UNBOUNDED: Bounds<'static> = Bounds {
    max_findings: usize::MAX,
    deadline_passed: &never,
};

/// The findings of analysis type `type_id` in `content`, read as `language` from `path`.
pub(crate) fn run_at(type_id: &str, language: Language, path: &str, content: &str) -> Vec<Finding> {
    let file = SourceFile {
        path,
        content,
        language,
    };
    analyze(&[file], &[type_id.to_owned()], &[], &UNBOUNDED)
        .expect("a built-in type id")
        .findings
}

/// The lines `type_id` reports in `content`, from a non-test path.
pub(crate) fn lines(type_id: &str, language: Language, content: &str) -> Vec<u32> {
    run_at(type_id, language, "src/snippet", content)
        .iter()
        .map(|finding| finding.line)
        .collect()
}
