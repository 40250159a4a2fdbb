//! Helpers for the checks' unit tests: run one analysis type over one snippet.

use crate::{Finding, Language, SourceFile, analyze};

/// The findings of analysis type `type_id` in `content`, read as `language` from `path`.
pub(crate) fn run_at(type_id: &str, language: Language, path: &str, content: &str) -> Vec<Finding> {
    let file = SourceFile {
        path,
        content,
        language,
    };
    analyze(&[file], &[type_id.to_owned()], &[]).expect("a built-in type id")
}

/// The lines `type_id` reports in `content`, from a non-test path.
pub(crate) fn lines(type_id: &str, language: Language, content: &str) -> Vec<u32> {
    run_at(type_id, language, "src/snippet", content)
        .iter()
        .map(|finding| finding.line)
        .collect()
}
