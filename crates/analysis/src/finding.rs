//! One problem found at one place in one file, as the analyzer reports it and every relay
//! passes it on.

use crate::Severity;
use serde::{Deserialize, Serialize};

/// One problem found at one place in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The analysis type id for built-in checks, the rule's `ruleId` for custom rules.
    pub rule_id: String,
    /// The analysis type that produced it (`custom` for custom rules).
    pub analysis_type: String,
    /// How serious it is.
    pub severity: Severity,
    /// The path of the file it was found in, as the request gave it.
    pub path: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub column: u32,
    /// What is wrong, in one sentence.
    pub message: String,
    /// How to fix it, when the analyzer knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
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
        assert_eq!(
            serde_json::from_str::<Finding>(&json).ok(),
            Some(finding.clone())
        );
        let with_fix = Finding {
            fix: Some("f".into()),
            ..finding
        };
        let json = serde_json::to_string(&with_fix).expect("a finding serializes");
        assert!(json.ends_with(r#","message":"m","fix":"f"}"#), "{json}");
    }
}
