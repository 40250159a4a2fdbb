//! What the engine reads (a [`SourceFile`]) and what it reports (a [`Finding`]).

use serde::Serialize;

use crate::{Language, Severity};

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

/// One problem found at one place in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The analysis type id for built-in checks, the rule's `ruleId` for custom rules.
    pub rule_id: String,
    /// The analysis type that produced it (`custom` for custom rules).
    pub analysis_type: String,
    /// How serious it is.
    pub severity: Severity,
    /// The [`SourceFile::path`] it was found in.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it, when the engine knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

impl Finding {
    /// The order findings are reported in: path, line, column, rule id.
    pub(crate) fn sort_key(&self) -> (&str, u32, u32, &str) {
        (&self.path, self.line, self.column, &self.rule_id)
    }
}

#[cfg(test)]
mod tests {
    use super::Finding;
    use crate::Severity;

    #[test]
    fn serializes_in_camel_case_and_omits_an_absent_fix() {
        let finding = Finding {
            rule_id: "print-debugging".into(),
            analysis_type: "print-debugging".into(),
            severity: Severity::Warning,
            path: "src/main.rs".into(),
            line: 3,
            column: 5,
            message: "m".into(),
            fix: None,
        };
        let json = serde_json::to_string(&finding).expect("a finding serializes");
        assert_eq!(
            json,
            r#"{"ruleId":"print-debugging","analysisType":"print-debugging","severity":"warning","path":"src/main.rs","line":3,"column":5,"message":"m"}"#
        );
        let with_fix = Finding {
            fix: Some("f".into()),
            ..finding
        };
        let json = serde_json::to_string(&with_fix).expect("a finding serializes");
        assert!(json.ends_with(r#","message":"m","fix":"f"}"#), "{json}");
    }
}
