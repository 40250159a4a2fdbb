//! Every analysis is bounded: findings kept (the first in report order, with the `truncated`
//! marker saying how many were found), the answer's bytes, and its deadline.

use crate::helpers::{TestApp, header, status_and_text};
use serde_json::{Value, json};
use std::time::Duration;

const SECRET: &str = "`print` logs `password`, which looks like a secret or personal data";
const SECRET_FIX: &str = "log a digest or drop the field";

/// The finding `print(password)` gets at `path:line:1`: one problem, a secret printed.
fn leak(path: &str, line: u32) -> Value {
    json!({ "ruleId": "sensitive-data-in-logs", "analysisType": "sensitive-data-in-logs",
            "severity": "error", "path": path, "line": line, "column": 1,
            "message": SECRET, "fix": SECRET_FIX })
}

fn leaky_file(path: &str, lines: usize) -> Value {
    json!({ "path": path, "content": "print(password)\n".repeat(lines) })
}

#[actix_web::test]
async fn past_the_cap_the_first_findings_in_report_order_are_kept_and_the_rest_counted() {
    let app = TestApp::spawn(&[("ANALYZE_MAX_FINDINGS", "2")]).await;
    // Files in reverse order: the cap keeps the answer's first findings, not the first found.
    let batch = json!({ "files": [leaky_file("b.py", 2), leaky_file("a.py", 1)] });
    let response = app.post("/analyze", &batch).await;
    assert_eq!(
        header(&response, "content-type").as_deref(),
        Some("application/json")
    );
    let expected = json!({
        "findings": [leak("a.py", 1), leak("b.py", 1)],
        "summary": { "files": 2, "findings": 2, "truncated": true,
                     "reason": "max_findings", "found": 3 },
    });
    assert_eq!(status_and_text(response).await, (200, expected.to_string()));
}

#[actix_web::test]
async fn an_answer_within_the_bounds_keeps_its_old_shape() {
    let app = TestApp::spawn(&[("ANALYZE_MAX_FINDINGS", "2")]).await;
    let batch = json!({ "files": [leaky_file("a.py", 2)] });
    let expected = json!({
        "findings": [leak("a.py", 1), leak("a.py", 2)],
        "summary": { "files": 1, "findings": 2 },
    });
    assert_eq!(
        status_and_text(app.post("/analyze", &batch).await).await,
        (200, expected.to_string())
    );
}

#[actix_web::test]
async fn two_megabytes_of_findings_bait_answer_a_thousand_findings() {
    // The findings bound decides, not the 5 s default deadline a loaded debug build can meet.
    let app = TestApp::spawn(&[("ANALYZE_DEADLINE_MS", "60000")]).await;
    let lines = 2 * 1024 * 1024 / "print(password)\n".len();
    let batch = json!({ "files": [leaky_file("bait.py", lines)] });
    let (status, text) = status_and_text(app.post("/analyze", &batch).await).await;
    assert_eq!(status, 200);
    assert!(text.len() <= 2 * 1024 * 1024, "{} bytes", text.len());
    let answer: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        answer["summary"],
        json!({ "files": 1, "findings": 1000, "truncated": true,
                "reason": "max_findings", "found": lines })
    );
    let findings = answer["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1000);
    assert_eq!(findings[999], leak("bait.py", 1000));
}

#[actix_web::test]
async fn the_answer_never_outgrows_its_byte_bound() {
    let app = TestApp::spawn(&[("ANALYZE_MAX_ANSWER_BYTES", "1024")]).await;
    let batch = json!({ "files": [leaky_file("a.py", 10)] });
    let (status, text) = status_and_text(app.post("/analyze", &batch).await).await;
    assert_eq!(status, 200);
    assert!(text.len() <= 1024, "{} bytes: {text}", text.len());
    // Three findings make an 849-byte answer; a fourth would take it past 1024.
    let expected = json!({
        "findings": [leak("a.py", 1), leak("a.py", 2), leak("a.py", 3)],
        "summary": { "files": 1, "findings": 3, "truncated": true,
                     "reason": "max_answer_bytes", "found": 10 },
    });
    assert_eq!(text, expected.to_string());
}

#[actix_web::test]
async fn work_stops_at_the_deadline_and_the_answer_says_so() {
    let settings = [
        ("ANALYZE_DEADLINE_MS", "5000"),
        ("ANALYZER_MAX_BODY_BYTES", "33554432"),
    ];
    let app = TestApp::spawn(&settings).await;
    // 2000 files of one finding each: seconds of work in a debug build.
    let content = format!(
        "print(\"x =\", x)\n{}",
        "total = price * count\n".repeat(600)
    );
    let files: Vec<Value> = (0..2000)
        .map(|index| json!({ "path": format!("f{index:04}.py"), "content": content }))
        .collect();
    let batch = json!({ "files": files });
    let request = app.post("/analyze", &batch);
    let clock = app.clock.clone();
    // The fake clock runs at twenty times real speed: the deadline passes 250 ms into the work.
    let ticking = actix_web::rt::spawn(async move {
        loop {
            actix_web::rt::time::sleep(Duration::from_millis(5)).await;
            clock.advance(Duration::from_millis(100));
        }
    });
    let (status, text) = status_and_text(request.await).await;
    ticking.abort();
    assert_eq!(status, 200, "{text}");
    let answer: Value = serde_json::from_str(&text).unwrap();
    let summary = &answer["summary"];
    let kept = answer["findings"].as_array().unwrap().len() as u64;
    assert_eq!(summary["reason"], "deadline", "{summary}");
    assert_eq!(summary["truncated"], true);
    assert_eq!(summary["files"], 2000);
    assert_eq!(summary["findings"], kept);
    assert_eq!(
        summary["found"], kept,
        "everything found before the deadline is kept"
    );
    assert!(
        (1..2000).contains(&kept),
        "the work went on until the deadline, then stopped: {kept} files analyzed"
    );
}

#[actix_web::test]
async fn bounds_are_settings_and_nonsense_stops_start_up() {
    for (name, value) in [
        ("ANALYZE_MAX_FINDINGS", "0"),
        ("ANALYZE_MAX_ANSWER_BYTES", "lots"),
        ("ANALYZE_DEADLINE_MS", "0"),
    ] {
        let env: platform::MapEnv = [("ANALYZER_TOKEN", "t"), (name, value)]
            .into_iter()
            .collect();
        let error = analyzer::AnalyzerConfig::from_env(&env).expect_err(name);
        assert!(error.to_string().contains(name), "{error}");
    }
}
