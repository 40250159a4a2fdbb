//! The official MCP Python SDK (`mcp` on PyPI, pinned in scripts/mcp-client/requirements.txt)
//! against the real server, the real analyzer and the real backend: a session over Streamable
//! HTTP in both eras, every tool called. The venv comes from scripts/install-mcp-client.sh;
//! without it the test says so and passes, except under CI=true, where it fails.

use crate::estate::{spawn_analyzer, spawn_backend};
use crate::helpers::TestApp;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The venv's interpreter, when the installer has run.
fn python() -> Option<PathBuf> {
    let venv = std::env::var("MCP_CLIENT_VENV").unwrap_or_else(|_| "target/mcp-client-venv".into());
    let python = repository().join(venv).join("bin/python");
    python.exists().then_some(python)
}

async fn run_client(
    python: PathBuf,
    url: String,
    mode: &'static str,
    token: Option<String>,
) -> Value {
    let script = repository().join("scripts/mcp-client/client.py");
    let run = actix_web::rt::task::spawn_blocking(move || {
        let mut command = Command::new(python);
        command.arg(script).arg(url).args(["--mode", mode]);
        if let Some(token) = token {
            command.args(["--token", &token]);
        }
        command.output()
    });
    let output = tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("the client finishes within 2 minutes")
        .expect("the client thread")
        .expect("the client starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "client.py --mode {mode} failed:\n{stderr}"
    );
    serde_json::from_slice(&output.stdout).expect("one JSON report")
}

fn call<'a>(report: &'a Value, label: &str) -> &'a Value {
    &report["calls"][label]
}

fn assert_session(report: &Value, version: &str) {
    assert_eq!(report["protocolVersion"], version, "{report}");
    assert_eq!(report["serverName"], "estate-mcp-server");
    assert_eq!(
        report["tools"],
        json!([
            "list_analysis_types",
            "analyze_snippet",
            "validate_rule",
            "list_projects"
        ])
    );
    let types = call(report, "list_analysis_types");
    assert_eq!(types["isError"], false);
    assert_eq!(
        types["structured"]["analysisTypes"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );
    let analysis = call(report, "analyze_snippet");
    let rules: Vec<&str> = analysis["structured"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|finding| finding["ruleId"].as_str().expect("a rule id"))
        .collect();
    assert_eq!(rules, ["sensitive-data-in-logs", "print-debugging"]);
    assert_eq!(
        call(report, "validate_rule/valid")["structured"]["valid"],
        true
    );
    assert_eq!(
        call(report, "validate_rule/invalid")["structured"],
        json!({ "valid": false, "error": "rule.pattern is not a valid regular expression" })
    );
    assert_eq!(
        report["unknownTool"],
        json!({ "code": -32602, "message": "Unknown tool: no_such_tool" })
    );
}

#[actix_web::test]
async fn the_python_sdk_lists_and_calls_every_tool_in_both_eras() {
    let Some(python) = python() else {
        assert_ne!(
            std::env::var("CI").as_deref(),
            Ok("true"),
            "CI=true needs the MCP client venv: run scripts/install-mcp-client.sh first"
        );
        println!("SKIPPED python_sdk: no venv; run scripts/install-mcp-client.sh to enable it");
        return;
    };
    let analyzer = spawn_analyzer();
    let backend = spawn_backend().await;
    let app = TestApp::spawn(&[("ANALYZER_URL", &analyzer), ("BACKEND_URL", &backend.base)]).await;
    let url = app.url("/mcp");
    let alice = Some(backend.alice.token.clone());

    let legacy = run_client(python.clone(), url.clone(), "legacy", alice.clone()).await;
    assert_session(&legacy, "2025-11-25");
    assert_eq!(legacy["ping"], true);
    let modern = run_client(python.clone(), url.clone(), "auto", alice).await;
    assert_session(&modern, "2026-07-28");

    for report in [&legacy, &modern] {
        let projects = &call(report, "list_projects")["structured"]["projects"];
        let mut keys: Vec<&str> = projects
            .as_array()
            .expect("projects")
            .iter()
            .map(|project| project["key"].as_str().expect("a key"))
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, ["ALP", "ALQ"], "{report}");
    }
    let anonymous = run_client(python, url, "auto", None).await;
    let projects = call(&anonymous, "list_projects");
    assert_eq!(projects["isError"], true);
    assert_eq!(projects["text"], mcp_server::tools::projects::NEEDS_BEARER);
}
