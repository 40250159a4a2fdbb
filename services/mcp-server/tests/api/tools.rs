//! Each tool against the real analyzer and backend; and what a tool says when its upstream is
//! not there, refuses, or is given the wrong arguments (a result with isError, never a 500).

use crate::estate::{spawn_analyzer, spawn_backend};
use crate::helpers::{TestApp, bearer};
use serde_json::{Value, json};

const LEAKY_PYTHON: &str = "import logging\nlogger = logging.getLogger(__name__)\n\ndef login(user, password):\n    logger.info(f\"login {user} with {password}\")\n    print(\"debug\", user)\n";

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().expect("a text block")
}

fn assert_failure(result: &Value, expected: &str) {
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(text(result), expected);
    assert!(result.get("structuredContent").is_none());
}

#[actix_web::test]
async fn the_analysis_tools_do_real_work_through_the_analyzer() {
    let analyzer = spawn_analyzer();
    let app = TestApp::spawn(&[("ANALYZER_URL", &analyzer)]).await;

    let types = app.tool("list_analysis_types", json!({}), &[]).await;
    assert_eq!(types["isError"], false);
    let ids: Vec<&str> = types["structuredContent"]["analysisTypes"]
        .as_array()
        .expect("types")
        .iter()
        .map(|kind| kind["id"].as_str().expect("an id"))
        .collect();
    assert_eq!(
        ids,
        [
            "sensitive-data-in-logs",
            "print-debugging",
            "log-without-context",
            "wrong-level-for-caught-error"
        ]
    );
    let text_json: Value = serde_json::from_str(text(&types)).expect("the text is the JSON");
    assert_eq!(text_json, types["structuredContent"]);

    let snippet = json!({ "code": LEAKY_PYTHON, "path": "app/auth.py" });
    let analysis = app.tool("analyze_snippet", snippet, &[]).await;
    assert_eq!(analysis["isError"], false, "{analysis}");
    let found: Vec<(String, u64)> = analysis["structuredContent"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["ruleId"].as_str().expect("rule").to_owned(),
                f["line"].as_u64().expect("line"),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("sensitive-data-in-logs".to_owned(), 5),
            ("print-debugging".to_owned(), 6)
        ]
    );
    assert_eq!(
        analysis["structuredContent"]["summary"],
        json!({ "files": 1, "findings": 2 })
    );

    let only_prints =
        json!({ "code": LEAKY_PYTHON, "language": "python", "analysisTypes": ["print-debugging"] });
    let prints = app.tool("analyze_snippet", only_prints, &[]).await;
    let findings = prints["structuredContent"]["findings"]
        .as_array()
        .expect("findings");
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0]["path"], "snippet");
}

#[actix_web::test]
async fn rule_validation_answers_a_verdict_either_way() {
    let analyzer = spawn_analyzer();
    let app = TestApp::spawn(&[("ANALYZER_URL", &analyzer)]).await;
    let rule = json!({ "ruleId": "no-session-id", "pattern": "sessionId", "message": "do not log session ids" });
    let valid = app.tool("validate_rule", rule, &[]).await;
    assert_eq!(valid["isError"], false);
    assert_eq!(
        valid["structuredContent"],
        json!({ "valid": true, "rule": {
            "ruleId": "no-session-id", "pattern": "sessionId", "severity": "warning",
            "message": "do not log session ids",
            "languages": ["rust", "java", "python", "javascript", "typescript", "go"]
        } })
    );
    let cases = [
        (json!({}), "rule.ruleId is mandatory"),
        (
            json!({ "ruleId": "r", "pattern": "(", "message": "m" }),
            "rule.pattern is not a valid regular expression",
        ),
        (
            json!({ "ruleId": "r", "pattern": "x", "message": "m", "severity": "fatal" }),
            "rule.severity must be one of info, warning, error",
        ),
    ];
    for (rule, error) in cases {
        let verdict = app.tool("validate_rule", rule.clone(), &[]).await;
        assert_eq!(verdict["isError"], false, "{rule}");
        assert_eq!(
            verdict["structuredContent"],
            json!({ "valid": false, "error": error }),
            "{rule}"
        );
    }
}

