//! The 2025-11-25 lifecycle as a client meets it: initialize with version negotiation,
//! notifications/initialized, ping, tools/list. No session is kept, so nothing needs one.

use crate::helpers::TestApp;
use serde_json::{Value, json};

fn initialize(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": { "name": "test", "version": "1" }
    })
}

#[actix_web::test]
async fn initialize_negotiates_the_revision_and_opens_no_session() {
    let app = TestApp::spawn(&[]).await;
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2024-11-05", "2024-11-05"),
        ("2030-01-01", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ] {
        let answer = app.call("initialize", initialize(asked), &[]).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.header("mcp-session-id"), None);
        let result = &answer.json()["result"];
        assert_eq!(result["protocolVersion"], answered, "{asked}");
        assert_eq!(
            result["capabilities"],
            json!({ "tools": { "listChanged": false } })
        );
        assert_eq!(
            result["serverInfo"],
            json!({ "name": "estate-mcp-server", "title": "Estate MCP server", "version": env!("CARGO_PKG_VERSION") })
        );
        let instructions = result["instructions"].as_str().expect("instructions");
        assert!(
            instructions.contains("GET /skills/package"),
            "{instructions}"
        );
    }
}

#[actix_web::test]
async fn initialized_then_ping_then_tools_list() {
    let app = TestApp::spawn(&[]).await;
    let version = [("mcp-protocol-version", "2025-11-25")];
    let initialized = app
        .post_mcp(
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            &version,
        )
        .await;
    assert_eq!((initialized.status, initialized.body.as_str()), (202, ""));
    let ping = app
        .post_mcp(r#"{"jsonrpc":"2.0","id":"p-1","method":"ping"}"#, &version)
        .await;
    assert_eq!(
        (ping.status, ping.body.as_str()),
        (200, r#"{"jsonrpc":"2.0","id":"p-1","result":{}}"#)
    );
    let list = app.call("tools/list", json!({}), &version).await;
    assert_eq!(list.status, 200);
    let tools = list.json()["result"]["tools"].clone();
    let names: Vec<&str> = tools
        .as_array()
        .expect("a list")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(
        names,
        [
            "list_analysis_types",
            "analyze_snippet",
            "validate_rule",
            "list_projects"
        ]
    );
    let analyze = &tools[1];
    assert_eq!(analyze["inputSchema"]["required"], json!(["code"]));
    assert_eq!(analyze["inputSchema"]["additionalProperties"], json!(false));
    assert_eq!(analyze["annotations"]["readOnlyHint"], json!(true));
    assert!(list.json()["result"].get("resultType").is_none());
}

#[actix_web::test]
async fn a_request_without_the_version_header_is_the_handshake_era() {
    let app = TestApp::spawn(&[]).await;
    let ping = app
        .post_mcp(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, &[])
        .await;
    assert_eq!(
        (ping.status, ping.body.as_str()),
        (200, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#)
    );
}
