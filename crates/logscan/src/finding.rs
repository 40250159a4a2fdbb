//! What the engine reads (a [`SourceFile`]), and the order it reports [`Finding`]s in (the
//! finding itself is the estate's analysis contract, `analysis::Finding`).

use crate::{Finding, Language};

/// One file to analyze, borrowed from the request.
#[derive(Debug, Clone, Copy)]
pub struct SourceFile<'a> {
    /// The path the client gave; findings repeat it and test-file rules read it.
    pub path: &'a str,
    /// The whole file.
    pub content: &'a str,
    /// The language to read it as.
    pub language: Language,
}

/// The order findings are reported in: path, line, column, rule id.
pub(crate) fn sort_key(finding: &Finding) -> (&str, u32, u32, &str) {
    (
        &finding.path,
        finding.line,
        finding.column,
        &finding.rule_id,
    )
}