#[actix_web::test]
async fn list_projects_reads_the_callers_own_workspace_with_the_callers_bearer() {
    let backend = spawn_backend().await;
    let app = TestApp::spawn(&[("BACKEND_URL", &backend.base)]).await;
    for (tenant, keys) in [
        (&backend.alice, vec!["ALP", "ALQ"]),
        (&backend.bob, vec!["BRV"]),
    ] {
        let (name, value) = bearer(&tenant.token);
        let result = app
            .tool("list_projects", json!({}), &[(name, &value)])
            .await;
        assert_eq!(result["isError"], false, "{result}");
        let projects = result["structuredContent"]["projects"]
            .as_array()
            .expect("projects");
        let mut found: Vec<&str> = projects
            .iter()
            .map(|p| p["key"].as_str().expect("key"))
            .collect();
        found.sort_unstable();
        assert_eq!(found, keys);
        assert!(
            projects
                .iter()
                .all(|p| p["workspaceId"] == tenant.workspace_id.as_str())
        );
    }
    let (name, value) = bearer(&backend.alice.unscoped_token);
    let unscoped = app
        .tool("list_projects", json!({}), &[(name, &value)])
        .await;
    assert_failure(&unscoped, "refused (HTTP 403): workspace scope required");
    let anonymous = app.tool("list_projects", json!({}), &[]).await;
    assert_failure(&anonymous, mcp_server::tools::projects::NEEDS_BEARER);
}

/// This server cannot see the backend's sessions: a token whose session ended still passes
/// here until it expires, and the backend refuses it behind `list_projects`.
#[actix_web::test]
async fn a_token_whose_session_ended_reads_no_projects() {
    let backend = spawn_backend().await;
    let app = TestApp::spawn(&[("BACKEND_URL", &backend.base)]).await;
    let (name, value) = bearer(&backend.alice.token);
    let listed = app
        .tool("list_projects", json!({}), &[(name, &value)])
        .await;
    assert_eq!(listed["isError"], false, "{listed}");
    backend.end_sessions("user-alice").await;
    let refused = app
        .tool("list_projects", json!({}), &[(name, &value)])
        .await;
    assert_failure(&refused, "refused (HTTP 401): authentication required");
}

#[actix_web::test]
async fn a_missing_upstream_and_wrong_arguments_are_tool_errors() {
    let app = TestApp::spawn(&[]).await;
    let down = app.tool("list_analysis_types", json!({}), &[]).await;
    assert_failure(
        &down,
        "the analyzer did not answer; try again in a little while",
    );
    let (name, value) = bearer(&crate::helpers::access_token("user-1", Some("ws")));
    let backend_down = app
        .tool("list_projects", json!({}), &[(name, &value)])
        .await;
    assert_failure(
        &backend_down,
        "the backend did not answer; try again in a little while",
    );
    let cases = [
        (
            "analyze_snippet",
            json!({}),
            "invalid arguments: missing field `code`",
        ),
        (
            "analyze_snippet",
            json!({ "code": "x", "lang": "go" }),
            "invalid arguments: unknown field `lang`, expected one of `code`, `language`, `path`, `analysisTypes`",
        ),
        (
            "analyze_snippet",
            json!({ "code": "print(1)" }),
            "set language (rust, java, python, javascript, typescript or go), or a path whose extension names it",
        ),
        (
            "list_analysis_types",
            json!({ "x": 1 }),
            "invalid arguments: unknown field `x`, there are no fields",
        ),
    ];
    for (tool, arguments, expected) in cases {
        let result = app.tool(tool, arguments.clone(), &[]).await;
        assert_failure(&result, expected);
    }
    let metrics = app.get("/metrics", &[]).await.body;
    let line = r#"mcp_tool_calls_total{tool="analyze_snippet",outcome="error"} 3"#;
    assert!(metrics.contains(line), "{metrics}");
}

#[actix_web::test]
async fn an_analyzer_that_refuses_this_servers_token_is_a_tool_error() {
    let analyzer = spawn_analyzer();
    let app = TestApp::spawn(&[
        ("ANALYZER_URL", &analyzer),
        ("ANALYZER_TOKEN", "a-wrong-token"),
    ])
    .await;
    let result = app.tool("list_analysis_types", json!({}), &[]).await;
    assert_failure(
        &result,
        "refused (HTTP 401): valid X-Analyzer-Token header required",
    );
}
