//! Malformed JSON-RPC and HTTP misuse of `/mcp`: each gets its error code in an exact body,
//! with a 4xx status, never a 500.

use crate::helpers::TestApp;

const PARSE: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the body is not valid JSON"}}"#;

fn invalid(id: &str, why: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32600,"message":"Invalid Request: {why}"}}}}"#
    )
}

#[actix_web::test]
async fn each_malformed_message_gets_its_code_and_exact_body() {
    let app = TestApp::spawn(&[]).await;
    let cases = [
        ("{bad".to_owned(), PARSE.to_owned()),
        (String::new(), PARSE.to_owned()),
        ("\u{fffd}".to_owned(), PARSE.to_owned()),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_owned(),
            invalid("null", "batches are not supported"),
        ),
        ("\"ping\"".to_owned(), invalid("null", "expected one JSON-RPC request object")),
        (
            r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#.to_owned(),
            invalid("4", r#"jsonrpc must be \"2.0\""#),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"a","params":{}}"#.to_owned(),
            invalid(r#""a""#, "method must be a string"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#.to_owned(),
            invalid("null", "id must be a string or an integer"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#.to_owned(),
            invalid("5", "this server sends no requests, so it takes no responses"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":7}"#.to_owned(),
            invalid("6", "params must be an object"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":[1]}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: params must be an object"}}"#.to_owned(),
        ),
    ];
    for (body, expected) in cases {
        let answer = app.post_mcp(&body, &[]).await;
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (400, expected.as_str()),
            "{body}"
        );
        assert_eq!(answer.header("content-type"), Some("application/json"));
    }
}

#[actix_web::test]
async fn unknown_methods_and_bad_params_are_answered_in_the_body() {
    let app = TestApp::spawn(&[]).await;
    let cases = [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: resources/list"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"server/discover"}"#,
            r#"{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found: server/discover"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"rm_rf"}}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Unknown tool: rm_rf"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: name must be a string naming a tool"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_projects","arguments":[]}}"#,
            r#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid params: arguments must be an object"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"cursor":"next"}}"#,
            r#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"Invalid params: unknown cursor (every tool is on the first page)"}}"#,
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#,
            r#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid params: initialize needs protocolVersion (a string), capabilities and clientInfo (objects)"}}"#,
        ),
    ];
    for (body, expected) in cases {
        let answer = app
            .post_mcp(body, &[("mcp-protocol-version", "2025-11-25")])
            .await;
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (200, expected),
            "{body}"
        );
    }
}

#[actix_web::test]
async fn notifications_are_accepted_without_a_body() {
    let app = TestApp::spawn(&[]).await;
    for body in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
        r#"{"jsonrpc":"2.0","method":"no/such/notification"}"#,
    ] {
        let answer = app.post_mcp(body, &[]).await;
        assert_eq!((answer.status, answer.body.as_str()), (202, ""), "{body}");
    }
}

#[actix_web::test]
async fn an_unserved_revision_is_refused_naming_the_served_ones() {
    let app = TestApp::spawn(&[]).await;
    let answer = app
        .post_mcp(
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#,
            &[("mcp-protocol-version", "2099-01-01")],
        )
        .await;
    let expected = r#"{"jsonrpc":"2.0","id":9,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2024-11-05","2025-03-26","2025-06-18","2025-11-25","2026-07-28"],"requested":"2099-01-01"}}}"#;
    assert_eq!((answer.status, answer.body.as_str()), (400, expected));
}

#[actix_web::test]
async fn http_misuse_is_a_4xx_in_the_json_rpc_envelope() {
    let app = TestApp::spawn(&[("MCP_MAX_BODY_BYTES", "64")]).await;
    let ping = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let form = app
        .client
        .post(app.url("/mcp"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(ping);
    let form = crate::helpers::answer(form).await;
    assert_eq!(
        (form.status, form.body),
        (
            415,
            invalid("null", "Content-Type must be application/json")
        )
    );
    let xml = app
        .client
        .post(app.url("/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/xml, text/event-stream")
        .body(ping);
    let xml = crate::helpers::answer(xml).await;
    assert_eq!(
        (xml.status, xml.body),
        (
            406,
            invalid(
                "null",
                "Accept must admit application/json, the only type answered"
            )
        )
    );
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(64)
    );
    let big = app.post_mcp(&big, &[]).await;
    assert_eq!(
        (big.status, big.body),
        (413, invalid("null", "the body is larger than 64 bytes"))
    );
    let only_post = invalid(
        "null",
        "only POST is served on /mcp (no SSE stream, no sessions)",
    );
    for method in [
        reqwest::Method::GET,
        reqwest::Method::DELETE,
        reqwest::Method::PUT,
    ] {
        let request = app.client.request(method.clone(), app.url("/mcp"));
        let answer = crate::helpers::answer(request).await;
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (405, only_post.as_str()),
            "{method}"
        );
        assert_eq!(answer.header("allow"), Some("POST"));
    }
}

#[actix_web::test]
async fn other_paths_answer_in_the_service_envelope() {
    let app = TestApp::spawn(&[]).await;
    let missing = app.get("/nothing/here", &[]).await;
    assert_eq!(
        (missing.status, missing.body.as_str()),
        (
            404,
            r#"{"error":"not_found","message":"no route for GET /nothing/here"}"#
        )
    );
    let post = app.client.post(app.url("/install.sh"));
    let post = crate::helpers::answer(post).await;
    assert_eq!(
        (post.status, post.body.as_str()),
        (
            405,
            r#"{"error":"method_not_allowed","message":"POST is not allowed on /install.sh"}"#
        )
    );
    let health = app.get("/health", &[]).await;
    assert_eq!(
        (health.status, health.body.as_str()),
        (200, r#"{"status":"UP"}"#)
    );
}

#[actix_web::test]
async fn bytes_that_are_not_json_text_are_a_parse_error_not_a_500() {
    let app = TestApp::spawn(&[]).await;
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    let bodies: [Vec<u8>; 3] = [
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}".to_vec(),
        deep.into_bytes(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"id\":1e999}".to_vec(),
    ];
    for body in bodies {
        let request = app
            .client
            .post(app.url("/mcp"))
            .header("content-type", "application/json")
            .body(body.clone());
        let answer = crate::helpers::answer(request).await;
        assert_eq!(
            (answer.status, answer.body.as_str()),
            (400, PARSE),
            "{}",
            String::from_utf8_lossy(&body)
        );
    }
}
