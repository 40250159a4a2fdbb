//! The tools as `tools/list` shows them: name, title, description, input schema, annotations.

use serde_json::{Value, json};

/// `list_analysis_types`.
pub const LIST_ANALYSIS_TYPES: &str = "list_analysis_types";
/// `analyze_snippet`.
pub const ANALYZE_SNIPPET: &str = "analyze_snippet";
/// `validate_rule`.
pub const VALIDATE_RULE: &str = "validate_rule";
/// `list_projects`.
pub const LIST_PROJECTS: &str = "list_projects";

/// Every tool, in the order `tools/list` gives them.
pub fn tools() -> Vec<Value> {
    vec![
        tool(
            LIST_ANALYSIS_TYPES,
            "List analysis types",
            "The analyzer's built-in analysis types: for each its id, name, what it finds and \
             the languages it reads. Pass the ids to analyze_snippet's analysisTypes.",
            json!({}),
            &[],
        ),
        tool(
            ANALYZE_SNIPPET,
            "Analyze a snippet",
            "Static analysis of logging code in one snippet or file: secrets or personal data \
             in log calls, print debugging, log calls without context, caught errors logged at \
             a low level. Returns findings (ruleId, severity, line, column, message, fix) and a \
             summary: at most 500 findings, the first by line; when more were found the \
             summary says truncated, the reason and how many were found. Give language, or a \
             path whose extension names it.",
            json!({
                "code": { "type": "string", "description": "The source to analyze." },
                "language": {
                    "type": "string",
                    "enum": ["rust", "java", "python", "javascript", "typescript", "go"],
                    "description": "The language of the code."
                },
                "path": {
                    "type": "string",
                    "description": "A file path; findings repeat it, and its extension names \
                                    the language when language is absent."
                },
                "analysisTypes": {
                    "type": "array",
                    "items": { "type": "string" },
                    "description": "Analysis type ids from list_analysis_types; absent: all."
                }
            }),
            &["code"],
        ),
        tool(
            VALIDATE_RULE,
            "Validate a custom rule",
            "Checks a custom analyzer rule without storing it. Answers {valid: true, rule} with \
             the rule as the analyzer will run it (severity spelled out, languages expanded), \
             or {valid: false, error} naming the first problem.",
            json!({
                "ruleId": {
                    "type": "string",
                    "description": "1-64 letters, digits, '.', '_' or '-', starting with a \
                                    letter or digit."
                },
                "pattern": {
                    "type": "string",
                    "description": "A regular expression (Rust regex syntax, at most 1000 \
                                    characters) matched against each line."
                },
                "severity": { "type": "string", "enum": ["info", "warning", "error"] },
                "message": { "type": "string", "description": "The message of every finding." },
                "languages": {
                    "type": "array",
                    "items": { "type": "string" },
                    "description": "Languages it applies to; absent or empty: all."
                }
            }),
            &["ruleId", "pattern", "message"],
        ),
        tool(
            LIST_PROJECTS,
            "List my projects",
            "The projects of the workspace the caller's access token is scoped to, read from \
             the backend as the caller (the call must carry Authorization: Bearer <access \
             token scoped to a workspace>).",
            json!({}),
            &[],
        ),
    ]
}

fn tool(name: &str, title: &str, description: &str, properties: Value, required: &[&str]) -> Value {
    let mut schema = json!({ "type": "object", "properties": properties });
    if let Some(object) = schema.as_object_mut() {
        if !required.is_empty() {
            object.insert("required".to_owned(), json!(required));
        }
        object.insert("additionalProperties".to_owned(), json!(false));
    }
    json!({
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": schema,
        "annotations": { "readOnlyHint": true, "idempotentHint": true, "openWorldHint": false }
    })
}
