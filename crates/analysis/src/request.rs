//! The body of `POST /analyze`: the files, the analysis types to run and the request's own
//! custom rules. The analyzer reads it (refusing a field it does not know); a caller writes
//! it, leaving out what it does not use.

use serde::{Deserialize, Serialize};

/// One `POST /analyze` request. `Rule` is how a custom rule is spelled: the analyzer reads
/// its engine's rule spec; a caller that sends none keeps the default.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnalyzeRequest<Rule = serde_json::Value> {
    /// The files to analyze.
    pub files: Vec<AnalyzeFile>,
    /// The analysis types to run; empty means every built-in type plus the stored rules.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub analysis_types: Vec<String>,
    /// Custom rules of this request only.
    #[serde(default = "Vec::new", skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
}

/// One file of a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnalyzeFile {
    /// The path findings will repeat.
    pub path: String,
    /// The whole file.
    pub content: String,
    /// The language to read it as; absent: the analyzer goes by the extension.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::{AnalyzeFile, AnalyzeRequest};

    #[test]
    fn a_caller_writes_only_what_it_uses() {
        let request: AnalyzeRequest = AnalyzeRequest {
            files: vec![AnalyzeFile {
                path: "a.py".into(),
                content: "print(1)\n".into(),
                language: None,
            }],
            ..AnalyzeRequest::default()
        };
        assert_eq!(
            serde_json::to_string(&request).expect("a request serializes"),
            r#"{"files":[{"path":"a.py","content":"print(1)\n"}]}"#
        );
    }

    #[test]
    fn the_reader_refuses_a_field_it_does_not_know() {
        let body = r#"{"files":[{"path":"a.py","content":"","lang":"python"}]}"#;
        let error = serde_json::from_str::<AnalyzeRequest>(body).expect_err("unknown field");
        assert!(
            error.to_string().starts_with("unknown field `lang`"),
            "{error}"
        );
        let body = r#"{"files":[],"analysisTypes":["print-debugging"],"rules":[{}]}"#;
        let read: AnalyzeRequest = serde_json::from_str(body).expect("known fields");
        assert_eq!((read.analysis_types.len(), read.rules.len()), (1, 1));
    }
}
