//! The stateless 2026-07-28 revision: `server/discover`, the per-request `_meta` envelope, the
//! routing headers checked against the body, and its status table.

use crate::helpers::{MODERN, TestApp};
use serde_json::{Value, json};

fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

fn request(id: u32, method: &str, mut params: Value) -> String {
    params["_meta"] = envelope();
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
}

fn server_meta() -> Value {
    json!({ "io.modelcontextprotocol/serverInfo": {
        "name": "estate-mcp-server", "title": "Estate MCP server", "version": env!("CARGO_PKG_VERSION")
    } })
}

#[actix_web::test]
async fn discover_then_tools_list_carry_the_revisions_fields() {
    let app = TestApp::spawn(&[]).await;
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "server/discover"),
    ];
    let discover = app
        .post_mcp(&request(1, "server/discover", json!({})), &headers)
        .await;
    assert_eq!(discover.status, 200, "{}", discover.body);
    assert_eq!(discover.header("mcp-session-id"), None);
    let result = discover.json()["result"].clone();
    assert_eq!(
        result["supportedVersions"],
        json!([
            "2024-11-05",
            "2025-03-26",
            "2025-06-18",
            "2025-11-25",
            "2026-07-28"
        ])
    );
    assert_eq!(
        result["capabilities"],
        json!({ "tools": { "listChanged": false } })
    );
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        (result["ttlMs"].clone(), result["cacheScope"].clone()),
        (json!(60000), json!("public"))
    );
    assert_eq!(result["_meta"], server_meta());

    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/list"),
    ];
    let list = app
        .post_mcp(&request(2, "tools/list", json!({})), &headers)
        .await;
    let result = list.json()["result"].clone();
    assert_eq!(result["tools"].as_array().map(Vec::len), Some(4));
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["cacheScope"], "public");
}

/// A body, its headers, the status and body expected.
type Case = (String, Vec<(&'static str, &'static str)>, u16, String);

#[actix_web::test]
async fn the_envelope_and_headers_are_checked_in_order() {
    let app = TestApp::spawn(&[]).await;
    let list_headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/list"),
    ];
    let bare = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
    let cases: Vec<Case> = vec![
        (
            bare.to_owned(),
            list_headers.to_vec(),
            400,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"params._meta must be an object carrying the 'io.modelcontextprotocol/protocolVersion' and 'io.modelcontextprotocol/clientCapabilities' envelope keys"}}"#.to_owned(),
        ),
        (
            request(2, "tools/list", json!({})),
            vec![("mcp-protocol-version", MODERN), ("mcp-method", "tools/call")],
            400,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32020,"message":"mcp-method header does not match the request body's method"}}"#.to_owned(),
        ),
        (
            request(3, "tools/list", json!({})),
            vec![list_headers[0], list_headers[1], ("mcp-method", "tools/list")],
            400,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32020,"message":"mcp-method header appears more than once"}}"#.to_owned(),
        ),
        (
            request(4, "tools/call", json!({ "name": "validate_rule", "arguments": {} })),
            vec![("mcp-protocol-version", MODERN), ("mcp-method", "tools/call"), ("mcp-name", "list_projects")],
            400,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32020,"message":"mcp-name header does not match the request body's 'name' parameter"}}"#.to_owned(),
        ),
        (
            request(5, "ping", json!({})),
            vec![("mcp-protocol-version", MODERN), ("mcp-method", "ping")],
            404,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32601,"message":"Method not found: ping"}}"#.to_owned(),
        ),
        (
            request(6, "tools/call", json!({ "name": "nope" })),
            vec![("mcp-protocol-version", MODERN), ("mcp-method", "tools/call"), ("mcp-name", "nope")],
            400,
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Unknown tool: nope"}}"#.to_owned(),
        ),
    ];
    for (body, headers, status, expected) in cases {
        let answer = app.post_mcp(&body, &headers).await;
        assert_eq!((answer.status, answer.body), (status, expected), "{body}");
    }
}

#[actix_web::test]
async fn a_tool_call_result_is_marked_complete_and_a_notification_is_accepted() {
    let app = TestApp::spawn(&[]).await;
    let headers = [
        ("mcp-protocol-version", MODERN),
        ("mcp-method", "tools/call"),
        ("mcp-name", "=?base64?bGlzdF9wcm9qZWN0cw==?="),
    ];
    let body = request(7, "tools/call", json!({ "name": "list_projects" }));
    let answer = app.post_mcp(&body, &headers).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    let result = answer.json()["result"].clone();
    assert_eq!(result["isError"], true);
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["_meta"], server_meta());
    assert!(result.get("ttlMs").is_none());

    let notification = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 7 } });
    let accepted = app
        .post_mcp(
            &notification.to_string(),
            &[("mcp-protocol-version", MODERN)],
        )
        .await;
    assert_eq!((accepted.status, accepted.body.as_str()), (202, ""));
}
