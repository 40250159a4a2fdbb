//! The analyzer's tools: its analysis types, an analysis of one snippet, a rule check.
//!
//! A snippet's findings are bounded again here, for an agent's context rather than a
//! relay's memory: at most [`MAX_TOOL_FINDINGS`] in [`MAX_TOOL_FINDINGS_BYTES`] (the result
//! carries them twice, as structured content and as its text), with the analyzer's
//! `truncated` marker kept, or set here when this bound cut first.

use super::{ToolResult, arguments, refusal_text, success_body};
use crate::state::AppState;
use ::analysis::{AnalyzeAnswer, AnalyzeFile, AnalyzeRequest, keep_within};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The most findings one `analyze_snippet` result carries.
pub const MAX_TOOL_FINDINGS: usize = 500;
/// The most bytes those findings take (once; the text block repeats them).
pub const MAX_TOOL_FINDINGS_BYTES: usize = 1024 * 1024;

/// `list_analysis_types` takes nothing.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoArguments {}

/// `analyze_snippet`'s arguments.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Snippet {
    code: String,
    language: Option<String>,
    path: Option<String>,
    #[serde(default)]
    analysis_types: Vec<String>,
}

/// `validate_rule`'s arguments: passed on as the analyzer's rule, which judges them.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Rule {
    #[serde(skip_serializing_if = "Option::is_none")]
    rule_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    severity: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    languages: Option<Vec<String>>,
}

/// `GET /analysis-types`.
pub async fn list_types(state: &AppState, given: Map<String, Value>) -> ToolResult {
    if let Err(failure) = arguments::<NoArguments>(given) {
        return failure;
    }
    let answer = state.upstream.analyzer_get("/analysis-types").await;
    success_body(answer).map_or_else(|failure| failure, ToolResult::ok)
}

/// `POST /analyze` with the snippet as the one file.
pub async fn analyze(state: &AppState, given: Map<String, Value>) -> ToolResult {
    let snippet = match arguments::<Snippet>(given) {
        Ok(snippet) => snippet,
        Err(failure) => return failure,
    };
    if snippet.language.is_none() && snippet.path.is_none() {
        return ToolResult::error(
            "set language (rust, java, python, javascript, typescript or go), or a path whose \
             extension names it",
        );
    }
    let request: AnalyzeRequest = AnalyzeRequest {
        files: vec![AnalyzeFile {
            path: snippet.path.unwrap_or_else(|| "snippet".to_owned()),
            content: snippet.code,
            language: snippet.language,
        }],
        analysis_types: snippet.analysis_types,
        rules: Vec::new(),
    };
    let body = json!(request);
    let answer = state.upstream.analyzer_post("/analyze", &body).await;
    match success_body(answer).map(serde_json::from_value::<AnalyzeAnswer>) {
        Ok(Ok(mut answer)) => {
            let (findings, summary) = (&mut answer.findings, &mut answer.summary);
            keep_within(
                findings,
                summary,
                MAX_TOOL_FINDINGS,
                MAX_TOOL_FINDINGS_BYTES,
            );
            ToolResult::ok(json!(answer))
        }
        Ok(Err(_)) => ToolResult::error("the analyzer's answer is not in the shape it documents"),
        Err(failure) => failure,
    }
}

/// `POST /rules/validate`: a rule the analyzer refuses is a verdict, not a failure.
pub async fn validate_rule(state: &AppState, given: Map<String, Value>) -> ToolResult {
    let rule = match arguments::<Rule>(given) {
        Ok(rule) => rule,
        Err(failure) => return failure,
    };
    let body = serde_json::to_value(&rule).unwrap_or_else(|_| json!({}));
    match state.upstream.analyzer_post("/rules/validate", &body).await {
        Ok(reply) if reply.status == 400 => {
            ToolResult::ok(json!({ "valid": false, "error": reply.message() }))
        }
        Ok(reply) if reply.status != 200 => ToolResult::error(refusal_text(&reply)),
        answer => success_body(answer).map_or_else(|failure| failure, ToolResult::ok),
    }
}
