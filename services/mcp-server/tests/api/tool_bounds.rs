//! The analysis tools are bounded: a snippet's result carries at most 500 findings with the
//! `truncated` marker however much the code finds, and an analyzer answer past the read bound
//! is a failure the agent can act on, not a buffer.

use crate::estate::spawn_analyzer;
use crate::helpers::TestApp;
use serde_json::{Value, json};
use testkit::Flood;

#[actix_web::test]
async fn a_megabyte_of_findings_bait_answers_a_bounded_result() {
    let analyzer = spawn_analyzer();
    let app = TestApp::spawn(&[("ANALYZER_URL", &analyzer)]).await;
    // Just under the server's 1 MiB body bound once escaped and wrapped in JSON-RPC.
    let lines = 900_000 / "print(password)\n".len();
    let code = "print(password)\n".repeat(lines);
    let params = json!({ "name": "analyze_snippet",
                         "arguments": { "code": code, "language": "python" } });
    let answer = app.call("tools/call", params, &[]).await;
    assert_eq!(answer.status, 200);
    assert!(
        answer.body.len() < 512 * 1024,
        "{} bytes",
        answer.body.len()
    );
    let result = &answer.json()["result"];
    assert_eq!(result["isError"], false, "{result}");
    let structured = &result["structuredContent"];
    assert_eq!(
        structured["summary"],
        json!({ "files": 1, "findings": 500, "truncated": true,
                "reason": "max_findings", "found": lines })
    );
    let findings = structured["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 500);
    assert_eq!(
        (&findings[499]["line"], &findings[499]["ruleId"]),
        (&json!(500), &json!("sensitive-data-in-logs"))
    );
    let text = result["content"][0]["text"].as_str().expect("a text block");
    let text: Value = serde_json::from_str(text).expect("the text is the JSON");
    assert_eq!(&text, structured);
}

#[actix_web::test]
async fn an_analyzer_answer_past_the_read_bound_is_a_failure_not_a_buffer() {
    let offered = 256 * 1024 * 1024;
    let flood = Flood::spawn(offered);
    let app = TestApp::spawn(&[("ANALYZER_URL", &flood.base)]).await;
    let snippet = json!({ "code": "x = 1\n", "language": "python" });
    let result = app.tool("analyze_snippet", snippet, &[]).await;
    assert_eq!(
        result,
        json!({ "content": [{ "type": "text", "text": "the analyzer's answer is larger than \
                4194304 bytes; ask for less (a smaller snippet, fewer analysis types)" }],
                "isError": true })
    );
    let sent = flood.written();
    assert!(
        sent < 32 * 1024 * 1024,
        "{sent} of {offered} bytes were read"
    );
}
