//! The request id on the analyzer's answers: a well-formed `x-request-id` (the ingress's)
//! comes back as sent, a request without one or with a malformed one gets a fresh one, and
//! the envelope is the same as without it; the request log line is written under that id.

use crate::helpers::{TestApp, status_and_text};
use testkit::request_id::{echoed, is_minted};

const UNAUTHORIZED: &str =
    r#"{"error":"unauthorized","message":"valid X-Analyzer-Token header required"}"#;

#[actix_web::test]
async fn every_answer_carries_the_request_id() {
    let app = TestApp::spawn(&[]).await;
    let kept = app
        .client
        .get(app.url("/rules"))
        .header("x-request-id", "edge-0af7651916cd43dd")
        .send()
        .await
        .unwrap();
    assert_eq!(echoed(kept.headers()), "edge-0af7651916cd43dd");
    assert_eq!(status_and_text(kept).await, (401, UNAUTHORIZED.to_owned()));
    for sent in [None, Some("not well formed")] {
        let mut request = app.client.get(app.url("/health"));
        if let Some(sent) = sent {
            request = request.header("x-request-id", sent);
        }
        let fresh = request.send().await.unwrap();
        assert!(is_minted(&echoed(fresh.headers())), "{sent:?}");
        assert_eq!(
            status_and_text(fresh).await,
            (200, r#"{"status":"UP"}"#.to_owned())
        );
    }
}

#[actix_web::test]
async fn the_request_log_line_carries_the_request_id() {
    const ID: &str = "edge-analyzer-request-log";
    let logs = testkit::logs::captured();
    let app = TestApp::spawn(&[]).await;
    let response = app
        .client
        .get(app.url("/rules"))
        .header("x-request-id", ID)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 401);
    let line = logs
        .answered(ID)
        .unwrap_or_else(|| panic!("a request log line under {ID}: {:?}", logs.containing(ID)));
    assert_eq!(line["status"], 401);
    assert_eq!(line["level"], "INFO");
}
