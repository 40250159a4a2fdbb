//! The request id on the MCP server's answers: a well-formed `x-request-id` (the ingress's)
//! comes back as sent, a request without one or with a malformed one gets a fresh one, and
//! the envelope is the same as without it; the request log line is written under that id.

use crate::helpers::TestApp;
use testkit::request_id::{echoed, is_minted};

const FORBIDDEN: &str =
    r#"{"error":"origin_not_allowed","message":"Forbidden: this Origin is not allowed"}"#;

#[actix_web::test]
async fn every_answer_carries_the_request_id() {
    let app = TestApp::spawn(&[]).await;
    let kept = app
        .get(
            "/skills/package",
            &[
                ("origin", "https://evil.example"),
                ("x-request-id", "edge-0af7651916cd43dd"),
            ],
        )
        .await;
    assert_eq!(echoed(&kept.headers), "edge-0af7651916cd43dd");
    assert_eq!((kept.status, kept.body.as_str()), (403, FORBIDDEN));
    for sent in [&[][..], &[("x-request-id", "not well formed")]] {
        let fresh = app.get("/health", sent).await;
        assert!(is_minted(&echoed(&fresh.headers)), "{sent:?}");
        assert_eq!(
            (fresh.status, fresh.body.as_str()),
            (200, r#"{"status":"UP"}"#)
        );
    }
}

#[actix_web::test]
async fn the_request_log_line_carries_the_request_id() {
    const ID: &str = "edge-mcp-server-request-log";
    let logs = testkit::logs::captured();
    let app = TestApp::spawn(&[]).await;
    let response = app
        .get(
            "/skills/package",
            &[("origin", "https://evil.example"), ("x-request-id", ID)],
        )
        .await;
    assert_eq!(response.status, 403);
    let line = logs
        .answered(ID)
        .unwrap_or_else(|| panic!("a request log line under {ID}: {:?}", logs.containing(ID)));
    assert_eq!(line["status"], 403);
    assert_eq!(line["level"], "INFO");
}
