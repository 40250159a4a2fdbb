//! Public log analysis over HTTP: realistic samples (`tests/logs/*`, one per common format)
//! with their reports pinned (`tests/logs/*.json`), and bad input in the envelope.

use crate::helpers::{TestApp, status_and_json, status_and_text};
use serde_json::{Value, json};
use std::path::Path;

async fn pinned(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/logs");
    let log = std::fs::read_to_string(dir.join(name)).expect("the sample");
    let expected = std::fs::read_to_string(dir.join(format!("{name}.json"))).expect("its report");
    let expected: Value = serde_json::from_str(&expected).expect("a JSON report");
    let app = TestApp::spawn(&[]).await;
    let (status, report) = status_and_json(app.analyze_log(&json!({ "log": log })).await).await;
    assert_eq!(status, 200);
    assert_eq!(
        report,
        expected,
        "{name}: got\n{}",
        serde_json::to_string_pretty(&report).expect("JSON")
    );
}

#[actix_web::test]
async fn spring_boot_text_with_a_stack_trace() {
    pinned("spring.log").await;
}

#[actix_web::test]
async fn pino_json_lines() {
    pinned("node.jsonl").await;
}

#[actix_web::test]
async fn logfmt_from_a_go_worker() {
    pinned("worker.logfmt").await;
}

#[actix_web::test]
async fn python_logging_with_a_traceback() {
    pinned("python.log").await;
}

#[actix_web::test]
async fn a_log_without_failures_has_no_first_failure() {
    let app = TestApp::spawn(&[]).await;
    let log = "INFO 2026-03-01 10:00:00 started\r\nDEBUG 2026-03-01 10:00:01 tick\r\n";
    let (status, report) = status_and_json(app.analyze_log(&json!({ "log": log })).await).await;
    assert_eq!(status, 200);
    assert_eq!(
        report,
        json!({
            "lines": 2,
            "entries": 2,
            "formats": {"json": 0, "logfmt": 0, "plain": 2},
            "levels": {"trace": 0, "debug": 1, "info": 1, "warn": 0, "error": 0, "fatal": 0, "unknown": 0},
            "errorGroups": [],
            "distinctErrors": 0,
            "firstFailure": null
        })
    );
}

#[actix_web::test]
async fn bad_input_is_4xx_in_the_envelope() {
    let app = TestApp::spawn(&[]).await;
    assert_eq!(
        status_and_text(app.analyze_log(&json!({ "log": " \n " })).await).await,
        (
            400,
            r#"{"error":"invalid_request","message":"log must not be empty"}"#.to_owned()
        )
    );
    let (status, body) = status_and_json(app.analyze_log(&json!({ "text": "x" })).await).await;
    assert_eq!(
        (status, &body["error"]),
        (400, &json!("invalid_request_body"))
    );
    let raw = app
        .client
        .post(app.url("/api/log-analysis"))
        .body("ERROR x");
    let raw = raw
        .header("content-type", "text/plain")
        .send()
        .await
        .expect("an answer");
    assert_eq!(status_and_text(raw).await.0, 415);
    let broken = app
        .client
        .post(app.url("/api/log-analysis"))
        .body("{\"log\": ");
    let broken = broken
        .header("content-type", "application/json")
        .send()
        .await;
    let (status, body) = status_and_json(broken.expect("an answer")).await;
    assert_eq!(
        (status, &body["error"]),
        (400, &json!("invalid_request_body"))
    );
    let huge = json!({ "log": "INFO x\n".repeat(150_000) });
    assert_eq!(
        status_and_text(app.analyze_log(&huge).await).await,
        (
            413,
            r#"{"error":"payload_too_large","message":"request body is larger than 1048576 bytes"}"#
                .to_owned()
        )
    );
}
