//! The bodies of `POST /analyze` (docs/analyzer.md), as the analyzer spells them. Its summary
//! is the estate's one shape for the counts of an answer with findings, `truncated` marker
//! included ([`platform::bounds::Summary`]).

use serde::{Deserialize, Serialize};

/// The counts in a reply, and whether a bound cut it.
pub type AnalyzeSummary = platform::bounds::Summary;

/// One `POST /analyze` request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalyzeBatch {
    /// The files to analyze.
    pub files: Vec<AnalyzeFile>,
    /// The analysis types to run; empty means every built-in type plus the stored rules.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub analysis_types: Vec<String>,
}

/// One file in a batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AnalyzeFile {
    /// The path findings will repeat.
    pub path: String,
    /// The whole file.
    pub content: String,
    /// The language to read it as; absent: the analyzer goes by the extension.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// The analyzer's answer to one batch.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct AnalyzeReply {
    /// Every finding, in the analyzer's order (path, line, column, rule id).
    pub findings: Vec<Finding>,
    /// The counts.
    pub summary: AnalyzeSummary,
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The analysis type id, or a custom rule's `ruleId`.
    pub rule_id: String,
    /// The analysis type that produced it (`custom` for custom rules).
    pub analysis_type: String,
    /// How serious it is, as the analyzer names it.
    pub severity: String,
    /// The file it was found in.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What is wrong.
    pub message: String,
    /// How to fix it, when the analyzer knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}
